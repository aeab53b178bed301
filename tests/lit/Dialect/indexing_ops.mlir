// RUN: ltc-mlir-opt %s | FileCheck %s
// RUN: ltc-mlir-opt %s --mlir-print-op-generic | ltc-mlir-opt | FileCheck %s

// What ltc_backend emits for torch.cat([a, b], 1): a list of tensors of
// different shapes and dtypes whose type names the first element's type.
// CHECK-LABEL: func.func @cat_list
// CHECK: torch.prim.ListConstruct %{{.*}}, %{{.*}} : (!torch.vtensor<[3,2],f32>, !torch.vtensor<[3,4],f64>) -> !torch.list<vtensor<[3,2],f32>>
// CHECK: torch.aten.cat
func.func @cat_list(%a: !torch.vtensor<[3,2],f32>, %b: !torch.vtensor<[3,4],f64>) -> !torch.vtensor<[3,6],f64> {
  %0 = "torch.prim.ListConstruct"(%a, %b) : (!torch.vtensor<[3,2],f32>, !torch.vtensor<[3,4],f64>) -> !torch.list<vtensor<[3,2],f32>>
  %1 = "torch.constant.int"() {value = 1 : i64} : () -> !torch.int
  %2 = "torch.aten.cat"(%0, %1) : (!torch.list<vtensor<[3,2],f32>>, !torch.int) -> !torch.vtensor<[3,6],f64>
  return %2 : !torch.vtensor<[3,6],f64>
}

// CHECK-LABEL: func.func @views
// CHECK: torch.aten.select_copy.int
// CHECK: torch.aten.select_scatter
// CHECK: torch.aten.slice_copy.Tensor
// CHECK: torch.aten.slice_scatter
// CHECK: torch.aten.index_select
// CHECK: torch.aten.sgn
func.func @views(%x: !torch.vtensor<[4,5],f32>, %i: !torch.vtensor<[2],si64>) -> (!torch.vtensor<[4,5],f32>, !torch.vtensor<[4,5],f32>, !torch.vtensor<[4,2],f32>) {
  %int1 = torch.constant.int 1
  %int2 = torch.constant.int 2
  %none = torch.constant.none
  %0 = torch.aten.select_copy.int %x, %int1, %int2 : (!torch.vtensor<[4,5],f32>, !torch.int, !torch.int) -> !torch.vtensor<[4],f32>
  %1 = torch.aten.select_scatter %x, %0, %int1, %int2 : (!torch.vtensor<[4,5],f32>, !torch.vtensor<[4],f32>, !torch.int, !torch.int) -> !torch.vtensor<[4,5],f32>
  %2 = torch.aten.slice_copy.Tensor %x, %int1, %none, %none, %int2 : (!torch.vtensor<[4,5],f32>, !torch.int, !torch.none, !torch.none, !torch.int) -> !torch.vtensor<[4,3],f32>
  %3 = torch.aten.slice_scatter %x, %2, %int1, %none, %none, %int2 : (!torch.vtensor<[4,5],f32>, !torch.vtensor<[4,3],f32>, !torch.int, !torch.none, !torch.none, !torch.int) -> !torch.vtensor<[4,5],f32>
  %4 = torch.aten.index_select %x, %int1, %i : (!torch.vtensor<[4,5],f32>, !torch.int, !torch.vtensor<[2],si64>) -> !torch.vtensor<[4,2],f32>
  %5 = torch.aten.sgn %3 : (!torch.vtensor<[4,5],f32>) -> !torch.vtensor<[4,5],f32>
  return %1, %5, %4 : !torch.vtensor<[4,5],f32>, !torch.vtensor<[4,5],f32>, !torch.vtensor<[4,2],f32>
}

// Advanced indexing: a Tensor?[] of index tensors and Nones (typed by its
// first tensor, as ltc_backend prints it); masks (i1) are accepted with any
// result shape (it depends on their values).
// CHECK-LABEL: func.func @advanced_indexing
// CHECK: torch.prim.ListConstruct %{{.*}}, %{{.*}}, %{{.*}} : (!torch.none, !torch.vtensor<[2,1],si64>, !torch.vtensor<[3],si64>) -> !torch.list<vtensor<[2,1],si64>>
// CHECK: torch.aten.index.Tensor
// CHECK: torch.aten.index_put
// CHECK: torch.aten._index_put_impl
// CHECK: torch.aten.index.Tensor
func.func @advanced_indexing(%x: !torch.vtensor<[4,5,6],f32>, %i: !torch.vtensor<[2,1],si64>, %j: !torch.vtensor<[3],si64>, %v: !torch.vtensor<[3],f32>, %m: !torch.vtensor<[4],i1>) -> (!torch.vtensor<[4,2,3],f32>, !torch.vtensor<[4,5,6],f32>, !torch.vtensor<[4,5,6],f32>, !torch.vtensor<[2,5,6],f32>) {
  %none = torch.constant.none
  %true = torch.constant.bool true
  %l = torch.prim.ListConstruct %none, %i, %j : (!torch.none, !torch.vtensor<[2,1],si64>, !torch.vtensor<[3],si64>) -> !torch.list<vtensor<[2,1],si64>>
  %0 = torch.aten.index.Tensor %x, %l : (!torch.vtensor<[4,5,6],f32>, !torch.list<vtensor<[2,1],si64>>) -> !torch.vtensor<[4,2,3],f32>
  %1 = torch.aten.index_put %x, %l, %v, %true : (!torch.vtensor<[4,5,6],f32>, !torch.list<vtensor<[2,1],si64>>, !torch.vtensor<[3],f32>, !torch.bool) -> !torch.vtensor<[4,5,6],f32>
  %2 = torch.aten._index_put_impl %x, %l, %0, %true, %true : (!torch.vtensor<[4,5,6],f32>, !torch.list<vtensor<[2,1],si64>>, !torch.vtensor<[4,2,3],f32>, !torch.bool, !torch.bool) -> !torch.vtensor<[4,5,6],f32>
  %lm = torch.prim.ListConstruct %m : (!torch.vtensor<[4],i1>) -> !torch.list<vtensor<[4],i1>>
  %3 = torch.aten.index.Tensor %x, %lm : (!torch.vtensor<[4,5,6],f32>, !torch.list<vtensor<[4],i1>>) -> !torch.vtensor<[2,5,6],f32>
  return %0, %1, %2, %3 : !torch.vtensor<[4,2,3],f32>, !torch.vtensor<[4,5,6],f32>, !torch.vtensor<[4,5,6],f32>, !torch.vtensor<[2,5,6],f32>
}
