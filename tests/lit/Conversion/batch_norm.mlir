// RUN: ltc-mlir-opt --convert-torch-to-linalg --canonicalize --split-input-file %s | FileCheck %s

// Training: statistics over N and the spatial dims (dim 1 is the channel),
// in two passes (sum / n, then sum of squared deviations / n), accumulated
// in f64 as ATen does for f32; invstd, alpha = invstd * w and beta = b - mean * alpha come from one
// 3-result generic; the output is x * alpha + beta. Running statistics are
// neither read nor written.
// CHECK-DAG: #[[FULL:.*]] = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
// CHECK-DAG: #[[CH:.*]] = affine_map<(d0, d1, d2) -> (d1)>
// CHECK-LABEL: func.func @batch_norm_train(
// CHECK-SAME: %[[X:.*]]: tensor<2x3x4xf32>, %[[W:.*]]: tensor<3xf32>, %[[B:.*]]: tensor<3xf32>, %{{.*}}: tensor<3xf32>, %{{.*}}: tensor<3xf32>)
// CHECK: %[[SUM:.*]] = linalg.generic {indexing_maps = [#[[FULL]], #[[CH]]], iterator_types = ["reduction", "parallel", "reduction"]} ins(%[[X]] : tensor<2x3x4xf32>) outs(%{{.*}} : tensor<3xf64>)
// CHECK:   arith.extf %{{.*}} : f32 to f64
// CHECK: %[[MEAN:.*]] = linalg.generic {{.*}} ins(%[[SUM]] : tensor<3xf64>)
// CHECK:   arith.divf %{{.*}}, %{{.*}} : f64
// CHECK: %[[SQ:.*]] = linalg.generic {indexing_maps = [#[[FULL]], #[[CH]], #[[CH]]], iterator_types = ["reduction", "parallel", "reduction"]} ins(%[[X]], %[[MEAN]] :
// CHECK:   arith.subf
// CHECK:   arith.mulf
// CHECK:   arith.addf
// CHECK: %[[VAR:.*]] = linalg.generic {{.*}} ins(%[[SQ]] : tensor<3xf64>)
// CHECK: %[[C:.*]]:3 = linalg.generic {{.*}} ins(%[[MEAN]], %[[VAR]], %{{.*}}, %{{.*}} : {{.*}}) outs(
// CHECK:   math.sqrt %{{.*}} : f64
// CHECK:   %[[INVSTD:.*]] = arith.divf %{{.*}}, %{{.*}} : f64
// CHECK:   %[[ALPHA:.*]] = arith.mulf %[[INVSTD]], %{{.*}} : f64
// CHECK:   %[[SHIFT:.*]] = arith.mulf %{{.*}}, %[[ALPHA]] : f64
// CHECK:   %[[BETA:.*]] = arith.subf %{{.*}}, %[[SHIFT]] : f64
// CHECK:   linalg.yield %[[INVSTD]], %[[ALPHA]], %[[BETA]]
// CHECK: %[[Y:.*]] = linalg.generic {indexing_maps = [#[[FULL]], #[[CH]], #[[CH]], #[[FULL]]], iterator_types = ["parallel", "parallel", "parallel"]} ins(%[[X]], %[[C]]#1, %[[C]]#2 :
// CHECK:   arith.extf
// CHECK:   %[[XA:.*]] = arith.mulf
// CHECK:   arith.addf %[[XA]], %{{.*}} : f64
// CHECK:   arith.truncf %{{.*}} : f64 to f32
// CHECK: return %[[Y]], %{{.*}}, %{{.*}}
func.func @batch_norm_train(%x: !torch.vtensor<[2,3,4],f32>, %w: !torch.vtensor<[3],f32>, %b: !torch.vtensor<[3],f32>, %rm: !torch.vtensor<[3],f32>, %rv: !torch.vtensor<[3],f32>) -> (!torch.vtensor<[2,3,4],f32>, !torch.vtensor<[3],f32>, !torch.vtensor<[3],f32>) {
  %true = torch.constant.bool true
  %momentum = torch.constant.float 1.000000e-01
  %eps = torch.constant.float 1.000000e-05
  %0:3 = torch.aten.native_batch_norm %x, %w, %b, %rm, %rv, %true, %momentum, %eps : (!torch.vtensor<[2,3,4],f32>, !torch.vtensor<[3],f32>, !torch.vtensor<[3],f32>, !torch.vtensor<[3],f32>, !torch.vtensor<[3],f32>, !torch.bool, !torch.float, !torch.float) -> (!torch.vtensor<[2,3,4],f32>, !torch.vtensor<[3],f32>, !torch.vtensor<[3],f32>)
  return %0#0, %0#1, %0#2 : !torch.vtensor<[2,3,4],f32>, !torch.vtensor<[3],f32>, !torch.vtensor<[3],f32>
}

