// RUN: ltc-mlir-opt --convert-torch-to-linalg --split-input-file %s | FileCheck %s

// Comparisons compute in the promoted operand dtype (ATen's result_type),
// not in the bool result dtype: si64 against a float scalar compares in f32.
// Bool tensors are stored as i8 0/1, so the i1 is zero-extended.
// CHECK-LABEL: func.func @gt_int_tensor_float_scalar(
// CHECK-SAME: %[[A:.*]]: tensor<4xi64>, %[[S:.*]]: f64) -> tensor<4xi8>
// CHECK: %[[S32:.*]] = arith.truncf %[[S]] : f64 to f32
// CHECK: linalg.generic
// CHECK-SAME: ins(%[[A]] : tensor<4xi64>) outs(%{{.*}} : tensor<4xi8>)
// CHECK: ^bb0(%[[X:.*]]: i64, %{{.*}}: i8):
// CHECK:   %[[XF:.*]] = arith.sitofp %[[X]] : i64 to f32
// CHECK:   %[[C:.*]] = arith.cmpf ogt, %[[XF]], %[[S32]] : f32
// CHECK:   %[[B:.*]] = arith.extui %[[C]] : i1 to i8
// CHECK:   linalg.yield %[[B]] : i8
func.func @gt_int_tensor_float_scalar(%a: !torch.vtensor<[4],si64>, %s: !torch.float) -> !torch.vtensor<[4],i1> {
  %0 = torch.aten.gt.Scalar %a, %s : (!torch.vtensor<[4],si64>, !torch.float) -> !torch.vtensor<[4],i1>
  return %0 : !torch.vtensor<[4],i1>
}

// -----

// An int scalar against an int tensor compares in the tensor's dtype.
// CHECK-LABEL: func.func @le_int_scalar(
// CHECK: %[[TWO:.*]] = arith.constant 2 : i32
// CHECK: ^bb0(%[[X:.*]]: i32, %{{.*}}: i8):
// CHECK:   arith.cmpi sle, %[[X]], %[[TWO]] : i32
func.func @le_int_scalar(%a: !torch.vtensor<[4],si32>) -> !torch.vtensor<[4],i1> {
  %int2 = torch.constant.int 2
  %0 = torch.aten.le.Scalar %a, %int2 : (!torch.vtensor<[4],si32>, !torch.int) -> !torch.vtensor<[4],i1>
  return %0 : !torch.vtensor<[4],i1>
}

// -----

// ui8 with si8 promotes to si16 (zero- and sign-extended); a dimensioned
// tensor's dtype wins over a 0-dim tensor of the same category, but a 0-dim
// float promotes an int tensor. Broadcasting as for arithmetic.
// CHECK-DAG: #[[ID:.*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[ROW:.*]] = affine_map<(d0, d1) -> (d1)>
// CHECK-DAG: #[[SCALAR:.*]] = affine_map<(d0, d1) -> ()>
// CHECK-LABEL: func.func @promotion(
// CHECK: linalg.generic {indexing_maps = [#[[ID]], #[[ROW]], #[[ID]]]
// CHECK: ^bb0(%[[U:.*]]: i8, %[[S:.*]]: i8, %{{.*}}: i8):
// CHECK:   %[[U16:.*]] = arith.extui %[[U]] : i8 to i16
// CHECK:   %[[S16:.*]] = arith.extsi %[[S]] : i8 to i16
// CHECK:   arith.cmpi slt, %[[U16]], %[[S16]] : i16
// CHECK: linalg.generic {indexing_maps = [#[[ID]], #[[SCALAR]], #[[ID]]]
// CHECK: ^bb0(%[[X:.*]]: i32, %[[Y:.*]]: i64, %{{.*}}: i8):
// CHECK:   %[[Y32:.*]] = arith.trunci %[[Y]] : i64 to i32
// CHECK:   arith.cmpi eq, %[[X]], %[[Y32]] : i32
// CHECK: linalg.generic {indexing_maps = [#[[ID]], #[[SCALAR]], #[[ID]]]
// CHECK: ^bb0(%[[X:.*]]: i32, %[[Y:.*]]: f64, %{{.*}}: i8):
// CHECK:   %[[XF:.*]] = arith.sitofp %[[X]] : i32 to f64
// CHECK:   arith.cmpf une, %[[XF]], %[[Y]] : f64
func.func @promotion(%u: !torch.vtensor<[2,3],ui8>, %s: !torch.vtensor<[3],si8>, %i: !torch.vtensor<[2,3],si32>, %l: !torch.vtensor<[],si64>, %d: !torch.vtensor<[],f64>) -> (!torch.vtensor<[2,3],i1>, !torch.vtensor<[2,3],i1>, !torch.vtensor<[2,3],i1>) {
  %0 = torch.aten.lt.Tensor %u, %s : (!torch.vtensor<[2,3],ui8>, !torch.vtensor<[3],si8>) -> !torch.vtensor<[2,3],i1>
  %1 = torch.aten.eq.Tensor %i, %l : (!torch.vtensor<[2,3],si32>, !torch.vtensor<[],si64>) -> !torch.vtensor<[2,3],i1>
  %2 = torch.aten.ne.Tensor %i, %d : (!torch.vtensor<[2,3],si32>, !torch.vtensor<[],f64>) -> !torch.vtensor<[2,3],i1>
  return %0, %1, %2 : !torch.vtensor<[2,3],i1>, !torch.vtensor<[2,3],i1>, !torch.vtensor<[2,3],i1>
}

