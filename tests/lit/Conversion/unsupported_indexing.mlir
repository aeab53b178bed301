// RUN: ltc-mlir-opt --convert-torch-to-linalg --split-input-file --verify-diagnostics %s

// The result type must match the clamped slice: x[2:100] of 5 rows has 3.
func.func @slice_wrong_result(%a: !torch.vtensor<[5,3],f32>) -> !torch.vtensor<[4,3],f32> {
  %dim = torch.constant.int 0
  %start = torch.constant.int 2
  %end = torch.constant.int 100
  %step = torch.constant.int 1
  // expected-error @+1 {{unsupported op 'torch.aten.slice_copy.Tensor': result type does not match the slice}}
  %0 = torch.aten.slice_copy.Tensor %a, %dim, %start, %end, %step : (!torch.vtensor<[5,3],f32>, !torch.int, !torch.int, !torch.int, !torch.int) -> !torch.vtensor<[4,3],f32>
  return %0 : !torch.vtensor<[4,3],f32>
}

// -----

// Bounds known only at run time are not supported (LTC passes constants).
func.func @slice_dynamic_start(%a: !torch.vtensor<[5,3],f32>, %start: !torch.int) -> !torch.vtensor<[2,3],f32> {
  %dim = torch.constant.int 0
  %end = torch.constant.int 4
  %step = torch.constant.int 1
  // expected-error @+1 {{unsupported op 'torch.aten.slice_copy.Tensor': dim, start, end and step must be constants}}
  %0 = torch.aten.slice_copy.Tensor %a, %dim, %start, %end, %step : (!torch.vtensor<[5,3],f32>, !torch.int, !torch.int, !torch.int, !torch.int) -> !torch.vtensor<[2,3],f32>
  return %0 : !torch.vtensor<[2,3],f32>
}

// -----

// A select index known only at run time is not supported.
func.func @select_dynamic_index(%a: !torch.vtensor<[4,5],f32>, %i: !torch.int) -> !torch.vtensor<[4],f32> {
  %dim = torch.constant.int 1
  // expected-error @+1 {{unsupported op 'torch.aten.select_copy.int': dim and index must be constants}}
  %0 = torch.aten.select_copy.int %a, %dim, %i : (!torch.vtensor<[4,5],f32>, !torch.int, !torch.int) -> !torch.vtensor<[4],f32>
  return %0 : !torch.vtensor<[4],f32>
}

// -----

// bool <-> number conversions in scatters are not modelled.
func.func @scatter_bool_src(%self: !torch.vtensor<[4,5],f32>, %src: !torch.vtensor<[4],i1>) -> !torch.vtensor<[4,5],f32> {
  %dim = torch.constant.int 1
  %index = torch.constant.int 0
  // expected-error @+1 {{unsupported op 'torch.aten.select_scatter': cannot convert src to self's dtype}}
  %0 = torch.aten.select_scatter %self, %src, %dim, %index : (!torch.vtensor<[4,5],f32>, !torch.vtensor<[4],i1>, !torch.int, !torch.int) -> !torch.vtensor<[4,5],f32>
  return %0 : !torch.vtensor<[4,5],f32>
}

// -----

// A bool mask selects a data-dependent number of elements: not lowered
// (ltc_backend runs masks through the eager fallback anyway).
func.func @index_mask(%x: !torch.vtensor<[4,5],f32>, %m: !torch.vtensor<[4],i1>) -> !torch.vtensor<[2,5],f32> {
  %l = torch.prim.ListConstruct %m : (!torch.vtensor<[4],i1>) -> !torch.list<vtensor<[4],i1>>
  // expected-error @+1 {{unsupported op 'torch.aten.index.Tensor': indices must be integer tensors (bool/uint8 masks have a data-dependent shape)}}
  %0 = torch.aten.index.Tensor %x, %l : (!torch.vtensor<[4,5],f32>, !torch.list<vtensor<[4],i1>>) -> !torch.vtensor<[2,5],f32>
  return %0 : !torch.vtensor<[2,5],f32>
}
