// RUN: ltc-mlir-opt --convert-torch-to-linalg --split-input-file %s | FileCheck %s

// gelu with approximate="none": x * 0.5 * (1 + erf(x * M_SQRT1_2)), ATen's
// association; the string operand is read from torch.constant.str.
// CHECK-LABEL: func.func @gelu_erf(
// CHECK: linalg.generic
// CHECK: ^bb0(%[[X:.*]]: f32, %{{.*}}: f32):
// CHECK: %[[ALPHA:.*]] = arith.constant 0.707106769 : f32
// CHECK: %[[XA:.*]] = arith.mulf %[[X]], %[[ALPHA]] : f32
// CHECK: %[[E:.*]] = math.erf %[[XA]] : f32
// CHECK: %[[ONE:.*]] = arith.constant 1.000000e+00 : f32
// CHECK: %[[P:.*]] = arith.addf %[[ONE]], %[[E]] : f32
// CHECK: %[[HALF:.*]] = arith.constant 5.000000e-01 : f32
// CHECK: %[[XH:.*]] = arith.mulf %[[X]], %[[HALF]] : f32
// CHECK: arith.mulf %[[XH]], %[[P]] : f32
func.func @gelu_erf(%x: !torch.vtensor<[4,5],f32>) -> !torch.vtensor<[4,5],f32> {
  %none = torch.constant.str "none"
  %0 = torch.aten.gelu %x, %none : (!torch.vtensor<[4,5],f32>, !torch.str) -> !torch.vtensor<[4,5],f32>
  return %0 : !torch.vtensor<[4,5],f32>
}

// -----

// approximate="tanh": 0.5 * x * (1 + tanh(sqrt(2/pi) * (x + 0.044715 x^3))).
// CHECK-LABEL: func.func @gelu_tanh(
// CHECK: math.tanh
// CHECK-NOT: math.erf
func.func @gelu_tanh(%x: !torch.vtensor<[3],f64>) -> !torch.vtensor<[3],f64> {
  %tanh = torch.constant.str "tanh"
  %0 = torch.aten.gelu %x, %tanh : (!torch.vtensor<[3],f64>, !torch.str) -> !torch.vtensor<[3],f64>
  return %0 : !torch.vtensor<[3],f64>
}

// -----

// gelu_backward (erf): dy * (cdf + x * pdf), pdf = exp(-x^2 / 2) / sqrt(2 pi).
// CHECK-LABEL: func.func @gelu_backward(
// CHECK: linalg.generic
// CHECK: ^bb0(%[[DY:.*]]: f32, %[[X:.*]]: f32, %{{.*}}: f32):
// CHECK: math.erf
// CHECK: %[[X2:.*]] = arith.mulf %[[X]], %[[X]] : f32
// CHECK: math.exp
// CHECK: %[[S:.*]] = arith.addf
// CHECK: arith.mulf %[[DY]], %[[S]] : f32
func.func @gelu_backward(%dy: !torch.vtensor<[4],f32>, %x: !torch.vtensor<[4],f32>) -> !torch.vtensor<[4],f32> {
  %none = torch.constant.str "none"
  %0 = torch.aten.gelu_backward %dy, %x, %none : (!torch.vtensor<[4],f32>, !torch.vtensor<[4],f32>, !torch.str) -> !torch.vtensor<[4],f32>
  return %0 : !torch.vtensor<[4],f32>
}
