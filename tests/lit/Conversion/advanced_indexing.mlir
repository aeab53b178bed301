// RUN: ltc-mlir-opt --convert-torch-to-linalg --split-input-file %s | FileCheck %s

// x[i, :, j] (non-adjacent indexed dims: the broadcast index shape goes in
// front) with an si32 index: one bounds check per index tensor over
// [-size, size), then a parallel gather whose indices wrap (i < 0: i + size)
// and are clamped; the kept dim 1 is result dim 1.
// CHECK: #[[IDX:.*]] = affine_map<(d0, d1) -> (d0)>
// CHECK: #[[OUT:.*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK: module attributes {ltc.runtime_checks = ["IndexError: index is out of bounds for dimension 0 with size 6 (x[indices] needs every index in [-6, 6)). Check the index tensors.", "IndexError: index is out of bounds for dimension 2 with size 5 (x[indices] needs every index in [-5, 5)). Check the index tensors."]}
// CHECK-LABEL: func.func @index_non_adjacent(
// CHECK-SAME: %[[X:.*]]: tensor<6x3x5xf32>, %[[I:.*]]: tensor<4xi64>, %[[J:.*]]: tensor<4xi32>)
// CHECK: arith.cmpi sge, %{{.*}}, %c-6_i64
// CHECK: arith.cmpi slt, %{{.*}}, %c6_i64
// CHECK: func.call @ltc_mlir_rt_check_failed
// CHECK: arith.extsi %{{.*}} : i32 to i64
// CHECK: func.call @ltc_mlir_rt_check_failed
// CHECK: linalg.generic {indexing_maps = [#[[IDX]], #[[IDX]], #[[OUT]]], iterator_types = ["parallel", "parallel"]} ins(%[[I]], %[[J]] : tensor<4xi64>, tensor<4xi32>) outs(%{{.*}} : tensor<4x3xf32>)
// CHECK: ^bb0(%[[A:.*]]: i64, %[[B:.*]]: i32, %{{.*}}: f32):
// CHECK: %[[NEG:.*]] = arith.cmpi slt, %[[A]], %c0_i64
// CHECK: %[[WRAP:.*]] = arith.addi %[[A]], %c6_i64
// CHECK: %[[SEL:.*]] = arith.select %[[NEG]], %[[WRAP]], %[[A]]
// CHECK: arith.maxsi %[[SEL]]
// CHECK: arith.minsi
// CHECK: %[[ROW:.*]] = arith.index_cast
// CHECK: %[[COL:.*]] = arith.index_cast
// CHECK: %[[MID:.*]] = linalg.index 1 : index
// CHECK: tensor.extract %[[X]][%[[ROW]], %[[MID]], %[[COL]]] : tensor<6x3x5xf32>
func.func @index_non_adjacent(%x: !torch.vtensor<[6,3,5],f32>, %i: !torch.vtensor<[4],si64>, %j: !torch.vtensor<[4],si32>) -> !torch.vtensor<[4,3],f32> {
  %none = torch.constant.none
  %l = torch.prim.ListConstruct %i, %none, %j : (!torch.vtensor<[4],si64>, !torch.none, !torch.vtensor<[4],si32>) -> !torch.list<vtensor<[4],si64>>
  %0 = torch.aten.index.Tensor %x, %l : (!torch.vtensor<[6,3,5],f32>, !torch.list<vtensor<[4],si64>>) -> !torch.vtensor<[4,3],f32>
  return %0 : !torch.vtensor<[4,3],f32>
}

// -----

// x[:, i, j] with i [2,1] and j [4] (adjacent: the broadcast shape [2,4]
// replaces dims 1 and 2 in place): i is read at (d1, 0), j at (d2).
// CHECK: #[[I_MAP:.*]] = affine_map<(d0, d1, d2) -> (d1, 0)>
// CHECK: #[[J_MAP:.*]] = affine_map<(d0, d1, d2) -> (d2)>
// CHECK-LABEL: func.func @index_none_then_broadcast(
// CHECK-SAME: %[[X:.*]]: tensor<3x6x5xf32>, %[[I:.*]]: tensor<2x1xi64>, %[[J:.*]]: tensor<4xi64>)
// CHECK: linalg.generic {indexing_maps = [#[[I_MAP]], #[[J_MAP]], #{{.*}}], iterator_types = ["parallel", "parallel", "parallel"]} ins(%[[I]], %[[J]] : tensor<2x1xi64>, tensor<4xi64>) outs(%{{.*}} : tensor<3x2x4xf32>)
// CHECK: %[[D1:.*]] = arith.index_cast
// CHECK: %[[D2:.*]] = arith.index_cast
// CHECK: %[[D0:.*]] = linalg.index 0 : index
// CHECK: tensor.extract %[[X]][%[[D0]], %[[D1]], %[[D2]]]
func.func @index_none_then_broadcast(%x: !torch.vtensor<[3,6,5],f32>, %i: !torch.vtensor<[2,1],si64>, %j: !torch.vtensor<[4],si64>) -> !torch.vtensor<[3,2,4],f32> {
  %none = torch.constant.none
  %l = torch.prim.ListConstruct %none, %i, %j : (!torch.none, !torch.vtensor<[2,1],si64>, !torch.vtensor<[4],si64>) -> !torch.list<vtensor<[2,1],si64>>
  %0 = torch.aten.index.Tensor %x, %l : (!torch.vtensor<[3,6,5],f32>, !torch.list<vtensor<[2,1],si64>>) -> !torch.vtensor<[3,2,4],f32>
  return %0 : !torch.vtensor<[3,2,4],f32>
}

// -----

