// RUN: ltc-mlir-opt --convert-torch-to-linalg --split-input-file --verify-diagnostics %s

// one_hot with num_classes = -1: the result shape depends on the values
// (ltc_backend keeps this case out of the graph).
func.func @one_hot_inferred(%t: !torch.vtensor<[3],si64>) -> !torch.vtensor<[3,4],si64> {
  %c = torch.constant.int -1
  // expected-error @+1 {{unsupported op 'torch.aten.one_hot': num_classes must be a constant >= 0 (-1 depends on the values)}}
  %0 = torch.aten.one_hot %t, %c : (!torch.vtensor<[3],si64>, !torch.int) -> !torch.vtensor<[3,4],si64>
  return %0 : !torch.vtensor<[3,4],si64>
}

// -----

// mse_loss with a reduction and a non-scalar result.
func.func @mse_bad_result(%x: !torch.vtensor<[4],f32>, %y: !torch.vtensor<[4],f32>) -> !torch.vtensor<[4],f32> {
  %c2 = torch.constant.int 2
  // expected-error @+1 {{unsupported op 'torch.aten.mse_loss': result shape does not match the reduction}}
  %0 = torch.aten.mse_loss %x, %y, %c2 : (!torch.vtensor<[4],f32>, !torch.vtensor<[4],f32>, !torch.int) -> !torch.vtensor<[4],f32>
  return %0 : !torch.vtensor<[4],f32>
}
