// RUN: ltc-mlir-opt --convert-torch-to-linalg --split-input-file --verify-diagnostics %s | FileCheck %s

// Training: one linalg.generic with two results (output, i8 mask). The key
// is splitmix64(seed + stream * golden) outside the loop; each element hashes
// its row-major index (linalg.index of every dim) with two fmix32 rounds and
// is kept when the 32 bits are below ceil(0.8 * 2^32) = 3435973837
// (-858993459 as i32).
// CHECK-LABEL: func.func @dropout_train(
// CHECK-SAME: %[[SEED:[a-z0-9]+]]: i64 {ltc.rng_seed}
// CHECK: %[[GOLD:.*]] = arith.constant -7046029254386353131 : i64
// CHECK: arith.addi %[[SEED]], %[[GOLD]] : i64
// CHECK: arith.constant -4658895280553007687 : i64
// CHECK: %[[SCALE:.*]] = arith.constant 1.250000e+00 : f32
// CHECK: %[[T:.*]] = arith.constant -858993459 : i32
// CHECK: linalg.generic
// CHECK-SAME: iterator_types = ["parallel", "parallel"]
// CHECK-SAME: outs(%{{.*}}, %{{.*}} : tensor<4x5xf32>, tensor<4x5xi8>)
// CHECK: linalg.index 0
// CHECK: linalg.index 1
// CHECK: arith.constant -2048144789 : i32
// CHECK: arith.constant -1028477387 : i32
// CHECK: %[[KEEP:.*]] = arith.cmpi ult, %{{.*}}, %[[T]] : i32
// CHECK: arith.select %[[KEEP]]
// CHECK: arith.mulf %{{.*}}, %[[SCALE]] : f32
// CHECK: linalg.yield %{{.*}}, %{{.*}} : f32, i8
func.func @dropout_train(%x: !torch.vtensor<[4,5],f32>, %seed: !torch.int {ltc.rng_seed}) -> (!torch.vtensor<[4,5],f32>, !torch.vtensor<[4,5],i1>) {
  %p = torch.constant.float 2.000000e-01
  %true = torch.constant.bool true
  %0:2 = "torch.aten.native_dropout"(%x, %p, %true) {ltc.rng_stream = 1 : i64} : (!torch.vtensor<[4,5],f32>, !torch.float, !torch.bool) -> (!torch.vtensor<[4,5],f32>, !torch.vtensor<[4,5],i1>)
  return %0#0, %0#1 : !torch.vtensor<[4,5],f32>, !torch.vtensor<[4,5],i1>
}

// -----

// Not training: the input, and a mask of ones; no seed needed.
// CHECK-LABEL: func.func @dropout_eval(
// CHECK-SAME: %[[X:.*]]: tensor<3xf32>
// CHECK: %[[ONE:.*]] = arith.constant 1 : i8
// CHECK: %[[MASK:.*]] = linalg.fill ins(%[[ONE]] : i8)
// CHECK: return %[[X]], %[[MASK]]
func.func @dropout_eval(%x: !torch.vtensor<[3],f32>) -> (!torch.vtensor<[3],f32>, !torch.vtensor<[3],i1>) {
  %p = torch.constant.float 5.000000e-01
  %false = torch.constant.bool false
  %0:2 = "torch.aten.native_dropout"(%x, %p, %false) : (!torch.vtensor<[3],f32>, !torch.float, !torch.bool) -> (!torch.vtensor<[3],f32>, !torch.vtensor<[3],i1>)
  return %0#0, %0#1 : !torch.vtensor<[3],f32>, !torch.vtensor<[3],i1>
}

// -----

// p = 1: nothing kept and scale 0 (ATen), no hash.
// CHECK-LABEL: func.func @dropout_p1(
// CHECK: linalg.generic
// CHECK-NOT: arith.cmpi
// CHECK: arith.constant false
// CHECK: linalg.yield
func.func @dropout_p1(%x: !torch.vtensor<[3],f32>, %seed: !torch.int {ltc.rng_seed}) -> (!torch.vtensor<[3],f32>, !torch.vtensor<[3],i1>) {
  %p = torch.constant.float 1.000000e+00
  %none = torch.constant.none
  %0:2 = "torch.aten.native_dropout"(%x, %p, %none) : (!torch.vtensor<[3],f32>, !torch.float, !torch.none) -> (!torch.vtensor<[3],f32>, !torch.vtensor<[3],i1>)
  return %0#0, %0#1 : !torch.vtensor<[3],f32>, !torch.vtensor<[3],i1>
}

// -----

// Training without the seed argument cannot be lowered.
func.func @dropout_no_seed(%x: !torch.vtensor<[3],f32>) -> (!torch.vtensor<[3],f32>, !torch.vtensor<[3],i1>) {
  %p = torch.constant.float 5.000000e-01
  %true = torch.constant.bool true
  // expected-error @+1 {{unsupported op 'torch.aten.native_dropout': needs the random seed}}
  %0:2 = "torch.aten.native_dropout"(%x, %p, %true) : (!torch.vtensor<[3],f32>, !torch.float, !torch.bool) -> (!torch.vtensor<[3],f32>, !torch.vtensor<[3],i1>)
  return %0#0, %0#1 : !torch.vtensor<[3],f32>, !torch.vtensor<[3],i1>
}

// -----

// Backward: grad * mask * scale, the bool mask as 0/1.
// CHECK-LABEL: func.func @dropout_backward(
// CHECK: linalg.generic
// CHECK: ^bb0(%[[G:.*]]: f32, %[[M:.*]]: i8, %{{.*}}: f32):
// CHECK: %[[MF:.*]] = arith.uitofp
// CHECK: %[[GM:.*]] = arith.mulf %[[G]], %[[MF]] : f32
// CHECK: arith.mulf %[[GM]], %{{.*}} : f32
func.func @dropout_backward(%g: !torch.vtensor<[4],f32>, %m: !torch.vtensor<[4],i1>) -> !torch.vtensor<[4],f32> {
  %s = torch.constant.float 1.250000e+00
  %0 = torch.aten.native_dropout_backward %g, %m, %s : (!torch.vtensor<[4],f32>, !torch.vtensor<[4],i1>, !torch.float) -> !torch.vtensor<[4],f32>
  return %0 : !torch.vtensor<[4],f32>
}
