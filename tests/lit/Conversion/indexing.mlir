// RUN: ltc-mlir-opt --convert-torch-to-linalg --split-input-file %s | FileCheck %s

// select_copy.int with a negative dim and index: a rank-reducing
// extract_slice at size - 1, copied out with linalg.copy.
// CHECK-LABEL: func.func @select_negative(
// CHECK-SAME: %[[A:.*]]: tensor<3x4x5xf32>) -> tensor<3x4xf32>
// CHECK: %[[E:.*]] = tensor.empty() : tensor<3x4xf32>
// CHECK: %[[S:.*]] = tensor.extract_slice %[[A]][0, 0, 4] [3, 4, 1] [1, 1, 1] : tensor<3x4x5xf32> to tensor<3x4xf32>
// CHECK: %[[C:.*]] = linalg.copy ins(%[[S]] : tensor<3x4xf32>) outs(%[[E]] : tensor<3x4xf32>)
// CHECK: return %[[C]]
func.func @select_negative(%a: !torch.vtensor<[3,4,5],f32>) -> !torch.vtensor<[3,4],f32> {
  %dim = torch.constant.int -1
  %index = torch.constant.int -1
  %0 = torch.aten.select_copy.int %a, %dim, %index : (!torch.vtensor<[3,4,5],f32>, !torch.int, !torch.int) -> !torch.vtensor<[3,4],f32>
  return %0 : !torch.vtensor<[3,4],f32>
}

// -----

// select of a 1-D tensor gives a 0-d tensor.
// CHECK-LABEL: func.func @select_to_0d(
// CHECK: tensor.extract_slice %{{.*}}[2] [1] [1] : tensor<6xf32> to tensor<f32>
func.func @select_to_0d(%a: !torch.vtensor<[6],f32>) -> !torch.vtensor<[],f32> {
  %dim = torch.constant.int 0
  %index = torch.constant.int 2
  %0 = torch.aten.select_copy.int %a, %dim, %index : (!torch.vtensor<[6],f32>, !torch.int, !torch.int) -> !torch.vtensor<[],f32>
  return %0 : !torch.vtensor<[],f32>
}

// -----

// slice_copy.Tensor with step 2: x[1:5:2] has (5 - 1 + 1) / 2 = 2 rows. The
// bounds come as IntImplicit of 0-dim literals, as LTC emits them.
// CHECK-LABEL: func.func @slice_step(
// CHECK: tensor.extract_slice %{{.*}}[1, 0] [2, 5] [2, 1] : tensor<6x5xf32> to tensor<2x5xf32>
func.func @slice_step(%a: !torch.vtensor<[6,5],f32>) -> !torch.vtensor<[2,5],f32> {
  %l1 = torch.vtensor.literal(dense<1> : tensor<i64>) : !torch.vtensor<[],si64>
  %l5 = torch.vtensor.literal(dense<5> : tensor<i64>) : !torch.vtensor<[],si64>
  %l2 = torch.vtensor.literal(dense<2> : tensor<i64>) : !torch.vtensor<[],si64>
  %dim = torch.constant.int 0
  %start = torch.aten.IntImplicit %l1 : (!torch.vtensor<[],si64>) -> !torch.int
  %end = torch.aten.IntImplicit %l5 : (!torch.vtensor<[],si64>) -> !torch.int
  %step = torch.aten.IntImplicit %l2 : (!torch.vtensor<[],si64>) -> !torch.int
  %0 = torch.aten.slice_copy.Tensor %a, %dim, %start, %end, %step : (!torch.vtensor<[6,5],f32>, !torch.int, !torch.int, !torch.int, !torch.int) -> !torch.vtensor<[2,5],f32>
  return %0 : !torch.vtensor<[2,5],f32>
}

// -----

// Negative start (-3 -> 3), end INT64_MAX clamped to the size.
// CHECK-LABEL: func.func @slice_negative_start(
// CHECK: tensor.extract_slice %{{.*}}[0, 3] [4, 3] [1, 1] : tensor<4x6xf32> to tensor<4x3xf32>
func.func @slice_negative_start(%a: !torch.vtensor<[4,6],f32>) -> !torch.vtensor<[4,3],f32> {
  %dim = torch.constant.int -1
  %start = torch.constant.int -3
  %end = torch.constant.int 9223372036854775807
  %step = torch.constant.int 1
  %0 = torch.aten.slice_copy.Tensor %a, %dim, %start, %end, %step : (!torch.vtensor<[4,6],f32>, !torch.int, !torch.int, !torch.int, !torch.int) -> !torch.vtensor<[4,3],f32>
  return %0 : !torch.vtensor<[4,3],f32>
}

