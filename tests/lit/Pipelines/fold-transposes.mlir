// RUN: ltc-mlir-opt %s --split-input-file --pass-pipeline="builtin.module(func.func(ltc-fold-transposes-into-contractions))" | FileCheck %s
// RUN: ltc-mlir-opt %s --split-input-file --pass-pipeline="builtin.module(func.func(ltc-fold-transposes-into-contractions,ltc-tile-and-vectorize{vector-bits=256}),canonicalize,cse,func.func(loop-invariant-subset-hoisting))" | FileCheck %s --check-prefix=TILE

// The weight gradient of a Linear: t(mm(t(x), g)). Both transposes fold: the
// result is written directly in [out, in] layout, x (the vector operand) is
// read along its contiguous dim and g by scalar broadcasts.
// CHECK-DAG: #[[X:.*]] = affine_map<(d0, d1, d2) -> (d2, d0)>
// CHECK-DAG: #[[G:.*]] = affine_map<(d0, d1, d2) -> (d2, d1)>
// CHECK-DAG: #[[OUT:.*]] = affine_map<(d0, d1, d2) -> (d1, d0)>
// CHECK-LABEL: func.func @weight_grad
// CHECK-SAME: (%[[XA:.*]]: tensor<64x784xf32>, %[[GA:.*]]: tensor<64x512xf32>)
// CHECK-NOT: linalg.transpose
// CHECK: %[[E:.*]] = tensor.empty() : tensor<512x784xf32>
// CHECK: %[[F:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%[[E]] : tensor<512x784xf32>)
// CHECK: %[[R:.*]] = linalg.generic {indexing_maps = [#[[X]], #[[G]], #[[OUT]]], iterator_types = ["parallel", "parallel", "reduction"]}
// CHECK-SAME: ins(%[[XA]], %[[GA]] : tensor<64x784xf32>, tensor<64x512xf32>) outs(%[[F]] : tensor<512x784xf32>)
// CHECK: arith.mulf
// CHECK: arith.addf
// CHECK-NOT: linalg.transpose
// CHECK: return %[[R]]
// After folding, the vector dim of the register tile is the innermost dim of
// the result (d0, 784), not inferContractionDims' "n": 16 contiguous
// elements of a row of x times 4 broadcast elements of a row of g; the
// parallel tiles are row blocks of the result.
// TILE-LABEL: func.func @weight_grad
// TILE: scf.forall (%{{.*}}) = (0) to (512) step (64)
// TILE: scf.for {{.*}} -> ({{.*}}vector<4x16xf32>)
// TILE: vector.transfer_read {{.*}} : tensor<64x784xf32>, vector<1x16xf32>
// TILE: vector.transfer_read {{.*}} : tensor<64x512xf32>, vector<1x4xf32>
// TILE: vector.contract {{.*}} vector<1x16xf32>, vector<1x4xf32> into vector<4x16xf32>
func.func @weight_grad(%x: tensor<64x784xf32>, %g: tensor<64x512xf32>) -> tensor<512x784xf32> {
  %cst = arith.constant 0.0 : f32
  %e0 = tensor.empty() : tensor<784x64xf32>
  %xt = linalg.transpose ins(%x : tensor<64x784xf32>) outs(%e0 : tensor<784x64xf32>) permutation = [1, 0]
  %e1 = tensor.empty() : tensor<784x512xf32>
  %f = linalg.fill ins(%cst : f32) outs(%e1 : tensor<784x512xf32>) -> tensor<784x512xf32>
  %mm = linalg.matmul ins(%xt, %g : tensor<784x64xf32>, tensor<64x512xf32>) outs(%f : tensor<784x512xf32>) -> tensor<784x512xf32>
  %e2 = tensor.empty() : tensor<512x784xf32>
  %r = linalg.transpose ins(%mm : tensor<784x512xf32>) outs(%e2 : tensor<512x784xf32>) permutation = [1, 0]
  return %r : tensor<512x784xf32>
}

// -----

// The forward of a Linear: mm(x, t(W)). Folding would make the vector
// operand W strided along N, so the transpose stays as the packing step; its
// rows (512 f32 = 2 KiB, all in the same L1 sets) are padded by one line.
// CHECK-LABEL: func.func @linear_forward
// CHECK: %[[P:.*]] = tensor.empty() : tensor<784x528xf32>
// CHECK: %[[S:.*]] = tensor.extract_slice %[[P]][0, 0] [784, 512] [1, 1]
// CHECK: %[[T:.*]] = linalg.transpose ins(%{{.*}} : tensor<512x784xf32>) outs(%[[S]] : tensor<784x512xf32>)
// CHECK: linalg.matmul ins(%{{.*}}, %[[T]] :
// The packing transpose itself moves 8x8 blocks: contiguous row loads and a
// register transpose instead of one strided load per element.
// TILE-LABEL: func.func @linear_forward
// TILE: vector.transfer_read {{.*}} : tensor<512x784xf32>, vector<8x8xf32>
// TILE: vector.transpose {{.*}} [1, 0] : vector<8x8xf32> to vector<8x8xf32>
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

// A transposed LHS alone folds (its layout does not matter for broadcasts);
// a transpose with another user stays for that user. A small transpose whose
// rows do not conflict is not padded.
// CHECK-LABEL: func.func @lhs_transpose_shared
// CHECK: %[[T:.*]] = linalg.transpose ins(%[[A:.*]] : tensor<16x8xf32>) outs(%{{.*}} : tensor<8x16xf32>)
// CHECK: %[[R:.*]] = linalg.generic {{.*}} ins(%[[A]], %{{.*}} : tensor<16x8xf32>, tensor<16x32xf32>)
// CHECK: return %[[R]], %[[T]]
func.func @lhs_transpose_shared(%a: tensor<16x8xf32>, %b: tensor<16x32xf32>) -> (tensor<8x32xf32>, tensor<8x16xf32>) {
  %cst = arith.constant 0.0 : f32
  %e0 = tensor.empty() : tensor<8x16xf32>
  %at = linalg.transpose ins(%a : tensor<16x8xf32>) outs(%e0 : tensor<8x16xf32>) permutation = [1, 0]
  %e1 = tensor.empty() : tensor<8x32xf32>
  %f = linalg.fill ins(%cst : f32) outs(%e1 : tensor<8x32xf32>) -> tensor<8x32xf32>
  %mm = linalg.matmul ins(%at, %b : tensor<8x16xf32>, tensor<16x32xf32>) outs(%f : tensor<8x32xf32>) -> tensor<8x32xf32>
  return %mm, %at : tensor<8x32xf32>, tensor<8x16xf32>
}
