// RUN: ltc-mlir-opt %s -split-input-file -verify-diagnostics

func.func @compare_result_not_bool(%a: !torch.vtensor<[2],f32>, %b: !torch.vtensor<[2],f32>) -> !torch.vtensor<[2],f32> {
  // expected-error @+1 {{'torch.aten.gt.Tensor' op expects a bool (i1) result dtype, got 'f32'}}
  %0 = torch.aten.gt.Tensor %a, %b : (!torch.vtensor<[2],f32>, !torch.vtensor<[2],f32>) -> !torch.vtensor<[2],f32>
  return %0 : !torch.vtensor<[2],f32>
}

// -----

func.func @compare_bad_broadcast(%a: !torch.vtensor<[2,3],f32>, %b: !torch.vtensor<[2],f32>) -> !torch.vtensor<[2,3],i1> {
  // expected-error @+1 {{'torch.aten.eq.Tensor' op operand #1 of shape [2] is not broadcast-compatible with the result shape [2,3]}}
  %0 = torch.aten.eq.Tensor %a, %b : (!torch.vtensor<[2,3],f32>, !torch.vtensor<[2],f32>) -> !torch.vtensor<[2,3],i1>
  return %0 : !torch.vtensor<[2,3],i1>
}

// -----

func.func @clamp_no_bounds(%a: !torch.vtensor<[2],f32>) -> !torch.vtensor<[2],f32> {
  %none = torch.constant.none
  // expected-error @+1 {{'torch.aten.clamp' op at least one of min and max must not be None}}
  %0 = torch.aten.clamp %a, %none, %none : (!torch.vtensor<[2],f32>, !torch.none, !torch.none) -> !torch.vtensor<[2],f32>
  return %0 : !torch.vtensor<[2],f32>
}

// -----

func.func @squeeze_non_unit(%a: !torch.vtensor<[3,2],f32>) -> !torch.vtensor<[3],f32> {
  // expected-error @+1 {{'torch.aten.squeeze_copy' op result shape [3] is not self's shape [3,2] with size-1 dims removed}}
  %0 = torch.aten.squeeze_copy %a : (!torch.vtensor<[3,2],f32>) -> !torch.vtensor<[3],f32>
  return %0 : !torch.vtensor<[3],f32>
}

// -----

func.func @squeeze_keeps_unit(%a: !torch.vtensor<[3,1],f32>) -> !torch.vtensor<[3,1],f32> {
  // expected-error @+1 {{'torch.aten.squeeze_copy' op result shape [3,1] still has a size-1 dim}}
  %0 = torch.aten.squeeze_copy %a : (!torch.vtensor<[3,1],f32>) -> !torch.vtensor<[3,1],f32>
  return %0 : !torch.vtensor<[3,1],f32>
}

// -----

func.func @squeeze_dim_two(%a: !torch.vtensor<[1,3,1],f32>, %d: !torch.int) -> !torch.vtensor<[3],f32> {
  // expected-error @+1 {{'torch.aten.squeeze_copy.dim' op removes more than one dim}}
  %0 = torch.aten.squeeze_copy.dim %a, %d : (!torch.vtensor<[1,3,1],f32>, !torch.int) -> !torch.vtensor<[3],f32>
  return %0 : !torch.vtensor<[3],f32>
}

// -----

func.func @int_implicit_float(%a: !torch.vtensor<[],f32>) -> !torch.int {
  // expected-error @+1 {{'torch.aten.IntImplicit' op expects an integer tensor, got dtype 'f32'}}
  %0 = torch.aten.IntImplicit %a : (!torch.vtensor<[],f32>) -> !torch.int
  return %0 : !torch.int
}

// -----

func.func @int_implicit_rank(%a: !torch.vtensor<[1],si64>) -> !torch.int {
  // expected-error @+1 {{'torch.aten.IntImplicit' op expects a 0-dim tensor, got shape [1]}}
  %0 = torch.aten.IntImplicit %a : (!torch.vtensor<[1],si64>) -> !torch.int
  return %0 : !torch.int
}

// -----

func.func @as_strided_dtype(%a: !torch.vtensor<[4],f32>, %l: !torch.list<int>, %n: !torch.none) -> !torch.vtensor<[4],f64> {
  // expected-error @+1 {{'torch.aten.as_strided_copy' op result dtype 'f64' differs from self dtype 'f32'}}
  %0 = torch.aten.as_strided_copy %a, %l, %l, %n : (!torch.vtensor<[4],f32>, !torch.list<int>, !torch.list<int>, !torch.none) -> !torch.vtensor<[4],f64>
  return %0 : !torch.vtensor<[4],f64>
}
