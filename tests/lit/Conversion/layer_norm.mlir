// RUN: ltc-mlir-opt --convert-torch-to-linalg --split-input-file %s | FileCheck %s

// native_layer_norm over the last dim of [2,3,4]: the input is viewed as
// [6,4] rows; the row sums and squared deviations accumulate in f64, rstd is
// 1 / sqrt(var + eps) (biased var), the output (x * rstd - rstd * mean) *
// weight + bias is computed in f32 and mean/rstd come back as [2,3,1].
// CHECK-DAG: #[[FULL:.*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[ROW:.*]] = affine_map<(d0, d1) -> (d0)>
// CHECK-DAG: #[[COL:.*]] = affine_map<(d0, d1) -> (d1)>
// CHECK-LABEL: func.func @layer_norm(
// CHECK-SAME: %[[X:.*]]: tensor<2x3x4xf32>, %[[W:.*]]: tensor<4xf32>, %[[B:.*]]: tensor<4xf32>)
// CHECK: %[[ROWS:.*]] = tensor.collapse_shape %[[X]] {{\[\[}}0, 1], [2]] : tensor<2x3x4xf32> into tensor<6x4xf32>
// CHECK: %[[SUM:.*]] = linalg.generic {indexing_maps = [#[[FULL]], #[[ROW]]], iterator_types = ["parallel", "reduction"]} ins(%[[ROWS]] : tensor<6x4xf32>) outs(%{{.*}} : tensor<6xf64>)
// CHECK:   arith.extf
// CHECK:   arith.addf
// CHECK: %[[MEAN:.*]] = linalg.generic {{.*}} ins(%[[SUM]] : tensor<6xf64>)
// CHECK:   arith.constant 4.000000e+00 : f64
// CHECK:   arith.divf
// CHECK: %[[SQ:.*]] = linalg.generic {indexing_maps = [#[[FULL]], #[[ROW]], #[[ROW]]], iterator_types = ["parallel", "reduction"]} ins(%[[ROWS]], %[[MEAN]] : tensor<6x4xf32>, tensor<6xf64>)
// CHECK:   arith.subf
// CHECK:   arith.mulf
// CHECK:   arith.addf
// CHECK: %[[VAR:.*]] = linalg.generic {{.*}} ins(%[[SQ]] : tensor<6xf64>)
// CHECK: %[[EPS:.*]] = arith.constant 1.000000e-05 : f64
// CHECK: %[[RSTD:.*]] = linalg.generic {{.*}} ins(%[[VAR]] : tensor<6xf64>)
// CHECK:   %[[VE:.*]] = arith.addf %{{.*}}, %[[EPS]] : f64
// CHECK:   %[[S:.*]] = math.sqrt %[[VE]] : f64
// CHECK:   arith.divf %{{.*}}, %[[S]] : f64
// CHECK: %[[MEAN32:.*]] = linalg.generic {{.*}} ins(%[[MEAN]] : tensor<6xf64>) outs(%{{.*}} : tensor<6xf32>)
// CHECK:   arith.truncf
// CHECK: %[[RSTD32:.*]] = linalg.generic {{.*}} ins(%[[RSTD]] : tensor<6xf64>) outs(%{{.*}} : tensor<6xf32>)
// CHECK: %[[Y:.*]] = linalg.generic {indexing_maps = [#[[FULL]], #[[ROW]], #[[ROW]], #[[COL]], #[[COL]], #[[FULL]]], iterator_types = ["parallel", "parallel"]}
// CHECK-SAME: ins(%[[ROWS]], %[[MEAN32]], %[[RSTD32]], %[[W]], %[[B]] :
// CHECK: ^bb0(%[[XV:.*]]: f32, %[[MV:.*]]: f32, %[[RV:.*]]: f32, %[[WV:.*]]: f32, %[[BV:.*]]: f32, %{{.*}}: f32):
// CHECK:   %[[NR:.*]] = arith.negf %[[RV]] : f32
// CHECK:   %[[SHIFT:.*]] = arith.mulf %[[NR]], %[[MV]] : f32
// CHECK:   %[[XR:.*]] = arith.mulf %[[XV]], %[[RV]] : f32
// CHECK:   %[[T:.*]] = arith.addf %[[XR]], %[[SHIFT]] : f32
// CHECK:   %[[TW:.*]] = arith.mulf %[[T]], %[[WV]] : f32
// CHECK:   arith.addf %[[TW]], %[[BV]] : f32
// CHECK: %[[OUT:.*]] = tensor.expand_shape %[[Y]] {{\[\[}}0, 1], [2]] output_shape [2, 3, 4]
// CHECK: %[[MEANOUT:.*]] = tensor.expand_shape %[[MEAN32]] {{\[\[}}0, 1, 2]] output_shape [2, 3, 1]
// CHECK: %[[RSTDOUT:.*]] = tensor.expand_shape %[[RSTD32]] {{\[\[}}0, 1, 2]] output_shape [2, 3, 1]
// CHECK: return %[[OUT]], %[[MEANOUT]], %[[RSTDOUT]]
func.func @layer_norm(%x: !torch.vtensor<[2,3,4],f32>, %w: !torch.vtensor<[4],f32>, %b: !torch.vtensor<[4],f32>) -> (!torch.vtensor<[2,3,4],f32>, !torch.vtensor<[2,3,1],f32>, !torch.vtensor<[2,3,1],f32>) {
  %int4 = torch.constant.int 4
  %shape = torch.prim.ListConstruct %int4 : (!torch.int) -> !torch.list<int>
  %eps = torch.constant.float 1.000000e-05
  %0:3 = torch.aten.native_layer_norm %x, %shape, %w, %b, %eps : (!torch.vtensor<[2,3,4],f32>, !torch.list<int>, !torch.vtensor<[4],f32>, !torch.vtensor<[4],f32>, !torch.float) -> (!torch.vtensor<[2,3,4],f32>, !torch.vtensor<[2,3,1],f32>, !torch.vtensor<[2,3,1],f32>)
  return %0#0, %0#1, %0#2 : !torch.vtensor<[2,3,4],f32>, !torch.vtensor<[2,3,1],f32>, !torch.vtensor<[2,3,1],f32>
}

