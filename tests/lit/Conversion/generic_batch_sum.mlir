// RUN: ltc-mlir-opt --convert-torch-to-linalg --split-input-file %s | FileCheck %s

// Lowered for code for every batch size (ltc.generic_batch_size = 64): the
// batch loop of a column sum is summed plainly (no blocks chosen from 4096's
// divisors), after the usual lanes over the other reduced loop.
// CHECK-LABEL: func.func @sum_over_batch_and_features(
// CHECK-SAME: %[[A:.*]]: tensor<4096x1000xf32>) -> tensor<f32>
// CHECK: %[[LANES:.*]] = tensor.expand_shape %{{.*}} output_shape [4096, 62, 16]
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "reduction", "parallel"]} ins(%[[LANES]] : tensor<4096x62x16xf32>) outs(%{{.*}} : tensor<4096x16xf32>)
// CHECK: %[[ROWS:.*]] = linalg.generic {{.*}} ins(%{{.*}}, %{{.*}} : tensor<4096xf32>, tensor<4096xf32>)
// CHECK:   arith.addf
// CHECK: %[[SUM:.*]] = linalg.generic {{.*}} iterator_types = ["reduction"]} ins(%[[ROWS]] : tensor<4096xf32>) outs(%{{.*}} : tensor<f32>)
// CHECK-NOT: tensor.expand_shape
// CHECK: return %[[SUM]]
module attributes {ltc.generic_batch_size = 64 : i64} {
func.func @sum_over_batch_and_features(%a: !torch.vtensor<[4096,1000],f32>) -> !torch.vtensor<[],f32> {
  %none = torch.constant.none
  %0 = torch.aten.sum %a, %none : (!torch.vtensor<[4096,1000],f32>, !torch.none) -> !torch.vtensor<[],f32>
  return %0 : !torch.vtensor<[],f32>
}
}

// -----

// Without the attribute the same sum is blocked along the batch too.
// CHECK-LABEL: func.func @sum_over_batch_and_features_static(
// CHECK: tensor.expand_shape {{.*}} output_shape [1024, 4, 62, 16]
func.func @sum_over_batch_and_features_static(%a: !torch.vtensor<[4096,1000],f32>) -> !torch.vtensor<[],f32> {
  %none = torch.constant.none
  %0 = torch.aten.sum %a, %none : (!torch.vtensor<[4096,1000],f32>, !torch.none) -> !torch.vtensor<[],f32>
  return %0 : !torch.vtensor<[],f32>
}
