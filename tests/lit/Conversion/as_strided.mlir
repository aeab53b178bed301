// RUN: ltc-mlir-opt --convert-torch-to-linalg --split-input-file %s | FileCheck %s

// What autograd emits when accumulating a gradient: the contiguous strides
// of a same-sized result and offset IntImplicit(literal 0). The offset folds
// and the op is the identity (a reshape in general).
// CHECK-LABEL: func.func @as_strided_contiguous(
// CHECK-SAME: %[[A:.*]]: tensor<4x5xf32>)
// CHECK-NOT: linalg.generic
// CHECK-NOT: tensor.extract
// CHECK: return %[[A]]
func.func @as_strided_contiguous(%a: !torch.vtensor<[4,5],f32>) -> !torch.vtensor<[4,5],f32> {
  %lit = torch.vtensor.literal(dense<0> : tensor<i64>) : !torch.vtensor<[],si64>
  %int4 = torch.constant.int 4
  %int5 = torch.constant.int 5
  %int1 = torch.constant.int 1
  %size = torch.prim.ListConstruct %int4, %int5 : (!torch.int, !torch.int) -> !torch.list<int>
  %stride = torch.prim.ListConstruct %int5, %int1 : (!torch.int, !torch.int) -> !torch.list<int>
  %offset = torch.aten.IntImplicit %lit : (!torch.vtensor<[],si64>) -> !torch.int
  %0 = torch.aten.as_strided_copy %a, %size, %stride, %offset : (!torch.vtensor<[4,5],f32>, !torch.list<int>, !torch.list<int>, !torch.int) -> !torch.vtensor<[4,5],f32>
  return %0 : !torch.vtensor<[4,5],f32>
}

// -----

// Strides of size-1 dims do not matter for contiguity: [6] -> [2,1,3].
// CHECK-LABEL: func.func @as_strided_contiguous_unit_dim(
// CHECK: tensor.expand_shape %{{.*}} {{\[\[}}0, 1, 2]] output_shape [2, 1, 3] : tensor<6xf32> into tensor<2x1x3xf32>
// CHECK-NOT: linalg.generic
func.func @as_strided_contiguous_unit_dim(%a: !torch.vtensor<[6],f32>) -> !torch.vtensor<[2,1,3],f32> {
  %none = torch.constant.none
  %int1 = torch.constant.int 1
  %int2 = torch.constant.int 2
  %int3 = torch.constant.int 3
  %int7 = torch.constant.int 7
  %size = torch.prim.ListConstruct %int2, %int1, %int3 : (!torch.int, !torch.int, !torch.int) -> !torch.list<int>
  %stride = torch.prim.ListConstruct %int3, %int7, %int1 : (!torch.int, !torch.int, !torch.int) -> !torch.list<int>
  %0 = torch.aten.as_strided_copy %a, %size, %stride, %none : (!torch.vtensor<[6],f32>, !torch.list<int>, !torch.list<int>, !torch.none) -> !torch.vtensor<[2,1,3],f32>
  return %0 : !torch.vtensor<[2,1,3],f32>
}

// -----

// General case: a gather from the flattened input at
// offset + i0 * stride0 + i1 * stride1 (here a transpose read with offset 2).
// CHECK-DAG: #[[ID:.*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-LABEL: func.func @as_strided_gather(
// CHECK-SAME: %[[A:.*]]: tensor<4x5xf32>)
// CHECK-DAG: %[[FLAT:.*]] = tensor.collapse_shape %[[A]] {{\[\[}}0, 1]] : tensor<4x5xf32> into tensor<20xf32>
// CHECK-DAG: %[[OFF:.*]] = arith.constant 2 : index
// CHECK: linalg.generic {indexing_maps = [#[[ID]]], iterator_types = ["parallel", "parallel"]} outs(%{{.*}} : tensor<3x3xf32>)
// CHECK:   %[[I0:.*]] = linalg.index 0 : index
// CHECK:   %[[S0:.*]] = arith.addi %[[OFF]], %[[I0]] : index
// CHECK:   %[[I1:.*]] = linalg.index 1 : index
// CHECK:   %[[C4:.*]] = arith.constant 4 : index
// CHECK:   %[[M1:.*]] = arith.muli %[[I1]], %[[C4]] : index
// CHECK:   %[[IDX:.*]] = arith.addi %[[S0]], %[[M1]] : index
// CHECK:   %[[E:.*]] = tensor.extract %[[FLAT]][%[[IDX]]] : tensor<20xf32>
// CHECK:   linalg.yield %[[E]] : f32
func.func @as_strided_gather(%a: !torch.vtensor<[4,5],f32>) -> !torch.vtensor<[3,3],f32> {
  %lit = torch.vtensor.literal(dense<2> : tensor<i64>) : !torch.vtensor<[],si64>
  %offset = torch.aten.IntImplicit %lit : (!torch.vtensor<[],si64>) -> !torch.int
  %int1 = torch.constant.int 1
  %int3 = torch.constant.int 3
  %int4 = torch.constant.int 4
  %size = torch.prim.ListConstruct %int3, %int3 : (!torch.int, !torch.int) -> !torch.list<int>
  %stride = torch.prim.ListConstruct %int1, %int4 : (!torch.int, !torch.int) -> !torch.list<int>
  %0 = torch.aten.as_strided_copy %a, %size, %stride, %offset : (!torch.vtensor<[4,5],f32>, !torch.list<int>, !torch.list<int>, !torch.int) -> !torch.vtensor<[3,3],f32>
  return %0 : !torch.vtensor<[3,3],f32>
}