// -----

// None bounds and a negative end: x[:-2:3] of 8 -> rows 0, 3.
// CHECK-LABEL: func.func @slice_none_start_negative_end(
// CHECK: tensor.extract_slice %{{.*}}[0] [2] [3] : tensor<8xf32> to tensor<2xf32>
func.func @slice_none_start_negative_end(%a: !torch.vtensor<[8],f32>) -> !torch.vtensor<[2],f32> {
  %dim = torch.constant.int 0
  %none = torch.constant.none
  %end = torch.constant.int -2
  %step = torch.constant.int 3
  %0 = torch.aten.slice_copy.Tensor %a, %dim, %none, %end, %step : (!torch.vtensor<[8],f32>, !torch.int, !torch.none, !torch.int, !torch.int) -> !torch.vtensor<[2],f32>
  return %0 : !torch.vtensor<[2],f32>
}

// -----

// Out-of-range bounds clamp: x[-100:2] is x[0:2]; x[7:100] of 5 is empty.
// CHECK-LABEL: func.func @slice_clamped(
// CHECK: tensor.extract_slice %{{.*}}[0, 0] [2, 3] [1, 1] : tensor<5x3xf32> to tensor<2x3xf32>
// CHECK: %[[EMPTY:.*]] = tensor.empty() : tensor<0x3xf32>
// CHECK: return %{{.*}}, %[[EMPTY]]
func.func @slice_clamped(%a: !torch.vtensor<[5,3],f32>) -> (!torch.vtensor<[2,3],f32>, !torch.vtensor<[0,3],f32>) {
  %dim = torch.constant.int 0
  %m100 = torch.constant.int -100
  %int2 = torch.constant.int 2
  %int7 = torch.constant.int 7
  %int100 = torch.constant.int 100
  %int1 = torch.constant.int 1
  %0 = torch.aten.slice_copy.Tensor %a, %dim, %m100, %int2, %int1 : (!torch.vtensor<[5,3],f32>, !torch.int, !torch.int, !torch.int, !torch.int) -> !torch.vtensor<[2,3],f32>
  %1 = torch.aten.slice_copy.Tensor %a, %dim, %int7, %int100, %int1 : (!torch.vtensor<[5,3],f32>, !torch.int, !torch.int, !torch.int, !torch.int) -> !torch.vtensor<[0,3],f32>
  return %0, %1 : !torch.vtensor<[2,3],f32>, !torch.vtensor<[0,3],f32>
}

// -----

// The whole dim with step 1 is the identity.
// CHECK-LABEL: func.func @slice_identity(
// CHECK-SAME: %[[A:.*]]: tensor<4x5xf32>)
// CHECK-NOT: tensor.extract_slice
// CHECK: return %[[A]]
func.func @slice_identity(%a: !torch.vtensor<[4,5],f32>) -> !torch.vtensor<[4,5],f32> {
  %dim = torch.constant.int 0
  %start = torch.constant.int 0
  %end = torch.constant.int 9223372036854775807
  %step = torch.constant.int 1
  %0 = torch.aten.slice_copy.Tensor %a, %dim, %start, %end, %step : (!torch.vtensor<[4,5],f32>, !torch.int, !torch.int, !torch.int, !torch.int) -> !torch.vtensor<[4,5],f32>
  return %0 : !torch.vtensor<[4,5],f32>
}

// -----

// select_scatter: src written in place into a slice of self
// (destination-passing style: extract_slice, copy into it, insert_slice).
// CHECK-LABEL: func.func @select_scatter(
// CHECK-SAME: %[[SELF:.*]]: tensor<4x5xf32>, %[[SRC:.*]]: tensor<4xf32>)
// CHECK: %[[D:.*]] = tensor.extract_slice %[[SELF]][0, 1] [4, 1] [1, 1] : tensor<4x5xf32> to tensor<4xf32>
// CHECK: %[[C:.*]] = linalg.copy ins(%[[SRC]] : tensor<4xf32>) outs(%[[D]] : tensor<4xf32>)
// CHECK: %[[R:.*]] = tensor.insert_slice %[[C]] into %[[SELF]][0, 1] [4, 1] [1, 1] : tensor<4xf32> into tensor<4x5xf32>
// CHECK: return %[[R]]
func.func @select_scatter(%self: !torch.vtensor<[4,5],f32>, %src: !torch.vtensor<[4],f32>) -> !torch.vtensor<[4,5],f32> {
  %dim = torch.constant.int 1
  %index = torch.constant.int 1
  %0 = torch.aten.select_scatter %self, %src, %dim, %index : (!torch.vtensor<[4,5],f32>, !torch.vtensor<[4],f32>, !torch.int, !torch.int) -> !torch.vtensor<[4,5],f32>
  return %0 : !torch.vtensor<[4,5],f32>
}

