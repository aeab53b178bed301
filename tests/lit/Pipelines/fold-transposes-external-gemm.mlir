// RUN: ltc-mlir-opt %s --split-input-file --pass-pipeline="builtin.module(func.func(ltc-fold-transposes-into-contractions{external-gemm=true}))" | FileCheck %s
// RUN: ltc-mlir-opt %s --split-input-file --pass-pipeline="builtin.module(func.func(ltc-fold-transposes-into-contractions))" | FileCheck %s --check-prefix=GENERATED

// With the runtime GEMM (external-gemm=true), the forward of a Linear,
// mm(x, t(W)), reads W in place (oneDNN takes it as a transposed operand):
// no packing copy of the weights per step. The generated kernel keeps the
// transpose (its vector operand must be contiguous along N).
// CHECK-DAG: #[[W:.*]] = affine_map<(d0, d1, d2) -> (d1, d2)>
// CHECK-LABEL: func.func @linear_forward
// CHECK-SAME: (%[[X:.*]]: tensor<64x784xf32>, %[[WA:.*]]: tensor<512x784xf32>)
// CHECK-NOT: linalg.transpose
// CHECK: linalg.generic {indexing_maps = [#{{.*}}, #[[W]], #{{.*}}]
// CHECK-SAME: ins(%[[X]], %[[WA]] : tensor<64x784xf32>, tensor<512x784xf32>)
// GENERATED-LABEL: func.func @linear_forward
// GENERATED: linalg.transpose
// GENERATED: linalg.matmul
func.func @linear_forward(%x: tensor<64x784xf32>, %w: tensor<512x784xf32>) -> tensor<64x512xf32> {
  %cst = arith.constant 0.0 : f32
  %e0 = tensor.empty() : tensor<784x512xf32>
  %wt = linalg.transpose ins(%w : tensor<512x784xf32>) outs(%e0 : tensor<784x512xf32>) permutation = [1, 0]
  %e1 = tensor.empty() : tensor<64x512xf32>
  %f = linalg.fill ins(%cst : f32) outs(%e1 : tensor<64x512xf32>) -> tensor<64x512xf32>
  %mm = linalg.matmul ins(%x, %wt : tensor<64x784xf32>, tensor<784x512xf32>) outs(%f : tensor<64x512xf32>) -> tensor<64x512xf32>
  return %mm : tensor<64x512xf32>
}

// -----

// A convolution's weight gradient: a batch matmul [G, C*T, F] whose result
// is permuted to [G, F, C*T] by a copy-only linalg.generic (what elementwise
// fusion leaves of a transpose). The permutation folds into the result map:
// the GEMM writes the weight layout directly.
// CHECK-DAG: #[[OUT:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d2, d1)>
// CHECK-LABEL: func.func @conv_weight_grad
// CHECK: %[[E:.*]] = tensor.empty() : tensor<1x512x4608xf32>
// CHECK: %[[F:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%[[E]] : tensor<1x512x4608xf32>)
// CHECK: %[[R:.*]] = linalg.generic {indexing_maps = [#{{.*}}, #{{.*}}, #[[OUT]]]
// CHECK-SAME: outs(%[[F]] : tensor<1x512x4608xf32>)
// CHECK-NEXT: ^bb0
// CHECK: return %[[R]]
// GENERATED-LABEL: func.func @conv_weight_grad
// GENERATED: linalg.batch_matmul
#id = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#swap = affine_map<(d0, d1, d2) -> (d0, d2, d1)>
func.func @conv_weight_grad(%col: tensor<1x4608x32xf32>, %g: tensor<1x32x512xf32>) -> tensor<1x512x4608xf32> {
  %cst = arith.constant 0.0 : f32
  %e0 = tensor.empty() : tensor<1x4608x512xf32>
  %f = linalg.fill ins(%cst : f32) outs(%e0 : tensor<1x4608x512xf32>) -> tensor<1x4608x512xf32>
  %mm = linalg.batch_matmul ins(%col, %g : tensor<1x4608x32xf32>, tensor<1x32x512xf32>) outs(%f : tensor<1x4608x512xf32>) -> tensor<1x4608x512xf32>
  %e1 = tensor.empty() : tensor<1x512x4608xf32>
  %r = linalg.generic {indexing_maps = [#swap, #id], iterator_types = ["parallel", "parallel", "parallel"]} ins(%mm : tensor<1x4608x512xf32>) outs(%e1 : tensor<1x512x4608xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<1x512x4608xf32>
  return %r : tensor<1x512x4608xf32>
}