// -----

// A run-time offset (here IntImplicit of an argument: tensor.extract and a
// sign extension) must be in [0, numel - 1 - max relative index] =
// [0, 20 - 1 - 4]: a runtime check (tests/lit/Conversion/runtime_checks.mlir)
// reports a bad one, and the clamp keeps every read inside self.
// CHECK-LABEL: func.func @as_strided_runtime_offset(
// CHECK-SAME: %[[A:.*]]: tensor<4x5xf32>, %[[T:.*]]: tensor<i32>)
// CHECK: %[[E:.*]] = tensor.extract %[[T]][] : tensor<i32>
// CHECK: %[[OFF64:.*]] = arith.extsi %[[E]] : i32 to i64
// CHECK: scf.if
// CHECK: %[[OFF:.*]] = arith.index_cast %[[OFF64]] : i64 to index
// CHECK-DAG: %[[ZERO:.*]] = arith.constant 0 : index
// CHECK-DAG: %[[LAST:.*]] = arith.constant 15 : index
// CHECK: %[[LO:.*]] = arith.maxsi %[[OFF]], %[[ZERO]] : index
// CHECK: %[[BASE:.*]] = arith.minsi %[[LO]], %[[LAST]] : index
// CHECK: linalg.generic
// CHECK:   arith.addi %[[BASE]], %{{.*}} : index
// CHECK:   tensor.extract
func.func @as_strided_runtime_offset(%a: !torch.vtensor<[4,5],f32>, %t: !torch.vtensor<[],si32>) -> !torch.vtensor<[2,2],f32> {
  %offset = torch.aten.IntImplicit %t : (!torch.vtensor<[],si32>) -> !torch.int
  %int1 = torch.constant.int 1
  %int2 = torch.constant.int 2
  %int3 = torch.constant.int 3
  %size = torch.prim.ListConstruct %int2, %int2 : (!torch.int, !torch.int) -> !torch.list<int>
  %stride = torch.prim.ListConstruct %int3, %int1 : (!torch.int, !torch.int) -> !torch.list<int>
  %0 = torch.aten.as_strided_copy %a, %size, %stride, %offset : (!torch.vtensor<[4,5],f32>, !torch.list<int>, !torch.list<int>, !torch.int) -> !torch.vtensor<[2,2],f32>
  return %0 : !torch.vtensor<[2,2],f32>
}

// -----

// squeeze_copy drops every size-1 dim; squeeze_copy.dim only the given one
// (negative dims wrap), and is the identity for a dim whose size is not 1.
// CHECK-LABEL: func.func @squeeze(
// CHECK-SAME: %[[A:.*]]: tensor<3x1x4x1xf32>)
// CHECK: %[[ALL:.*]] = tensor.collapse_shape %[[A]] {{\[\[}}0], [1, 2, 3]] : tensor<3x1x4x1xf32> into tensor<3x4xf32>
// CHECK: %[[ONE:.*]] = tensor.collapse_shape %[[A]] {{\[\[}}0], [1], [2, 3]] : tensor<3x1x4x1xf32> into tensor<3x1x4xf32>
// CHECK: return %[[ALL]], %[[ONE]], %[[A]]
func.func @squeeze(%a: !torch.vtensor<[3,1,4,1],f32>) -> (!torch.vtensor<[3,4],f32>, !torch.vtensor<[3,1,4],f32>, !torch.vtensor<[3,1,4,1],f32>) {
  %0 = torch.aten.squeeze_copy %a : (!torch.vtensor<[3,1,4,1],f32>) -> !torch.vtensor<[3,4],f32>
  %intm1 = torch.constant.int -1
  %1 = torch.aten.squeeze_copy.dim %a, %intm1 : (!torch.vtensor<[3,1,4,1],f32>, !torch.int) -> !torch.vtensor<[3,1,4],f32>
  %int2 = torch.constant.int 2
  %2 = torch.aten.squeeze_copy.dim %a, %int2 : (!torch.vtensor<[3,1,4,1],f32>, !torch.int) -> !torch.vtensor<[3,1,4,1],f32>
  return %0, %1, %2 : !torch.vtensor<[3,4],f32>, !torch.vtensor<[3,1,4],f32>, !torch.vtensor<[3,1,4,1],f32>
}

