// RUN: ltc-mlir-opt --convert-torch-to-linalg --split-input-file --verify-diagnostics %s | FileCheck %s

// uniform(self, -2, 3) in f32: the key from the seed and stream outside the
// loop; per element two fmix32 rounds of its row-major index, the top 24
// bits scaled by 2^-24, then u * 5 + -2. Self's values are not read.
// CHECK-LABEL: func.func @uniform(
// CHECK-SAME: %[[SEED:[a-z0-9]+]]: i64 {ltc.rng_seed}
// CHECK: arith.addi %[[SEED]]
// CHECK: linalg.generic
// CHECK-NOT: ins(
// CHECK-SAME: outs(%{{.*}} : tensor<4x5xf32>)
// CHECK: linalg.index 0
// CHECK: linalg.index 1
// CHECK: arith.constant -2048144789 : i32
// CHECK: %[[C8:.*]] = arith.constant 8 : i32
// CHECK: arith.shrui %{{.*}}, %[[C8]] : i32
// CHECK-DAG: arith.uitofp %{{.*}} : i32 to f32
// CHECK-DAG: arith.constant 5.96046448E-8 : f32
// CHECK-DAG: arith.constant 5.000000e+00 : f32
// CHECK-DAG: arith.constant -2.000000e+00 : f32
// CHECK: linalg.yield
func.func @uniform(%x: !torch.vtensor<[4,5],f32>, %seed: !torch.int {ltc.rng_seed}) -> !torch.vtensor<[4,5],f32> {
  %lo = torch.constant.float -2.000000e+00
  %hi = torch.constant.float 3.000000e+00
  %none = torch.constant.none
  %0 = "torch.aten.uniform"(%x, %lo, %hi, %none) {ltc.rng_stream = 0 : i64} : (!torch.vtensor<[4,5],f32>, !torch.float, !torch.float, !torch.none) -> !torch.vtensor<[4,5],f32>
  return %0 : !torch.vtensor<[4,5],f32>
}

// -----

// normal.Tensor_Tensor: std is checked at run time (>= 0); Box-Muller with a
// second draw, mean and std read elementwise.
// CHECK-LABEL: func.func @normal_tensor_tensor(
// CHECK: arith.cmpf oge
// CHECK: scf.if
// CHECK: call @ltc_mlir_rt_check_failed
// CHECK: linalg.generic
// CHECK-SAME: ins(%{{.*}}, %{{.*}} : tensor<8xf32>, tensor<8xf32>)
// CHECK: math.log1p
// CHECK: math.sqrt
// CHECK: math.cos
func.func @normal_tensor_tensor(%m: !torch.vtensor<[8],f32>, %s: !torch.vtensor<[8],f32>, %seed: !torch.int {ltc.rng_seed}) -> !torch.vtensor<[8],f32> {
  %none = torch.constant.none
  %0 = "torch.aten.normal.Tensor_Tensor"(%m, %s, %none) {ltc.rng_stream = 3 : i64} : (!torch.vtensor<[8],f32>, !torch.vtensor<[8],f32>, !torch.none) -> !torch.vtensor<[8],f32>
  return %0 : !torch.vtensor<[8],f32>
}

// -----

// random.from(self, -3, 7) on i64: -3 + bits % 10 from 32 bits.
// CHECK-LABEL: func.func @random_from_to(
// CHECK: linalg.generic
// CHECK: arith.extui %{{.*}} : i32 to i64
// CHECK: %[[R:.*]] = arith.constant 10 : i64
// CHECK: arith.remui %{{.*}}, %[[R]] : i64
// CHECK: %[[F:.*]] = arith.constant -3 : i64
// CHECK: arith.addi %{{.*}}, %[[F]] : i64
func.func @random_from_to(%x: !torch.vtensor<[16],si64>, %seed: !torch.int {ltc.rng_seed}) -> !torch.vtensor<[16],si64> {
  %lo = torch.constant.int -3
  %hi = torch.constant.int 7
  %none = torch.constant.none
  %0 = "torch.aten.random.from"(%x, %lo, %hi, %none) {ltc.rng_stream = 1 : i64} : (!torch.vtensor<[16],si64>, !torch.int, !torch.int, !torch.none) -> !torch.vtensor<[16],si64>
  return %0 : !torch.vtensor<[16],si64>
}

// -----

// Invalid constants do not lower (eager raises on the fallback path).
func.func @bernoulli_p_out_of_range(%x: !torch.vtensor<[4],f32>, %seed: !torch.int {ltc.rng_seed}) -> !torch.vtensor<[4],f32> {
  %p = torch.constant.float 1.500000e+00
  %none = torch.constant.none
  // expected-error @+1 {{unsupported op 'torch.aten.bernoulli.p': p must be a constant in [0, 1]}}
  %0 = "torch.aten.bernoulli.p"(%x, %p, %none) {ltc.rng_stream = 0 : i64} : (!torch.vtensor<[4],f32>, !torch.float, !torch.none) -> !torch.vtensor<[4],f32>
  return %0 : !torch.vtensor<[4],f32>
}

// -----

// Without the seed argument a random op cannot lower.
func.func @no_seed(%x: !torch.vtensor<[4],f32>) -> !torch.vtensor<[4],f32> {
  %lambd = torch.constant.float 1.000000e+00
  %none = torch.constant.none
  // expected-error @+1 {{unsupported op 'torch.aten.exponential': needs the random seed}}
  %0 = "torch.aten.exponential"(%x, %lambd, %none) : (!torch.vtensor<[4],f32>, !torch.float, !torch.none) -> !torch.vtensor<[4],f32>
  return %0 : !torch.vtensor<[4],f32>
}
