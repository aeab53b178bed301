// RUN: ltc-mlir-opt %s -split-input-file -verify-diagnostics

func.func @layer_norm_not_suffix(%x: !torch.vtensor<[2,3],f32>) {
  %int2 = torch.constant.int 2
  %shape = torch.prim.ListConstruct %int2 : (!torch.int) -> !torch.list<int>
  %none = torch.constant.none
  %eps = torch.constant.float 1.000000e-05
  // expected-error @+1 {{'torch.aten.native_layer_norm' op normalized_shape [2] is not a non-empty suffix of the input shape [2,3]}}
  %0:3 = torch.aten.native_layer_norm %x, %shape, %none, %none, %eps : (!torch.vtensor<[2,3],f32>, !torch.list<int>, !torch.none, !torch.none, !torch.float) -> (!torch.vtensor<[2,3],f32>, !torch.vtensor<[2,1],f32>, !torch.vtensor<[2,1],f32>)
  return
}

// -----

func.func @layer_norm_bad_weight(%x: !torch.vtensor<[2,3],f32>, %w: !torch.vtensor<[2],f32>) {
  %int3 = torch.constant.int 3
  %shape = torch.prim.ListConstruct %int3 : (!torch.int) -> !torch.list<int>
  %none = torch.constant.none
  %eps = torch.constant.float 1.000000e-05
  // expected-error @+1 {{weight/bias shape [2] differs from normalized_shape [3]}}
  %0:3 = torch.aten.native_layer_norm %x, %shape, %w, %none, %eps : (!torch.vtensor<[2,3],f32>, !torch.list<int>, !torch.vtensor<[2],f32>, !torch.none, !torch.float) -> (!torch.vtensor<[2,3],f32>, !torch.vtensor<[2,1],f32>, !torch.vtensor<[2,1],f32>)
  return
}

// -----

func.func @layer_norm_bad_stats(%x: !torch.vtensor<[2,3],f32>) {
  %int3 = torch.constant.int 3
  %shape = torch.prim.ListConstruct %int3 : (!torch.int) -> !torch.list<int>
  %none = torch.constant.none
  %eps = torch.constant.float 1.000000e-05
  // expected-error @+1 {{mean/rstd shape [2] is not [2,1]}}
  %0:3 = torch.aten.native_layer_norm %x, %shape, %none, %none, %eps : (!torch.vtensor<[2,3],f32>, !torch.list<int>, !torch.none, !torch.none, !torch.float) -> (!torch.vtensor<[2,3],f32>, !torch.vtensor<[2],f32>, !torch.vtensor<[2],f32>)
  return
}

// -----

func.func @layer_norm_backward_bad_grad(%dy: !torch.vtensor<[3,3],f32>, %x: !torch.vtensor<[2,3],f32>, %m: !torch.vtensor<[2,1],f32>, %mask: !torch.list<bool>) {
  %int3 = torch.constant.int 3
  %shape = torch.prim.ListConstruct %int3 : (!torch.int) -> !torch.list<int>
  %none = torch.constant.none
  // expected-error @+1 {{grad_out shape [3,3] differs from the input shape [2,3]}}
  %0:3 = torch.aten.native_layer_norm_backward %dy, %x, %shape, %m, %m, %none, %none, %mask : (!torch.vtensor<[3,3],f32>, !torch.vtensor<[2,3],f32>, !torch.list<int>, !torch.vtensor<[2,1],f32>, !torch.vtensor<[2,1],f32>, !torch.none, !torch.none, !torch.list<bool>) -> (!torch.vtensor<[2,3],f32>, !torch.vtensor<[0],f32>, !torch.vtensor<[0],f32>)
  return
}

// -----