// index_put with accumulate (index's backward): a sequential loop nest over
// the indexing result [7,4] carrying the result (from self); bf16 adds in
// f32 and rounds after each add, like ATen's CPU loop.
// CHECK: module attributes {ltc.runtime_checks = ["IndexError: index is out of bounds for dimension 0 with size 6 (index_put_ with accumulate=True needs every index in [-6, 6)). Check the index tensors."]}
// CHECK-LABEL: func.func @index_put_accumulate_bf16(
// CHECK-SAME: %[[X:.*]]: tensor<6x4xbf16>, %[[I:.*]]: tensor<7xi64>, %[[V:.*]]: tensor<7x4xbf16>)
// CHECK: func.call @ltc_mlir_rt_check_failed
// CHECK: scf.for %[[K:.*]] = {{.*}} iter_args(%[[OUT0:.*]] = %[[X]]) -> (tensor<6x4xbf16>)
// CHECK:   scf.for %[[C:.*]] = {{.*}} iter_args(%[[OUT:.*]] = %[[OUT0]]) -> (tensor<6x4xbf16>)
// CHECK:     tensor.extract %[[I]][%[[K]]]
// CHECK:     arith.select
// CHECK:     %[[ROW:.*]] = arith.index_cast
// CHECK:     %[[NEWV:.*]] = tensor.extract %[[V]][%[[K]], %[[C]]]
// CHECK:     %[[OLD:.*]] = tensor.extract %[[OUT]][%[[ROW]], %[[C]]]
// CHECK:     %[[NEWF:.*]] = arith.extf %[[NEWV]] : bf16 to f32
// CHECK:     %[[OLDF:.*]] = arith.extf %[[OLD]] : bf16 to f32
// CHECK:     %[[SUM:.*]] = arith.addf %[[OLDF]], %[[NEWF]] : f32
// CHECK:     %[[R:.*]] = arith.truncf %[[SUM]] : f32 to bf16
// CHECK:     tensor.insert %[[R]] into %[[OUT]][%[[ROW]], %[[C]]]
func.func @index_put_accumulate_bf16(%x: !torch.vtensor<[6,4],bf16>, %i: !torch.vtensor<[7],si64>, %v: !torch.vtensor<[7,4],bf16>) -> !torch.vtensor<[6,4],bf16> {
  %true = torch.constant.bool true
  %l = torch.prim.ListConstruct %i : (!torch.vtensor<[7],si64>) -> !torch.list<vtensor<[7],si64>>
  %0 = torch.aten.index_put %x, %l, %v, %true : (!torch.vtensor<[6,4],bf16>, !torch.list<vtensor<[7],si64>>, !torch.vtensor<[7,4],bf16>, !torch.bool) -> !torch.vtensor<[6,4],bf16>
  return %0 : !torch.vtensor<[6,4],bf16>
}

// -----

// _index_put_impl without accumulate, x[:, i] = v with v [3] broadcast to
// the indexing result [6,3]: a plain insert, the last write wins.
// CHECK-LABEL: func.func @index_put_impl_assign(
// CHECK-SAME: %[[X:.*]]: tensor<6x4xf32>, %[[I:.*]]: tensor<3xi64>, %[[V:.*]]: tensor<3xf32>)
// CHECK: scf.for %[[R:.*]] = {{.*}} iter_args(%[[OUT0:.*]] = %[[X]]) -> (tensor<6x4xf32>)
// CHECK:   scf.for %[[K:.*]] = {{.*}} iter_args(%[[OUT:.*]] = %[[OUT0]]) -> (tensor<6x4xf32>)
// CHECK:     tensor.extract %[[I]][%[[K]]]
// CHECK:     %[[COL:.*]] = arith.index_cast
// CHECK:     %[[E:.*]] = tensor.extract %[[V]][%[[K]]]
// CHECK-NOT: arith.addf
// CHECK:     tensor.insert %[[E]] into %[[OUT]][%[[R]], %[[COL]]]
func.func @index_put_impl_assign(%x: !torch.vtensor<[6,4],f32>, %i: !torch.vtensor<[3],si64>, %v: !torch.vtensor<[3],f32>) -> !torch.vtensor<[6,4],f32> {
  %false = torch.constant.bool false
  %true = torch.constant.bool true
  %none = torch.constant.none
  %l = torch.prim.ListConstruct %none, %i : (!torch.none, !torch.vtensor<[3],si64>) -> !torch.list<vtensor<[3],si64>>
  %0 = torch.aten._index_put_impl %x, %l, %v, %false, %true : (!torch.vtensor<[6,4],f32>, !torch.list<vtensor<[3],si64>>, !torch.vtensor<[3],f32>, !torch.bool, !torch.bool) -> !torch.vtensor<[6,4],f32>
  return %0 : !torch.vtensor<[6,4],f32>
}

// -----

// Bool accumulate is an or (i8 0/1 storage).
// CHECK-LABEL: func.func @index_put_accumulate_bool(
// CHECK: scf.for
// CHECK: arith.ori %{{.*}}, %{{.*}} : i8
// CHECK: tensor.insert
func.func @index_put_accumulate_bool(%x: !torch.vtensor<[5],i1>, %i: !torch.vtensor<[3],si64>, %v: !torch.vtensor<[3],i1>) -> !torch.vtensor<[5],i1> {
  %true = torch.constant.bool true
  %l = torch.prim.ListConstruct %i : (!torch.vtensor<[3],si64>) -> !torch.list<vtensor<[3],si64>>
  %0 = torch.aten.index_put %x, %l, %v, %true : (!torch.vtensor<[5],i1>, !torch.list<vtensor<[3],si64>>, !torch.vtensor<[3],i1>, !torch.bool) -> !torch.vtensor<[5],i1>
  return %0 : !torch.vtensor<[5],i1>
}
