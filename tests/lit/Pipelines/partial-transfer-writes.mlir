// RUN: ltc-mlir-opt %s --split-input-file --pass-pipeline="builtin.module(func.func(ltc-split-partial-transfer-writes))" | FileCheck %s
// RUN: ltc-mlir-opt %s --split-input-file --pass-pipeline="builtin.module(ltc-prepare-function-boundaries,func.func(ltc-split-partial-transfer-writes),eliminate-empty-tensors,one-shot-bufferize{bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map},canonicalize,cse,buffer-results-to-out-params{hoist-static-allocs modify-public-functions})" | FileCheck %s --check-prefix=BUF

// A write of one row (what x[0] = v becomes after tiling and the
// tensor-subset folds). Bufferization compares the shapes position by
// position (3 <= 4) and takes it for a full overwrite: without the split the
// copy of %x into the result is dropped and rows 1 and 2 are garbage.
// CHECK-LABEL: func.func @row_write(
// CHECK-SAME: %[[V:.*]]: vector<4xf32>, %[[X:.*]]: tensor<3x4xf32>)
// CHECK: %[[S:.*]] = tensor.extract_slice %[[X]][0, 0] [1, 4] [1, 1] : tensor<3x4xf32> to tensor<1x4xf32>
// CHECK: %[[W:.*]] = vector.transfer_write %[[V]], %[[S]][%{{.*}}, %{{.*}}] {in_bounds = [true]} : vector<4xf32>, tensor<1x4xf32>
// CHECK: %[[R:.*]] = tensor.insert_slice %[[W]] into %[[X]][0, 0] [1, 4] [1, 1] : tensor<1x4xf32> into tensor<3x4xf32>
// CHECK: return %[[R]]
// The read-only input is copied into the out-param, then the row written.
// BUF-LABEL: func.func @row_write(
// BUF-SAME: %[[V:.*]]: vector<4xf32>, %[[X:.*]]: memref<3x4xf32>, %[[OUT:.*]]: memref<3x4xf32>)
// BUF: memref.copy %[[X]], %[[OUT]] : memref<3x4xf32> to memref<3x4xf32>
// BUF: %[[ROW:.*]] = memref.subview %[[OUT]][0, 0] [1, 4] [1, 1]
// BUF: memref.copy %{{.*}}, %[[ROW]]
// BUF: return
func.func @row_write(%v: vector<4xf32>, %x: tensor<3x4xf32>) -> tensor<3x4xf32> {
  %c0 = arith.constant 0 : index
  %w = vector.transfer_write %v, %x[%c0, %c0] {in_bounds = [true]} : vector<4xf32>, tensor<3x4xf32>
  return %w : tensor<3x4xf32>
}

// -----

// The same for a 4-d tensor: the write covers [1, 1, 1, 8] of [2, 3, 5, 8].
// CHECK-LABEL: func.func @row_write_4d(
// CHECK: tensor.extract_slice %{{.*}}[0, 0, 0, 0] [1, 1, 1, 8] [1, 1, 1, 1] : tensor<2x3x5x8xf32> to tensor<1x1x1x8xf32>
// CHECK: tensor.insert_slice
// BUF-LABEL: func.func @row_write_4d(
// BUF-SAME: %[[X:[a-z0-9]*]]: memref<2x3x5x8xf32>, %[[OUT:.*]]: memref<2x3x5x8xf32>)
// BUF: memref.copy %[[X]], %[[OUT]] : memref<2x3x5x8xf32> to memref<2x3x5x8xf32>
func.func @row_write_4d(%v: vector<8xf32>, %x: tensor<2x3x5x8xf32>) -> tensor<2x3x5x8xf32> {
  %c0 = arith.constant 0 : index
  %w = vector.transfer_write %v, %x[%c0, %c0, %c0, %c0] {in_bounds = [true]} : vector<8xf32>, tensor<2x3x5x8xf32>
  return %w : tensor<2x3x5x8xf32>
}

// -----

// A permuted write of a 2 x 3 vector into a 1 x 3 tensor: position by
// position the shapes pass (1 <= 2, 3 <= 3), but vector dim 0 (2 lanes)
// lands on tensor dim 1 (3 elements; vector dim 1 is out of bounds past
// index 0): element [0, 2] of the destination is kept.
// CHECK-LABEL: func.func @permuted_write(
// CHECK: tensor.extract_slice %{{.*}}[0, 0] [1, 2] [1, 1] : tensor<1x3xf32> to tensor<1x2xf32>
// CHECK: vector.transfer_write {{.*}} {in_bounds = [true, false], permutation_map = #{{.*}}} : vector<2x3xf32>, tensor<1x2xf32>
// CHECK: tensor.insert_slice
// BUF-LABEL: func.func @permuted_write(
// BUF: memref.copy %{{.*}}, %{{.*}} : memref<1x3xf32> to memref<1x3xf32>
func.func @permuted_write(%v: vector<2x3xf32>, %x: tensor<1x3xf32>) -> tensor<1x3xf32> {
  %c0 = arith.constant 0 : index
  %w = vector.transfer_write %v, %x[%c0, %c0] {in_bounds = [true, false], permutation_map = affine_map<(d0, d1) -> (d1, d0)>} : vector<2x3xf32>, tensor<1x3xf32>
  return %w : tensor<1x3xf32>
}

// -----

// Writes bufferization already reads correctly are left alone: a full
// overwrite, a write at a non-zero offset, a smaller same-rank write
// (2 < 3 at the same position).
// CHECK-LABEL: func.func @left_alone(
// CHECK-NOT: tensor.extract_slice
// CHECK-NOT: tensor.insert_slice
// CHECK: return
// The full overwrite needs no copy of %x; the partial ones copy it.
// BUF-LABEL: func.func @left_alone(
// BUF-COUNT-2: memref.copy %{{.*}} : memref<3x4xf32> to memref<3x4xf32>
// BUF-NOT: memref.copy
// BUF: return
func.func @left_alone(%v: vector<3x4xf32>, %r: vector<4xf32>, %h: vector<2x4xf32>, %x: tensor<3x4xf32>, %i: index) -> (tensor<3x4xf32>, tensor<3x4xf32>, tensor<3x4xf32>) {
  %c0 = arith.constant 0 : index
  %full = vector.transfer_write %v, %x[%c0, %c0] {in_bounds = [true, true]} : vector<3x4xf32>, tensor<3x4xf32>
  %at = vector.transfer_write %r, %x[%i, %c0] {in_bounds = [true]} : vector<4xf32>, tensor<3x4xf32>
  %small = vector.transfer_write %h, %x[%c0, %c0] {in_bounds = [true, true]} : vector<2x4xf32>, tensor<3x4xf32>
  return %full, %at, %small : tensor<3x4xf32>, tensor<3x4xf32>, tensor<3x4xf32>
}
