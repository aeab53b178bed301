// RUN: ltc-mlir-opt --convert-torch-to-linalg --canonicalize --split-input-file %s | FileCheck %s

// [N, C, S] = [2, 6, 5] in 3 groups is viewed as [N, G, D, S] = [2, 3, 2,
// 5]: statistics per (N, G) summed over (D, S), weight/bias viewed [G, D].
// scale = rstd * w and bias' = b - scale * mean per (N, G, D) in one
// 2-result generic; y = x * scale + bias'.
// CHECK-DAG: #[[FULL:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
// CHECK-DAG: #[[STAT:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d1)>
// CHECK-DAG: #[[NGD:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
// CHECK-LABEL: func.func @group_norm(
// CHECK-SAME: %[[X:.*]]: tensor<2x6x5xf32>, %[[W:.*]]: tensor<6xf32>, %[[B:.*]]: tensor<6xf32>)
// CHECK-DAG: %[[TEN:.*]] = arith.constant 1.000000e+01 : f32
// CHECK-DAG: %[[W2:.*]] = tensor.expand_shape %[[W]] {{\[\[}}0, 1]] output_shape [3, 2]
// CHECK-DAG: %[[B2:.*]] = tensor.expand_shape %[[B]] {{\[\[}}0, 1]] output_shape [3, 2]
// CHECK-DAG: %[[XG:.*]] = tensor.expand_shape %[[X]] {{\[\[}}0], [1, 2], [3]] output_shape [2, 3, 2, 5]
// CHECK: %[[SUM:.*]] = linalg.generic {indexing_maps = [#[[FULL]], #[[STAT]]], iterator_types = ["parallel", "parallel", "reduction", "reduction"]} ins(%[[XG]] :
// CHECK: %[[MEAN:.*]] = linalg.generic {{.*}} ins(%[[SUM]] : tensor<2x3xf32>)
// CHECK:   arith.divf %{{.*}}, %[[TEN]] : f32
// CHECK: %[[SQ:.*]] = linalg.generic {indexing_maps = [#[[FULL]], #[[STAT]], #[[STAT]]], iterator_types = ["parallel", "parallel", "reduction", "reduction"]} ins(%[[XG]], %[[MEAN]] :
// CHECK: %[[VAR:.*]] = linalg.generic {{.*}} ins(%[[SQ]] : tensor<2x3xf32>)
// CHECK: %[[RSTD:.*]] = linalg.generic {{.*}} ins(%[[VAR]] : tensor<2x3xf32>)
// CHECK:   math.sqrt %{{.*}} : f64
// CHECK: %[[C:.*]]:2 = linalg.generic {{.*}} ins(%[[MEAN]], %[[RSTD]], %[[W2]], %[[B2]] : {{.*}}) outs({{.*}} : tensor<2x3x2xf32>, tensor<2x3x2xf32>)
// CHECK: %[[Y:.*]] = linalg.generic {indexing_maps = [#[[FULL]], #[[NGD]], #[[NGD]], #[[FULL]]], {{.*}} ins(%[[XG]], %[[C]]#0, %[[C]]#1 :
// CHECK: %[[OUT:.*]] = tensor.collapse_shape %[[Y]] {{\[\[}}0], [1, 2], [3]] : tensor<2x3x2x5xf32> into tensor<2x6x5xf32>
// CHECK: return %[[OUT]], %[[MEAN]], %[[RSTD]]
func.func @group_norm(%x: !torch.vtensor<[2,6,5],f32>, %w: !torch.vtensor<[6],f32>, %b: !torch.vtensor<[6],f32>) -> (!torch.vtensor<[2,6,5],f32>, !torch.vtensor<[2,3],f32>, !torch.vtensor<[2,3],f32>) {
  %int2 = torch.constant.int 2
  %int6 = torch.constant.int 6
  %int5 = torch.constant.int 5
  %int3 = torch.constant.int 3
  %eps = torch.constant.float 1.000000e-05
  %0:3 = torch.aten.native_group_norm %x, %w, %b, %int2, %int6, %int5, %int3, %eps : (!torch.vtensor<[2,6,5],f32>, !torch.vtensor<[6],f32>, !torch.vtensor<[6],f32>, !torch.int, !torch.int, !torch.int, !torch.int, !torch.float) -> (!torch.vtensor<[2,6,5],f32>, !torch.vtensor<[2,3],f32>, !torch.vtensor<[2,3],f32>)
  return %0#0, %0#1, %0#2 : !torch.vtensor<[2,6,5],f32>, !torch.vtensor<[2,3],f32>, !torch.vtensor<[2,3],f32>
}

// -----

