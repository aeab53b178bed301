// RUN: ltc-mlir-opt --convert-torch-to-linalg --split-input-file --verify-diagnostics %s

// Reads past the end of self are rejected (ATen raises an error), so the
// graph falls back instead of reading out of bounds.
func.func @out_of_bounds(%a: !torch.vtensor<[4,5],f32>) -> !torch.vtensor<[4,5],f32> {
  %int1 = torch.constant.int 1
  %int4 = torch.constant.int 4
  %int5 = torch.constant.int 5
  %size = torch.prim.ListConstruct %int4, %int5 : (!torch.int, !torch.int) -> !torch.list<int>
  %stride = torch.prim.ListConstruct %int5, %int1 : (!torch.int, !torch.int) -> !torch.list<int>
  // expected-error @+1 {{unsupported op 'torch.aten.as_strided_copy': size, stride and storage offset reach out of the bounds of self}}
  %0 = torch.aten.as_strided_copy %a, %size, %stride, %int1 : (!torch.vtensor<[4,5],f32>, !torch.list<int>, !torch.list<int>, !torch.int) -> !torch.vtensor<[4,5],f32>
  return %0 : !torch.vtensor<[4,5],f32>
}

// -----

func.func @negative_stride(%a: !torch.vtensor<[4],f32>) -> !torch.vtensor<[4],f32> {
  %none = torch.constant.none
  %int4 = torch.constant.int 4
  %intm1 = torch.constant.int -1
  %size = torch.prim.ListConstruct %int4 : (!torch.int) -> !torch.list<int>
  %stride = torch.prim.ListConstruct %intm1 : (!torch.int) -> !torch.list<int>
  // expected-error @+1 {{unsupported op 'torch.aten.as_strided_copy': negative strides are not supported}}
  %0 = torch.aten.as_strided_copy %a, %size, %stride, %none : (!torch.vtensor<[4],f32>, !torch.list<int>, !torch.list<int>, !torch.none) -> !torch.vtensor<[4],f32>
  return %0 : !torch.vtensor<[4],f32>
}

// -----

// The same bounds for writes: src would land past the end of self.
func.func @scatter_out_of_bounds(%a: !torch.vtensor<[4,5],f32>, %src: !torch.vtensor<[3,3],f32>) -> !torch.vtensor<[4,5],f32> {
  %int3 = torch.constant.int 3
  %int8 = torch.constant.int 8
  %int1 = torch.constant.int 1
  %size = torch.prim.ListConstruct %int3, %int3 : (!torch.int, !torch.int) -> !torch.list<int>
  %stride = torch.prim.ListConstruct %int8, %int1 : (!torch.int, !torch.int) -> !torch.list<int>
  // expected-error @+1 {{unsupported op 'torch.aten.as_strided_scatter': size, stride and storage offset reach out of the bounds of self}}
  %0 = torch.aten.as_strided_scatter %a, %src, %size, %stride, %int3 : (!torch.vtensor<[4,5],f32>, !torch.vtensor<[3,3],f32>, !torch.list<int>, !torch.list<int>, !torch.int) -> !torch.vtensor<[4,5],f32>
  return %0 : !torch.vtensor<[4,5],f32>
}
