// RUN: ltc-mlir-opt --convert-torch-to-linalg --split-input-file %s | FileCheck %s

// one_hot: two runtime checks (eager's messages), then result[..., c] =
// self[...] == c over a new last dim read through a dropped-dim map.
// CHECK-DAG: #[[DROP:.*]] = affine_map<(d0, d1, d2) -> (d0, d1)>
// CHECK-DAG: #[[ID3:.*]] = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
// CHECK: ltc.runtime_checks = ["one_hot: Class values must be non-negative.", "one_hot: Class values must be smaller than num_classes."]
// CHECK-LABEL: func.func @one_hot(
// CHECK: arith.cmpi sge
// CHECK: func.call @ltc_mlir_rt_check_failed
// CHECK: arith.cmpi slt
// CHECK: func.call @ltc_mlir_rt_check_failed
// CHECK: linalg.generic {indexing_maps = [#[[DROP]], #[[ID3]]], iterator_types = ["parallel", "parallel", "parallel"]}
// CHECK: ^bb0(%[[V:.*]]: i64, %{{.*}}: i64):
// CHECK: %[[C:.*]] = linalg.index 2 : index
// CHECK: %[[CI:.*]] = arith.index_cast %[[C]] : index to i64
// CHECK: %[[EQ:.*]] = arith.cmpi eq, %[[V]], %[[CI]] : i64
// CHECK: arith.extui %[[EQ]] : i1 to i64
func.func @one_hot(%t: !torch.vtensor<[2,3],si64>) -> !torch.vtensor<[2,3,5],si64> {
  %c5 = torch.constant.int 5
  %0 = torch.aten.one_hot %t, %c5 : (!torch.vtensor<[2,3],si64>, !torch.int) -> !torch.vtensor<[2,3,5],si64>
  return %0 : !torch.vtensor<[2,3,5],si64>
}

// -----

// masked_fill.Scalar: the mask broadcasts to self's shape; the value is
// converted once, outside the loop.
// CHECK-DAG: #[[ID:.*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[ROW:.*]] = affine_map<(d0, d1) -> (d1)>
// CHECK-LABEL: func.func @masked_fill(
// CHECK-SAME: %[[X:[a-z0-9_]+]]: tensor<4x6xf32>, %[[M:[a-z0-9_]+]]: tensor<6xi8>, %[[V:[a-z0-9_]+]]: f64)
// CHECK: %[[VF:.*]] = arith.truncf %[[V]] : f64 to f32
// CHECK: linalg.generic {indexing_maps = [#[[ID]], #[[ROW]], #[[ID]]]
// CHECK: ^bb0(%[[S:.*]]: f32, %[[B:.*]]: i8, %{{.*}}: f32):
// CHECK: %[[COND:.*]] = arith.cmpi ne, %[[B]]
// CHECK: arith.select %[[COND]], %[[VF]], %[[S]] : f32
func.func @masked_fill(%x: !torch.vtensor<[4,6],f32>, %m: !torch.vtensor<[6],i1>, %v: !torch.float) -> !torch.vtensor<[4,6],f32> {
  %0 = torch.aten.masked_fill.Scalar %x, %m, %v : (!torch.vtensor<[4,6],f32>, !torch.vtensor<[6],i1>, !torch.float) -> !torch.vtensor<[4,6],f32>
  return %0 : !torch.vtensor<[4,6],f32>
}

// -----

// mse_loss mean: elementwise (x - y)^2, a sum reduction, then / numel.
// CHECK-LABEL: func.func @mse_mean(
// CHECK: %[[D:.*]] = arith.subf
// CHECK: arith.mulf %[[D]], %[[D]] : f32
// CHECK: iterator_types = ["reduction", "reduction"]
// CHECK: arith.addf
// CHECK: %[[N:.*]] = arith.constant 2.400000e+01 : f32
// CHECK: arith.divf %{{.*}}, %[[N]] : f32
func.func @mse_mean(%x: !torch.vtensor<[4,6],f32>, %y: !torch.vtensor<[4,6],f32>) -> !torch.vtensor<[],f32> {
  %c1 = torch.constant.int 1
  %0 = torch.aten.mse_loss %x, %y, %c1 : (!torch.vtensor<[4,6],f32>, !torch.vtensor<[4,6],f32>, !torch.int) -> !torch.vtensor<[],f32>
  return %0 : !torch.vtensor<[],f32>
}