// grad_input may only be typed [] (an undefined tensor) when output_mask
// says it is not wanted.
func.func @layer_norm_backward_wanted_grad_input_without_shape(%dy: !torch.vtensor<[2,3],f32>, %x: !torch.vtensor<[2,3],f32>, %m: !torch.vtensor<[2,1],f32>) {
  %int3 = torch.constant.int 3
  %shape = torch.prim.ListConstruct %int3 : (!torch.int) -> !torch.list<int>
  %none = torch.constant.none
  %true = torch.constant.bool true
  %mask = torch.prim.ListConstruct %true, %true, %true : (!torch.bool, !torch.bool, !torch.bool) -> !torch.list<bool>
  // expected-error @+1 {{grad_input shape [] differs from the input shape [2,3]}}
  %0:3 = torch.aten.native_layer_norm_backward %dy, %x, %shape, %m, %m, %none, %none, %mask : (!torch.vtensor<[2,3],f32>, !torch.vtensor<[2,3],f32>, !torch.list<int>, !torch.vtensor<[2,1],f32>, !torch.vtensor<[2,1],f32>, !torch.none, !torch.none, !torch.list<bool>) -> (!torch.vtensor<[],f32>, !torch.vtensor<[0],f32>, !torch.vtensor<[0],f32>)
  return
}

// -----

func.func @embedding_float_indices(%w: !torch.vtensor<[10,4],f32>, %i: !torch.vtensor<[3],f32>, %p: !torch.int, %b: !torch.bool) {
  // expected-error @+1 {{indices dtype must be si64 or si32, got 'f32'}}
  %0 = torch.aten.embedding %w, %i, %p, %b, %b : (!torch.vtensor<[10,4],f32>, !torch.vtensor<[3],f32>, !torch.int, !torch.bool, !torch.bool) -> !torch.vtensor<[3,4],f32>
  return
}

// -----

func.func @embedding_1d_weight(%w: !torch.vtensor<[10],f32>, %i: !torch.vtensor<[3],si64>, %p: !torch.int, %b: !torch.bool) {
  // expected-error @+1 {{weight must be 2-D, got shape [10]}}
  %0 = torch.aten.embedding %w, %i, %p, %b, %b : (!torch.vtensor<[10],f32>, !torch.vtensor<[3],si64>, !torch.int, !torch.bool, !torch.bool) -> !torch.vtensor<[3,4],f32>
  return
}

// -----

func.func @embedding_bad_result(%w: !torch.vtensor<[10,4],f32>, %i: !torch.vtensor<[3],si64>, %p: !torch.int, %b: !torch.bool) {
  // expected-error @+1 {{result shape [3,5] is not indices.shape + [4] = [3,4]}}
  %0 = torch.aten.embedding %w, %i, %p, %b, %b : (!torch.vtensor<[10,4],f32>, !torch.vtensor<[3],si64>, !torch.int, !torch.bool, !torch.bool) -> !torch.vtensor<[3,5],f32>
  return
}

// -----

func.func @embedding_backward_bad_rows(%g: !torch.vtensor<[3,4],f32>, %i: !torch.vtensor<[3],si64>, %p: !torch.int, %b: !torch.bool) {
  %int9 = torch.constant.int 9
  // expected-error @+1 {{result has 10 rows but num_weights is 9}}
  %0 = torch.aten.embedding_dense_backward %g, %i, %int9, %p, %b : (!torch.vtensor<[3,4],f32>, !torch.vtensor<[3],si64>, !torch.int, !torch.int, !torch.bool) -> !torch.vtensor<[10,4],f32>
  return
}

// -----

func.func @embedding_backward_bad_grad(%g: !torch.vtensor<[2,4],f32>, %i: !torch.vtensor<[3],si64>, %p: !torch.int, %b: !torch.bool) {
  // expected-error @+1 {{grad_output shape [2,4] is not indices.shape + [4] = [3,4]}}
  %0 = torch.aten.embedding_dense_backward %g, %i, %p, %p, %b : (!torch.vtensor<[2,4],f32>, !torch.vtensor<[3],si64>, !torch.int, !torch.int, !torch.bool) -> !torch.vtensor<[10,4],f32>
  return
}

// -----

// String constants round-trip (MLIR string escapes).
func.func @str_constant() -> !torch.str {
  %0 = torch.constant.str "a\22b"
  return %0 : !torch.str
}
