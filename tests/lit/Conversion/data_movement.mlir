// RUN: ltc-mlir-opt --convert-torch-to-linalg --split-input-file %s | FileCheck %s

// view_copy infers -1 from the element count and merges adjacent dims.
// CHECK-LABEL: func.func @view_collapse_inferred(
// CHECK-SAME: %[[A:.*]]: tensor<2x3x4xf32>) -> tensor<6x4xf32>
// CHECK: %[[R:.*]] = tensor.collapse_shape %[[A]] {{\[\[}}0, 1], [2]] : tensor<2x3x4xf32> into tensor<6x4xf32>
// CHECK: return %[[R]]
func.func @view_collapse_inferred(%a: !torch.vtensor<[2,3,4],f32>) -> !torch.vtensor<[6,4],f32> {
  %intm1 = torch.constant.int -1
  %int4 = torch.constant.int 4
  %size = torch.prim.ListConstruct %intm1, %int4 : (!torch.int, !torch.int) -> !torch.list<int>
  %0 = torch.aten.view_copy %a, %size : (!torch.vtensor<[2,3,4],f32>, !torch.list<int>) -> !torch.vtensor<[6,4],f32>
  return %0 : !torch.vtensor<[6,4],f32>
}

// -----

// CHECK-LABEL: func.func @view_expand(
// CHECK: tensor.expand_shape %{{.*}} {{\[\[}}0, 1], [2]] output_shape [2, 3, 4] : tensor<6x4xf32> into tensor<2x3x4xf32>
func.func @view_expand(%a: !torch.vtensor<[6,4],f32>) -> !torch.vtensor<[2,3,4],f32> {
  %int2 = torch.constant.int 2
  %intm1 = torch.constant.int -1
  %int4 = torch.constant.int 4
  %size = torch.prim.ListConstruct %int2, %intm1, %int4 : (!torch.int, !torch.int, !torch.int) -> !torch.list<int>
  %0 = torch.aten.view_copy %a, %size : (!torch.vtensor<[6,4],f32>, !torch.list<int>) -> !torch.vtensor<[2,3,4],f32>
  return %0 : !torch.vtensor<[2,3,4],f32>
}

// -----

// Shapes that are not related by merging/splitting dims go through 1-D.
// CHECK-LABEL: func.func @view_through_flat(
// CHECK: %[[FLAT:.*]] = tensor.collapse_shape %{{.*}} {{\[\[}}0, 1]] : tensor<2x3xf32> into tensor<6xf32>
// CHECK: tensor.expand_shape %[[FLAT]] {{\[\[}}0, 1]] output_shape [3, 2] : tensor<6xf32> into tensor<3x2xf32>
func.func @view_through_flat(%a: !torch.vtensor<[2,3],f32>) -> !torch.vtensor<[3,2],f32> {
  %int3 = torch.constant.int 3
  %intm1 = torch.constant.int -1
  %size = torch.prim.ListConstruct %int3, %intm1 : (!torch.int, !torch.int) -> !torch.list<int>
  %0 = torch.aten.view_copy %a, %size : (!torch.vtensor<[2,3],f32>, !torch.list<int>) -> !torch.vtensor<[3,2],f32>
  return %0 : !torch.vtensor<[3,2],f32>
}

// -----

// CHECK-LABEL: func.func @permute_negative_dims(
// CHECK: linalg.transpose ins(%{{.*}} : tensor<2x3x4xf32>) outs(%{{.*}} : tensor<4x2x3xf32>) permutation = [2, 0, 1]
func.func @permute_negative_dims(%a: !torch.vtensor<[2,3,4],f32>) -> !torch.vtensor<[4,2,3],f32> {
  %intm1 = torch.constant.int -1
  %int0 = torch.constant.int 0
  %intm2 = torch.constant.int -2
  %dims = torch.prim.ListConstruct %intm1, %int0, %intm2 : (!torch.int, !torch.int, !torch.int) -> !torch.list<int>
  %0 = torch.aten.permute_copy %a, %dims : (!torch.vtensor<[2,3,4],f32>, !torch.list<int>) -> !torch.vtensor<[4,2,3],f32>
  return %0 : !torch.vtensor<[4,2,3],f32>
}

// -----

// expand_copy: -1 keeps a dim, size-1 dims broadcast, new dims lead.
// CHECK-DAG: #[[IN:.*]] = affine_map<(d0, d1, d2) -> (d1, 0)>
// CHECK-DAG: #[[OUT:.*]] = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
// CHECK-LABEL: func.func @expand_copy(
// CHECK: linalg.generic {indexing_maps = [#[[IN]], #[[OUT]]], iterator_types = ["parallel", "parallel", "parallel"]}
// CHECK-SAME: ins(%{{.*}} : tensor<3x1xf32>) outs(%{{.*}} : tensor<2x3x4xf32>)
func.func @expand_copy(%a: !torch.vtensor<[3,1],f32>) -> !torch.vtensor<[2,3,4],f32> {
  %int2 = torch.constant.int 2
  %intm1 = torch.constant.int -1
  %int4 = torch.constant.int 4
  %false = torch.constant.bool false
  %size = torch.prim.ListConstruct %int2, %intm1, %int4 : (!torch.int, !torch.int, !torch.int) -> !torch.list<int>
  %0 = torch.aten.expand_copy %a, %size, %false : (!torch.vtensor<[3,1],f32>, !torch.list<int>, !torch.bool) -> !torch.vtensor<[2,3,4],f32>
  return %0 : !torch.vtensor<[2,3,4],f32>
}

// -----

// unsqueeze_copy with a negative dim counts from the end of the result.
// CHECK-LABEL: func.func @unsqueeze_last(
// CHECK: tensor.expand_shape %{{.*}} {{\[\[}}0], [1, 2]] output_shape [2, 3, 1] : tensor<2x3xf32> into tensor<2x3x1xf32>
func.func @unsqueeze_last(%a: !torch.vtensor<[2,3],f32>) -> !torch.vtensor<[2,3,1],f32> {
  %intm1 = torch.constant.int -1
  %0 = torch.aten.unsqueeze_copy %a, %intm1 : (!torch.vtensor<[2,3],f32>, !torch.int) -> !torch.vtensor<[2,3,1],f32>
  return %0 : !torch.vtensor<[2,3,1],f32>
}

// -----

// Value semantics: detach_copy and clone forward their operand.
// CHECK-LABEL: func.func @identities(
// CHECK-SAME: %[[A:.*]]: tensor<2xf32>)
// CHECK-NEXT: return %[[A]], %[[A]]
func.func @identities(%a: !torch.vtensor<[2],f32>) -> (!torch.vtensor<[2],f32>, !torch.vtensor<[2],f32>) {
  %none = torch.constant.none
  %0 = torch.aten.detach_copy %a : (!torch.vtensor<[2],f32>) -> !torch.vtensor<[2],f32>
  %1 = torch.aten.clone %a, %none : (!torch.vtensor<[2],f32>, !torch.none) -> !torch.vtensor<[2],f32>
  return %0, %1 : !torch.vtensor<[2],f32>, !torch.vtensor<[2],f32>
}
