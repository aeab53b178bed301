// RUN: ltc-mlir-opt --convert-torch-to-linalg --split-input-file %s | FileCheck %s

// ATen broadcasting: operands are right-aligned, size-1 dims read index 0.
// CHECK-DAG: #[[ID:.*]] = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
// CHECK-DAG: #[[TRAILING:.*]] = affine_map<(d0, d1, d2) -> (d2)>
// CHECK-DAG: #[[UNIT:.*]] = affine_map<(d0, d1, d2) -> (0, d1, 0)>
// CHECK-LABEL: func.func @broadcast_add_alpha(
// CHECK-SAME: %[[A:.*]]: tensor<4xf32>, %[[B:.*]]: tensor<1x3x1xf32>, %[[ALPHA:.*]]: f64) -> tensor<2x3x4xf32>
// CHECK: %[[ALPHA32:.*]] = arith.truncf %[[ALPHA]] : f64 to f32
// CHECK: linalg.generic {indexing_maps = [#[[TRAILING]], #[[UNIT]], #[[ID]]], iterator_types = ["parallel", "parallel", "parallel"]}
// CHECK-SAME: ins(%[[A]], %[[B]] : tensor<4xf32>, tensor<1x3x1xf32>)
// CHECK: ^bb0(%[[X:.*]]: f32, %[[Y:.*]]: f32, %{{.*}}: f32):
// CHECK:   %[[SCALED:.*]] = arith.mulf %[[ALPHA32]], %[[Y]] : f32
// CHECK:   %[[SUM:.*]] = arith.addf %[[X]], %[[SCALED]] : f32
// CHECK:   linalg.yield %[[SUM]] : f32
func.func @broadcast_add_alpha(%a: !torch.vtensor<[4],f32>, %b: !torch.vtensor<[1,3,1],f32>, %alpha: !torch.float) -> !torch.vtensor<[2,3,4],f32> {
  %0 = torch.aten.add.Tensor %a, %b, %alpha : (!torch.vtensor<[4],f32>, !torch.vtensor<[1,3,1],f32>, !torch.float) -> !torch.vtensor<[2,3,4],f32>
  return %0 : !torch.vtensor<[2,3,4],f32>
}

// -----

// A 0-dim f64 tensor and an int alpha are computed in the f32 result type;
// a constant alpha of 1 needs no multiplication.
// CHECK-DAG: #[[ID:.*]] = affine_map<(d0) -> (d0)>
// CHECK-DAG: #[[SCALAR:.*]] = affine_map<(d0) -> ()>
// CHECK-LABEL: func.func @scalar_promotion(
// CHECK-SAME: %[[A:.*]]: tensor<3xf32>, %[[S:.*]]: tensor<f64>)
// CHECK-NOT: torch.constant
// CHECK: linalg.generic {indexing_maps = [#[[ID]], #[[SCALAR]], #[[ID]]]
// CHECK: ^bb0(%[[X:.*]]: f32, %[[Y:.*]]: f64, %{{.*}}: f32):
// CHECK:   %[[Y32:.*]] = arith.truncf %[[Y]] : f64 to f32
// CHECK-NOT: arith.mulf
// CHECK:   %[[D:.*]] = arith.subf %[[X]], %[[Y32]] : f32
// CHECK:   linalg.yield %[[D]] : f32
func.func @scalar_promotion(%a: !torch.vtensor<[3],f32>, %s: !torch.vtensor<[],f64>) -> !torch.vtensor<[3],f32> {
  %int1 = torch.constant.int 1
  %0 = torch.aten.sub.Tensor %a, %s, %int1 : (!torch.vtensor<[3],f32>, !torch.vtensor<[],f64>, !torch.int) -> !torch.vtensor<[3],f32>
  return %0 : !torch.vtensor<[3],f32>
}

// -----

// Scalar operands (here a function argument) are cast once, outside the loop.
// CHECK-LABEL: func.func @mul_scalar_int(
// CHECK-SAME: %[[A:.*]]: tensor<2x2xf32>, %[[K:.*]]: i64)
// CHECK: %[[KF:.*]] = arith.sitofp %[[K]] : i64 to f32
// CHECK: linalg.generic
// CHECK: ^bb0(%[[X:.*]]: f32, %{{.*}}: f32):
// CHECK:   arith.mulf %[[X]], %[[KF]] : f32
func.func @mul_scalar_int(%a: !torch.vtensor<[2,2],f32>, %k: !torch.int) -> !torch.vtensor<[2,2],f32> {
  %0 = torch.aten.mul.Scalar %a, %k : (!torch.vtensor<[2,2],f32>, !torch.int) -> !torch.vtensor<[2,2],f32>
  return %0 : !torch.vtensor<[2,2],f32>
}

// -----

// Integer true division: both operands are converted to the float result.
// CHECK-LABEL: func.func @int_true_division(
// CHECK: ^bb0(%[[X:.*]]: i64, %[[Y:.*]]: i64, %{{.*}}: f32):
// CHECK:   %[[XF:.*]] = arith.sitofp %[[X]] : i64 to f32
// CHECK:   %[[YF:.*]] = arith.sitofp %[[Y]] : i64 to f32
// CHECK:   arith.divf %[[XF]], %[[YF]] : f32
func.func @int_true_division(%a: !torch.vtensor<[3],si64>, %b: !torch.vtensor<[3],si64>) -> !torch.vtensor<[3],f32> {
  %0 = torch.aten.div.Tensor %a, %b : (!torch.vtensor<[3],si64>, !torch.vtensor<[3],si64>) -> !torch.vtensor<[3],f32>
  return %0 : !torch.vtensor<[3],f32>
}

// -----

