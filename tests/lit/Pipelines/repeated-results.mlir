// RUN: ltc-mlir-opt %s --ltc-linalg-to-llvm="vector-bits=256 external-gemm=false" | FileCheck %s

// x * y and its sum over a 0-d tensor (x + 0) vectorize to two identical
// transfer_writes into tensor.empty that CSE merges: one value returned
// twice. buffer-results-to-out-params segfaulted on that; the function
// boundaries are prepared again before bufferization, so each result gets
// its own buffer. (Here ltc-mark-overwritable-inputs gives x * y an init of
// its own, since it may overwrite x or y, so the writes stay apart and the
// value is stored into both results.)
#map = affine_map<() -> ()>
func.func @forward(%arg0: tensor<i64>, %arg1: tensor<i64>) -> (tensor<i64>, tensor<i64>) {
  %c0_i64 = arith.constant 0 : i64
  %0 = tensor.empty() : tensor<i64>
  %1 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = []} ins(%arg0, %arg1 : tensor<i64>, tensor<i64>) outs(%0 : tensor<i64>) {
  ^bb0(%in: i64, %in_0: i64, %out: i64):
    %5 = arith.muli %in, %in_0 : i64
    linalg.yield %5 : i64
  } -> tensor<i64>
  %2 = linalg.fill ins(%c0_i64 : i64) outs(%0 : tensor<i64>) -> tensor<i64>
  %3 = linalg.generic {indexing_maps = [#map, #map], iterator_types = []} ins(%1 : tensor<i64>) outs(%2 : tensor<i64>) {
  ^bb0(%in: i64, %out: i64):
    %5 = arith.addi %in, %out : i64
    linalg.yield %5 : i64
  } -> tensor<i64>
  return %1, %3 : tensor<i64>, tensor<i64>
}
// CHECK-LABEL: llvm.func @forward(
// CHECK: llvm.store %[[V:.*]], %arg7
// CHECK: llvm.store %[[V]], %arg10
// CHECK: llvm.return