// -----

// slice_scatter with a step and a src of another dtype: the copy converts.
// CHECK-LABEL: func.func @slice_scatter_step_cast(
// CHECK: %[[D:.*]] = tensor.extract_slice %{{.*}}[1, 0] [2, 3] [2, 1] : tensor<6x3xf32> to tensor<2x3xf32>
// CHECK: %[[C:.*]] = linalg.generic {{.*}} ins(%{{.*}} : tensor<2x3xf64>) outs(%[[D]] : tensor<2x3xf32>)
// CHECK: arith.truncf
// CHECK: tensor.insert_slice %[[C]] into %{{.*}}[1, 0] [2, 3] [2, 1] : tensor<2x3xf32> into tensor<6x3xf32>
func.func @slice_scatter_step_cast(%self: !torch.vtensor<[6,3],f32>, %src: !torch.vtensor<[2,3],f64>) -> !torch.vtensor<[6,3],f32> {
  %dim = torch.constant.int 0
  %start = torch.constant.int 1
  %end = torch.constant.int 5
  %step = torch.constant.int 2
  %0 = torch.aten.slice_scatter %self, %src, %dim, %start, %end, %step : (!torch.vtensor<[6,3],f32>, !torch.vtensor<[2,3],f64>, !torch.int, !torch.int, !torch.int, !torch.int) -> !torch.vtensor<[6,3],f32>
  return %0 : !torch.vtensor<[6,3],f32>
}

// -----

// cat of tensors of different shapes (the list's element type is only a
// representative) along a negative dim: each piece is copied into its slice
// of one tensor.empty.
// CHECK-LABEL: func.func @cat(
// CHECK-SAME: %[[A:.*]]: tensor<3x2xf32>, %[[B:.*]]: tensor<3x4xf32>)
// CHECK: %[[E:.*]] = tensor.empty() : tensor<3x6xf32>
// CHECK: %[[S0:.*]] = tensor.extract_slice %[[E]][0, 0] [3, 2] [1, 1]
// CHECK: %[[C0:.*]] = linalg.copy ins(%[[A]] : tensor<3x2xf32>) outs(%[[S0]] : tensor<3x2xf32>)
// CHECK: %[[I0:.*]] = tensor.insert_slice %[[C0]] into %[[E]][0, 0] [3, 2] [1, 1]
// CHECK: %[[S1:.*]] = tensor.extract_slice %[[I0]][0, 2] [3, 4] [1, 1]
// CHECK: %[[C1:.*]] = linalg.copy ins(%[[B]] : tensor<3x4xf32>) outs(%[[S1]] : tensor<3x4xf32>)
// CHECK: %[[I1:.*]] = tensor.insert_slice %[[C1]] into %[[I0]][0, 2] [3, 4] [1, 1]
// CHECK: return %[[I1]]
func.func @cat(%a: !torch.vtensor<[3,2],f32>, %b: !torch.vtensor<[3,4],f32>) -> !torch.vtensor<[3,6],f32> {
  %list = torch.prim.ListConstruct %a, %b : (!torch.vtensor<[3,2],f32>, !torch.vtensor<[3,4],f32>) -> !torch.list<vtensor<[3,2],f32>>
  %dim = torch.constant.int -1
  %0 = torch.aten.cat %list, %dim : (!torch.list<vtensor<[3,2],f32>>, !torch.int) -> !torch.vtensor<[3,6],f32>
  return %0 : !torch.vtensor<[3,6],f32>
}

// -----

