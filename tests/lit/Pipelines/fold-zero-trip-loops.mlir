// RUN: ltc-mlir-opt %s --pass-pipeline="builtin.module(func.func(ltc-fold-zero-trip-loops))" | FileCheck %s

// Sum over a [0, 4] tensor: no iteration, the result is the zero fill; the
// elementwise op on the empty tensor is its (empty) init.
// CHECK-LABEL: func.func @empty_loops
// CHECK: %[[E:.*]] = tensor.empty() : tensor<0x4xf32>
// CHECK: %[[F:.*]] = linalg.fill
// CHECK-NOT: linalg.generic
// CHECK: return %[[E]], %[[F]]
#map = affine_map<(d0, d1) -> (d0, d1)>
#sum = affine_map<(d0, d1) -> ()>
func.func @empty_loops(%a: tensor<0x4xf32>) -> (tensor<0x4xf32>, tensor<f32>) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<0x4xf32>
  %neg = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]}
      ins(%a : tensor<0x4xf32>) outs(%e : tensor<0x4xf32>) {
  ^bb0(%in: f32, %out: f32):
    %n = arith.negf %in : f32
    linalg.yield %n : f32
  } -> tensor<0x4xf32>
  %init = tensor.empty() : tensor<f32>
  %fill = linalg.fill ins(%zero : f32) outs(%init : tensor<f32>) -> tensor<f32>
  %sum = linalg.generic {indexing_maps = [#map, #sum], iterator_types = ["reduction", "reduction"]}
      ins(%a : tensor<0x4xf32>) outs(%fill : tensor<f32>) {
  ^bb0(%in: f32, %out: f32):
    %s = arith.addf %in, %out : f32
    linalg.yield %s : f32
  } -> tensor<f32>
  return %neg, %sum : tensor<0x4xf32>, tensor<f32>
}
