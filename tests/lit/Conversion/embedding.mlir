// RUN: ltc-mlir-opt --convert-torch-to-linalg --split-input-file %s | FileCheck %s

// embedding: a runtime check that every index is in [0, 10), then a gather
// over the result [2,3,4] reading weight[clamp(indices[i,j]), k].
// CHECK-DAG: #[[IMAP:.*]] = affine_map<(d0, d1, d2) -> (d0, d1)>
// CHECK-DAG: #[[OMAP:.*]] = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
// CHECK: module attributes {ltc.runtime_checks = ["embedding: index out of range in self: every index must be in [0, 10)
// CHECK-LABEL: func.func @embedding(
// CHECK-SAME: %[[W:.*]]: tensor<10x4xf32>, %[[I:.*]]: tensor<2x3xi64>)
// CHECK: %[[OK:.*]] = tensor.extract
// CHECK: scf.if
// CHECK:   func.call @ltc_mlir_rt_check_failed
// CHECK: linalg.generic {indexing_maps = [#[[IMAP]], #[[OMAP]]], iterator_types = ["parallel", "parallel", "parallel"]} ins(%[[I]] : tensor<2x3xi64>)
// CHECK:   arith.maxsi
// CHECK:   arith.minsi
// CHECK:   %[[ROW:.*]] = arith.index_cast
// CHECK:   %[[COL:.*]] = linalg.index 2 : index
// CHECK:   tensor.extract %[[W]][%[[ROW]], %[[COL]]] : tensor<10x4xf32>
func.func @embedding(%w: !torch.vtensor<[10,4],f32>, %i: !torch.vtensor<[2,3],si64>) -> !torch.vtensor<[2,3,4],f32> {
  %int-1 = torch.constant.int -1
  %false = torch.constant.bool false
  %0 = torch.aten.embedding %w, %i, %int-1, %false, %false : (!torch.vtensor<[10,4],f32>, !torch.vtensor<[2,3],si64>, !torch.int, !torch.bool, !torch.bool) -> !torch.vtensor<[2,3,4],f32>
  return %0 : !torch.vtensor<[2,3,4],f32>
}

// -----

// embedding_dense_backward: indices and grad flattened to [6] and [6,4];
// result[v, d] sums grad[n, d] over n (a reduction dim, in order) where
// indices[n] == v and indices[n] != padding_idx.
// CHECK-DAG: #[[NMAP:.*]] = affine_map<(d0, d1, d2) -> (d2)>
// CHECK-DAG: #[[GMAP:.*]] = affine_map<(d0, d1, d2) -> (d2, d1)>
// CHECK-DAG: #[[RMAP:.*]] = affine_map<(d0, d1, d2) -> (d0, d1)>
// CHECK-LABEL: func.func @embedding_backward(
// CHECK-DAG: %[[PAD:.*]] = arith.constant 2 : i64
// CHECK: %[[ZERO:.*]] = linalg.fill
// CHECK: %[[IDX:.*]] = tensor.collapse_shape %{{.*}} {{\[\[}}0, 1]] : tensor<2x3xi64> into tensor<6xi64>
// CHECK: %[[G:.*]] = tensor.collapse_shape %{{.*}} {{\[\[}}0, 1], [2]] : tensor<2x3x4xf32> into tensor<6x4xf32>
// CHECK: scf.if
// CHECK: linalg.generic {indexing_maps = [#[[NMAP]], #[[GMAP]], #[[RMAP]]], iterator_types = ["parallel", "parallel", "reduction"]} ins(%[[IDX]], %[[G]] : tensor<6xi64>, tensor<6x4xf32>) outs(%[[ZERO]] : tensor<10x4xf32>)
// CHECK: ^bb0(%[[IV:.*]]: i64, %[[GV:.*]]: f32, %[[ACC:.*]]: f32):
// CHECK:   %[[V:.*]] = linalg.index 0 : index
// CHECK:   %[[VI:.*]] = arith.index_cast %[[V]] : index to i64
// CHECK-DAG:   %[[NP:.*]] = arith.cmpi ne, %[[IV]], %[[PAD]] : i64
// CHECK-DAG:   %[[EQ:.*]] = arith.cmpi eq, %[[IV]], %[[VI]] : i64
// CHECK:   %[[M:.*]] = arith.andi %[[EQ]], %[[NP]] : i1
// CHECK:   %[[S:.*]] = arith.addf %[[ACC]], %[[GV]] : f32
// CHECK:   arith.select %[[M]], %[[S]], %[[ACC]] : f32
func.func @embedding_backward(%g: !torch.vtensor<[2,3,4],f32>, %i: !torch.vtensor<[2,3],si64>) -> !torch.vtensor<[10,4],f32> {
  %int10 = torch.constant.int 10
  %int2 = torch.constant.int 2
  %false = torch.constant.bool false
  %0 = torch.aten.embedding_dense_backward %g, %i, %int10, %int2, %false : (!torch.vtensor<[2,3,4],f32>, !torch.vtensor<[2,3],si64>, !torch.int, !torch.int, !torch.bool) -> !torch.vtensor<[10,4],f32>
  return %0 : !torch.vtensor<[10,4],f32>
}
