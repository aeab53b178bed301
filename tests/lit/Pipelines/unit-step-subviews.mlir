// RUN: ltc-mlir-opt %s --split-input-file --ltc-unit-step-subviews | FileCheck %s
// RUN: ltc-mlir-opt %s --split-input-file --ltc-unit-step-subviews --expand-strided-metadata | FileCheck %s --check-prefix=EXPAND

// A rank-reducing subview keeping a size-1 dim with step 2 (a one-element
// tile of a stride-2 window): MLIR 22's expand-strided-metadata crashes on
// it. The step becomes 1 and the result keeps its type through a
// reinterpret_cast at the same offset.
// CHECK-LABEL: func.func @kept_unit_dim_with_step
// CHECK: %[[S:.*]] = memref.subview %{{.*}}[6, 1, 1] [1, 1, 2] [1, 1, 2] : memref<9x4x4xf32> to memref<1x2xf32, strided<[16, 2], offset: 101>>
// CHECK: memref.reinterpret_cast %[[S]] to offset: [101], sizes: [1, 2], strides: [8, 2]
// CHECK-SAME: to memref<1x2xf32, strided<[8, 2], offset: 101>>
// EXPAND-LABEL: func.func @kept_unit_dim_with_step
// EXPAND: memref.reinterpret_cast %{{.*}} to offset: [101], sizes: [1, 2], strides: [8, 2]
func.func @kept_unit_dim_with_step(%a: memref<9x4x4xf32>) -> memref<1x2xf32, strided<[8, 2], offset: 101>> {
  %s = memref.subview %a[6, 1, 1] [1, 1, 2] [1, 2, 2] : memref<9x4x4xf32> to memref<1x2xf32, strided<[8, 2], offset: 101>>
  return %s : memref<1x2xf32, strided<[8, 2], offset: 101>>
}

// -----

// Dynamic offset (the subview of a loop tile).
// CHECK-LABEL: func.func @dynamic_offset
// CHECK: %[[S:.*]] = memref.subview %{{.*}}[%{{.*}}, 1, 1] [1, 1, 2] [1, 1, 2]
// CHECK: %{{.*}}, %[[OFF:.*]], %{{.*}}:2, %{{.*}}:2 = memref.extract_strided_metadata %[[S]]
// CHECK: memref.reinterpret_cast %[[S]] to offset: [%[[OFF]]], sizes: [1, 2], strides: [8, 2]
// EXPAND-LABEL: func.func @dynamic_offset
// EXPAND-NOT: memref.subview
func.func @dynamic_offset(%a: memref<9x4x4xf32>, %i: index) -> memref<1x2xf32, strided<[8, 2], offset: ?>> {
  %s = memref.subview %a[%i, 1, 1] [1, 1, 2] [1, 2, 2] : memref<9x4x4xf32> to memref<1x2xf32, strided<[8, 2], offset: ?>>
  return %s : memref<1x2xf32, strided<[8, 2], offset: ?>>
}

// -----

// Steps of dims that are not size 1, and subviews without rank reduction,
// are left alone.
// CHECK-LABEL: func.func @left_alone
// CHECK: memref.subview %{{.*}}[0, 1, 1] [1, 2, 2] [1, 2, 2] : memref<9x4x4xf32> to memref<2x2xf32, strided<[8, 2], offset: 5>>
// CHECK-NOT: memref.reinterpret_cast
func.func @left_alone(%a: memref<9x4x4xf32>) -> memref<2x2xf32, strided<[8, 2], offset: 5>> {
  %s = memref.subview %a[0, 1, 1] [1, 2, 2] [1, 2, 2] : memref<9x4x4xf32> to memref<2x2xf32, strided<[8, 2], offset: 5>>
  return %s : memref<2x2xf32, strided<[8, 2], offset: 5>>
}
