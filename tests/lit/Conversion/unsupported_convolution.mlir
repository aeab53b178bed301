// RUN: ltc-mlir-opt --convert-torch-to-linalg --split-input-file --verify-diagnostics %s

// Convolutions the lowering rejects are reported with the reason (the graph
// then runs through the fallback).
func.func @runtime_groups(%x: !torch.vtensor<[2,4,5],f32>, %w: !torch.vtensor<[4,2,3],f32>, %groups: !torch.int) -> !torch.vtensor<[2,4,3],f32> {
  %none = torch.constant.none
  %false = torch.constant.bool false
  %int0 = torch.constant.int 0
  %int1 = torch.constant.int 1
  %ones = torch.prim.ListConstruct %int1 : (!torch.int) -> !torch.list<int>
  %zeros = torch.prim.ListConstruct %int0 : (!torch.int) -> !torch.list<int>
  // expected-error @+1 {{unsupported op 'torch.aten.convolution': stride, padding, dilation, output_padding, transposed and groups must be constants}}
  %0 = torch.aten.convolution %x, %w, %none, %ones, %zeros, %ones, %false, %zeros, %groups : (!torch.vtensor<[2,4,5],f32>, !torch.vtensor<[4,2,3],f32>, !torch.none, !torch.list<int>, !torch.list<int>, !torch.list<int>, !torch.bool, !torch.list<int>, !torch.int) -> !torch.vtensor<[2,4,3],f32>
  return %0 : !torch.vtensor<[2,4,3],f32>
}

// -----

func.func @bool_conv(%x: !torch.vtensor<[2,4,5],i1>, %w: !torch.vtensor<[4,4,3],i1>) -> !torch.vtensor<[2,4,3],i1> {
  %none = torch.constant.none
  %false = torch.constant.bool false
  %int0 = torch.constant.int 0
  %int1 = torch.constant.int 1
  %ones = torch.prim.ListConstruct %int1 : (!torch.int) -> !torch.list<int>
  %zeros = torch.prim.ListConstruct %int0 : (!torch.int) -> !torch.list<int>
  // expected-error @+1 {{unsupported op 'torch.aten.convolution': expects float or integer input and weight of the same dtype}}
  %0 = torch.aten.convolution %x, %w, %none, %ones, %zeros, %ones, %false, %zeros, %int1 : (!torch.vtensor<[2,4,5],i1>, !torch.vtensor<[4,4,3],i1>, !torch.none, !torch.list<int>, !torch.list<int>, !torch.list<int>, !torch.bool, !torch.list<int>, !torch.int) -> !torch.vtensor<[2,4,3],i1>
  return %0 : !torch.vtensor<[2,4,3],i1>
}

// -----

// The result type disagrees with the input, kernel and parameters (length
// 5, kernel 3, no padding gives 3, not 4).
func.func @wrong_result_shape(%x: !torch.vtensor<[2,4,5],f32>, %w: !torch.vtensor<[4,4,3],f32>) -> !torch.vtensor<[2,4,4],f32> {
  %none = torch.constant.none
  %false = torch.constant.bool false
  %int0 = torch.constant.int 0
  %int1 = torch.constant.int 1
  %ones = torch.prim.ListConstruct %int1 : (!torch.int) -> !torch.list<int>
  %zeros = torch.prim.ListConstruct %int0 : (!torch.int) -> !torch.list<int>
  // expected-error @+1 {{unsupported op 'torch.aten.convolution': result type does not match the input, weight and parameters}}
  %0 = torch.aten.convolution %x, %w, %none, %ones, %zeros, %ones, %false, %zeros, %int1 : (!torch.vtensor<[2,4,5],f32>, !torch.vtensor<[4,4,3],f32>, !torch.none, !torch.list<int>, !torch.list<int>, !torch.list<int>, !torch.bool, !torch.list<int>, !torch.int) -> !torch.vtensor<[2,4,4],f32>
  return %0 : !torch.vtensor<[2,4,4],f32>
}

// -----

func.func @runtime_output_mask(%go: !torch.vtensor<[2,4,3],f32>, %x: !torch.vtensor<[2,3,5],f32>, %w: !torch.vtensor<[4,3,3],f32>, %m: !torch.bool) -> (!torch.vtensor<[2,3,5],f32>, !torch.vtensor<[4,3,3],f32>, !torch.vtensor<[4],f32>) {
  %none = torch.constant.none
  %false = torch.constant.bool false
  %true = torch.constant.bool true
  %int0 = torch.constant.int 0
  %int1 = torch.constant.int 1
  %ones = torch.prim.ListConstruct %int1 : (!torch.int) -> !torch.list<int>
  %zeros = torch.prim.ListConstruct %int0 : (!torch.int) -> !torch.list<int>
  %mask = torch.prim.ListConstruct %true, %m, %true : (!torch.bool, !torch.bool, !torch.bool) -> !torch.list<bool>
  // expected-error @+1 {{unsupported op 'torch.aten.convolution_backward': output_mask must be 3 constant bools}}
  %0:3 = torch.aten.convolution_backward %go, %x, %w, %none, %ones, %zeros, %ones, %false, %zeros, %int1, %mask : (!torch.vtensor<[2,4,3],f32>, !torch.vtensor<[2,3,5],f32>, !torch.vtensor<[4,3,3],f32>, !torch.none, !torch.list<int>, !torch.list<int>, !torch.list<int>, !torch.bool, !torch.list<int>, !torch.int, !torch.list<bool>) -> (!torch.vtensor<[2,3,5],f32>, !torch.vtensor<[4,3,3],f32>, !torch.vtensor<[4],f32>)
  return %0#0, %0#1, %0#2 : !torch.vtensor<[2,3,5],f32>, !torch.vtensor<[4,3,3],f32>, !torch.vtensor<[4],f32>
}