// -----

// Without weight and bias: (x - mean) * rstd.
// CHECK-LABEL: func.func @layer_norm_no_affine(
// CHECK: linalg.generic {indexing_maps = [#{{.*}}, #{{.*}}, #{{.*}}, #{{.*}}], iterator_types = ["parallel", "parallel"]}
// CHECK: ^bb0(%[[XV:.*]]: f32, %[[MV:.*]]: f32, %[[RV:.*]]: f32, %{{.*}}: f32):
// CHECK:   %[[D:.*]] = arith.subf %[[XV]], %[[MV]] : f32
// CHECK:   %[[R:.*]] = arith.mulf %[[D]], %[[RV]] : f32
// CHECK:   linalg.yield %[[R]] : f32
func.func @layer_norm_no_affine(%x: !torch.vtensor<[5,6],f32>) -> !torch.vtensor<[5,6],f32> {
  %int6 = torch.constant.int 6
  %shape = torch.prim.ListConstruct %int6 : (!torch.int) -> !torch.list<int>
  %none = torch.constant.none
  %eps = torch.constant.float 1.000000e-05
  %0:3 = torch.aten.native_layer_norm %x, %shape, %none, %none, %eps : (!torch.vtensor<[5,6],f32>, !torch.list<int>, !torch.none, !torch.none, !torch.float) -> (!torch.vtensor<[5,6],f32>, !torch.vtensor<[5,1],f32>, !torch.vtensor<[5,1],f32>)
  return %0#0 : !torch.vtensor<[5,6],f32>
}

// -----

