// RUN: ltc-mlir-opt --convert-torch-to-linalg --split-input-file --verify-diagnostics %s

// Constant bounds give ATen's length ceil((5 - 0) / 1) = 5: a result typed
// otherwise (a shape bug) is refused rather than computed.
func.func @arange_bad_length() -> !torch.vtensor<[3],si64> {
  %int0 = torch.constant.int 0
  %int5 = torch.constant.int 5
  %int1 = torch.constant.int 1
  %int4 = torch.constant.int 4
  %none = torch.constant.none
  // expected-error @+1 {{unsupported op 'torch.aten.arange.start_step': result length 3 differs from ATen's 5}}
  %0 = torch.aten.arange.start_step %int0, %int5, %int1, %int4, %none, %none, %none : (!torch.int, !torch.int, !torch.int, !torch.int, !torch.none, !torch.none, !torch.none) -> !torch.vtensor<[3],si64>
  return %0 : !torch.vtensor<[3],si64>
}

// -----

// torch 1.13 has no f16 cumsum on CPU: the fallback raises eager's error.
func.func @cumsum_f16(%x: !torch.vtensor<[3],f16>) -> !torch.vtensor<[3],f16> {
  %int0 = torch.constant.int 0
  %none = torch.constant.none
  // expected-error @+1 {{unsupported op 'torch.aten.cumsum': f16 cumsum is not implemented on CPU}}
  %0 = torch.aten.cumsum %x, %int0, %none : (!torch.vtensor<[3],f16>, !torch.int, !torch.none) -> !torch.vtensor<[3],f16>
  return %0 : !torch.vtensor<[3],f16>
}