// -----

// Eval without weight and bias: the running statistics, alpha = invstd and
// beta = -mean * alpha; save_mean/save_invstd typed [0] (eager CPU returns
// empty tensors) are empty.
// CHECK-LABEL: func.func @batch_norm_eval(
// CHECK-SAME: %[[X:.*]]: tensor<4x2xf32>, %[[RM:.*]]: tensor<2xf32>, %[[RV:.*]]: tensor<2xf32>)
// CHECK: %[[C:.*]]:3 = linalg.generic {{.*}} ins(%[[RM]], %[[RV]] : tensor<2xf32>, tensor<2xf32>)
// CHECK:   %[[INVSTD:.*]] = arith.truncf
// CHECK:   %[[SHIFT:.*]] = arith.mulf %{{.*}}, %[[INVSTD]] : f32
// CHECK:   %[[BETA:.*]] = arith.negf %[[SHIFT]] : f32
// CHECK:   linalg.yield %[[INVSTD]], %[[INVSTD]], %[[BETA]]
// CHECK: %[[Y:.*]] = linalg.generic {{.*}} ins(%[[X]], %[[C]]#1, %[[C]]#2 :
// CHECK: %[[E0:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<0xf32>)
// CHECK: %[[E1:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<0xf32>)
// CHECK: return %[[Y]], %[[E0]], %[[E1]]
func.func @batch_norm_eval(%x: !torch.vtensor<[4,2],f32>, %rm: !torch.vtensor<[2],f32>, %rv: !torch.vtensor<[2],f32>) -> (!torch.vtensor<[4,2],f32>, !torch.vtensor<[0],f32>, !torch.vtensor<[0],f32>) {
  %none = torch.constant.none
  %false = torch.constant.bool false
  %momentum = torch.constant.float 1.000000e-01
  %eps = torch.constant.float 1.000000e-03
  %0:3 = torch.aten.native_batch_norm %x, %none, %none, %rm, %rv, %false, %momentum, %eps : (!torch.vtensor<[4,2],f32>, !torch.none, !torch.none, !torch.vtensor<[2],f32>, !torch.vtensor<[2],f32>, !torch.bool, !torch.float, !torch.float) -> (!torch.vtensor<[4,2],f32>, !torch.vtensor<[0],f32>, !torch.vtensor<[0],f32>)
  return %0#0, %0#1, %0#2 : !torch.vtensor<[4,2],f32>, !torch.vtensor<[0],f32>, !torch.vtensor<[0],f32>
}

// -----

