// RUN: ltc-mlir-opt --convert-torch-to-linalg --split-input-file %s | FileCheck %s

// log_softmax over dim 0 (given as -2): row max, sum of exp(x - max), then
// (x - max) - log(sum) in ATen's order. The row tensors drop dim 0.
// CHECK-DAG: #[[FULL:.*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[ROW:.*]] = affine_map<(d0, d1) -> (d1)>
// CHECK-LABEL: func.func @log_softmax_dim0(
// CHECK-SAME: %[[X:.*]]: tensor<4x3xf32>)
// CHECK: %[[NEG_INF:.*]] = arith.constant 0xFF800000 : f32
// CHECK: %[[MAX_INIT:.*]] = linalg.fill ins(%[[NEG_INF]] : f32) outs(%{{.*}} : tensor<3xf32>)
// CHECK: %[[MAX:.*]] = linalg.generic {indexing_maps = [#[[FULL]], #[[ROW]]], iterator_types = ["reduction", "parallel"]}
// CHECK-SAME: ins(%[[X]] : tensor<4x3xf32>) outs(%[[MAX_INIT]] : tensor<3xf32>)
// CHECK:   arith.maximumf
// CHECK: %[[SUM:.*]] = linalg.generic {indexing_maps = [#[[FULL]], #[[ROW]], #[[ROW]]], iterator_types = ["reduction", "parallel"]}
// CHECK-SAME: ins(%[[X]], %[[MAX]] : tensor<4x3xf32>, tensor<3xf32>)
// CHECK:   %[[SHIFTED:.*]] = arith.subf
// CHECK:   %[[E:.*]] = math.exp %[[SHIFTED]]
// CHECK:   arith.addf %[[E]]
// CHECK: %[[LOG:.*]] = linalg.generic {{.*}} ins(%[[SUM]] : tensor<3xf32>)
// CHECK:   math.log
// CHECK: linalg.generic {indexing_maps = [#[[FULL]], #[[ROW]], #[[ROW]], #[[FULL]]], iterator_types = ["parallel", "parallel"]}
// CHECK-SAME: ins(%[[X]], %[[MAX]], %[[LOG]] : tensor<4x3xf32>, tensor<3xf32>, tensor<3xf32>)
// CHECK: ^bb0(%[[XV:.*]]: f32, %[[MV:.*]]: f32, %[[LV:.*]]: f32, %{{.*}}: f32):
// CHECK:   %[[D:.*]] = arith.subf %[[XV]], %[[MV]] : f32
// CHECK:   arith.subf %[[D]], %[[LV]] : f32
func.func @log_softmax_dim0(%x: !torch.vtensor<[4,3],f32>) -> !torch.vtensor<[4,3],f32> {
  %intm2 = torch.constant.int -2
  %false = torch.constant.bool false
  %0 = torch.aten._log_softmax %x, %intm2, %false : (!torch.vtensor<[4,3],f32>, !torch.int, !torch.bool) -> !torch.vtensor<[4,3],f32>
  return %0 : !torch.vtensor<[4,3],f32>
}

// -----

// _softmax_backward_data: output * (grad - sum(grad * output, dim)).
// CHECK-LABEL: func.func @softmax_backward(
// CHECK-SAME: %[[G:.*]]: tensor<2x3xf32>, %[[Y:.*]]: tensor<2x3xf32>)
// CHECK: %[[S:.*]] = linalg.generic {{.*}} iterator_types = ["parallel", "reduction"]} ins(%[[G]], %[[Y]] : tensor<2x3xf32>, tensor<2x3xf32>)
// CHECK:   arith.mulf
// CHECK:   arith.addf
// CHECK: linalg.generic {{.*}} ins(%[[G]], %[[Y]], %[[S]] : tensor<2x3xf32>, tensor<2x3xf32>, tensor<2xf32>)
// CHECK: ^bb0(%[[GV:.*]]: f32, %[[YV:.*]]: f32, %[[SV:.*]]: f32, %{{.*}}: f32):
// CHECK:   %[[D:.*]] = arith.subf %[[GV]], %[[SV]] : f32
// CHECK:   arith.mulf %[[YV]], %[[D]] : f32
func.func @softmax_backward(%g: !torch.vtensor<[2,3],f32>, %y: !torch.vtensor<[2,3],f32>) -> !torch.vtensor<[2,3],f32> {
  %int1 = torch.constant.int 1
  %int6 = torch.constant.int 6
  %0 = torch.aten._softmax_backward_data %g, %y, %int1, %int6 : (!torch.vtensor<[2,3],f32>, !torch.vtensor<[2,3],f32>, !torch.int, !torch.int) -> !torch.vtensor<[2,3],f32>
  return %0 : !torch.vtensor<[2,3],f32>
}
