// RUN: ltc-mlir-opt %s --pass-pipeline="builtin.module(func.func(ltc-block-k-accumulation))" --split-input-file | FileCheck %s

// The K loop of a vectorized matmul tile (accumulators as iter_args) is cut
// into blocks of 196 (a divisor of 784 close to 256) whose accumulators start
// at zero and are added to the running sums after each block.
// CHECK-LABEL: func.func @k_loop(
// CHECK-SAME: %[[INIT:[^:]*]]: vector<4x16xf32>
// CHECK-DAG: %[[SPAN:.*]] = arith.constant 196 : index
// CHECK-DAG: %[[ZERO:.*]] = arith.constant dense<0.000000e+00> : vector<4x16xf32>
// CHECK: %[[R:.*]] = scf.for %[[KB:.*]] = %{{.*}} to %{{.*}} step %[[SPAN]] iter_args(%[[SUM:.*]] = %[[INIT]])
// CHECK:   %[[END:.*]] = arith.addi %[[KB]], %[[SPAN]] : index
// CHECK:   %[[P:.*]] = scf.for %[[K:.*]] = %[[KB]] to %[[END]] step %{{.*}} iter_args(%[[ACC:.*]] = %[[ZERO]])
// CHECK:     vector.contract {{.*}} %[[ACC]]
// CHECK:   %[[NEXT:.*]] = arith.addf %[[SUM]], %[[P]] : vector<4x16xf32>
// CHECK:   scf.yield %[[NEXT]]
// CHECK: return %[[R]]
#a = affine_map<(d0, d1, d2) -> (d0, d2)>
#b = affine_map<(d0, d1, d2) -> (d2, d1)>
#c = affine_map<(d0, d1, d2) -> (d0, d1)>
func.func @k_loop(%A: tensor<4x784xf32>, %B: tensor<784x16xf32>, %init: vector<4x16xf32>) -> vector<4x16xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c784 = arith.constant 784 : index
  %pad = arith.constant 0.0 : f32
  %r = scf.for %k = %c0 to %c784 step %c1 iter_args(%acc = %init) -> (vector<4x16xf32>) {
    %a = vector.transfer_read %A[%c0, %k], %pad {in_bounds = [true, true]} : tensor<4x784xf32>, vector<4x1xf32>
    %b = vector.transfer_read %B[%k, %c0], %pad {in_bounds = [true, true]} : tensor<784x16xf32>, vector<1x16xf32>
    %m = vector.contract {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "reduction"], kind = #vector.kind<add>} %a, %b, %acc : vector<4x1xf32>, vector<1x16xf32> into vector<4x16xf32>
    scf.yield %m : vector<4x16xf32>
  }
  return %r : vector<4x16xf32>
}

// -----

// A prime trip count: blocks of 256, the last one shorter (min). A short
// loop, or one whose iter_arg is not only a contraction accumulator, stays.
// CHECK-LABEL: func.func @prime_and_untouched(
// CHECK: scf.for %[[KB:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args
// CHECK:   %[[END:.*]] = arith.addi %[[KB]], %{{.*}} : index
// CHECK:   %[[MIN:.*]] = arith.minsi %[[END]], %{{.*}} : index
// CHECK:   scf.for %{{.*}} = %[[KB]] to %[[MIN]]
// CHECK: scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[X:.*]] = %{{.*}})
// CHECK-NOT: scf.for
// CHECK:   arith.mulf %[[X]], %[[X]]
#a = affine_map<(d0, d1, d2) -> (d0, d2)>
#b = affine_map<(d0, d1, d2) -> (d2, d1)>
#c = affine_map<(d0, d1, d2) -> (d0, d1)>
func.func @prime_and_untouched(%A: tensor<4x1009xf32>, %B: tensor<1009x16xf32>, %init: vector<4x16xf32>) -> (vector<4x16xf32>, vector<4x16xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c1009 = arith.constant 1009 : index
  %pad = arith.constant 0.0 : f32
  %r = scf.for %k = %c0 to %c1009 step %c1 iter_args(%acc = %init) -> (vector<4x16xf32>) {
    %a = vector.transfer_read %A[%c0, %k], %pad {in_bounds = [true, true]} : tensor<4x1009xf32>, vector<4x1xf32>
    %b = vector.transfer_read %B[%k, %c0], %pad {in_bounds = [true, true]} : tensor<1009x16xf32>, vector<1x16xf32>
    %m = vector.contract {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "reduction"], kind = #vector.kind<add>} %a, %b, %acc : vector<4x1xf32>, vector<1x16xf32> into vector<4x16xf32>
    scf.yield %m : vector<4x16xf32>
  }
  // Not a sum: squaring the carried value.
  %s = scf.for %k = %c0 to %c1009 step %c1 iter_args(%x = %init) -> (vector<4x16xf32>) {
    %y = arith.mulf %x, %x : vector<4x16xf32>
    scf.yield %y : vector<4x16xf32>
  }
  return %r, %s : vector<4x16xf32>, vector<4x16xf32>
}