// Training backward without weight, output_mask [true, false, true]: one
// pass sums dy and (x - mean) * dy per channel; k = dotp * invstd^2 / n,
// gradMean = sum / n and scale = invstd in one generic; dx = (dy - gradMean
// - (x - mean) * k) * scale; grad_weight (not wanted) is zeros, grad_bias
// the sum.
// CHECK-DAG: #[[FULL:.*]] = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
// CHECK-DAG: #[[CH:.*]] = affine_map<(d0, d1, d2) -> (d1)>
// CHECK-LABEL: func.func @batch_norm_backward_train(
// CHECK-SAME: %[[DY:.*]]: tensor<2x3x4xf32>, %[[X:.*]]: tensor<2x3x4xf32>, %[[MEAN:.*]]: tensor<3xf32>, %[[INVSTD:.*]]: tensor<3xf32>)
// CHECK: %[[S:.*]]:2 = linalg.generic {indexing_maps = [#[[FULL]], #[[FULL]], #[[CH]], #[[CH]], #[[CH]]], iterator_types = ["reduction", "parallel", "reduction"]} ins(%[[DY]], %[[X]], %{{.*}} : tensor<2x3x4xf32>, tensor<2x3x4xf32>, tensor<3xf64>)
// CHECK:   %[[D:.*]] = arith.subf
// CHECK:   %[[P:.*]] = arith.mulf %[[D]], %{{.*}} : f64
// CHECK:   %[[SUM:.*]] = arith.addf %{{.*}}, %{{.*}} : f64
// CHECK:   %[[DOT:.*]] = arith.addf %[[P]], %{{.*}} : f64
// CHECK:   linalg.yield %[[SUM]], %[[DOT]]
// CHECK: %[[K:.*]]:3 = linalg.generic {{.*}} ins(%[[S]]#1, %[[S]]#0, %{{.*}} :
// CHECK: %[[DX:.*]] = linalg.generic {indexing_maps = [#[[FULL]], #[[FULL]], #[[CH]], #[[CH]], #[[CH]], #[[CH]], #[[FULL]]], iterator_types = ["parallel", "parallel", "parallel"]} ins(%[[DY]], %[[X]], %{{.*}}, %[[K]]#0, %[[K]]#1, %[[K]]#2 :
// CHECK: %[[ZERO:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<3xf32>)
// CHECK: return %[[DX]], %[[ZERO]], %{{.*}}
func.func @batch_norm_backward_train(%dy: !torch.vtensor<[2,3,4],f32>, %x: !torch.vtensor<[2,3,4],f32>, %mean: !torch.vtensor<[3],f32>, %invstd: !torch.vtensor<[3],f32>) -> (!torch.vtensor<[2,3,4],f32>, !torch.vtensor<[3],f32>, !torch.vtensor<[3],f32>) {
  %none = torch.constant.none
  %true = torch.constant.bool true
  %false = torch.constant.bool false
  %eps = torch.constant.float 1.000000e-05
  %mask = torch.prim.ListConstruct %true, %false, %true : (!torch.bool, !torch.bool, !torch.bool) -> !torch.list<bool>
  %0:3 = torch.aten.native_batch_norm_backward %dy, %x, %none, %none, %none, %mean, %invstd, %true, %eps, %mask : (!torch.vtensor<[2,3,4],f32>, !torch.vtensor<[2,3,4],f32>, !torch.none, !torch.none, !torch.none, !torch.vtensor<[3],f32>, !torch.vtensor<[3],f32>, !torch.bool, !torch.float, !torch.list<bool>) -> (!torch.vtensor<[2,3,4],f32>, !torch.vtensor<[3],f32>, !torch.vtensor<[3],f32>)
  return %0#0, %0#1, %0#2 : !torch.vtensor<[2,3,4],f32>, !torch.vtensor<[3],f32>, !torch.vtensor<[3],f32>
}

// -----

