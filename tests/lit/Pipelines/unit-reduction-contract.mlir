// RUN: ltc-mlir-opt %s --ltc-tile-and-vectorize | FileCheck %s

// sum(a[3, 7] * w[7]): w is broadcast along the reduction dim d0, which is
// tiled by 1. MLIR 22's broadcast folding made a vector.contract whose unit
// reduction dim only the lhs indexes (rejected by the verifier, so the
// graph failed to compile); the dim is dropped instead.
#map = affine_map<(d0, d1) -> (d0, d1)>
#map1 = affine_map<(d0, d1) -> (d1)>
#map2 = affine_map<(d0, d1) -> ()>
func.func @forward(%a: tensor<3x7xf32>, %w: tensor<7xf32>) -> tensor<f32> {
  %cst = arith.constant 0.000000e+00 : f32
  %0 = tensor.empty() : tensor<f32>
  %1 = linalg.fill ins(%cst : f32) outs(%0 : tensor<f32>) -> tensor<f32>
  %2 = linalg.generic {indexing_maps = [#map, #map1, #map2], iterator_types = ["reduction", "reduction"]} ins(%a, %w : tensor<3x7xf32>, tensor<7xf32>) outs(%1 : tensor<f32>) {
  ^bb0(%in: f32, %in_0: f32, %out: f32):
    %3 = arith.mulf %in, %in_0 : f32
    %4 = arith.addf %3, %out : f32
    linalg.yield %4 : f32
  } -> tensor<f32>
  return %2 : tensor<f32>
}
// CHECK-LABEL: func.func @forward
// CHECK:       vector.shape_cast %{{.*}} : vector<1x7xf32> to vector<7xf32>
// CHECK:       vector.contract {{.*}}iterator_types = ["reduction"], kind = #vector.kind<add>} {{.*}} : vector<7xf32>, vector<7xf32> into f32
