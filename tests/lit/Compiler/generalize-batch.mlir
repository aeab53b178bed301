// RUN: ltc-mlir-opt --split-input-file --verify-diagnostics \
// RUN:   --ltc-test-generalize-batch="first-batch=64 other-batch=48" %s | FileCheck %s

// One graph lowered at batch sizes 64 and 48: the batch dims become dynamic,
// read from the first argument; the mean's 1/B and the reshape's 2*B are
// computed from it; the weight gradient (no batch dim) keeps its types.
// CHECK-LABEL: func.func @forward(
// CHECK-SAME: %[[X:.*]]: tensor<?x16xf32>, %[[W:.*]]: tensor<16x8xf32>
// CHECK-SAME: -> (tensor<?x8xf32>, tensor<8xf32>, tensor<f32>, tensor<?x4xf32>)
// CHECK: %[[B:.*]] = tensor.dim %[[X]], %{{.*}}
// CHECK: %[[TWO_B:.*]] = arith.muli %[[B]], %{{.*}} : index
// CHECK: %[[BI:.*]] = arith.index_cast %[[B]] : index to i64
// CHECK: %[[BF:.*]] = arith.uitofp %[[BI]] : i64 to f32
// CHECK: %[[INV:.*]] = arith.divf %{{.*}}, %[[BF]] : f32
// CHECK: tensor.empty(%[[B]]) : tensor<?x8xf32>
// CHECK: linalg.matmul {{.*}} -> tensor<?x8xf32>
// CHECK: arith.mulf %{{.*}}, %[[INV]]
// CHECK: tensor.expand_shape {{.*}} output_shape [%[[TWO_B]], 4]
// CHECK-NOT: @forward_other
#id = affine_map<(d0, d1) -> (d0, d1)>
#col = affine_map<(d0, d1) -> (d1)>
#all = affine_map<(d0, d1) -> ()>
func.func @forward(%x: tensor<64x16xf32>, %w: tensor<16x8xf32>) -> (tensor<64x8xf32>, tensor<8xf32>, tensor<f32>, tensor<128x4xf32>) {
  %zero = arith.constant 0.0 : f32
  %inv = arith.constant 1.562500e-02 : f32
  %e = tensor.empty() : tensor<64x8xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<64x8xf32>) -> tensor<64x8xf32>
  %mm = linalg.matmul ins(%x, %w : tensor<64x16xf32>, tensor<16x8xf32>) outs(%f : tensor<64x8xf32>) -> tensor<64x8xf32>
  %e2 = tensor.empty() : tensor<8xf32>
  %f2 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<8xf32>) -> tensor<8xf32>
  %sum = linalg.generic {indexing_maps = [#id, #col], iterator_types = ["reduction", "parallel"]} ins(%mm : tensor<64x8xf32>) outs(%f2 : tensor<8xf32>) {
  ^bb0(%a: f32, %o: f32):
    %s = arith.addf %a, %o : f32
    linalg.yield %s : f32
  } -> tensor<8xf32>
  %e3 = tensor.empty() : tensor<f32>
  %f3 = linalg.fill ins(%zero : f32) outs(%e3 : tensor<f32>) -> tensor<f32>
  %mean = linalg.generic {indexing_maps = [#id, #all], iterator_types = ["reduction", "reduction"]} ins(%mm : tensor<64x8xf32>) outs(%f3 : tensor<f32>) {
  ^bb0(%a: f32, %o: f32):
    %d = arith.mulf %a, %inv : f32
    %s = arith.addf %d, %o : f32
    linalg.yield %s : f32
  } -> tensor<f32>
  %flat = tensor.collapse_shape %mm [[0, 1]] : tensor<64x8xf32> into tensor<512xf32>
  %r = tensor.expand_shape %flat [[0, 1]] output_shape [128, 4] : tensor<512xf32> into tensor<128x4xf32>
  return %mm, %sum, %mean, %r : tensor<64x8xf32>, tensor<8xf32>, tensor<f32>, tensor<128x4xf32>
}
func.func @forward_other(%x: tensor<48x16xf32>, %w: tensor<16x8xf32>) -> (tensor<48x8xf32>, tensor<8xf32>, tensor<f32>, tensor<96x4xf32>) {
  %zero = arith.constant 0.0 : f32
  %inv = arith.constant 2.083333e-02 : f32
  %e = tensor.empty() : tensor<48x8xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<48x8xf32>) -> tensor<48x8xf32>
  %mm = linalg.matmul ins(%x, %w : tensor<48x16xf32>, tensor<16x8xf32>) outs(%f : tensor<48x8xf32>) -> tensor<48x8xf32>
  %e2 = tensor.empty() : tensor<8xf32>
  %f2 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<8xf32>) -> tensor<8xf32>
  %sum = linalg.generic {indexing_maps = [#id, #col], iterator_types = ["reduction", "parallel"]} ins(%mm : tensor<48x8xf32>) outs(%f2 : tensor<8xf32>) {
  ^bb0(%a: f32, %o: f32):
    %s = arith.addf %a, %o : f32
    linalg.yield %s : f32
  } -> tensor<8xf32>
  %e3 = tensor.empty() : tensor<f32>
  %f3 = linalg.fill ins(%zero : f32) outs(%e3 : tensor<f32>) -> tensor<f32>
  %mean = linalg.generic {indexing_maps = [#id, #all], iterator_types = ["reduction", "reduction"]} ins(%mm : tensor<48x8xf32>) outs(%f3 : tensor<f32>) {
  ^bb0(%a: f32, %o: f32):
    %d = arith.mulf %a, %inv : f32
    %s = arith.addf %d, %o : f32
    linalg.yield %s : f32
  } -> tensor<f32>
  %flat = tensor.collapse_shape %mm [[0, 1]] : tensor<48x8xf32> into tensor<384xf32>
  %r = tensor.expand_shape %flat [[0, 1]] output_shape [96, 4] : tensor<384xf32> into tensor<96x4xf32>
  return %mm, %sum, %mean, %r : tensor<48x8xf32>, tensor<8xf32>, tensor<f32>, tensor<96x4xf32>
}

// -----

// A size that is not a multiple of the batch (B - 1): refused, with the op.
func.func @forward(%x: tensor<64x4xf32>) -> tensor<63x4xf32> {
  // expected-error @-1 {{not generalized: tensor.extract_slice: attribute static_sizes is array<i64: 63, 4> vs array<i64: 47, 4>, not a multiple of the batch size}}
  %s = tensor.extract_slice %x[1, 0] [63, 4] [1, 1] : tensor<64x4xf32> to tensor<63x4xf32>
  return %s : tensor<63x4xf32>
}
func.func @forward_other(%x: tensor<48x4xf32>) -> tensor<47x4xf32> {
  %s = tensor.extract_slice %x[1, 0] [47, 4] [1, 1] : tensor<48x4xf32> to tensor<47x4xf32>
  return %s : tensor<47x4xf32>
}

// -----

// Buffers handed to a runtime kernel (fully dynamic strides) and its output
// allocation follow the batch size; a slice of every row takes B as its
// size.
// CHECK-LABEL: func.func @forward(
// CHECK-SAME: %[[X:.*]]: tensor<?x4xf32>
// CHECK: %[[B:.*]] = tensor.dim %[[X]], %{{.*}}
// CHECK: bufferization.to_buffer %[[X]] {{.*}} to memref<?x4xf32, strided<[?, ?], offset: ?>>
// CHECK: memref.alloc(%[[B]]) : memref<?x4xf32>
// CHECK: tensor.extract_slice %{{.*}}[0, 0] [%[[B]], 2] [1, 1] : tensor<?x4xf32> to tensor<?x2xf32>
func.func private @kernel(memref<?x?xf32, strided<[?, ?], offset: ?>>, memref<?x?xf32>)
func.func @forward(%x: tensor<64x4xf32>) -> tensor<64x2xf32> {
  %b = bufferization.to_buffer %x read_only : tensor<64x4xf32> to memref<64x4xf32, strided<[?, ?], offset: ?>>
  %c = memref.cast %b : memref<64x4xf32, strided<[?, ?], offset: ?>> to memref<?x?xf32, strided<[?, ?], offset: ?>>
  %out = memref.alloc() : memref<64x4xf32>
  %oc = memref.cast %out : memref<64x4xf32> to memref<?x?xf32>
  func.call @kernel(%c, %oc) : (memref<?x?xf32, strided<[?, ?], offset: ?>>, memref<?x?xf32>) -> ()
  %t = bufferization.to_tensor %out restrict : memref<64x4xf32> to tensor<64x4xf32>
  %s = tensor.extract_slice %t[0, 0] [64, 2] [1, 1] : tensor<64x4xf32> to tensor<64x2xf32>
  return %s : tensor<64x2xf32>
}
func.func @forward_other(%x: tensor<48x4xf32>) -> tensor<48x2xf32> {
  %b = bufferization.to_buffer %x read_only : tensor<48x4xf32> to memref<48x4xf32, strided<[?, ?], offset: ?>>
  %c = memref.cast %b : memref<48x4xf32, strided<[?, ?], offset: ?>> to memref<?x?xf32, strided<[?, ?], offset: ?>>
  %out = memref.alloc() : memref<48x4xf32>
  %oc = memref.cast %out : memref<48x4xf32> to memref<?x?xf32>
  func.call @kernel(%c, %oc) : (memref<?x?xf32, strided<[?, ?], offset: ?>>, memref<?x?xf32>) -> ()
  %t = bufferization.to_tensor %out restrict : memref<48x4xf32> to tensor<48x4xf32>
  %s = tensor.extract_slice %t[0, 0] [48, 2] [1, 1] : tensor<48x4xf32> to tensor<48x2xf32>
  return %s : tensor<48x2xf32>
}
