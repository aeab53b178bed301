// RUN: ltc-mlir-opt --convert-torch-to-linalg --split-input-file %s | FileCheck %s

// reduction=mean without weight: one pass over [N, C] (short enough for a
// single block, see createSum) accumulates self[n, t] and the count of
// non-ignored targets, then computes (0 - sum) / count.
// CHECK-DAG: #[[SELF:.*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[TARGET:.*]] = affine_map<(d0, d1) -> (d0)>
// CHECK-DAG: #[[SCALAR:.*]] = affine_map<(d0, d1) -> ()>
// CHECK-LABEL: func.func @nll_mean_ignore_index(
// CHECK-SAME: %[[X:.*]]: tensor<3x4xf32>, %[[T:.*]]: tensor<3xi64>)
// CHECK-DAG: %[[IGNORE:.*]] = arith.constant 2 : i64
// CHECK-DAG: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-DAG: %[[ONE:.*]] = arith.constant 1.000000e+00 : f32
// CHECK: %[[RED:.*]]:2 = linalg.generic {indexing_maps = [#[[SELF]], #[[TARGET]], #[[SCALAR]], #[[SCALAR]]], iterator_types = ["reduction", "reduction"]}
// CHECK-SAME: ins(%[[X]], %[[T]] : tensor<3x4xf32>, tensor<3xi64>)
// CHECK: ^bb0(%[[XV:.*]]: f32, %[[TV:.*]]: i64, %[[LOSS:.*]]: f32, %[[TOTAL:.*]]: f32):
// CHECK:   %[[C:.*]] = linalg.index 1 : index
// CHECK:   %[[CI:.*]] = arith.index_cast %[[C]] : index to i64
// CHECK:   %[[IS_T:.*]] = arith.cmpi eq, %[[CI]], %[[TV]] : i64
// CHECK:   %[[KEPT:.*]] = arith.cmpi ne, %[[TV]], %[[IGNORE]] : i64
// CHECK:   %[[SEL:.*]] = arith.andi %[[IS_T]], %[[KEPT]] : i1
// CHECK:   %[[TERM:.*]] = arith.select %[[SEL]], %[[XV]], %[[ZERO]] : f32
// CHECK:   %[[W:.*]] = arith.select %[[SEL]], %[[ONE]], %[[ZERO]] : f32
// CHECK:   %[[NEWLOSS:.*]] = arith.addf %[[TERM]], %[[LOSS]] : f32
// CHECK:   %[[NEWTOTAL:.*]] = arith.addf %[[W]], %[[TOTAL]] : f32
// CHECK:   linalg.yield %[[NEWLOSS]], %[[NEWTOTAL]] : f32, f32
// CHECK: %[[MEAN:.*]] = linalg.generic {{.*}} ins(%[[RED]]#0, %[[RED]]#1 : tensor<f32>, tensor<f32>)
// CHECK: ^bb0(%[[S:.*]]: f32, %[[N:.*]]: f32, %{{.*}}: f32):
// CHECK:   %[[NEG:.*]] = arith.subf %{{.*}}, %[[S]] : f32
// CHECK:   arith.divf %[[NEG]], %[[N]] : f32
// CHECK: return %[[MEAN]], %[[RED]]#1
func.func @nll_mean_ignore_index(%x: !torch.vtensor<[3,4],f32>, %t: !torch.vtensor<[3],si64>) -> (!torch.vtensor<[],f32>, !torch.vtensor<[],f32>) {
  %none = torch.constant.none
  %int1 = torch.constant.int 1
  %int2 = torch.constant.int 2
  %0, %1 = torch.aten.nll_loss_forward %x, %t, %none, %int1, %int2 : (!torch.vtensor<[3,4],f32>, !torch.vtensor<[3],si64>, !torch.none, !torch.int, !torch.int) -> (!torch.vtensor<[],f32>, !torch.vtensor<[],f32>)
  return %0, %1 : !torch.vtensor<[],f32>, !torch.vtensor<[],f32>
}

// -----