// Eval backward: invstd from the running variance, dx = dy * invstd * w,
// grad_weight = sum((x - running_mean) * dy) * invstd; grad_bias not wanted.
// CHECK-LABEL: func.func @batch_norm_backward_eval(
// CHECK-SAME: %[[DY:.*]]: tensor<2x3xf32>, %[[X:.*]]: tensor<2x3xf32>, %[[W:.*]]: tensor<3xf32>, %[[RM:.*]]: tensor<3xf32>, %[[RV:.*]]: tensor<3xf32>)
// CHECK: %[[INVSTD:.*]] = linalg.generic {{.*}} ins(%{{[0-9]+}} : tensor<3xf64>)
// CHECK:   math.sqrt
// CHECK: %[[DOT:.*]] = linalg.generic {{.*}} iterator_types = ["reduction", "parallel"]} ins(%[[DY]], %[[X]], %{{.*}} :
// CHECK: %[[SCALE:.*]] = linalg.generic {{.*}} ins(%[[INVSTD]], %{{.*}} :
// CHECK: %[[DX:.*]] = linalg.generic {{.*}} ins(%[[DY]], %[[SCALE]] :
// CHECK: %[[GW:.*]] = linalg.generic {{.*}} ins(%[[DOT]], %[[INVSTD]] :
// CHECK: %[[ZERO:.*]] = linalg.fill
// CHECK: return %[[DX]], %{{.*}}, %[[ZERO]]
func.func @batch_norm_backward_eval(%dy: !torch.vtensor<[2,3],f32>, %x: !torch.vtensor<[2,3],f32>, %w: !torch.vtensor<[3],f32>, %rm: !torch.vtensor<[3],f32>, %rv: !torch.vtensor<[3],f32>) -> (!torch.vtensor<[2,3],f32>, !torch.vtensor<[3],f32>, !torch.vtensor<[3],f32>) {
  %none = torch.constant.none
  %true = torch.constant.bool true
  %false = torch.constant.bool false
  %eps = torch.constant.float 1.000000e-05
  %mask = torch.prim.ListConstruct %true, %true, %false : (!torch.bool, !torch.bool, !torch.bool) -> !torch.list<bool>
  %0:3 = torch.aten.native_batch_norm_backward %dy, %x, %w, %rm, %rv, %none, %none, %false, %eps, %mask : (!torch.vtensor<[2,3],f32>, !torch.vtensor<[2,3],f32>, !torch.vtensor<[3],f32>, !torch.vtensor<[3],f32>, !torch.vtensor<[3],f32>, !torch.none, !torch.none, !torch.bool, !torch.float, !torch.list<bool>) -> (!torch.vtensor<[2,3],f32>, !torch.vtensor<[3],f32>, !torch.vtensor<[3],f32>)
  return %0#0, %0#1, %0#2 : !torch.vtensor<[2,3],f32>, !torch.vtensor<[3],f32>, !torch.vtensor<[3],f32>
}

// -----

// bf16 input with f32 parameters (eager's mixed-dtype path): sums and
// coefficients in f32, the output rounded to bf16 once.
// CHECK-LABEL: func.func @batch_norm_bf16(
// CHECK: linalg.generic {{.*}} ins(%{{.*}} : tensor<2x2x3xbf16>) outs(%{{.*}} : tensor<2xf32>)
// CHECK:   arith.extf %{{.*}} : bf16 to f32
// CHECK: %[[Y:.*]] = linalg.generic {{.*}} outs(%{{.*}} : tensor<2x2x3xbf16>)
// CHECK:   arith.extf %{{.*}} : bf16 to f32
// CHECK:   arith.mulf %{{.*}} : f32
// CHECK:   arith.addf %{{.*}} : f32
// CHECK:   arith.truncf %{{.*}} : f32 to bf16
func.func @batch_norm_bf16(%x: !torch.vtensor<[2,2,3],bf16>, %w: !torch.vtensor<[2],f32>, %b: !torch.vtensor<[2],f32>) -> (!torch.vtensor<[2,2,3],bf16>, !torch.vtensor<[2],f32>, !torch.vtensor<[2],f32>) {
  %none = torch.constant.none
  %true = torch.constant.bool true
  %momentum = torch.constant.float 1.000000e-01
  %eps = torch.constant.float 1.000000e-05
  %0:3 = torch.aten.native_batch_norm %x, %w, %b, %none, %none, %true, %momentum, %eps : (!torch.vtensor<[2,2,3],bf16>, !torch.vtensor<[2],f32>, !torch.vtensor<[2],f32>, !torch.none, !torch.none, !torch.bool, !torch.float, !torch.float) -> (!torch.vtensor<[2,2,3],bf16>, !torch.vtensor<[2],f32>, !torch.vtensor<[2],f32>)
  return %0#0, %0#1, %0#2 : !torch.vtensor<[2,2,3],bf16>, !torch.vtensor<[2],f32>, !torch.vtensor<[2],f32>
}