// cat promotes (f32 piece into an f64 result) and skips 1-D empty tensors.
// CHECK-LABEL: func.func @cat_promote_skip_empty(
// CHECK: tensor.empty() : tensor<3x2xf64>
// CHECK: linalg.generic {{.*}} ins(%{{.*}} : tensor<1x2xf32>)
// CHECK: arith.extf
// CHECK: tensor.insert_slice %{{.*}}[0, 0] [1, 2] [1, 1]
// CHECK: linalg.copy ins(%{{.*}} : tensor<2x2xf64>)
// CHECK: tensor.insert_slice %{{.*}}[1, 0] [2, 2] [1, 1]
// CHECK-NOT: tensor.insert_slice
func.func @cat_promote_skip_empty(%a: !torch.vtensor<[1,2],f32>, %e: !torch.vtensor<[0],f64>, %b: !torch.vtensor<[2,2],f64>) -> !torch.vtensor<[3,2],f64> {
  %list = torch.prim.ListConstruct %a, %e, %b : (!torch.vtensor<[1,2],f32>, !torch.vtensor<[0],f64>, !torch.vtensor<[2,2],f64>) -> !torch.list<vtensor<[1,2],f32>>
  %dim = torch.constant.int 0
  %0 = torch.aten.cat %list, %dim : (!torch.list<vtensor<[1,2],f32>>, !torch.int) -> !torch.vtensor<[3,2],f64>
  return %0 : !torch.vtensor<[3,2],f64>
}

// -----

// stack: each tensor inserted (rank-expanding) at its index of the new dim.
// CHECK-LABEL: func.func @stack(
// CHECK: tensor.empty() : tensor<3x2x4xf32>
// CHECK: tensor.insert_slice %{{.*}} into %{{.*}}[0, 0, 0] [3, 1, 4] [1, 1, 1] : tensor<3x4xf32> into tensor<3x2x4xf32>
// CHECK: tensor.insert_slice %{{.*}} into %{{.*}}[0, 1, 0] [3, 1, 4] [1, 1, 1] : tensor<3x4xf32> into tensor<3x2x4xf32>
func.func @stack(%a: !torch.vtensor<[3,4],f32>, %b: !torch.vtensor<[3,4],f32>) -> !torch.vtensor<[3,2,4],f32> {
  %list = torch.prim.ListConstruct %a, %b : (!torch.vtensor<[3,4],f32>, !torch.vtensor<[3,4],f32>) -> !torch.list<vtensor<[3,4],f32>>
  %dim = torch.constant.int 1
  %0 = torch.aten.stack %list, %dim : (!torch.list<vtensor<[3,4],f32>>, !torch.int) -> !torch.vtensor<[3,2,4],f32>
  return %0 : !torch.vtensor<[3,2,4],f32>
}

// -----

// index_select: a runtime bounds check over the indices, then a gather with
// the index clamped into [0, 4].
// CHECK-LABEL: func.func @index_select(
// CHECK-SAME: %[[A:.*]]: tensor<4x5xf32>, %[[I:.*]]: tensor<3xi64>)
// CHECK: arith.cmpi ult, %{{.*}}, %c5_i64
// CHECK: scf.if
// CHECK: func.call @ltc_mlir_rt_check_failed
// CHECK: linalg.generic {indexing_maps = [#{{.*}}, #{{.*}}], iterator_types = ["parallel", "parallel"]} ins(%[[I]] : tensor<3xi64>) outs(%{{.*}} : tensor<4x3xf32>)
// CHECK: arith.maxsi
// CHECK: arith.minsi
// CHECK: tensor.extract %[[A]]
func.func @index_select(%a: !torch.vtensor<[4,5],f32>, %i: !torch.vtensor<[3],si64>) -> !torch.vtensor<[4,3],f32> {
  %dim = torch.constant.int 1
  %0 = torch.aten.index_select %a, %dim, %i : (!torch.vtensor<[4,5],f32>, !torch.int, !torch.vtensor<[3],si64>) -> !torch.vtensor<[4,3],f32>
  return %0 : !torch.vtensor<[4,3],f32>
}

// -----

// sgn: (a > 0) ? 1 : ((a < 0) ? -1 : 0), so NaN and -0.0 give 0.
// CHECK-LABEL: func.func @sgn(
// CHECK: linalg.generic
// CHECK: %[[P:.*]] = arith.cmpf ogt
// CHECK: %[[N:.*]] = arith.cmpf olt
// CHECK: %[[NZ:.*]] = arith.select %[[N]]
// CHECK: arith.select %[[P]], %{{.*}}, %[[NZ]]
func.func @sgn(%a: !torch.vtensor<[4],f32>) -> !torch.vtensor<[4],f32> {
  %0 = torch.aten.sgn %a : (!torch.vtensor<[4],f32>) -> !torch.vtensor<[4],f32>
  return %0 : !torch.vtensor<[4],f32>
}