// threshold_backward zeroes the gradient where self <= threshold (ordered:
// NaN in self keeps the gradient).
// CHECK-LABEL: func.func @threshold_backward(
// CHECK: %[[ZERO_TH:.*]] = arith.constant 0.000000e+00 : f32
// CHECK: ^bb0(%[[G:.*]]: f32, %[[S:.*]]: f32, %{{.*}}: f32):
// CHECK:   %[[LE:.*]] = arith.cmpf ole, %[[S]], %[[ZERO_TH]] : f32
// CHECK:   %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK:   %[[R:.*]] = arith.select %[[LE]], %[[ZERO]], %[[G]] : f32
// CHECK:   linalg.yield %[[R]] : f32
func.func @threshold_backward(%g: !torch.vtensor<[4],f32>, %s: !torch.vtensor<[4],f32>) -> !torch.vtensor<[4],f32> {
  %int0 = torch.constant.int 0
  %0 = torch.aten.threshold_backward %g, %s, %int0 : (!torch.vtensor<[4],f32>, !torch.vtensor<[4],f32>, !torch.int) -> !torch.vtensor<[4],f32>
  return %0 : !torch.vtensor<[4],f32>
}

// -----

// Bool and integer inputs of float ops are converted to the result dtype.
// CHECK-LABEL: func.func @sigmoid_of_int(
// CHECK: ^bb0(%[[X:.*]]: i32, %{{.*}}: f32):
// CHECK:   %[[XF:.*]] = arith.sitofp %[[X]] : i32 to f32
// CHECK:   %[[NEG:.*]] = arith.negf %[[XF]] : f32
// CHECK:   %[[E:.*]] = math.exp %[[NEG]] : f32
// CHECK:   %[[D:.*]] = arith.addf %{{.*}}, %[[E]] : f32
// CHECK:   arith.divf %{{.*}}, %[[D]] : f32
func.func @sigmoid_of_int(%a: !torch.vtensor<[3],si32>) -> !torch.vtensor<[3],f32> {
  %0 = torch.aten.sigmoid %a : (!torch.vtensor<[3],si32>) -> !torch.vtensor<[3],f32>
  return %0 : !torch.vtensor<[3],f32>
}

// -----

// Bool results are computed on i1 and stored as i8 0/1: + is or (alpha
// gates the other operand), * is and.
// CHECK-LABEL: func.func @bool_add_mul(
// CHECK: ^bb0(%[[A:.*]]: i8, %[[B:.*]]: i8, %{{.*}}: i8):
// CHECK:   %[[AB:.*]] = arith.cmpi ne, %[[A]], %{{.*}} : i8
// CHECK:   %[[BB:.*]] = arith.cmpi ne, %[[B]], %{{.*}} : i8
// CHECK:   %[[GATED:.*]] = arith.andi %{{.*}}, %[[BB]] : i1
// CHECK:   %[[OR:.*]] = arith.ori %[[AB]], %[[GATED]] : i1
// CHECK:   arith.extui %[[OR]] : i1 to i8
// CHECK: linalg.generic
// CHECK:   arith.andi %{{.*}}, %{{.*}} : i1
// CHECK:   arith.extui %{{.*}} : i1 to i8
func.func @bool_add_mul(%a: !torch.vtensor<[2],i1>, %b: !torch.vtensor<[2],i1>) -> (!torch.vtensor<[2],i1>, !torch.vtensor<[2],i1>) {
  %int1 = torch.constant.int 1
  %0 = torch.aten.add.Tensor %a, %b, %int1 : (!torch.vtensor<[2],i1>, !torch.vtensor<[2],i1>, !torch.int) -> !torch.vtensor<[2],i1>
  %1 = torch.aten.mul.Tensor %a, %b : (!torch.vtensor<[2],i1>, !torch.vtensor<[2],i1>) -> !torch.vtensor<[2],i1>
  return %0, %1 : !torch.vtensor<[2],i1>, !torch.vtensor<[2],i1>
}

// -----

// Integer pow by a constant: square-and-multiply over the exponent's bits
// (3 = 0b11: x * x^2), no loop and no math.ipowi; integer abs is a select.
// CHECK-LABEL: func.func @int_pow_abs(
// CHECK: ^bb0(%[[X:.*]]: i32, %{{.*}}: i32):
// CHECK:   %[[SQ:.*]] = arith.muli %[[X]], %[[X]] : i32
// CHECK:   %[[CUBE:.*]] = arith.muli %{{.*}}, %[[SQ]] : i32
// CHECK:   linalg.yield %[[CUBE]] : i32
// CHECK-NOT: math.ipowi
// CHECK: ^bb0(%[[Y:.*]]: i32, %{{.*}}: i32):
// CHECK:   %[[NEG:.*]] = arith.cmpi slt, %[[Y]], %{{.*}} : i32
// CHECK:   %[[MINUS:.*]] = arith.subi %{{.*}}, %[[Y]] : i32
// CHECK:   arith.select %[[NEG]], %[[MINUS]], %[[Y]] : i32
// CHECK-NOT: math.absi
func.func @int_pow_abs(%a: !torch.vtensor<[3],si32>) -> (!torch.vtensor<[3],si32>, !torch.vtensor<[3],si32>) {
  %int3 = torch.constant.int 3
  %0 = torch.aten.pow.Tensor_Scalar %a, %int3 : (!torch.vtensor<[3],si32>, !torch.int) -> !torch.vtensor<[3],si32>
  %1 = torch.aten.abs %a : (!torch.vtensor<[3],si32>) -> !torch.vtensor<[3],si32>
  return %0, %1 : !torch.vtensor<[3],si32>, !torch.vtensor<[3],si32>
}
