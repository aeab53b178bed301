// RUN: ltc-mlir-opt %s --ltc-linalg-to-llvm="vector-bits=256 external-gemm=false" | FileCheck %s
// RUN: ltc-mlir-opt %s --pass-pipeline="builtin.module(ltc-prepare-function-boundaries,func.func(ltc-tile-and-vectorize{vector-bits=256}),canonicalize,cse,func.func(loop-invariant-subset-hoisting))" | FileCheck %s --check-prefix=TILE

// A matmul + bias + relu graph as TorchToLinalg produces it.
func.func @forward(%a: tensor<64x784xf32>, %b: tensor<784x512xf32>, %bias: tensor<512xf32>) -> (tensor<64x512xf32>, tensor<512xf32>) {
  %cst = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64x512xf32>
  %f = linalg.fill ins(%cst : f32) outs(%e : tensor<64x512xf32>) -> tensor<64x512xf32>
  %mm = linalg.matmul ins(%a, %b : tensor<64x784xf32>, tensor<784x512xf32>) outs(%f : tensor<64x512xf32>) -> tensor<64x512xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>],
                       iterator_types = ["parallel", "parallel"]}
      ins(%mm, %bias : tensor<64x512xf32>, tensor<512xf32>) outs(%e : tensor<64x512xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %s = arith.addf %x, %y : f32
    %m = arith.maximumf %s, %cst : f32
    linalg.yield %m : f32
  }  -> tensor<64x512xf32>
  // The input is returned as is: it must be copied, never aliased or written.
  return %r, %bias : tensor<64x512xf32>, tensor<512xf32>
}

// Column panels of B as parallel tiles (all 64 rows each), then an
// MR x NR = 4 x 16 register block over K. The zero fill and the bias + relu
// epilogue are fused into the register tile: the accumulator starts as a
// zero vector, and bias + relu are applied to it before the only store.
// TILE-LABEL: func.func @forward
// TILE-SAME: {bufferization.writable = false}
// TILE-SAME: attributes {llvm.emit_c_interface}
// TILE-DAG: %[[ZERO:.*]] = arith.constant dense<0.000000e+00> : vector<4x16xf32>
// TILE: scf.forall (%{{.*}}) = (0) to (512) step (64)
// TILE: vector.transfer_write %[[ZERO]]
// TILE: scf.for {{.*}} iter_args({{.*}}) -> ({{.*}}vector<4x16xf32>)
// TILE: vector.contract {{.*}} vector<4x1xf32>, vector<1x16xf32> into vector<4x16xf32>
// TILE: scf.yield
// TILE: arith.addf {{.*}} : vector<4x16xf32>
// TILE: arith.maximumf {{.*}} : vector<4x16xf32>
// TILE: vector.transfer_write
// TILE: scf.forall.in_parallel
// TILE-NOT: scf.forall (
// TILE: return

// Results become caller-allocated out-params, the function returns nothing,
// the outer tiles are OpenMP worksharing loops and the C wrapper exists.
// CHECK: llvm.func @forward(
// CHECK: omp.parallel
// CHECK: omp.wsloop
// CHECK: llvm.intr.fmuladd{{.*}}vector<16xf32>
// CHECK: llvm.intr.memcpy
// CHECK: llvm.return
// CHECK-NEXT: }
// CHECK: llvm.func @_mlir_ciface_forward(%{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr)
// CHECK-NOT: llvm.call @malloc
