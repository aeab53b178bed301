// RUN: ltc-mlir-opt --convert-torch-to-linalg --split-input-file --verify-diagnostics %s

// Each op that cannot be converted is reported by name with the reason; the
// convertible ops around it do not add errors.
func.func @non_constant_dim(%x: !torch.vtensor<[4,3],f32>, %d: !torch.int) -> (!torch.vtensor<[3,4],f32>, !torch.vtensor<[4,3],f32>) {
  %int0 = torch.constant.int 0
  // expected-error @+1 {{unsupported op 'torch.aten.transpose_copy.int': dim0 and dim1 must be constants}}
  %0 = torch.aten.transpose_copy.int %x, %int0, %d : (!torch.vtensor<[4,3],f32>, !torch.int, !torch.int) -> !torch.vtensor<[3,4],f32>
  %1 = torch.aten.exp %x : (!torch.vtensor<[4,3],f32>) -> !torch.vtensor<[4,3],f32>
  return %0, %1 : !torch.vtensor<[3,4],f32>, !torch.vtensor<[4,3],f32>
}

// -----

func.func @two_failures(%x: !torch.vtensor<[4,3],f32>, %keep: !torch.bool, %t: !torch.vtensor<[4],si64>, %red: !torch.int) -> (!torch.vtensor<[4,1],f32>, !torch.vtensor<[],f32>) {
  %int1 = torch.constant.int 1
  %none = torch.constant.none
  %intm100 = torch.constant.int -100
  %dims = torch.prim.ListConstruct %int1 : (!torch.int) -> !torch.list<int>
  // expected-error @+1 {{unsupported op 'torch.aten.sum.dim_IntList': keepdim must be a constant}}
  %0 = torch.aten.sum.dim_IntList %x, %dims, %keep, %none : (!torch.vtensor<[4,3],f32>, !torch.list<int>, !torch.bool, !torch.none) -> !torch.vtensor<[4,1],f32>
  // expected-error @+1 {{unsupported op 'torch.aten.nll_loss_forward': reduction must be a constant 0, 1 or 2}}
  %1, %2 = torch.aten.nll_loss_forward %x, %t, %none, %red, %intm100 : (!torch.vtensor<[4,3],f32>, !torch.vtensor<[4],si64>, !torch.none, !torch.int, !torch.int) -> (!torch.vtensor<[],f32>, !torch.vtensor<[],f32>)
  return %0, %1 : !torch.vtensor<[4,1],f32>, !torch.vtensor<[],f32>
}

// -----

// Bool tensors have no subtraction (ATen rejects it too).
func.func @bool_sub(%a: !torch.vtensor<[2],i1>, %b: !torch.vtensor<[2],i1>, %alpha: !torch.int) -> !torch.vtensor<[2],i1> {
  // expected-error @+1 {{unsupported op 'torch.aten.sub.Tensor': bool result dtype is not supported}}
  %0 = torch.aten.sub.Tensor %a, %b, %alpha : (!torch.vtensor<[2],i1>, !torch.vtensor<[2],i1>, !torch.int) -> !torch.vtensor<[2],i1>
  return %0 : !torch.vtensor<[2],i1>
}

// -----

// An unknown approximation is not lowered (the graph falls back).
func.func @gelu_unknown(%x: !torch.vtensor<[4],f32>) -> !torch.vtensor<[4],f32> {
  %s = torch.constant.str "fast"
  // expected-error @+1 {{unsupported op 'torch.aten.gelu': approximate must be a constant "none" or "tanh"}}
  %0 = torch.aten.gelu %x, %s : (!torch.vtensor<[4],f32>, !torch.str) -> !torch.vtensor<[4],f32>
  return %0 : !torch.vtensor<[4],f32>
}
