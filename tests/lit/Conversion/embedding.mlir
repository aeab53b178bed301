// RUN: ltc-mlir-opt --convert-torch-to-linalg --split-input-file %s | FileCheck %s

// embedding: a runtime check that every index is in [0, 10), then a gather
// over the result [2,3,4] reading weight[clamp(indices[i,j]), k].
// CHECK-DAG: #[[IMAP:.*]] = affine_map<(d0, d1, d2) -> (d0, d1)>
// CHECK-DAG: #[[OMAP:.*]] = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
// CHECK: module attributes {ltc.runtime_checks = ["IndexError: embedding: index out of range in self: every index must be in [0, 10)
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
// ATen's loop: for each index n in order (padding_idx skipped), grad row n
// is added into result row clamp(indices[n]), carried through scf.for.
// CHECK-LABEL: func.func @embedding_backward(
// CHECK-DAG: %[[PAD:.*]] = arith.constant 2 : i64
// CHECK: %[[ZERO:.*]] = linalg.fill
// CHECK: %[[IDX:.*]] = tensor.collapse_shape %{{.*}} {{\[\[}}0, 1]] : tensor<2x3xi64> into tensor<6xi64>
// CHECK: %[[G:.*]] = tensor.collapse_shape %{{.*}} {{\[\[}}0, 1], [2]] : tensor<2x3x4xf32> into tensor<6x4xf32>
// CHECK: scf.if
// CHECK: func.call @ltc_mlir_rt_check_failed
// CHECK: scf.for %[[N:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[ACC:.*]] = %[[ZERO]]) -> (tensor<10x4xf32>)
// CHECK:   %[[IV:.*]] = tensor.extract %[[IDX]][%[[N]]] : tensor<6xi64>
// CHECK:   %[[NP:.*]] = arith.cmpi ne, %[[IV]], %[[PAD]] : i64
// CHECK:   arith.maxsi
// CHECK:   arith.minsi
// CHECK:   %[[ROW:.*]] = arith.index_cast
// CHECK:   scf.if %[[NP]] -> (tensor<10x4xf32>)
// CHECK:     scf.for %[[C:.*]] = {{.*}} iter_args(%[[OUT:.*]] = %[[ACC]])
// CHECK:       %[[GV:.*]] = tensor.extract %[[G]][%[[N]], %[[C]]] : tensor<6x4xf32>
// CHECK:       %[[OLD:.*]] = tensor.extract %[[OUT]][%[[ROW]], %[[C]]] : tensor<10x4xf32>
// CHECK:       %[[S:.*]] = arith.addf %[[OLD]], %[[GV]] : f32
// CHECK:       tensor.insert %[[S]] into %[[OUT]][%[[ROW]], %[[C]]]
func.func @embedding_backward(%g: !torch.vtensor<[2,3,4],f32>, %i: !torch.vtensor<[2,3],si64>) -> !torch.vtensor<[10,4],f32> {
  %int10 = torch.constant.int 10
  %int2 = torch.constant.int 2
  %false = torch.constant.bool false
  %0 = torch.aten.embedding_dense_backward %g, %i, %int10, %int2, %false : (!torch.vtensor<[2,3,4],f32>, !torch.vtensor<[2,3],si64>, !torch.int, !torch.int, !torch.bool) -> !torch.vtensor<[10,4],f32>
  return %0 : !torch.vtensor<[10,4],f32>
}