// -----

// Squeezing to and from 0-dim.
// CHECK-LABEL: func.func @squeeze_0d(
// CHECK: tensor.collapse_shape %{{.*}} [] : tensor<1x1xf32> into tensor<f32>
func.func @squeeze_0d(%a: !torch.vtensor<[1,1],f32>, %b: !torch.vtensor<[],f32>) -> (!torch.vtensor<[],f32>, !torch.vtensor<[],f32>) {
  %0 = torch.aten.squeeze_copy %a : (!torch.vtensor<[1,1],f32>) -> !torch.vtensor<[],f32>
  %int0 = torch.constant.int 0
  %1 = torch.aten.squeeze_copy.dim %b, %int0 : (!torch.vtensor<[],f32>, !torch.int) -> !torch.vtensor<[],f32>
  return %0, %1 : !torch.vtensor<[],f32>, !torch.vtensor<[],f32>
}

// -----

// as_strided_scatter: src written into the flattened self at
// offset + i0 * stride0 + i1 * stride1, in serial loops of tensor.insert
// (bufferized into one copy of self), then reshaped back.
// CHECK-LABEL: func.func @as_strided_scatter_loops(
// CHECK-SAME: %[[A:.*]]: tensor<4x5xf32>, %[[SRC:.*]]: tensor<3x3xf32>)
// CHECK: %[[FLAT:.*]] = tensor.collapse_shape %[[A]] {{\[\[}}0, 1]] : tensor<4x5xf32> into tensor<20xf32>
// CHECK: %[[OFF:.*]] = arith.constant 2 : index
// CHECK: %[[R:.*]] = scf.for %[[I:.*]] = %{{.*}} iter_args(%[[ACC0:.*]] = %[[FLAT]]) -> (tensor<20xf32>)
// CHECK:   scf.for %[[J:.*]] = %{{.*}} iter_args(%[[ACC1:.*]] = %[[ACC0]]) -> (tensor<20xf32>)
// CHECK:     %[[E:.*]] = tensor.extract %[[SRC]][%[[I]], %[[J]]] : tensor<3x3xf32>
// CHECK:     %[[S0:.*]] = arith.addi %[[OFF]], %[[I]] : index
// CHECK:     %[[M1:.*]] = arith.muli %[[J]], %{{.*}} : index
// CHECK:     %[[IDX:.*]] = arith.addi %[[S0]], %[[M1]] : index
// CHECK:     %[[INS:.*]] = tensor.insert %[[E]] into %[[ACC1]][%[[IDX]]] : tensor<20xf32>
// CHECK:     scf.yield %[[INS]]
// CHECK: tensor.expand_shape %[[R]] {{\[\[}}0, 1]] output_shape [4, 5] : tensor<20xf32> into tensor<4x5xf32>
func.func @as_strided_scatter_loops(%a: !torch.vtensor<[4,5],f32>, %src: !torch.vtensor<[3,3],f32>) -> !torch.vtensor<[4,5],f32> {
  %int1 = torch.constant.int 1
  %int2 = torch.constant.int 2
  %int3 = torch.constant.int 3
  %int4 = torch.constant.int 4
  %size = torch.prim.ListConstruct %int3, %int3 : (!torch.int, !torch.int) -> !torch.list<int>
  %stride = torch.prim.ListConstruct %int1, %int4 : (!torch.int, !torch.int) -> !torch.list<int>
  %0 = torch.aten.as_strided_scatter %a, %src, %size, %stride, %int2 : (!torch.vtensor<[4,5],f32>, !torch.vtensor<[3,3],f32>, !torch.list<int>, !torch.list<int>, !torch.int) -> !torch.vtensor<[4,5],f32>
  return %0 : !torch.vtensor<[4,5],f32>
}

// -----

