// RUN: ltc-mlir-opt --convert-torch-to-linalg --split-input-file %s | FileCheck %s

// remainder of integers: the divisor is checked at run time, made safe
// (0 and -1 divide by 1), and the C remainder gets the divisor's sign.
// CHECK: ltc.runtime_checks = ["torch.aten.remainder.Tensor: ZeroDivisionError
// CHECK-LABEL: func.func @remainder_int(
// CHECK: func.call @ltc_mlir_rt_check_failed
// CHECK: linalg.generic
// CHECK: ^bb0(%[[A:.*]]: i32, %[[D:.*]]: i32, %{{.*}}: i32):
// CHECK: %[[SAFE:.*]] = arith.select %{{.*}}, %{{.*}}, %[[D]] : i32
// CHECK: %[[R:.*]] = arith.remsi %[[A]], %[[SAFE]] : i32
// CHECK: arith.addi %{{.*}}, %[[D]] : i32
func.func @remainder_int(%a: !torch.vtensor<[4,5],si32>, %d: !torch.vtensor<[5],si32>) -> !torch.vtensor<[4,5],si32> {
  %0 = torch.aten.remainder.Tensor %a, %d : (!torch.vtensor<[4,5],si32>, !torch.vtensor<[5],si32>) -> !torch.vtensor<[4,5],si32>
  return %0 : !torch.vtensor<[4,5],si32>
}

// -----

// f16 math computes in f32 and rounds once; the scalar is rounded to f16
// first (Scalar::to<Half>).
// CHECK-LABEL: func.func @clamp_min_half(
// CHECK: arith.truncf %{{.*}} : f64 to f32
// CHECK: arith.truncf %{{.*}} : f32 to f16
// CHECK: %[[M:.*]] = arith.extf %{{.*}} : f16 to f32
// CHECK: linalg.generic
// CHECK: %[[X:.*]] = arith.extf %{{.*}} : f16 to f32
// CHECK: %[[R:.*]] = arith.maximumf %[[X]], %[[M]] : f32
// CHECK: arith.truncf %[[R]] : f32 to f16
func.func @clamp_min_half(%x: !torch.vtensor<[8],f16>, %m: !torch.float) -> !torch.vtensor<[8],f16> {
  %0 = torch.aten.clamp_min %x, %m : (!torch.vtensor<[8],f16>, !torch.float) -> !torch.vtensor<[8],f16>
  return %0 : !torch.vtensor<[8],f16>
}

// -----

// glu: the two halves along dim are slices of self.
// CHECK-LABEL: func.func @glu(
// CHECK: tensor.extract_slice %{{.*}}[0, 0] [4, 3] [1, 1] : tensor<4x6xf32> to tensor<4x3xf32>
// CHECK: tensor.extract_slice %{{.*}}[0, 3] [4, 3] [1, 1] : tensor<4x6xf32> to tensor<4x3xf32>
// CHECK: linalg.generic
// CHECK: math.exp
func.func @glu(%x: !torch.vtensor<[4,6],f32>) -> !torch.vtensor<[4,3],f32> {
  %c1 = torch.constant.int 1
  %0 = torch.aten.glu %x, %c1 : (!torch.vtensor<[4,6],f32>, !torch.int) -> !torch.vtensor<[4,3],f32>
  return %0 : !torch.vtensor<[4,3],f32>
}

// -----

// polygamma(n >= 2): the Hurwitz zeta's direct sum is an scf.for whose trip
// count depends on the element.
// CHECK-LABEL: func.func @polygamma3(
// CHECK: linalg.generic
// CHECK: scf.for
// CHECK: math.powf
func.func @polygamma3(%x: !torch.vtensor<[7],f32>) -> !torch.vtensor<[7],f32> {
  %c3 = torch.constant.int 3
  %0 = torch.aten.polygamma %c3, %x : (!torch.int, !torch.vtensor<[7],f32>) -> !torch.vtensor<[7],f32>
  return %0 : !torch.vtensor<[7],f32>
}
