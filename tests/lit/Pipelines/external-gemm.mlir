// RUN: ltc-mlir-opt %s --split-input-file --pass-pipeline="builtin.module(func.func(ltc-select-external-gemms))" | FileCheck %s
// RUN: ltc-mlir-opt %s --split-input-file --ltc-linalg-to-llvm="vector-bits=256" | FileCheck %s --check-prefix=LLVM
// RUN: ltc-mlir-opt %s --split-input-file --ltc-linalg-to-llvm="vector-bits=256 parallel=false" | FileCheck %s --check-prefix=SERIAL

// A large f32 matmul with a zero-fill init: marked for overwrite (0), the
// fill dropped, the epilogue left as its own op.
// CHECK-LABEL: func.func @mlp_layer
// CHECK-NOT: linalg.fill
// CHECK: linalg.matmul {ltc.external_gemm = 0 : i64}
// CHECK: linalg.generic
// The blocks are an OpenMP loop (in an outlined nest) calling the runtime.
// LLVM: llvm.func @ltc_mlir_rt_sgemm(i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64)
// LLVM: omp.parallel
// LLVM: omp.wsloop
// LLVM: llvm.call @ltc_mlir_rt_sgemm
// LLVM-LABEL: llvm.func @_mlir_ciface_mlp_layer
// SERIAL: llvm.func @ltc_mlir_rt_sgemm(
// SERIAL-NOT: omp.parallel
// SERIAL: llvm.call @ltc_mlir_rt_sgemm
// SERIAL-LABEL: llvm.func @_mlir_ciface_mlp_layer
func.func @mlp_layer(%a: tensor<64x784xf32>, %b: tensor<784x512xf32>, %bias: tensor<512xf32>) -> tensor<64x512xf32> {
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
  return %r : tensor<64x512xf32>
}

// -----

// Accumulating into a non-zero init (1); a batch dim; transposed B read
// through the indexing map.
// CHECK-LABEL: func.func @bmm_accumulate
// CHECK: linalg.generic
// CHECK-SAME: ltc.external_gemm = 1 : i64
// LLVM: llvm.call @ltc_mlir_rt_sgemm
// LLVM-LABEL: llvm.func @_mlir_ciface_bmm_accumulate
func.func @bmm_accumulate(%a: tensor<4x128x96xf32>, %bt: tensor<4x64x96xf32>, %c: tensor<4x128x64xf32>) -> tensor<4x128x64xf32> {
  %r = linalg.generic {indexing_maps = [affine_map<(b, m, n, k) -> (b, m, k)>, affine_map<(b, m, n, k) -> (b, n, k)>, affine_map<(b, m, n, k) -> (b, m, n)>],
                       iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%a, %bt : tensor<4x128x96xf32>, tensor<4x64x96xf32>) outs(%c : tensor<4x128x64xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %o, %p : f32
    linalg.yield %s : f32
  } -> tensor<4x128x64xf32>
  return %r : tensor<4x128x64xf32>
}

// -----

// Small, thin or non-f32 products stay generated kernels.
// CHECK-LABEL: func.func @stays_generated
// CHECK-NOT: ltc.external_gemm
// CHECK: return
// LLVM-NOT: ltc_mlir_rt_sgemm
// LLVM-LABEL: llvm.func @_mlir_ciface_stays_generated
func.func @stays_generated(%a: tensor<16x16xf32>, %b: tensor<16x16xf32>, %c: tensor<16x16xf32>,
                           %d: tensor<256x4xf32>, %e: tensor<4x256xf32>, %f: tensor<256x256xf32>,
                           %g: tensor<128x128xf64>, %h: tensor<128x128xf64>, %i: tensor<128x128xf64>)
    -> (tensor<16x16xf32>, tensor<256x256xf32>, tensor<128x128xf64>) {
  %0 = linalg.matmul ins(%a, %b : tensor<16x16xf32>, tensor<16x16xf32>) outs(%c : tensor<16x16xf32>) -> tensor<16x16xf32>
  %1 = linalg.matmul ins(%d, %e : tensor<256x4xf32>, tensor<4x256xf32>) outs(%f : tensor<256x256xf32>) -> tensor<256x256xf32>
  %2 = linalg.matmul ins(%g, %h : tensor<128x128xf64>, tensor<128x128xf64>) outs(%i : tensor<128x128xf64>) -> tensor<128x128xf64>
  return %0, %1, %2 : tensor<16x16xf32>, tensor<256x256xf32>, tensor<128x128xf64>
}
