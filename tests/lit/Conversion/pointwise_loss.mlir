// RUN: ltc-mlir-opt --convert-torch-to-linalg --split-input-file --verify-diagnostics %s | FileCheck %s

// smooth_l1_loss(beta = 0.5), mean: |d| < beta ? 0.5 d^2 / beta : |d| - 0.25
// per element, then a blocked sum divided by numel (20).
// CHECK-LABEL: func.func @smooth_l1_mean(
// CHECK: linalg.generic
// CHECK: arith.subf
// CHECK: math.absf
// CHECK: arith.cmpf olt
// CHECK: arith.select
// CHECK: linalg.generic
// CHECK-SAME: "reduction"
// CHECK: arith.constant 2.000000e+01 : f32
// CHECK: arith.divf
func.func @smooth_l1_mean(%x: !torch.vtensor<[4,5],f32>, %y: !torch.vtensor<[4,5],f32>) -> !torch.vtensor<[],f32> {
  %int1 = torch.constant.int 1
  %beta = torch.constant.float 5.000000e-01
  %0 = "torch.aten.smooth_l1_loss"(%x, %y, %int1, %beta) : (!torch.vtensor<[4,5],f32>, !torch.vtensor<[4,5],f32>, !torch.int, !torch.float) -> !torch.vtensor<[],f32>
  return %0 : !torch.vtensor<[],f32>
}

// -----

// binary_cross_entropy_backward with a [5] weight broadcast over rows, sum:
// the input range is checked at run time; g (x - t) / max((1 - x) x, 1e-12) * w.
// CHECK-LABEL: func.func @bce_backward(
// CHECK: scf.if
// CHECK: call @ltc_mlir_rt_check_failed
// CHECK: linalg.generic
// CHECK-SAME: ins(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} : tensor<f32>, tensor<4x5xf32>, tensor<4x5xf32>, tensor<5xf32>)
// CHECK: arith.constant 9.99999996E-13 : f32
// CHECK: arith.maximumf
// CHECK: arith.divf
func.func @bce_backward(%g: !torch.vtensor<[],f32>, %x: !torch.vtensor<[4,5],f32>, %y: !torch.vtensor<[4,5],f32>, %w: !torch.vtensor<[5],f32>) -> !torch.vtensor<[4,5],f32> {
  %int2 = torch.constant.int 2
  %0 = "torch.aten.binary_cross_entropy_backward"(%g, %x, %y, %w, %int2) : (!torch.vtensor<[],f32>, !torch.vtensor<[4,5],f32>, !torch.vtensor<[4,5],f32>, !torch.vtensor<[5],f32>, !torch.int) -> !torch.vtensor<[4,5],f32>
  return %0 : !torch.vtensor<[4,5],f32>
}

// -----

func.func @huber_bad_delta(%x: !torch.vtensor<[4],f32>, %y: !torch.vtensor<[4],f32>) -> !torch.vtensor<[],f32> {
  %int1 = torch.constant.int 1
  %delta = torch.constant.float 0.000000e+00
  // expected-error @+1 {{unsupported op 'torch.aten.huber_loss': delta must be a float constant > 0}}
  %0 = "torch.aten.huber_loss"(%x, %y, %int1, %delta) : (!torch.vtensor<[4],f32>, !torch.vtensor<[4],f32>, !torch.int, !torch.float) -> !torch.vtensor<[],f32>
  return %0 : !torch.vtensor<[],f32>
}
