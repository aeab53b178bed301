// RUN: ltc-mlir-opt %s --split-input-file --pass-pipeline="builtin.module(func.func(ltc-fuse-elementwise))" | FileCheck %s

// A matmul whose result is viewed as [4, 16, 48] stays a linalg.matmul (one
// M and one N loop, which ltc-tile-and-vectorize blocks for registers); the
// view stays next to it. Upstream linalg-fuse-elementwise-ops would turn it
// into a linalg.generic with two M loops.
// CHECK-LABEL: func.func @matmul_then_view
// CHECK: %[[MM:.*]] = linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<64x32xf32>, tensor<32x48xf32>)
// CHECK: %[[V:.*]] = tensor.expand_shape %[[MM]] {{\[\[}}0, 1], [2]] output_shape [4, 16, 48]
// CHECK: return %[[V]]
func.func @matmul_then_view(%a: tensor<64x32xf32>, %b: tensor<32x48xf32>) -> tensor<4x16x48xf32> {
  %cst = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64x48xf32>
  %f = linalg.fill ins(%cst : f32) outs(%e : tensor<64x48xf32>) -> tensor<64x48xf32>
  %mm = linalg.matmul ins(%a, %b : tensor<64x32xf32>, tensor<32x48xf32>) outs(%f : tensor<64x48xf32>) -> tensor<64x48xf32>
  %v = tensor.expand_shape %mm [[0, 1], [2]] output_shape [4, 16, 48] : tensor<64x48xf32> into tensor<4x16x48xf32>
  return %v : tensor<4x16x48xf32>
}

// -----

// The collapsed im2col operand of a convolution's batch_matmul stays
// collapsed.
// CHECK-LABEL: func.func @collapsed_operand
// CHECK: %[[C:.*]] = tensor.collapse_shape %{{.*}} {{\[\[}}0], [1, 2], [3, 4]] : tensor<1x4x9x6x6xf32> into tensor<1x36x36xf32>
// CHECK: linalg.batch_matmul ins(%{{.*}}, %[[C]] : tensor<1x8x36xf32>, tensor<1x36x36xf32>)
func.func @collapsed_operand(%w: tensor<1x8x36xf32>, %col: tensor<1x4x9x6x6xf32>) -> tensor<1x8x36xf32> {
  %cst = arith.constant 0.0 : f32
  %c = tensor.collapse_shape %col [[0], [1, 2], [3, 4]] : tensor<1x4x9x6x6xf32> into tensor<1x36x36xf32>
  %e = tensor.empty() : tensor<1x8x36xf32>
  %f = linalg.fill ins(%cst : f32) outs(%e : tensor<1x8x36xf32>) -> tensor<1x8x36xf32>
  %mm = linalg.batch_matmul ins(%w, %c : tensor<1x8x36xf32>, tensor<1x36x36xf32>) outs(%f : tensor<1x8x36xf32>) -> tensor<1x8x36xf32>
  return %mm : tensor<1x8x36xf32>
}

// -----

// Elementwise ops still fuse, also across a view: exp, then a view, then
// add become one generic over the viewed shape.
// CHECK-LABEL: func.func @elementwise_across_view
// CHECK: linalg.generic
// CHECK:   math.exp
// CHECK:   arith.addf
// CHECK-NOT: linalg.generic
// CHECK: return
func.func @elementwise_across_view(%x: tensor<6x4xf32>, %y: tensor<2x3x4xf32>) -> tensor<2x3x4xf32> {
  %e = tensor.empty() : tensor<6x4xf32>
  %0 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<6x4xf32>) outs(%e : tensor<6x4xf32>) {
  ^bb0(%in: f32, %out: f32):
    %1 = math.exp %in : f32
    linalg.yield %1 : f32
  } -> tensor<6x4xf32>
  %v = tensor.expand_shape %0 [[0, 1], [2]] output_shape [2, 3, 4] : tensor<6x4xf32> into tensor<2x3x4xf32>
  %e2 = tensor.empty() : tensor<2x3x4xf32>
  %2 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%v, %y : tensor<2x3x4xf32>, tensor<2x3x4xf32>) outs(%e2 : tensor<2x3x4xf32>) {
  ^bb0(%a: f32, %b: f32, %out: f32):
    %3 = arith.addf %a, %b : f32
    linalg.yield %3 : f32
  } -> tensor<2x3x4xf32>
  return %2 : tensor<2x3x4xf32>
}

