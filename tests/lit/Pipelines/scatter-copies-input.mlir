// RUN: ltc-mlir-opt %s --split-input-file --ltc-torch-to-llvm="vector-bits=256" --mlir-print-ir-after=buffer-results-to-out-params -o /dev/null 2>&1 | FileCheck %s

// In-place writes into part of a graph input (x[0] = v, x[0].add_(1),
// x[:1] = v, ...) arrive as select_scatter / slice_scatter of the input.
// The input is read-only, so the result buffer must start as a copy of it
// before the slice is written: rows not written keep x's values.

// CHECK-LABEL: func.func @select_row(
// CHECK-SAME: %[[V:.*]]: memref<4xf32>, %[[X:.*]]: memref<3x4xf32>, %[[OUT:.*]]: memref<3x4xf32>)
// CHECK: memref.copy %[[X]], %[[OUT]] : memref<3x4xf32> to memref<3x4xf32>
// CHECK: memref.subview %[[OUT]][0, 0] [1, 4] [1, 1]
// CHECK: return
func.func @select_row(%v: !torch.vtensor<[4],f32>, %x: !torch.vtensor<[3,4],f32>) -> !torch.vtensor<[3,4],f32> {
  %int0 = torch.constant.int 0
  %r = torch.aten.select_scatter %x, %v, %int0, %int0 : (!torch.vtensor<[3,4],f32>, !torch.vtensor<[4],f32>, !torch.int, !torch.int) -> !torch.vtensor<[3,4],f32>
  return %r : !torch.vtensor<[3,4],f32>
}

// -----

// CHECK-LABEL: func.func @select_row_64x64(
// CHECK-SAME: %[[X:[a-z0-9]*]]: memref<64x64xf32>, %[[OUT:.*]]: memref<64x64xf32>)
// CHECK: memref.copy %[[X]], %[[OUT]] : memref<64x64xf32> to memref<64x64xf32>
// CHECK: return
func.func @select_row_64x64(%v: !torch.vtensor<[64],f32>, %x: !torch.vtensor<[64,64],f32>) -> !torch.vtensor<[64,64],f32> {
  %int0 = torch.constant.int 0
  %r = torch.aten.select_scatter %x, %v, %int0, %int0 : (!torch.vtensor<[64,64],f32>, !torch.vtensor<[64],f32>, !torch.int, !torch.int) -> !torch.vtensor<[64,64],f32>
  return %r : !torch.vtensor<[64,64],f32>
}

// -----

// x[0].add_(1) on a 4-d tensor: the add is fused into the scatter's copy.
// CHECK-LABEL: func.func @select_add_4d(
// CHECK-SAME: %[[X:[a-z0-9]*]]: memref<2x3x4x8xf32>, %[[OUT:.*]]: memref<2x3x4x8xf32>)
// CHECK: memref.copy %[[X]], %[[OUT]] : memref<2x3x4x8xf32> to memref<2x3x4x8xf32>
// CHECK: return
func.func @select_add_4d(%x: !torch.vtensor<[2,3,4,8],f32>) -> !torch.vtensor<[2,3,4,8],f32> {
  %int0 = torch.constant.int 0
  %int1 = torch.constant.int 1
  %float1 = torch.constant.float 1.0
  %row = torch.aten.select_copy.int %x, %int0, %int0 : (!torch.vtensor<[2,3,4,8],f32>, !torch.int, !torch.int) -> !torch.vtensor<[3,4,8],f32>
  %add = torch.aten.add.Scalar %row, %float1, %int1 : (!torch.vtensor<[3,4,8],f32>, !torch.float, !torch.int) -> !torch.vtensor<[3,4,8],f32>
  %r = torch.aten.select_scatter %x, %add, %int0, %int0 : (!torch.vtensor<[2,3,4,8],f32>, !torch.vtensor<[3,4,8],f32>, !torch.int, !torch.int) -> !torch.vtensor<[2,3,4,8],f32>
  return %r : !torch.vtensor<[2,3,4,8],f32>
}

// -----

// x[:1] = v (slice_scatter of the first row of a 2 x 8 tensor).
// CHECK-LABEL: func.func @slice_first_row(
// CHECK-SAME: %[[X:[a-z0-9]*]]: memref<2x8xf32>, %[[OUT:.*]]: memref<2x8xf32>)
// CHECK: memref.copy %[[X]], %[[OUT]] : memref<2x8xf32> to memref<2x8xf32>
// CHECK: return
func.func @slice_first_row(%v: !torch.vtensor<[1,8],f32>, %x: !torch.vtensor<[2,8],f32>) -> !torch.vtensor<[2,8],f32> {
  %int0 = torch.constant.int 0
  %int1 = torch.constant.int 1
  %r = torch.aten.slice_scatter %x, %v, %int0, %int0, %int1, %int1 : (!torch.vtensor<[2,8],f32>, !torch.vtensor<[1,8],f32>, !torch.int, !torch.int, !torch.int, !torch.int) -> !torch.vtensor<[2,8],f32>
  return %r : !torch.vtensor<[2,8],f32>
}

// -----

// A 1-d tensor: x[0] = s.
// CHECK-LABEL: func.func @select_1d(
// CHECK-SAME: %[[X:[a-z0-9]*]]: memref<16xf32>, %[[OUT:.*]]: memref<16xf32>)
// CHECK: memref.copy %[[X]], %[[OUT]] : memref<16xf32> to memref<16xf32>
// CHECK: return
func.func @select_1d(%v: !torch.vtensor<[],f32>, %x: !torch.vtensor<[16],f32>) -> !torch.vtensor<[16],f32> {
  %int0 = torch.constant.int 0
  %r = torch.aten.select_scatter %x, %v, %int0, %int0 : (!torch.vtensor<[16],f32>, !torch.vtensor<[],f32>, !torch.int, !torch.int) -> !torch.vtensor<[16],f32>
  return %r : !torch.vtensor<[16],f32>
}
