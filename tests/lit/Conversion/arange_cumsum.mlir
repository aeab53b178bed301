// RUN: ltc-mlir-opt --convert-torch-to-linalg --split-input-file %s | FileCheck %s

// arange with an f32 result (run-time bounds, as LTC passes them), as
// ATen's AVX2 loop: of 20 elements, the first 16 (one 2x8 step) come in blocks of 8
// (base rounded to f32, then fma(k, step, base)), the last 4 from the scalar
// tail (fma(step, i, start)), in double.
// CHECK-LABEL: func.func @arange_f32_runtime(
// CHECK-SAME: %[[S:.*]]: f64, %[[E:.*]]: f64, %[[ST:.*]]: f64) -> tensor<20xf32>
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel"]} outs(%{{.*}} : tensor<20xf32>)
// CHECK: %[[I:.*]] = linalg.index 0 : index
// CHECK: %[[I64:.*]] = arith.index_cast %[[I]] : index to i64
// CHECK: %[[I0:.*]] = arith.andi %[[I64]], %{{.*}} : i64
// CHECK: %[[K:.*]] = arith.subi %[[I64]], %[[I0]] : i64
// CHECK: %[[I0F:.*]] = arith.sitofp %[[I0]] : i64 to f64
// CHECK: %[[BASE:.*]] = math.fma %[[ST]], %[[I0F]], %[[S]] : f64
// CHECK: %[[BASE32:.*]] = arith.truncf %[[BASE]] : f64 to f32
// CHECK: %[[BASE64:.*]] = arith.extf %[[BASE32]] : f32 to f64
// CHECK: %[[KF:.*]] = arith.sitofp %[[K]] : i64 to f64
// CHECK: %[[BLOCK:.*]] = math.fma %[[KF]], %[[ST]], %[[BASE64]] : f64
// CHECK: %[[IF:.*]] = arith.sitofp %[[I64]] : i64 to f64
// CHECK: %[[TAIL:.*]] = math.fma %[[ST]], %[[IF]], %[[S]] : f64
// CHECK: %[[C16:.*]] = arith.constant 16 : i64
// CHECK: %[[VEC:.*]] = arith.cmpi slt, %[[I64]], %[[C16]] : i64
// CHECK: %[[V:.*]] = arith.select %[[VEC]], %[[BLOCK]], %[[TAIL]] : f64
// CHECK: %[[R:.*]] = arith.truncf %[[V]] : f64 to f32
// CHECK: linalg.yield %[[R]] : f32
func.func @arange_f32_runtime(%s: !torch.float, %e: !torch.float, %st: !torch.float) -> !torch.vtensor<[20],f32> {
  %int6 = torch.constant.int 6
  %none = torch.constant.none
  %0 = torch.aten.arange.start_step %s, %e, %st, %int6, %none, %none, %none : (!torch.float, !torch.float, !torch.float, !torch.int, !torch.none, !torch.none, !torch.none) -> !torch.vtensor<[20],f32>
  return %0 : !torch.vtensor<[20],f32>
}

// -----

// Integer results accumulate in int64; a float step is truncated first
// (Scalar::to<int64_t>) while the length used the double: [0, 1, 2, 3].
// CHECK-LABEL: func.func @arange_si32_float_step(
// CHECK: %[[STEP:.*]] = arith.fptosi %{{.*}} : f64 to i64
// CHECK: linalg.generic
// CHECK: %[[M:.*]] = arith.muli %[[STEP]], %{{.*}} : i64
// CHECK: %[[A:.*]] = arith.addi %{{.*}}, %[[M]] : i64
// CHECK: arith.trunci %[[A]] : i64 to i32
func.func @arange_si32_float_step() -> !torch.vtensor<[4],si32> {
  %int0 = torch.constant.int 0
  %int5 = torch.constant.int 5
  %step = torch.constant.float 1.5
  %int3 = torch.constant.int 3
  %none = torch.constant.none
  %0 = torch.aten.arange.start_step %int0, %int5, %step, %int3, %none, %none, %none : (!torch.int, !torch.int, !torch.float, !torch.int, !torch.none, !torch.none, !torch.none) -> !torch.vtensor<[4],si32>
  return %0 : !torch.vtensor<[4],si32>
}

// -----

// arange(end) with an f16 result: start 0, step 1, accumulated in f32.
// CHECK-LABEL: func.func @arange_end_f16(
// CHECK: linalg.generic
// CHECK: arith.sitofp %{{.*}} : i64 to f32
// CHECK: arith.mulf %{{.*}} : f32
// CHECK: arith.addf %{{.*}} : f32
// CHECK: arith.truncf %{{.*}} : f32 to f16
func.func @arange_end_f16(%e: !torch.int) -> !torch.vtensor<[6],f16> {
  %int5 = torch.constant.int 5
  %none = torch.constant.none
  %0 = torch.aten.arange %e, %int5, %none, %none, %none : (!torch.int, !torch.int, !torch.none, !torch.none, !torch.none) -> !torch.vtensor<[6],f16>
  return %0 : !torch.vtensor<[6],f16>
}