// -----

// SGD with momentum: the new buffer (returned) and the parameter update that
// reads it become one generic writing both, so the buffer is not read back.
// CHECK-LABEL: func.func @momentum_buffer_and_update
// CHECK: %[[F:.*]]:2 = linalg.generic
// CHECK-SAME: ins(%{{.*}}, %{{.*}}, %{{.*}} : tensor<64xf32>, tensor<64xf32>, tensor<64xf32>)
// CHECK:   arith.mulf
// CHECK:   arith.addf
// CHECK:   arith.mulf
// CHECK:   arith.subf
// CHECK: linalg.yield
// CHECK-NOT: linalg.generic
// CHECK: return %[[F]]#{{[01]}}, %[[F]]#{{[01]}}
func.func @momentum_buffer_and_update(%p: tensor<64xf32>, %g: tensor<64xf32>, %buf: tensor<64xf32>) -> (tensor<64xf32>, tensor<64xf32>) {
  %m = arith.constant 0.9 : f32
  %lr = arith.constant 0.1 : f32
  %e = tensor.empty() : tensor<64xf32>
  %nb = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%buf, %g : tensor<64xf32>, tensor<64xf32>) outs(%e : tensor<64xf32>) {
  ^bb0(%b: f32, %gg: f32, %out: f32):
    %0 = arith.mulf %b, %m : f32
    %1 = arith.addf %0, %gg : f32
    linalg.yield %1 : f32
  } -> tensor<64xf32>
  %e2 = tensor.empty() : tensor<64xf32>
  %np = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%p, %nb : tensor<64xf32>, tensor<64xf32>) outs(%e2 : tensor<64xf32>) {
  ^bb0(%pp: f32, %b: f32, %out: f32):
    %0 = arith.mulf %b, %lr : f32
    %1 = arith.subf %pp, %0 : f32
    linalg.yield %1 : f32
  } -> tensor<64xf32>
  return %np, %nb : tensor<64xf32>, tensor<64xf32>
}

// -----

// A producer also read before the consumer (by the reduction) cannot move
// to the consumer's place: it stays, and so does the consumer.
// CHECK-LABEL: func.func @producer_read_before_consumer
// CHECK: linalg.generic
// CHECK:   math.exp
// CHECK: linalg.generic
// CHECK-SAME: iterator_types = ["reduction"]
// CHECK: linalg.generic
// CHECK:   arith.addf
// CHECK: return
func.func @producer_read_before_consumer(%x: tensor<64xf32>, %init: tensor<f32>) -> (tensor<f32>, tensor<64xf32>) {
  %e = tensor.empty() : tensor<64xf32>
  %ex = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%x : tensor<64xf32>) outs(%e : tensor<64xf32>) {
  ^bb0(%a: f32, %out: f32):
    %0 = math.exp %a : f32
    linalg.yield %0 : f32
  } -> tensor<64xf32>
  %sum = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> ()>], iterator_types = ["reduction"]} ins(%ex : tensor<64xf32>) outs(%init : tensor<f32>) {
  ^bb0(%a: f32, %acc: f32):
    %0 = arith.addf %a, %acc : f32
    linalg.yield %0 : f32
  } -> tensor<f32>
  %e2 = tensor.empty() : tensor<64xf32>
  %twice = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%ex : tensor<64xf32>) outs(%e2 : tensor<64xf32>) {
  ^bb0(%a: f32, %out: f32):
    %0 = arith.addf %a, %a : f32
    linalg.yield %0 : f32
  } -> tensor<64xf32>
  return %sum, %twice : tensor<f32>, tensor<64xf32>
}

// -----