// All of self in order: the result is src, converted to self's dtype.
// CHECK-LABEL: func.func @as_strided_scatter_everything(
// CHECK-SAME: %[[A:.*]]: tensor<2x3xf32>, %[[SRC:.*]]: tensor<6xf64>)
// CHECK-NOT: scf.for
// CHECK: %[[C:.*]] = linalg.generic
// CHECK: arith.truncf %{{.*}} : f64 to f32
// CHECK: %[[R:.*]] = tensor.expand_shape %[[C]] {{\[\[}}0, 1]] output_shape [2, 3] : tensor<6xf32> into tensor<2x3xf32>
// CHECK: return %[[R]]
func.func @as_strided_scatter_everything(%a: !torch.vtensor<[2,3],f32>, %src: !torch.vtensor<[6],f64>) -> !torch.vtensor<[2,3],f32> {
  %none = torch.constant.none
  %int1 = torch.constant.int 1
  %int6 = torch.constant.int 6
  %size = torch.prim.ListConstruct %int6 : (!torch.int) -> !torch.list<int>
  %stride = torch.prim.ListConstruct %int1 : (!torch.int) -> !torch.list<int>
  %0 = torch.aten.as_strided_scatter %a, %src, %size, %stride, %none : (!torch.vtensor<[2,3],f32>, !torch.vtensor<[6],f64>, !torch.list<int>, !torch.list<int>, !torch.none) -> !torch.vtensor<[2,3],f32>
  return %0 : !torch.vtensor<[2,3],f32>
}

// -----

// A contiguous run at a constant offset (DDP copying a gradient into its
// bucket): one insert_slice of the flattened src, no element loops.
// CHECK-LABEL: func.func @as_strided_scatter_contiguous_run(
// CHECK-SAME: %[[A:.*]]: tensor<20xf32>, %[[SRC:.*]]: tensor<2x3xf32>)
// CHECK-NOT: scf.for
// CHECK: %[[S:.*]] = tensor.collapse_shape %[[SRC]] {{\[\[}}0, 1]] : tensor<2x3xf32> into tensor<6xf32>
// CHECK: %[[R:.*]] = tensor.insert_slice %[[S]] into %[[A]][7] [6] [1] : tensor<6xf32> into tensor<20xf32>
// CHECK: return %[[R]]
func.func @as_strided_scatter_contiguous_run(%a: !torch.vtensor<[20],f32>, %src: !torch.vtensor<[2,3],f32>) -> !torch.vtensor<[20],f32> {
  %int1 = torch.constant.int 1
  %int2 = torch.constant.int 2
  %int3 = torch.constant.int 3
  %int7 = torch.constant.int 7
  %size = torch.prim.ListConstruct %int2, %int3 : (!torch.int, !torch.int) -> !torch.list<int>
  %stride = torch.prim.ListConstruct %int3, %int1 : (!torch.int, !torch.int) -> !torch.list<int>
  %0 = torch.aten.as_strided_scatter %a, %src, %size, %stride, %int7 : (!torch.vtensor<[20],f32>, !torch.vtensor<[2,3],f32>, !torch.list<int>, !torch.list<int>, !torch.int) -> !torch.vtensor<[20],f32>
  return %0 : !torch.vtensor<[20],f32>
}

// -----

// Reading a contiguous run at a constant offset: a slice and a reshape.
// CHECK-LABEL: func.func @as_strided_copy_contiguous_run(
// CHECK-SAME: %[[A:.*]]: tensor<20xf32>)
// CHECK-NOT: linalg.generic
// CHECK: %[[S:.*]] = tensor.extract_slice %[[A]][7] [6] [1] : tensor<20xf32> to tensor<6xf32>
// CHECK: %[[R:.*]] = tensor.expand_shape %[[S]] {{\[\[}}0, 1]] output_shape [2, 3] : tensor<6xf32> into tensor<2x3xf32>
// CHECK: return %[[R]]
func.func @as_strided_copy_contiguous_run(%a: !torch.vtensor<[20],f32>) -> !torch.vtensor<[2,3],f32> {
  %int1 = torch.constant.int 1
  %int2 = torch.constant.int 2
  %int3 = torch.constant.int 3
  %int7 = torch.constant.int 7
  %size = torch.prim.ListConstruct %int2, %int3 : (!torch.int, !torch.int) -> !torch.list<int>
  %stride = torch.prim.ListConstruct %int3, %int1 : (!torch.int, !torch.int) -> !torch.list<int>
  %0 = torch.aten.as_strided_copy %a, %size, %stride, %int7 : (!torch.vtensor<[20],f32>, !torch.list<int>, !torch.list<int>, !torch.int) -> !torch.vtensor<[2,3],f32>
  return %0 : !torch.vtensor<[2,3],f32>
}