// Without weight and bias: y = (x - mean) * rstd.
// CHECK-LABEL: func.func @group_norm_plain(
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel"]}
// CHECK: ^bb0(%[[XV:.*]]: f32, %[[MV:.*]]: f32, %[[RV:.*]]: f32, %{{.*}}: f32):
// CHECK:   %[[D:.*]] = arith.subf %[[XV]], %[[MV]] : f32
// CHECK:   arith.mulf %[[D]], %[[RV]] : f32
func.func @group_norm_plain(%x: !torch.vtensor<[2,4,3,3],f32>) -> (!torch.vtensor<[2,4,3,3],f32>, !torch.vtensor<[2,2],f32>, !torch.vtensor<[2,2],f32>) {
  %none = torch.constant.none
  %int2 = torch.constant.int 2
  %int4 = torch.constant.int 4
  %int9 = torch.constant.int 9
  %eps = torch.constant.float 1.000000e-05
  %0:3 = torch.aten.native_group_norm %x, %none, %none, %int2, %int4, %int9, %int2, %eps : (!torch.vtensor<[2,4,3,3],f32>, !torch.none, !torch.none, !torch.int, !torch.int, !torch.int, !torch.int, !torch.float) -> (!torch.vtensor<[2,4,3,3],f32>, !torch.vtensor<[2,2],f32>, !torch.vtensor<[2,2],f32>)
  return %0#0, %0#1, %0#2 : !torch.vtensor<[2,4,3,3],f32>, !torch.vtensor<[2,2],f32>, !torch.vtensor<[2,2],f32>
}

// -----

// Backward: ds = sum_S(dy * x), db = sum_S(dy) per (N, G, D) in one pass;
// their weighted sums over D per (N, G); c2 and c3 in one generic; dx =
// rstd * w * dy + c2 * x + c3; grad_weight = sum_N((ds - db * mean) *
// rstd), grad_bias = sum_N(db), both viewed back as [C].
// CHECK-LABEL: func.func @group_norm_backward(
// CHECK-SAME: %[[DY:.*]]: tensor<2x6x5xf32>, %[[X:.*]]: tensor<2x6x5xf32>, %[[MEAN:.*]]: tensor<2x3xf32>, %[[RSTD:.*]]: tensor<2x3xf32>, %[[W:.*]]: tensor<6xf32>)
// CHECK: %[[DSDB:.*]]:2 = linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
// CHECK: %[[G:.*]]:2 = linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "reduction"]} ins(%[[DSDB]]#0, %[[DSDB]]#1, %{{.*}} :
// CHECK: %[[C23:.*]]:2 = linalg.generic {{.*}} ins(%[[G]]#0, %[[G]]#1, %[[MEAN]], %[[RSTD]] :
// CHECK: %[[DXG:.*]] = linalg.generic {{.*}} ins(%{{.*}}, %{{.*}}, %[[RSTD]], %[[C23]]#0, %[[C23]]#1, %{{.*}} :
// CHECK: %[[DX:.*]] = tensor.collapse_shape %[[DXG]]
// CHECK: %[[GW:.*]] = linalg.generic {{.*}} iterator_types = ["reduction", "parallel", "parallel"]} ins(%[[DSDB]]#0, %[[DSDB]]#1, %[[MEAN]], %[[RSTD]] :
// CHECK: %[[GW1:.*]] = tensor.collapse_shape %[[GW]] {{\[\[}}0, 1]] : tensor<3x2xf32> into tensor<6xf32>
// CHECK: %[[GB:.*]] = linalg.generic {{.*}} iterator_types = ["reduction", "parallel", "parallel"]} ins(%[[DSDB]]#1 :
// CHECK: %[[GB1:.*]] = tensor.collapse_shape %[[GB]]
// CHECK: return %[[DX]], %[[GW1]], %[[GB1]]
func.func @group_norm_backward(%dy: !torch.vtensor<[2,6,5],f32>, %x: !torch.vtensor<[2,6,5],f32>, %mean: !torch.vtensor<[2,3],f32>, %rstd: !torch.vtensor<[2,3],f32>, %w: !torch.vtensor<[6],f32>) -> (!torch.vtensor<[2,6,5],f32>, !torch.vtensor<[6],f32>, !torch.vtensor<[6],f32>) {
  %int2 = torch.constant.int 2
  %int6 = torch.constant.int 6
  %int5 = torch.constant.int 5
  %int3 = torch.constant.int 3
  %true = torch.constant.bool true
  %mask = torch.prim.ListConstruct %true, %true, %true : (!torch.bool, !torch.bool, !torch.bool) -> !torch.list<bool>
  %0:3 = torch.aten.native_group_norm_backward %dy, %x, %mean, %rstd, %w, %int2, %int6, %int5, %int3, %mask : (!torch.vtensor<[2,6,5],f32>, !torch.vtensor<[2,6,5],f32>, !torch.vtensor<[2,3],f32>, !torch.vtensor<[2,3],f32>, !torch.vtensor<[6],f32>, !torch.int, !torch.int, !torch.int, !torch.int, !torch.list<bool>) -> (!torch.vtensor<[2,6,5],f32>, !torch.vtensor<[6],f32>, !torch.vtensor<[6],f32>)
  return %0#0, %0#1, %0#2 : !torch.vtensor<[2,6,5],f32>, !torch.vtensor<[6],f32>, !torch.vtensor<[6],f32>
}