// -----

// mse_loss_backward (mean, bf16): ((x - y) * (2 / numel)) * grad in f32,
// rounded to bf16 after each op like ATen's scalar_t arithmetic.
// CHECK-LABEL: func.func @mse_backward(
// CHECK: %[[NORM:.*]] = arith.constant 0.083333333333333329 : f64
// CHECK: %[[NORMF:.*]] = arith.truncf %[[NORM]] : f64 to f32
// CHECK: ^bb0(%[[G:.*]]: bf16, %[[X:.*]]: bf16, %[[Y:.*]]: bf16, %{{.*}}: bf16):
// CHECK: %[[GF:.*]] = arith.extf %[[G]]
// CHECK: %[[D:.*]] = arith.subf
// CHECK: %[[DR:.*]] = arith.truncf %[[D]] : f32 to bf16
// CHECK: %[[DE:.*]] = arith.extf %[[DR]]
// CHECK: %[[DN:.*]] = arith.mulf %[[DE]], %[[NORMF]] : f32
// CHECK: %[[DNR:.*]] = arith.truncf %[[DN]] : f32 to bf16
// CHECK: %[[DNE:.*]] = arith.extf %[[DNR]]
// CHECK: %[[R:.*]] = arith.mulf %[[DNE]], %[[GF]] : f32
// CHECK: arith.truncf %[[R]] : f32 to bf16
func.func @mse_backward(%g: !torch.vtensor<[],bf16>, %x: !torch.vtensor<[4,6],bf16>, %y: !torch.vtensor<[4,6],bf16>) -> !torch.vtensor<[4,6],bf16> {
  %c1 = torch.constant.int 1
  %0 = torch.aten.mse_loss_backward %g, %x, %y, %c1 : (!torch.vtensor<[],bf16>, !torch.vtensor<[4,6],bf16>, !torch.vtensor<[4,6],bf16>, !torch.int) -> !torch.vtensor<[4,6],bf16>
  return %0 : !torch.vtensor<[4,6],bf16>
}

// -----

// round.decimals = -2 in f16: computed in f32 (ATen's opmath type) and
// rounded to f16 once: nearbyint(x / 100) * 100.
// CHECK-LABEL: func.func @round_decimals(
// CHECK: %[[X:.*]] = arith.extf %{{.*}} : f16 to f32
// CHECK: %[[Q:.*]] = arith.divf %[[X]], %[[P:.*]] : f32
// CHECK-NOT: arith.truncf
// CHECK: %[[R:.*]] = math.roundeven %[[Q]] : f32
// CHECK: %[[M:.*]] = arith.mulf %[[R]], %[[P]] : f32
// CHECK: arith.truncf %[[M]] : f32 to f16
func.func @round_decimals(%x: !torch.vtensor<[5],f16>) -> !torch.vtensor<[5],f16> {
  %c = torch.constant.int -2
  %0 = torch.aten.round.decimals %x, %c : (!torch.vtensor<[5],f16>, !torch.int) -> !torch.vtensor<[5],f16>
  return %0 : !torch.vtensor<[5],f16>
}

// -----

// elu_backward with is_result: y <= 0 ? grad * input_scale * (y + alpha *
// scale) : grad * scale (alpha is a run-time scalar).
// CHECK-LABEL: func.func @elu_backward_result(
// CHECK-SAME: %[[ALPHA:[a-z0-9_]+]]: f64)
// CHECK: %[[A:.*]] = arith.truncf %[[ALPHA]] : f64 to f32
// CHECK: ^bb0(%[[G:.*]]: f32, %[[Y:.*]]: f32, %{{.*}}: f32):
// CHECK: %[[NEG:.*]] = arith.mulf %[[A]]
// CHECK: %[[SUM:.*]] = arith.addf %[[Y]], %[[NEG]] : f32
// CHECK: %[[GI:.*]] = arith.mulf %[[G]]
// CHECK: %[[LEFT:.*]] = arith.mulf %[[GI]], %[[SUM]] : f32
// CHECK: %[[RIGHT:.*]] = arith.mulf %[[G]]
// CHECK: %[[LE:.*]] = arith.cmpf ule, %[[Y]]
// CHECK: arith.select %[[LE]], %[[LEFT]], %[[RIGHT]] : f32
// CHECK-NOT: math.exp
func.func @elu_backward_result(%g: !torch.vtensor<[5],f32>, %y: !torch.vtensor<[5],f32>, %alpha: !torch.float) -> !torch.vtensor<[5],f32> {
  %one = torch.constant.int 1
  %true = torch.constant.bool true
  %0 = torch.aten.elu_backward %g, %alpha, %one, %one, %true, %y : (!torch.vtensor<[5],f32>, !torch.float, !torch.int, !torch.int, !torch.bool, !torch.vtensor<[5],f32>) -> !torch.vtensor<[5],f32>
  return %0 : !torch.vtensor<[5],f32>
}

