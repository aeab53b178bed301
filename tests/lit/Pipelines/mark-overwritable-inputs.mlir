// RUN: ltc-mlir-opt %s -split-input-file --pass-pipeline="builtin.module(ltc-mark-overwritable-inputs)" | FileCheck %s

// SGD with momentum: one elementwise op reads the parameter and the buffer
// where it writes their new values, and nothing else reads them. Each new
// value may overwrite either input; the gradient (also read elsewhere) and
// the learning rate (a broadcast read) are never overwritten.
// Each overwriting result gets an allocation of its own as init (a shared
// tensor.empty could give another op's result the same buffer).
// CHECK-LABEL: module attributes
// CHECK-SAME: ltc.overwritable_inputs = [array<i64: 0, 1>, array<i64: 0, 1>, array<i64>]
// CHECK: %[[E:.*]] = tensor.empty() : tensor<4x8xf32>
// CHECK: %[[A0:.*]] = bufferization.alloc_tensor() : tensor<4x8xf32>
// CHECK: %[[A1:.*]] = bufferization.alloc_tensor() : tensor<4x8xf32>
// CHECK: linalg.generic
// CHECK-SAME: outs(%[[A0]], %[[A1]] : tensor<4x8xf32>, tensor<4x8xf32>)
// CHECK: linalg.generic
// CHECK-SAME: outs(%{{.*}} : tensor<4x8xf32>)
#id = affine_map<(d0, d1) -> (d0, d1)>
#scalar = affine_map<(d0, d1) -> ()>
module {
  func.func @forward(%p: tensor<4x8xf32>, %buf: tensor<4x8xf32>, %g: tensor<4x8xf32>, %lr: tensor<f32>) -> (tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>) {
    %e = tensor.empty() : tensor<4x8xf32>
    %r:2 = linalg.generic {indexing_maps = [#id, #id, #id, #scalar, #id, #id], iterator_types = ["parallel", "parallel"]}
        ins(%p, %buf, %g, %lr : tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<f32>) outs(%e, %e : tensor<4x8xf32>, tensor<4x8xf32>) {
    ^bb0(%pi: f32, %bi: f32, %gi: f32, %l: f32, %o0: f32, %o1: f32):
      %nb = arith.addf %bi, %gi : f32
      %step = arith.mulf %l, %nb : f32
      %np = arith.subf %pi, %step : f32
      linalg.yield %np, %nb : f32, f32
    } -> (tensor<4x8xf32>, tensor<4x8xf32>)
    %e2 = tensor.empty() : tensor<4x8xf32>
    %neg = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
        ins(%g : tensor<4x8xf32>) outs(%e2 : tensor<4x8xf32>) {
    ^bb0(%gi: f32, %o: f32):
      %n = arith.negf %gi : f32
      linalg.yield %n : f32
    } -> tensor<4x8xf32>
    return %r#0, %r#1, %neg : tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>
  }
}

// -----

// A second reader of the input (after the update): no pair.
// CHECK-LABEL: module {
// CHECK-NOT: ltc.overwritable_inputs
#id = affine_map<(d0) -> (d0)>
module {
  func.func @forward(%p: tensor<8xf32>) -> (tensor<8xf32>, tensor<8xf32>) {
    %e = tensor.empty() : tensor<8xf32>
    %u = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
        ins(%p : tensor<8xf32>) outs(%e : tensor<8xf32>) {
    ^bb0(%x: f32, %o: f32):
      %y = arith.addf %x, %x : f32
      linalg.yield %y : f32
    } -> tensor<8xf32>
    %e2 = tensor.empty() : tensor<8xf32>
    %v = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
        ins(%p : tensor<8xf32>) outs(%e2 : tensor<8xf32>) {
    ^bb0(%x: f32, %o: f32):
      %y = arith.mulf %x, %x : f32
      linalg.yield %y : f32
    } -> tensor<8xf32>
    return %u, %v : tensor<8xf32>, tensor<8xf32>
  }
}

// -----

// The input read transposed: element (i, j) of the result needs element
// (j, i) of the input, which another tile may already have overwritten.
// CHECK-LABEL: module {
// CHECK-NOT: ltc.overwritable_inputs
#id = affine_map<(d0, d1) -> (d0, d1)>
#t = affine_map<(d0, d1) -> (d1, d0)>
module {
  func.func @forward(%p: tensor<4x4xf32>) -> tensor<4x4xf32> {
    %e = tensor.empty() : tensor<4x4xf32>
    %u = linalg.generic {indexing_maps = [#t, #id], iterator_types = ["parallel", "parallel"]}
        ins(%p : tensor<4x4xf32>) outs(%e : tensor<4x4xf32>) {
    ^bb0(%x: f32, %o: f32):
      linalg.yield %x : f32
    } -> tensor<4x4xf32>
    return %u : tensor<4x4xf32>
  }
}

// -----

// A reduction (a row sum kept in place): not elementwise.
// CHECK-LABEL: module {
// CHECK-NOT: ltc.overwritable_inputs
#id = affine_map<(d0, d1) -> (d0, d1)>
module {
  func.func @forward(%p: tensor<4x4xf32>) -> tensor<4x4xf32> {
    %e = tensor.empty() : tensor<4x4xf32>
    %u = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "reduction"]}
        ins(%p : tensor<4x4xf32>) outs(%e : tensor<4x4xf32>) {
    ^bb0(%x: f32, %o: f32):
      %s = arith.addf %x, %o : f32
      linalg.yield %s : f32
    } -> tensor<4x4xf32>
    return %u : tensor<4x4xf32>
  }
}

// -----

// The update's destination is another value (written before the update
// runs), and a result returned twice: no pairs.
// CHECK-LABEL: module {
// CHECK-NOT: ltc.overwritable_inputs
#id = affine_map<(d0) -> (d0)>
module {
  func.func @forward(%p: tensor<8xf32>, %q: tensor<8xf32>, %init: tensor<8xf32>) -> (tensor<8xf32>, tensor<8xf32>, tensor<8xf32>) {
    %u = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
        ins(%p : tensor<8xf32>) outs(%init : tensor<8xf32>) {
    ^bb0(%x: f32, %o: f32):
      %y = arith.addf %x, %o : f32
      linalg.yield %y : f32
    } -> tensor<8xf32>
    %e = tensor.empty() : tensor<8xf32>
    %v = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
        ins(%q : tensor<8xf32>) outs(%e : tensor<8xf32>) {
    ^bb0(%x: f32, %o: f32):
      %y = arith.mulf %x, %x : f32
      linalg.yield %y : f32
    } -> tensor<8xf32>
    return %u, %v, %v : tensor<8xf32>, tensor<8xf32>, tensor<8xf32>
  }
}
