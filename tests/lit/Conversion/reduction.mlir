// RUN: ltc-mlir-opt --convert-torch-to-linalg --split-input-file %s | FileCheck %s

// Negative dims wrap; the generic drops the reduced dims and keepdim
// re-inserts them as size 1 with expand_shape.
// CHECK-DAG: #[[IN:.*]] = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
// CHECK-DAG: #[[OUT:.*]] = affine_map<(d0, d1, d2) -> (d1)>
// CHECK-LABEL: func.func @sum_keepdim_negative_dims(
// CHECK-SAME: %[[A:.*]]: tensor<2x3x4xf32>) -> tensor<1x3x1xf32>
// CHECK: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK: %[[INIT:.*]] = linalg.fill ins(%[[ZERO]] : f32) outs(%{{.*}} : tensor<3xf32>)
// CHECK: %[[SUM:.*]] = linalg.generic {indexing_maps = [#[[IN]], #[[OUT]]], iterator_types = ["reduction", "parallel", "reduction"]}
// CHECK-SAME: ins(%[[A]] : tensor<2x3x4xf32>) outs(%[[INIT]] : tensor<3xf32>)
// CHECK:   arith.addf
// CHECK: %[[R:.*]] = tensor.expand_shape %[[SUM]] {{\[\[}}0, 1, 2]] output_shape [1, 3, 1] : tensor<3xf32> into tensor<1x3x1xf32>
// CHECK: return %[[R]]
func.func @sum_keepdim_negative_dims(%a: !torch.vtensor<[2,3,4],f32>) -> !torch.vtensor<[1,3,1],f32> {
  %int0 = torch.constant.int 0
  %intm1 = torch.constant.int -1
  %true = torch.constant.bool true
  %none = torch.constant.none
  %dims = torch.prim.ListConstruct %intm1, %int0 : (!torch.int, !torch.int) -> !torch.list<int>
  %0 = torch.aten.sum.dim_IntList %a, %dims, %true, %none : (!torch.vtensor<[2,3,4],f32>, !torch.list<int>, !torch.bool, !torch.none) -> !torch.vtensor<[1,3,1],f32>
  return %0 : !torch.vtensor<[1,3,1],f32>
}

// -----

// dim=None reduces everything; bool elements (stored as i8 0/1) are summed
// as si64.
// CHECK-DAG: #[[SCALAR:.*]] = affine_map<(d0, d1) -> ()>
// CHECK-LABEL: func.func @sum_none_dims_of_bool(
// CHECK-SAME: tensor<2x3xi8>
// CHECK: linalg.generic {indexing_maps = [#{{.*}}, #[[SCALAR]]], iterator_types = ["reduction", "reduction"]}
// CHECK: ^bb0(%[[X:.*]]: i8, %[[ACC:.*]]: i64):
// CHECK:   %[[XI:.*]] = arith.extui %[[X]] : i8 to i64
// CHECK:   arith.addi %[[XI]], %[[ACC]] : i64
// CHECK-NOT: tensor.expand_shape
func.func @sum_none_dims_of_bool(%a: !torch.vtensor<[2,3],i1>) -> !torch.vtensor<[],si64> {
  %false = torch.constant.bool false
  %none = torch.constant.none
  %0 = torch.aten.sum.dim_IntList %a, %none, %false, %none : (!torch.vtensor<[2,3],i1>, !torch.none, !torch.bool, !torch.none) -> !torch.vtensor<[],si64>
  return %0 : !torch.vtensor<[],si64>
}

// -----

// mean divides the sum by the number of reduced elements (here 2 * 4).
// CHECK-LABEL: func.func @mean_dims(
// CHECK: %[[SUM:.*]] = linalg.generic {{.*}} iterator_types = ["reduction", "parallel", "reduction"]
// CHECK: %[[COUNT:.*]] = arith.constant 8.000000e+00 : f32
// CHECK: linalg.generic {{.*}} ins(%[[SUM]] : tensor<3xf32>)
// CHECK:   arith.divf %{{.*}}, %[[COUNT]] : f32
func.func @mean_dims(%a: !torch.vtensor<[2,3,4],f32>) -> !torch.vtensor<[3],f32> {
  %int0 = torch.constant.int 0
  %int2 = torch.constant.int 2
  %false = torch.constant.bool false
  %none = torch.constant.none
  %dims = torch.prim.ListConstruct %int0, %int2 : (!torch.int, !torch.int) -> !torch.list<int>
  %0 = torch.aten.mean.dim %a, %dims, %false, %none : (!torch.vtensor<[2,3,4],f32>, !torch.list<int>, !torch.bool, !torch.none) -> !torch.vtensor<[3],f32>
  return %0 : !torch.vtensor<[3],f32>
}

// -----

// An empty dim list also means all dims; sum accumulates in the result dtype.
// CHECK-LABEL: func.func @sum_empty_list_to_f64(
// CHECK: ^bb0(%[[X:.*]]: f32, %[[ACC:.*]]: f64):
// CHECK:   %[[XD:.*]] = arith.extf %[[X]] : f32 to f64
// CHECK:   arith.addf %[[XD]], %[[ACC]] : f64
func.func @sum_empty_list_to_f64(%a: !torch.vtensor<[5],f32>) -> !torch.vtensor<[],f64> {
  %false = torch.constant.bool false
  %int7 = torch.constant.int 7
  %empty = torch.prim.ListConstruct : () -> !torch.list<int>
  %0 = torch.aten.sum.dim_IntList %a, %empty, %false, %int7 : (!torch.vtensor<[5],f32>, !torch.list<int>, !torch.bool, !torch.int) -> !torch.vtensor<[],f64>
  return %0 : !torch.vtensor<[],f64>
}