// -----

// softplus: x * beta > threshold ? x : log1p(exp(x * beta)) / beta.
// CHECK-LABEL: func.func @softplus(
// CHECK: ^bb0(%[[X:.*]]: f32, %{{.*}}: f32):
// CHECK: %[[XB:.*]] = arith.mulf %[[X]]
// CHECK: %[[E:.*]] = math.exp %[[XB]]
// CHECK: %[[L:.*]] = math.log1p %[[E]]
// CHECK: %[[SOFT:.*]] = arith.divf %[[L]]
// CHECK: %[[ABOVE:.*]] = arith.cmpf ogt, %[[XB]]
// CHECK: arith.select %[[ABOVE]], %[[X]], %[[SOFT]] : f32
func.func @softplus(%x: !torch.vtensor<[5],f32>, %beta: !torch.int, %th: !torch.int) -> !torch.vtensor<[5],f32> {
  %0 = torch.aten.softplus %x, %beta, %th : (!torch.vtensor<[5],f32>, !torch.int, !torch.int) -> !torch.vtensor<[5],f32>
  return %0 : !torch.vtensor<[5],f32>
}

// -----

// eye.m: no inputs, ones where the two loop indices are equal.
// CHECK-LABEL: func.func @eye(
// CHECK: linalg.generic {{.*}} outs(
// CHECK: %[[I:.*]] = linalg.index 0 : index
// CHECK: %[[J:.*]] = linalg.index 1 : index
// CHECK: %[[EQ:.*]] = arith.cmpi eq, %[[I]], %[[J]] : index
// CHECK: arith.uitofp %[[EQ]] : i1 to f64
func.func @eye() -> !torch.vtensor<[2,3],f64> {
  %n = torch.constant.int 2
  %m = torch.constant.int 3
  %dt = torch.constant.int 7
  %none = torch.constant.none
  %0 = torch.aten.eye.m %n, %m, %dt, %none, %none, %none : (!torch.int, !torch.int, !torch.int, !torch.none, !torch.none, !torch.none) -> !torch.vtensor<[2,3],f64>
  return %0 : !torch.vtensor<[2,3],f64>
}

// -----

// logical_and of a float and an int tensor: each read as x != 0, the i1
// result stored as bool (i8 0/1); bitwise_not of a bool flips the 0/1 bit.
// CHECK-LABEL: func.func @logical_and_bitwise_not(
// CHECK: ^bb0(%[[X:.*]]: f32, %[[Y:.*]]: i64, %{{.*}}: i8):
// CHECK: %[[XB:.*]] = arith.cmpf une, %[[X]]
// CHECK: %[[YB:.*]] = arith.cmpi ne, %[[Y]]
// CHECK: %[[AND:.*]] = arith.andi %[[XB]], %[[YB]] : i1
// CHECK: arith.extui %[[AND]] : i1 to i8
// CHECK: ^bb0(%[[B:.*]]: i8, %{{.*}}: i8):
// CHECK: %[[ONE:.*]] = arith.constant 1 : i8
// CHECK: arith.xori %[[B]], %[[ONE]] : i8
func.func @logical_and_bitwise_not(%x: !torch.vtensor<[4,6],f32>, %y: !torch.vtensor<[6],si64>) -> !torch.vtensor<[4,6],i1> {
  %0 = torch.aten.logical_and %x, %y : (!torch.vtensor<[4,6],f32>, !torch.vtensor<[6],si64>) -> !torch.vtensor<[4,6],i1>
  %1 = torch.aten.bitwise_not %0 : (!torch.vtensor<[4,6],i1>) -> !torch.vtensor<[4,6],i1>
  return %1 : !torch.vtensor<[4,6],i1>
}
