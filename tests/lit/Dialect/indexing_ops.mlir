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