// -----

// Bools compare as unsigned i1 (false < true).
// CHECK-LABEL: func.func @bool_ge(
// CHECK-SAME: tensor<4xi8>
// CHECK: ^bb0(%[[A:.*]]: i8, %[[B:.*]]: i8, %{{.*}}: i8):
// CHECK:   %[[A1:.*]] = arith.cmpi ne, %[[A]], %{{.*}} : i8
// CHECK:   %[[B1:.*]] = arith.cmpi ne, %[[B]], %{{.*}} : i8
// CHECK:   arith.cmpi uge, %[[A1]], %[[B1]] : i1
func.func @bool_ge(%a: !torch.vtensor<[4],i1>, %b: !torch.vtensor<[4],i1>) -> !torch.vtensor<[4],i1> {
  %0 = torch.aten.ge.Tensor %a, %b : (!torch.vtensor<[4],i1>, !torch.vtensor<[4],i1>) -> !torch.vtensor<[4],i1>
  return %0 : !torch.vtensor<[4],i1>
}

// -----

// where.self: condition (i8 storage) != 0 selects between self and other
// cast to the result dtype; all three broadcast.
// CHECK-DAG: #[[COL:.*]] = affine_map<(d0, d1) -> (d0, 0)>
// CHECK-DAG: #[[ID:.*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[ROW:.*]] = affine_map<(d0, d1) -> (d1)>
// CHECK-LABEL: func.func @where_self(
// CHECK: linalg.generic {indexing_maps = [#[[COL]], #[[ID]], #[[ROW]], #[[ID]]]
// CHECK: ^bb0(%[[C:.*]]: i8, %[[X:.*]]: f32, %[[Y:.*]]: i64, %{{.*}}: f32):
// CHECK:   %[[C1:.*]] = arith.cmpi ne, %[[C]], %{{.*}} : i8
// CHECK:   %[[YF:.*]] = arith.sitofp %[[Y]] : i64 to f32
// CHECK:   %[[R:.*]] = arith.select %[[C1]], %[[X]], %[[YF]] : f32
// CHECK:   linalg.yield %[[R]] : f32
func.func @where_self(%c: !torch.vtensor<[4,1],i1>, %a: !torch.vtensor<[4,5],f32>, %b: !torch.vtensor<[5],si64>) -> !torch.vtensor<[4,5],f32> {
  %0 = torch.aten.where.self %c, %a, %b : (!torch.vtensor<[4,1],i1>, !torch.vtensor<[4,5],f32>, !torch.vtensor<[5],si64>) -> !torch.vtensor<[4,5],f32>
  return %0 : !torch.vtensor<[4,5],f32>
}

// -----