// reduction=sum with a weight: the weight is read at the class index and
// there is no division.
// CHECK-DAG: #[[WEIGHT:.*]] = affine_map<(d0, d1) -> (d1)>
// CHECK-LABEL: func.func @nll_sum_weight(
// CHECK: linalg.generic {indexing_maps = [#{{.*}}, #{{.*}}, #[[WEIGHT]], #{{.*}}, #{{.*}}]
// CHECK: ^bb0(%[[XV:.*]]: f32, %{{.*}}: i64, %[[WV:.*]]: f32, %{{.*}}: f32, %{{.*}}: f32):
// CHECK:   %[[XW:.*]] = arith.mulf %[[XV]], %[[WV]] : f32
// CHECK:   arith.select %{{.*}}, %[[XW]], %{{.*}} : f32
// CHECK:   arith.select %{{.*}}, %[[WV]], %{{.*}} : f32
// CHECK-NOT: arith.divf
// CHECK: return
func.func @nll_sum_weight(%x: !torch.vtensor<[3,4],f32>, %t: !torch.vtensor<[3],si64>, %w: !torch.vtensor<[4],f32>) -> (!torch.vtensor<[],f32>, !torch.vtensor<[],f32>) {
  %int2 = torch.constant.int 2
  %intm100 = torch.constant.int -100
  %0, %1 = torch.aten.nll_loss_forward %x, %t, %w, %int2, %intm100 : (!torch.vtensor<[3,4],f32>, !torch.vtensor<[3],si64>, !torch.vtensor<[4],f32>, !torch.int, !torch.int) -> (!torch.vtensor<[],f32>, !torch.vtensor<[],f32>)
  return %0, %1 : !torch.vtensor<[],f32>, !torch.vtensor<[],f32>
}

// -----

// reduction=none with a 2-D self: one loss per sample (classes are the
// reduction loop) and total_weight is 0, as in ATen.
// CHECK-DAG: #[[PER_SAMPLE:.*]] = affine_map<(d0, d1) -> (d0)>
// CHECK-LABEL: func.func @nll_none(
// CHECK: %[[LOSS:.*]] = linalg.generic {indexing_maps = [#{{.*}}, #[[PER_SAMPLE]], #[[PER_SAMPLE]]], iterator_types = ["parallel", "reduction"]}
// CHECK-SAME: outs(%{{.*}} : tensor<3xf32>)
// CHECK: %[[ZERO_TW:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<f32>)
// CHECK: return %[[LOSS]], %[[ZERO_TW]]
func.func @nll_none(%x: !torch.vtensor<[3,4],f32>, %t: !torch.vtensor<[3],si64>) -> (!torch.vtensor<[3],f32>, !torch.vtensor<[],f32>) {
  %none = torch.constant.none
  %int0 = torch.constant.int 0
  %intm100 = torch.constant.int -100
  %0, %1 = torch.aten.nll_loss_forward %x, %t, %none, %int0, %intm100 : (!torch.vtensor<[3,4],f32>, !torch.vtensor<[3],si64>, !torch.none, !torch.int, !torch.int) -> (!torch.vtensor<[3],f32>, !torch.vtensor<[],f32>)
  return %0, %1 : !torch.vtensor<[3],f32>, !torch.vtensor<[],f32>
}

// -----

// backward, reduction=mean: grad_input[n, t] = -(g / total_weight) at the
// target class of non-ignored samples, 0 elsewhere.
// CHECK-LABEL: func.func @nll_backward_mean(
// CHECK-SAME: %[[G:.*]]: tensor<f32>, %[[X:.*]]: tensor<3x4xf32>, %[[T:.*]]: tensor<3xi64>, %[[TW:.*]]: tensor<f32>)
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "parallel"]}
// CHECK-SAME: ins(%[[T]], %[[G]], %[[TW]] : tensor<3xi64>, tensor<f32>, tensor<f32>)
// CHECK: ^bb0(%{{.*}}: i64, %[[GV:.*]]: f32, %[[TWV:.*]]: f32, %{{.*}}: f32):
// CHECK:   %[[SEL:.*]] = arith.andi
// CHECK:   %[[Q:.*]] = arith.divf %[[GV]], %[[TWV]] : f32
// CHECK:   %[[NEG:.*]] = arith.negf %[[Q]] : f32
// CHECK:   arith.select %[[SEL]], %[[NEG]], %{{.*}} : f32
func.func @nll_backward_mean(%g: !torch.vtensor<[],f32>, %x: !torch.vtensor<[3,4],f32>, %t: !torch.vtensor<[3],si64>, %tw: !torch.vtensor<[],f32>) -> !torch.vtensor<[3,4],f32> {
  %none = torch.constant.none
  %int1 = torch.constant.int 1
  %intm100 = torch.constant.int -100
  %0 = torch.aten.nll_loss_backward %g, %x, %t, %none, %int1, %intm100, %tw : (!torch.vtensor<[],f32>, !torch.vtensor<[3,4],f32>, !torch.vtensor<[3],si64>, !torch.none, !torch.int, !torch.int, !torch.vtensor<[],f32>) -> !torch.vtensor<[3,4],f32>
  return %0 : !torch.vtensor<[3,4],f32>
}
