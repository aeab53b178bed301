// RUN: ltc-mlir-opt --convert-torch-to-linalg --split-input-file %s | FileCheck %s

// addmm: the product accumulates into a zero-filled init; beta * self (self
// broadcast from [N]) + alpha * product follows. A runtime beta of 0 must
// ignore self (NaN in self does not propagate), as in ATen.
// CHECK-DAG: #[[BIAS:.*]] = affine_map<(d0, d1) -> (d1)>
// CHECK-DAG: #[[ID:.*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-LABEL: func.func @addmm(
// CHECK-SAME: %[[BIASV:.*]]: tensor<5xf32>, %[[A:.*]]: tensor<4x3xf32>, %[[B:.*]]: tensor<3x5xf32>, %[[BETA:.*]]: f64, %[[ALPHA:.*]]: f64)
// CHECK: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK: %[[INIT:.*]] = linalg.fill ins(%[[ZERO]] : f32) outs(%{{.*}} : tensor<4x5xf32>)
// CHECK: %[[MM:.*]] = linalg.matmul ins(%[[A]], %[[B]] : tensor<4x3xf32>, tensor<3x5xf32>) outs(%[[INIT]] : tensor<4x5xf32>)
// CHECK: %[[ALPHA32:.*]] = arith.truncf %[[ALPHA]] : f64 to f32
// CHECK: %[[BETA32:.*]] = arith.truncf %[[BETA]] : f64 to f32
// CHECK: %[[BETA_IS_0:.*]] = arith.cmpf oeq, %[[BETA32]], %{{.*}} : f32
// CHECK: linalg.generic {indexing_maps = [#[[BIAS]], #[[ID]], #[[ID]]]
// CHECK-SAME: ins(%[[BIASV]], %[[MM]] : tensor<5xf32>, tensor<4x5xf32>)
// CHECK: ^bb0(%[[S:.*]]: f32, %[[P:.*]]: f32, %{{.*}}: f32):
// CHECK:   %[[AP:.*]] = arith.mulf %[[ALPHA32]], %[[P]] : f32
// CHECK:   %[[BS:.*]] = arith.mulf %[[BETA32]], %[[S]] : f32
// CHECK:   %[[SUM:.*]] = arith.addf %[[BS]], %[[AP]] : f32
// CHECK:   arith.select %[[BETA_IS_0]], %[[AP]], %[[SUM]] : f32
func.func @addmm(%bias: !torch.vtensor<[5],f32>, %a: !torch.vtensor<[4,3],f32>, %b: !torch.vtensor<[3,5],f32>, %beta: !torch.float, %alpha: !torch.float) -> !torch.vtensor<[4,5],f32> {
  %0 = torch.aten.addmm %bias, %a, %b, %beta, %alpha : (!torch.vtensor<[5],f32>, !torch.vtensor<[4,3],f32>, !torch.vtensor<[3,5],f32>, !torch.float, !torch.float) -> !torch.vtensor<[4,5],f32>
  return %0 : !torch.vtensor<[4,5],f32>
}

// -----

// Constant beta = alpha = 1 (nn.Linear) is a plain add.
// CHECK-LABEL: func.func @addmm_unit_scalars(
// CHECK: %[[MM:.*]] = linalg.matmul
// CHECK: linalg.generic
// CHECK: ^bb0(%[[S:.*]]: f32, %[[P:.*]]: f32, %{{.*}}: f32):
// CHECK-NEXT: %[[SUM:.*]] = arith.addf %[[S]], %[[P]] : f32
// CHECK-NEXT: linalg.yield %[[SUM]] : f32
func.func @addmm_unit_scalars(%bias: !torch.vtensor<[5],f32>, %a: !torch.vtensor<[4,3],f32>, %b: !torch.vtensor<[3,5],f32>) -> !torch.vtensor<[4,5],f32> {
  %int1 = torch.constant.int 1
  %0 = torch.aten.addmm %bias, %a, %b, %int1, %int1 : (!torch.vtensor<[5],f32>, !torch.vtensor<[4,3],f32>, !torch.vtensor<[3,5],f32>, !torch.int, !torch.int) -> !torch.vtensor<[4,5],f32>
  return %0 : !torch.vtensor<[4,5],f32>
}

// -----

// CHECK-LABEL: func.func @bmm(
// CHECK: %[[INIT:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<2x4x5xf32>)
// CHECK: linalg.batch_matmul ins(%{{.*}}, %{{.*}} : tensor<2x4x3xf32>, tensor<2x3x5xf32>) outs(%[[INIT]] : tensor<2x4x5xf32>)
func.func @bmm(%a: !torch.vtensor<[2,4,3],f32>, %b: !torch.vtensor<[2,3,5],f32>) -> !torch.vtensor<[2,4,5],f32> {
  %0 = torch.aten.bmm %a, %b : (!torch.vtensor<[2,4,3],f32>, !torch.vtensor<[2,3,5],f32>) -> !torch.vtensor<[2,4,5],f32>
  return %0 : !torch.vtensor<[2,4,5],f32>
}
