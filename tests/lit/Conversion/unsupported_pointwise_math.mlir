// RUN: ltc-mlir-opt --convert-torch-to-linalg --split-input-file --verify-diagnostics %s

// Bitwise ops have no float kernels in ATen.
func.func @bitwise_float(%x: !torch.vtensor<[4],f32>, %y: !torch.vtensor<[4],f32>) -> !torch.vtensor<[4],f32> {
  // expected-error @+1 {{unsupported op 'torch.aten.bitwise_and.Tensor': needs an integer or bool result dtype}}
  %0 = torch.aten.bitwise_and.Tensor %x, %y : (!torch.vtensor<[4],f32>, !torch.vtensor<[4],f32>) -> !torch.vtensor<[4],f32>
  return %0 : !torch.vtensor<[4],f32>
}

// -----

// A rounding mode that is not a constant of the known ones.
func.func @div_bad_mode(%x: !torch.vtensor<[4],f32>, %y: !torch.vtensor<[4],f32>) -> !torch.vtensor<[4],f32> {
  %m = torch.constant.str "round"
  // expected-error @+1 {{unsupported op 'torch.aten.div.Tensor_mode': rounding_mode must be a constant None, "trunc" or "floor"}}
  %0 = torch.aten.div.Tensor_mode %x, %y, %m : (!torch.vtensor<[4],f32>, !torch.vtensor<[4],f32>, !torch.str) -> !torch.vtensor<[4],f32>
  return %0 : !torch.vtensor<[4],f32>
}

// -----

// glu needs an even size along dim.
func.func @glu_odd(%x: !torch.vtensor<[4,5],f32>) -> !torch.vtensor<[4,2],f32> {
  %c1 = torch.constant.int 1
  // expected-error @+1 {{unsupported op 'torch.aten.glu': dim must be a constant dim of even size}}
  %0 = torch.aten.glu %x, %c1 : (!torch.vtensor<[4,5],f32>, !torch.int) -> !torch.vtensor<[4,2],f32>
  return %0 : !torch.vtensor<[4,2],f32>
}
