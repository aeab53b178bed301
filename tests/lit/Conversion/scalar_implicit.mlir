// RUN: ltc-mlir-opt --convert-torch-to-linalg --split-input-file --verify-diagnostics %s | FileCheck %s

// torch 2.x's LTC passes a Python number (here add's alpha) as a 0-dim graph
// input; ScalarImplicit reads its element as the scalar the op takes: f64
// for a float tensor (an f32 input widens exactly).
// CHECK-LABEL: func.func @alpha_from_f64_input(
// CHECK-SAME: %[[S:[a-z0-9_]+]]: tensor<f64>
// CHECK: %[[E:.*]] = tensor.extract %[[S]][] : tensor<f64>
// CHECK: linalg.generic
// CHECK: arith.mulf %{{.*}}, %{{.*}}
func.func @alpha_from_f64_input(%a: !torch.vtensor<[4],f32>, %b: !torch.vtensor<[4],f32>, %s: !torch.vtensor<[],f64>) -> !torch.vtensor<[4],f32> {
  %alpha = torch.aten.ScalarImplicit %s : (!torch.vtensor<[],f64>) -> !torch.float
  %0 = torch.aten.add.Tensor %a, %b, %alpha : (!torch.vtensor<[4],f32>, !torch.vtensor<[4],f32>, !torch.float) -> !torch.vtensor<[4],f32>
  return %0 : !torch.vtensor<[4],f32>
}

// -----

// An integer tensor gives an int (i64), sign-extended.
// CHECK-LABEL: func.func @int_from_si32_input(
// CHECK: %[[E:.*]] = tensor.extract %{{.*}}[] : tensor<i32>
// CHECK: arith.extsi %[[E]] : i32 to i64
func.func @int_from_si32_input(%a: !torch.vtensor<[4],si64>, %s: !torch.vtensor<[],si32>) -> !torch.vtensor<[4],si64> {
  %k = torch.aten.ScalarImplicit %s : (!torch.vtensor<[],si32>) -> !torch.int
  %0 = torch.aten.mul.Scalar %a, %k : (!torch.vtensor<[4],si64>, !torch.int) -> !torch.vtensor<[4],si64>
  return %0 : !torch.vtensor<[4],si64>
}

// -----

// A float tensor cannot be read as an int.
func.func @int_from_float_input(%s: !torch.vtensor<[],f32>) -> !torch.int {
  // expected-error @+1 {{an int result needs an integer tensor}}
  %k = torch.aten.ScalarImplicit %s : (!torch.vtensor<[],f32>) -> !torch.int
  return %k : !torch.int
}
