// RUN: ltc-mlir-opt %s --ltc-outline-loop-nests | FileCheck %s
// RUN: ltc-mlir-opt %s --ltc-linalg-to-llvm="vector-bits=256" | FileCheck %s --check-prefix=LLVM

// Each top-level loop of a public function becomes a private function called
// in its place; constants are cloned into it, other outside values become
// arguments, loop results become function results. The small scf.if stays.
// CHECK-LABEL: func.func private @ltc_nest_forward_0(
// CHECK-SAME: %[[A:.*]]: memref<64xf32>, %[[B:.*]]: memref<64xf32>)
// CHECK-DAG: arith.constant 0 : index
// CHECK-DAG: arith.constant 2.0{{.*}} : f32
// CHECK: scf.for
// CHECK: return
// CHECK-LABEL: func.func private @ltc_nest_forward_1(
// CHECK-SAME: %{{.*}}: memref<64xf32>) -> f32
// CHECK: %[[SUM:.*]] = scf.for {{.*}} iter_args
// CHECK: return %[[SUM]] : f32
// CHECK-LABEL: func.func @forward(
// CHECK: call @ltc_nest_forward_0(%arg0, %arg1) : (memref<64xf32>, memref<64xf32>) -> ()
// CHECK: %[[R:.*]] = call @ltc_nest_forward_1(%arg1) : (memref<64xf32>) -> f32
// CHECK: scf.if
// CHECK: memref.store %[[R]]
// CHECK: return

// After the whole pipeline they are LLVM functions of their own.
// LLVM-DAG: llvm.func @ltc_nest_forward_0(
// LLVM-DAG: llvm.func @ltc_nest_forward_1(
// LLVM-DAG: llvm.call @ltc_nest_forward_0(
func.func @forward(%a: memref<64xf32>, %b: memref<64xf32>, %out: memref<f32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %two = arith.constant 2.0 : f32
  %zero = arith.constant 0.0 : f32
  scf.for %i = %c0 to %c64 step %c1 {
    %x = memref.load %a[%i] : memref<64xf32>
    %y = arith.mulf %x, %two : f32
    memref.store %y, %b[%i] : memref<64xf32>
  }
  %sum = scf.for %i = %c0 to %c64 step %c1 iter_args(%acc = %zero) -> f32 {
    %x = memref.load %b[%i] : memref<64xf32>
    %s = arith.addf %acc, %x : f32
    scf.yield %s : f32
  }
  %neg = arith.cmpf olt, %sum, %zero : f32
  scf.if %neg {
    memref.store %zero, %out[] : memref<f32>
  }
  memref.store %sum, %out[] : memref<f32>
  return
}