// clamp: NaN-propagating max then min; a None bound is skipped; bounds are
// converted to the result dtype once, outside the loop.
// CHECK-LABEL: func.func @clamp(
// CHECK-SAME: %[[A:.*]]: tensor<4xf32>, %[[HI:.*]]: f64, %[[I:.*]]: tensor<4xi64>)
// CHECK-DAG: %[[LO:.*]] = arith.constant -1.000000e+00 : f32
// CHECK-DAG: %[[HI32:.*]] = arith.truncf %[[HI]] : f64 to f32
// CHECK: ^bb0(%[[X:.*]]: f32, %{{.*}}: f32):
// CHECK:   %[[M:.*]] = arith.maximumf %[[X]], %[[LO]] : f32
// CHECK:   %[[R:.*]] = arith.minimumf %[[M]], %[[HI32]] : f32
// CHECK:   linalg.yield %[[R]] : f32
// CHECK: ^bb0(%[[Y:.*]]: i64, %{{.*}}: i64):
// CHECK-NOT: arith.minsi
// CHECK:   arith.maxsi %[[Y]], %{{.*}} : i64
// CHECK-NOT: arith.minsi
// CHECK:   linalg.yield
func.func @clamp(%a: !torch.vtensor<[4],f32>, %hi: !torch.float, %i: !torch.vtensor<[4],si64>) -> (!torch.vtensor<[4],f32>, !torch.vtensor<[4],si64>) {
  %int-1 = torch.constant.int -1
  %none = torch.constant.none
  %0 = torch.aten.clamp %a, %int-1, %hi : (!torch.vtensor<[4],f32>, !torch.int, !torch.float) -> !torch.vtensor<[4],f32>
  %1 = torch.aten.clamp %i, %int-1, %none : (!torch.vtensor<[4],si64>, !torch.int, !torch.none) -> !torch.vtensor<[4],si64>
  return %0, %1 : !torch.vtensor<[4],f32>, !torch.vtensor<[4],si64>
}

// -----

// tanh_backward = g * (1 - y*y); sigmoid_backward = g * (1 - y) * y, in
// ATen's operation order.
// CHECK-LABEL: func.func @activation_backward(
// CHECK: ^bb0(%[[G:.*]]: f32, %[[Y:.*]]: f32, %{{.*}}: f32):
// CHECK:   %[[ONE:.*]] = arith.constant 1.000000e+00 : f32
// CHECK:   %[[SQ:.*]] = arith.mulf %[[Y]], %[[Y]] : f32
// CHECK:   %[[D:.*]] = arith.subf %[[ONE]], %[[SQ]] : f32
// CHECK:   arith.mulf %[[G]], %[[D]] : f32
// CHECK: ^bb0(%[[G:.*]]: f32, %[[Y:.*]]: f32, %{{.*}}: f32):
// CHECK:   %[[ONE:.*]] = arith.constant 1.000000e+00 : f32
// CHECK:   %[[D:.*]] = arith.subf %[[ONE]], %[[Y]] : f32
// CHECK:   %[[P:.*]] = arith.mulf %[[G]], %[[D]] : f32
// CHECK:   arith.mulf %[[P]], %[[Y]] : f32
func.func @activation_backward(%g: !torch.vtensor<[4],f32>, %y: !torch.vtensor<[4],f32>) -> (!torch.vtensor<[4],f32>, !torch.vtensor<[4],f32>) {
  %0 = torch.aten.tanh_backward %g, %y : (!torch.vtensor<[4],f32>, !torch.vtensor<[4],f32>) -> !torch.vtensor<[4],f32>
  %1 = torch.aten.sigmoid_backward %g, %y : (!torch.vtensor<[4],f32>, !torch.vtensor<[4],f32>) -> !torch.vtensor<[4],f32>
  return %0, %1 : !torch.vtensor<[4],f32>, !torch.vtensor<[4],f32>
}

// -----

// Bool literals and fills are widened to the i8 storage of bool tensors;
// fill converts the value like bool(x) (x != 0).
// CHECK-LABEL: func.func @bool_constants(
// CHECK: %[[LIT:.*]] = arith.constant dense<[1, 0]> : tensor<2xi8>
// CHECK: %[[NZ:.*]] = arith.cmpf une, %{{.*}}, %{{.*}} : f64
// CHECK: %[[V:.*]] = arith.extui %[[NZ]] : i1 to i8
// CHECK: linalg.fill ins(%[[V]] : i8) outs(%{{.*}} : tensor<2xi8>)
func.func @bool_constants(%v: !torch.float) -> (!torch.vtensor<[2],i1>, !torch.vtensor<[2],i1>) {
  %0 = torch.vtensor.literal(dense<[true, false]> : tensor<2xi1>) : !torch.vtensor<[2],i1>
  %1 = torch.aten.fill.Scalar %0, %v : (!torch.vtensor<[2],i1>, !torch.float) -> !torch.vtensor<[2],i1>
  return %0, %1 : !torch.vtensor<[2],i1>, !torch.vtensor<[2],i1>
}