// -----

// cumsum of f32 along dim 1: a loop over the 4 columns carrying an f64
// accumulator per row; each column is rounded to f32 and inserted.
// CHECK-LABEL: func.func @cumsum_f32(
// CHECK-SAME: %[[X:.*]]: tensor<3x4xf32>)
// CHECK-DAG: %[[C0:.*]] = arith.constant 0 : index
// CHECK-DAG: %[[C4:.*]] = arith.constant 4 : index
// CHECK-DAG: %[[C1:.*]] = arith.constant 1 : index
// CHECK: %[[ACC0:.*]] = linalg.fill ins(%{{.*}} : f64) outs(%{{.*}} : tensor<3xf64>)
// CHECK: %[[OUT0:.*]] = tensor.empty() : tensor<3x4xf32>
// CHECK: %[[LOOP:.*]]:2 = scf.for %[[K:.*]] = %[[C0]] to %[[C4]] step %[[C1]] iter_args(%[[ACC:.*]] = %[[ACC0]], %[[OUT:.*]] = %[[OUT0]])
// CHECK: %[[COL:.*]] = tensor.extract_slice %[[X]][0, %[[K]]] [3, 1] [1, 1] : tensor<3x4xf32> to tensor<3xf32>
// CHECK: %[[NEXT:.*]] = linalg.generic {{.*}} ins(%[[COL]] : tensor<3xf32>) outs(%[[ACC]] : tensor<3xf64>)
// CHECK: arith.extf %{{.*}} : f32 to f64
// CHECK: arith.addf
// CHECK: %[[ROUNDED:.*]] = linalg.generic {{.*}} ins(%[[NEXT]] : tensor<3xf64>)
// CHECK: arith.truncf %{{.*}} : f64 to f32
// CHECK: %[[INS:.*]] = tensor.insert_slice %[[ROUNDED]] into %[[OUT]][0, %[[K]]] [3, 1] [1, 1] : tensor<3xf32> into tensor<3x4xf32>
// CHECK: scf.yield %[[NEXT]], %[[INS]]
// CHECK: return %[[LOOP]]#1
func.func @cumsum_f32(%x: !torch.vtensor<[3,4],f32>) -> !torch.vtensor<[3,4],f32> {
  %int1 = torch.constant.int 1
  %none = torch.constant.none
  %0 = torch.aten.cumsum %x, %int1, %none : (!torch.vtensor<[3,4],f32>, !torch.int, !torch.none) -> !torch.vtensor<[3,4],f32>
  return %0 : !torch.vtensor<[3,4],f32>
}

// -----

// Integer inputs are summed in int64 (the si64 result) without a rounding step.
// CHECK-LABEL: func.func @cumsum_si32(
// CHECK: scf.for
// CHECK: tensor.extract_slice %{{.*}}[%{{.*}}, 0] [1, 2] [1, 1] : tensor<5x2xi32> to tensor<2xi32>
// CHECK: arith.extsi %{{.*}} : i32 to i64
// CHECK: %[[NEXT:.*]] = arith.addi
// CHECK-NOT: linalg.generic
// CHECK: tensor.insert_slice %{{.*}} into %{{.*}} : tensor<2xi64> into tensor<5x2xi64>
func.func @cumsum_si32(%x: !torch.vtensor<[5,2],si32>) -> !torch.vtensor<[5,2],si64> {
  %int0 = torch.constant.int 0
  %none = torch.constant.none
  %0 = torch.aten.cumsum %x, %int0, %none : (!torch.vtensor<[5,2],si32>, !torch.int, !torch.none) -> !torch.vtensor<[5,2],si64>
  return %0 : !torch.vtensor<[5,2],si64>
}

// -----

// flip reads self at the reversed index of the flipped dims.
// CHECK-LABEL: func.func @flip(
// CHECK-SAME: %[[X:.*]]: tensor<3x4xf32>)
// CHECK: linalg.generic {{.*}} outs(%{{.*}} : tensor<3x4xf32>)
// CHECK: %[[I:.*]] = linalg.index 0 : index
// CHECK: %[[C2:.*]] = arith.constant 2 : index
// CHECK: %[[R:.*]] = arith.subi %[[C2]], %[[I]] : index
// CHECK: %[[J:.*]] = linalg.index 1 : index
// CHECK: %[[V:.*]] = tensor.extract %[[X]][%[[R]], %[[J]]] : tensor<3x4xf32>
// CHECK: linalg.yield %[[V]]
func.func @flip(%x: !torch.vtensor<[3,4],f32>) -> !torch.vtensor<[3,4],f32> {
  %int0 = torch.constant.int 0
  %dims = torch.prim.ListConstruct %int0 : (!torch.int) -> !torch.list<int>
  %0 = torch.aten.flip %x, %dims : (!torch.vtensor<[3,4],f32>, !torch.list<int>) -> !torch.vtensor<[3,4],f32>
  return %0 : !torch.vtensor<[3,4],f32>
}
