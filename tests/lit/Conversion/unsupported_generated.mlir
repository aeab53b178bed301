// RUN: ltc-mlir-opt --convert-torch-to-linalg --split-input-file --verify-diagnostics %s

// Ops of the registry that no pattern lowers parse and verify, then are
// reported by name like any op the conversion cannot handle (the graph
// falls back); the ops around them still convert.
func.func @no_pattern(%x: !torch.vtensor<[4,5],f32>) -> (!torch.vtensor<[5,4],f32>, !torch.vtensor<[4,5],f32>) {
  %int1 = torch.constant.int 1
  %rcond = torch.constant.float 1.000000e-15
  // expected-error @+1 {{unsupported op 'torch.aten.pinverse': no lowering to linalg}}
  %0 = torch.aten.pinverse %x, %rcond : (!torch.vtensor<[4,5],f32>, !torch.float) -> !torch.vtensor<[5,4],f32>
  // expected-error @+1 {{unsupported op 'torch.aten.linalg_matrix_exp': no lowering to linalg}}
  %1 = torch.aten.linalg_matrix_exp %x : (!torch.vtensor<[4,5],f32>) -> !torch.vtensor<[4,5],f32>
  %2 = torch.aten.exp %x : (!torch.vtensor<[4,5],f32>) -> !torch.vtensor<[4,5],f32>
  %3 = torch.aten.add.Tensor %1, %2, %int1 : (!torch.vtensor<[4,5],f32>, !torch.vtensor<[4,5],f32>, !torch.int) -> !torch.vtensor<[4,5],f32>
  return %0, %3 : !torch.vtensor<[5,4],f32>, !torch.vtensor<[4,5],f32>
}
