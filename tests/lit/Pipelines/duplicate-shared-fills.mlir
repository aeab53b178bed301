// RUN: ltc-mlir-opt %s --pass-pipeline="builtin.module(func.func(ltc-duplicate-shared-fills))" | FileCheck %s

// Two contractions accumulate into one CSE'd zero fill: the second (in
// program order) gets its own fill into an alloc_tensor, so bufferization
// does not copy the first.
// CHECK-LABEL: func.func @two_matmuls
// CHECK: %[[E:.*]] = tensor.empty() : tensor<4x4xf32>
// CHECK: %[[F:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%[[E]] : tensor<4x4xf32>)
// CHECK: %[[A:.*]] = bufferization.alloc_tensor() : tensor<4x4xf32>
// CHECK: %[[F2:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%[[A]] : tensor<4x4xf32>)
// CHECK: linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<4x4xf32>, tensor<4x4xf32>) outs(%[[F]] : tensor<4x4xf32>)
// CHECK: linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<4x4xf32>, tensor<4x4xf32>) outs(%[[F2]] : tensor<4x4xf32>)
func.func @two_matmuls(%a: tensor<4x4xf32>, %b: tensor<4x4xf32>) -> (tensor<4x4xf32>, tensor<4x4xf32>) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x4xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<4x4xf32>) -> tensor<4x4xf32>
  %0 = linalg.matmul ins(%a, %b : tensor<4x4xf32>, tensor<4x4xf32>) outs(%f : tensor<4x4xf32>) -> tensor<4x4xf32>
  %1 = linalg.matmul ins(%b, %a : tensor<4x4xf32>, tensor<4x4xf32>) outs(%f : tensor<4x4xf32>) -> tensor<4x4xf32>
  return %0, %1 : tensor<4x4xf32>, tensor<4x4xf32>
}

// A padded copy (insert_slice into the fill) next to a read of the fill: the
// read keeps the original, the destination gets a clone.
// CHECK-LABEL: func.func @read_and_insert
// CHECK: %[[F:.*]] = linalg.fill
// CHECK: %[[A:.*]] = bufferization.alloc_tensor() : tensor<6x6xf32>
// CHECK: %[[F2:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%[[A]] : tensor<6x6xf32>)
// CHECK: tensor.insert_slice %{{.*}} into %[[F2]]
// CHECK: linalg.add ins(%[[F]], %{{.*}} : tensor<6x6xf32>, tensor<6x6xf32>)
func.func @read_and_insert(%a: tensor<4x4xf32>, %b: tensor<6x6xf32>) -> (tensor<6x6xf32>, tensor<6x6xf32>) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<6x6xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<6x6xf32>) -> tensor<6x6xf32>
  %padded = tensor.insert_slice %a into %f[1, 1] [4, 4] [1, 1] : tensor<4x4xf32> into tensor<6x6xf32>
  %e2 = tensor.empty() : tensor<6x6xf32>
  %sum = linalg.add ins(%f, %b : tensor<6x6xf32>, tensor<6x6xf32>) outs(%e2 : tensor<6x6xf32>) -> tensor<6x6xf32>
  return %padded, %sum : tensor<6x6xf32>, tensor<6x6xf32>
}

// A single destination use is left alone.
// CHECK-LABEL: func.func @one_use
// CHECK-NOT: bufferization.alloc_tensor
func.func @one_use(%a: tensor<4x4xf32>, %b: tensor<4x4xf32>) -> tensor<4x4xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x4xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<4x4xf32>) -> tensor<4x4xf32>
  %0 = linalg.matmul ins(%a, %b : tensor<4x4xf32>, tensor<4x4xf32>) outs(%f : tensor<4x4xf32>) -> tensor<4x4xf32>
  return %0 : tensor<4x4xf32>
}