// A consumer that reads the producer through two operands is not fused with
// it: the fused op would keep the second operand and read its own result
// there (an op using itself; RAdam's step met it).
// CHECK-LABEL: func.func @consumer_reads_producer_twice
// CHECK: %[[P:.*]]:2 = linalg.generic
// CHECK: %[[C:.*]] = linalg.generic {{.*}} ins(%[[P]]#0, %[[P]]#1 :
// CHECK: return %[[P]]#0, %[[C]]
func.func @consumer_reads_producer_twice(%x: tensor<64xf32>) -> (tensor<64xf32>, tensor<64xf32>) {
  %e = tensor.empty() : tensor<64xf32>
  %p:2 = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%x : tensor<64xf32>) outs(%e, %e : tensor<64xf32>, tensor<64xf32>) {
  ^bb0(%a: f32, %o0: f32, %o1: f32):
    %0 = math.exp %a : f32
    %1 = math.sqrt %a : f32
    linalg.yield %0, %1 : f32, f32
  } -> (tensor<64xf32>, tensor<64xf32>)
  %e2 = tensor.empty() : tensor<64xf32>
  %c = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%p#0, %p#1 : tensor<64xf32>, tensor<64xf32>) outs(%e2 : tensor<64xf32>) {
  ^bb0(%a: f32, %b: f32, %out: f32):
    %0 = arith.addf %a, %b : f32
    linalg.yield %0 : f32
  } -> tensor<64xf32>
  return %p#0, %c : tensor<64xf32>, tensor<64xf32>
}

// -----

// A rank-0 copy of a constant (x[0].zero_() on a 1-d x) is not constant
// folded: MLIR 22's folder crashed on it.
// CHECK-LABEL: func.func @rank0_copy_of_a_constant
// CHECK: linalg.copy
func.func @rank0_copy_of_a_constant(%arg0: tensor<f32>) -> tensor<f32> {
  %cst = arith.constant dense<0.000000e+00> : tensor<f32>
  %0 = linalg.copy ins(%cst : tensor<f32>) outs(%arg0 : tensor<f32>) -> tensor<f32>
  return %0 : tensor<f32>
}

// -----

// A 0-d sum reads its init (out + in). Fused into a consumer that broadcasts
// it, the init must not become an output indexed by the broadcast map
// (every iteration would read what the previous one wrote): it is read as
// an input (here the zero init then folds away), and the fused op writes
// only the consumer's result.
// CHECK-LABEL: func.func @zero_dim_sum_broadcast
// CHECK: %[[R:.*]] = linalg.generic {{.*}} iterator_types = ["parallel"]} ins(%{{.*}} : tensor<i64>) outs(%{{.*}} : tensor<2xf32>)
// CHECK-NOT: linalg.generic
// CHECK: return %[[R]]
#scalar = affine_map<(d0) -> ()>
#vector = affine_map<(d0) -> (d0)>
func.func @zero_dim_sum_broadcast(%x: tensor<i64>) -> tensor<2xf32> {
  %c0 = arith.constant 0 : i64
  %e0 = tensor.empty() : tensor<i64>
  %init = linalg.fill ins(%c0 : i64) outs(%e0 : tensor<i64>) -> tensor<i64>
  %sum = linalg.generic {indexing_maps = [affine_map<() -> ()>, affine_map<() -> ()>], iterator_types = []}
      ins(%x : tensor<i64>) outs(%init : tensor<i64>) {
  ^bb0(%in: i64, %out: i64):
    %a = arith.addi %in, %out : i64
    linalg.yield %a : i64
  } -> tensor<i64>
  %e1 = tensor.empty() : tensor<2xf32>
  %div = linalg.generic {indexing_maps = [#scalar, #scalar, #vector], iterator_types = ["parallel"]}
      ins(%sum, %x : tensor<i64>, tensor<i64>) outs(%e1 : tensor<2xf32>) {
  ^bb0(%s: i64, %d: i64, %out: f32):
    %sf = arith.sitofp %s : i64 to f32
    %df = arith.sitofp %d : i64 to f32
    %q = arith.divf %sf, %df : f32
    linalg.yield %q : f32
  } -> tensor<2xf32>
  return %div : tensor<2xf32>
}
