// RUN: ltc-mlir-opt %s --pass-pipeline="builtin.module(func.func(ltc-approximate-vector-math))" | FileCheck %s

// f32 vector exp/erf become polynomials (no math op left); scalar ops, f64
// vectors, log and tanh stay math ops (libm or LLVM intrinsics later).
// CHECK-LABEL: func.func @vector_math
// CHECK-NOT: math.exp {{.*}} : vector<8xf32>
// CHECK-NOT: math.erf {{.*}} : vector<8xf32>
// CHECK-DAG: math.exp %{{.*}} : f32
// CHECK-DAG: math.exp %{{.*}} : vector<4xf64>
// CHECK-DAG: math.log %{{.*}} : vector<8xf32>
// CHECK-DAG: math.tanh %{{.*}} : vector<8xf32>
// CHECK: return
func.func @vector_math(%v: vector<8xf32>, %s: f32, %d: vector<4xf64>)
    -> (vector<8xf32>, vector<8xf32>, vector<8xf32>, f32, vector<4xf64>, vector<8xf32>) {
  %0 = math.exp %v : vector<8xf32>
  %1 = math.erf %v : vector<8xf32>
  %2 = math.tanh %v : vector<8xf32>
  %3 = math.exp %s : f32
  %4 = math.exp %d : vector<4xf64>
  %5 = math.log %v : vector<8xf32>
  return %0, %1, %2, %3, %4, %5 : vector<8xf32>, vector<8xf32>, vector<8xf32>, f32, vector<4xf64>, vector<8xf32>
}