// Backward with output_mask [true, true, false]: grad_input from the row
// sums ds = sum(dy * w * x), db = sum(dy * w) (f64, both in one pass),
// grad_weight as a column reduction of dy * (x - mean) * rstd, grad_bias
// (not wanted) as zeros.
// CHECK-DAG: #[[FULL:.*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[ROW:.*]] = affine_map<(d0, d1) -> (d0)>
// CHECK-DAG: #[[COL:.*]] = affine_map<(d0, d1) -> (d1)>
// CHECK-LABEL: func.func @layer_norm_backward(
// CHECK: %[[SUMS:.*]]:2 = linalg.generic {indexing_maps = [#[[FULL]], #[[FULL]], #[[COL]], #[[ROW]], #[[ROW]]], iterator_types = ["parallel", "reduction"]} {{.*}} outs(%{{.*}}, %{{.*}} : tensor<3xf64>, tensor<3xf64>)
// CHECK: %[[GI:.*]] = linalg.generic {indexing_maps = [#[[FULL]], #[[FULL]], #[[ROW]], #[[ROW]], #[[ROW]], #[[COL]], #[[FULL]]], iterator_types = ["parallel", "parallel"]}
// CHECK: %[[GWSUM:.*]] = linalg.generic {indexing_maps = [#[[FULL]], #[[FULL]], #[[ROW]], #[[ROW]], #[[COL]]], iterator_types = ["reduction", "parallel"]} {{.*}} outs(%{{.*}} : tensor<4xf64>)
// CHECK: %[[GW:.*]] = linalg.generic {{.*}} ins(%[[GWSUM]] : tensor<4xf64>) outs(%{{.*}} : tensor<4xf32>)
// CHECK: %[[ZERO:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<4xf32>)
// CHECK: return %[[GI]], %[[GW]], %[[ZERO]]
func.func @layer_norm_backward(%dy: !torch.vtensor<[3,4],f32>, %x: !torch.vtensor<[3,4],f32>, %mean: !torch.vtensor<[3,1],f32>, %rstd: !torch.vtensor<[3,1],f32>, %w: !torch.vtensor<[4],f32>) -> (!torch.vtensor<[3,4],f32>, !torch.vtensor<[4],f32>, !torch.vtensor<[4],f32>) {
  %int4 = torch.constant.int 4
  %shape = torch.prim.ListConstruct %int4 : (!torch.int) -> !torch.list<int>
  %none = torch.constant.none
  %true = torch.constant.bool true
  %false = torch.constant.bool false
  %mask = torch.prim.ListConstruct %true, %true, %false : (!torch.bool, !torch.bool, !torch.bool) -> !torch.list<bool>
  %0:3 = torch.aten.native_layer_norm_backward %dy, %x, %shape, %mean, %rstd, %w, %none, %mask : (!torch.vtensor<[3,4],f32>, !torch.vtensor<[3,4],f32>, !torch.list<int>, !torch.vtensor<[3,1],f32>, !torch.vtensor<[3,1],f32>, !torch.vtensor<[4],f32>, !torch.none, !torch.list<bool>) -> (!torch.vtensor<[3,4],f32>, !torch.vtensor<[4],f32>, !torch.vtensor<[4],f32>)
  return %0#0, %0#1, %0#2 : !torch.vtensor<[3,4],f32>, !torch.vtensor<[4],f32>, !torch.vtensor<[4],f32>
}

// -----

// The input needs no gradient (LayerNorm on a detached input): grad_input is
// an undefined tensor, which LTC types [], and is not computed; grad_weight
// and grad_bias are the column sums.
// CHECK-LABEL: func.func @layer_norm_backward_no_grad_input(
// CHECK-NOT: iterator_types = ["parallel", "parallel"]
// CHECK: %[[GI:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<f32>)
// CHECK: iterator_types = ["reduction", "parallel"]
// CHECK: iterator_types = ["reduction", "parallel"]
// CHECK: return %[[GI]], %{{.*}}, %{{.*}} : tensor<f32>, tensor<4xf32>, tensor<4xf32>
func.func @layer_norm_backward_no_grad_input(%dy: !torch.vtensor<[3,4],f32>, %x: !torch.vtensor<[3,4],f32>, %mean: !torch.vtensor<[3,1],f32>, %rstd: !torch.vtensor<[3,1],f32>, %w: !torch.vtensor<[4],f32>, %b: !torch.vtensor<[4],f32>) -> (!torch.vtensor<[],f32>, !torch.vtensor<[4],f32>, !torch.vtensor<[4],f32>) {
  %int4 = torch.constant.int 4
  %shape = torch.prim.ListConstruct %int4 : (!torch.int) -> !torch.list<int>
  %true = torch.constant.bool true
  %false = torch.constant.bool false
  %mask = torch.prim.ListConstruct %false, %true, %true : (!torch.bool, !torch.bool, !torch.bool) -> !torch.list<bool>
  %0:3 = torch.aten.native_layer_norm_backward %dy, %x, %shape, %mean, %rstd, %w, %b, %mask : (!torch.vtensor<[3,4],f32>, !torch.vtensor<[3,4],f32>, !torch.list<int>, !torch.vtensor<[3,1],f32>, !torch.vtensor<[3,1],f32>, !torch.vtensor<[4],f32>, !torch.vtensor<[4],f32>, !torch.list<bool>) -> (!torch.vtensor<[],f32>, !torch.vtensor<[4],f32>, !torch.vtensor<[4],f32>)
  return %0#0, %0#1, %0#2 : !torch.vtensor<[],f32>, !torch.vtensor<[4],f32>, !torch.vtensor<[4],f32>
}
