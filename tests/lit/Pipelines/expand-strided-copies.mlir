// RUN: ltc-mlir-opt %s --pass-pipeline="builtin.module(func.func(ltc-expand-strided-copies))" | FileCheck %s

// A copy out of a stride-2 view becomes linalg.copy (compiled loops, not the
// element-by-element memrefCopy runtime call); a copy between contiguous
// row-major buffers stays memref.copy (llvm.memcpy); a self-copy goes away.
// CHECK-LABEL: func.func @copies
// CHECK: linalg.copy ins(%{{.*}} : memref<4x8xf32, strided<[32, 2]>>) outs(%{{.*}} : memref<4x8xf32>)
// CHECK: memref.copy %{{.*}}, %{{.*}} : memref<4x8xf32> to memref<4x8xf32>
// CHECK-NOT: memref.copy
// CHECK: return
func.func @copies(%src: memref<4x16xf32>, %dst: memref<4x8xf32>, %other: memref<4x8xf32>) {
  %view = memref.subview %src[0, 0] [4, 8] [1, 2] : memref<4x16xf32> to memref<4x8xf32, strided<[16, 2]>>
  %wide = memref.reinterpret_cast %src to offset: [0], sizes: [4, 8], strides: [32, 2] : memref<4x16xf32> to memref<4x8xf32, strided<[32, 2]>>
  memref.copy %wide, %dst : memref<4x8xf32, strided<[32, 2]>> to memref<4x8xf32>
  memref.copy %other, %dst : memref<4x8xf32> to memref<4x8xf32>
  memref.copy %view, %view : memref<4x8xf32, strided<[16, 2]>> to memref<4x8xf32, strided<[16, 2]>>
  return
}
