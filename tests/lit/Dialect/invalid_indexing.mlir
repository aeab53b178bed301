// RUN: ltc-mlir-opt %s -split-input-file -verify-diagnostics

func.func @tensor_list_non_tensor(%a: !torch.vtensor<[2],f32>, %b: !torch.int) -> !torch.list<vtensor<[2],f32>> {
  // expected-error @+1 {{'torch.prim.ListConstruct' op element #1 has type '!torch.int' but the list holds '!torch.vtensor<[2],f32>'}}
  %l = torch.prim.ListConstruct %a, %b : (!torch.vtensor<[2],f32>, !torch.int) -> !torch.list<vtensor<[2],f32>>
  return %l : !torch.list<vtensor<[2],f32>>
}

// -----

func.func @select_dim(%x: !torch.vtensor<[4,5],f32>) -> !torch.vtensor<[4],f32> {
  %int2 = torch.constant.int 2
  %int0 = torch.constant.int 0
  // expected-error @+1 {{'torch.aten.select_copy.int' op dim 2 is out of range for rank 2}}
  %0 = torch.aten.select_copy.int %x, %int2, %int0 : (!torch.vtensor<[4,5],f32>, !torch.int, !torch.int) -> !torch.vtensor<[4],f32>
  return %0 : !torch.vtensor<[4],f32>
}

// -----

func.func @select_index(%x: !torch.vtensor<[4,5],f32>) -> !torch.vtensor<[4],f32> {
  %int1 = torch.constant.int 1
  %intm6 = torch.constant.int -6
  // expected-error @+1 {{'torch.aten.select_copy.int' op index -6 is out of range for dim 1 of size 5}}
  %0 = torch.aten.select_copy.int %x, %int1, %intm6 : (!torch.vtensor<[4,5],f32>, !torch.int, !torch.int) -> !torch.vtensor<[4],f32>
  return %0 : !torch.vtensor<[4],f32>
}

// -----

func.func @select_shape(%x: !torch.vtensor<[4,5],f32>) -> !torch.vtensor<[5],f32> {
  %int1 = torch.constant.int 1
  // expected-error @+1 {{'torch.aten.select_copy.int' op result shape [5] is not self's shape [4,5] without dim 1}}
  %0 = torch.aten.select_copy.int %x, %int1, %int1 : (!torch.vtensor<[4,5],f32>, !torch.int, !torch.int) -> !torch.vtensor<[5],f32>
  return %0 : !torch.vtensor<[5],f32>
}

// -----

func.func @select_scatter_type(%x: !torch.vtensor<[4,5],f32>, %s: !torch.vtensor<[4],f32>) -> !torch.vtensor<[4,5],f64> {
  %int1 = torch.constant.int 1
  // expected-error @+1 {{'torch.aten.select_scatter' op result type '!torch.vtensor<[4,5],f64>' differs from self type '!torch.vtensor<[4,5],f32>'}}
  %0 = torch.aten.select_scatter %x, %s, %int1, %int1 : (!torch.vtensor<[4,5],f32>, !torch.vtensor<[4],f32>, !torch.int, !torch.int) -> !torch.vtensor<[4,5],f64>
  return %0 : !torch.vtensor<[4,5],f64>
}

// -----

func.func @slice_step(%x: !torch.vtensor<[4,5],f32>) -> !torch.vtensor<[4,5],f32> {
  %int0 = torch.constant.int 0
  %none = torch.constant.none
  // expected-error @+1 {{'torch.aten.slice_copy.Tensor' op slice step must be positive, got 0}}
  %0 = torch.aten.slice_copy.Tensor %x, %int0, %none, %none, %int0 : (!torch.vtensor<[4,5],f32>, !torch.int, !torch.none, !torch.none, !torch.int) -> !torch.vtensor<[4,5],f32>
  return %0 : !torch.vtensor<[4,5],f32>
}

// -----

func.func @slice_other_dim(%x: !torch.vtensor<[4,5],f32>) -> !torch.vtensor<[2,4],f32> {
  %int0 = torch.constant.int 0
  %int1 = torch.constant.int 1
  %none = torch.constant.none
  // expected-error @+1 {{'torch.aten.slice_copy.Tensor' op result shape [2,4] differs from [4,5] outside dim 0}}
  %0 = torch.aten.slice_copy.Tensor %x, %int0, %none, %none, %int1 : (!torch.vtensor<[4,5],f32>, !torch.int, !torch.none, !torch.none, !torch.int) -> !torch.vtensor<[2,4],f32>
  return %0 : !torch.vtensor<[2,4],f32>
}

// -----

func.func @slice_scatter_src(%x: !torch.vtensor<[4,5],f32>, %s: !torch.vtensor<[2,3],f32>) -> !torch.vtensor<[4,5],f32> {
  %int0 = torch.constant.int 0
  %int1 = torch.constant.int 1
  %none = torch.constant.none
  // expected-error @+1 {{'torch.aten.slice_scatter' op src shape [2,3] differs from [4,5] outside dim 0}}
  %0 = torch.aten.slice_scatter %x, %s, %int0, %none, %none, %int1 : (!torch.vtensor<[4,5],f32>, !torch.vtensor<[2,3],f32>, !torch.int, !torch.none, !torch.none, !torch.int) -> !torch.vtensor<[4,5],f32>
  return %0 : !torch.vtensor<[4,5],f32>
}

// -----

func.func @cat_sizes(%a: !torch.vtensor<[3,2],f32>, %b: !torch.vtensor<[3,4],f32>) -> !torch.vtensor<[3,7],f32> {
  %l = torch.prim.ListConstruct %a, %b : (!torch.vtensor<[3,2],f32>, !torch.vtensor<[3,4],f32>) -> !torch.list<vtensor<[3,2],f32>>
  %int1 = torch.constant.int 1
  // expected-error @+1 {{'torch.aten.cat' op the tensors' sizes at dim 1 add up to 6, but the result is [3,7]}}
  %0 = torch.aten.cat %l, %int1 : (!torch.list<vtensor<[3,2],f32>>, !torch.int) -> !torch.vtensor<[3,7],f32>
  return %0 : !torch.vtensor<[3,7],f32>
}

// -----

func.func @cat_other_dim(%a: !torch.vtensor<[3,2],f32>, %b: !torch.vtensor<[2,4],f32>) -> !torch.vtensor<[3,6],f32> {
  %l = torch.prim.ListConstruct %a, %b : (!torch.vtensor<[3,2],f32>, !torch.vtensor<[2,4],f32>) -> !torch.list<vtensor<[3,2],f32>>
  %int1 = torch.constant.int 1
  // expected-error @+1 {{'torch.aten.cat' op tensor #1 shape [2,4] differs from [3,6] outside dim 1}}
  %0 = torch.aten.cat %l, %int1 : (!torch.list<vtensor<[3,2],f32>>, !torch.int) -> !torch.vtensor<[3,6],f32>
  return %0 : !torch.vtensor<[3,6],f32>
}

// -----

func.func @cat_int_list(%l: !torch.list<int>) -> !torch.vtensor<[3],f32> {
  %int0 = torch.constant.int 0
  // expected-error @+1 {{'torch.aten.cat' op expects a list of tensors}}
  %0 = torch.aten.cat %l, %int0 : (!torch.list<int>, !torch.int) -> !torch.vtensor<[3],f32>
  return %0 : !torch.vtensor<[3],f32>
}

// -----

func.func @stack_count(%a: !torch.vtensor<[3],f32>) -> !torch.vtensor<[3,3],f32> {
  %l = torch.prim.ListConstruct %a, %a : (!torch.vtensor<[3],f32>, !torch.vtensor<[3],f32>) -> !torch.list<vtensor<[3],f32>>
  %int0 = torch.constant.int 0
  // expected-error @+1 {{'torch.aten.stack' op stacks 2 tensors, but the result is [3,3]}}
  %0 = torch.aten.stack %l, %int0 : (!torch.list<vtensor<[3],f32>>, !torch.int) -> !torch.vtensor<[3,3],f32>
  return %0 : !torch.vtensor<[3,3],f32>
}

// -----

func.func @index_select_dtype(%x: !torch.vtensor<[4,5],f32>, %i: !torch.vtensor<[2],f32>) -> !torch.vtensor<[4,2],f32> {
  %int1 = torch.constant.int 1
  // expected-error @+1 {{'torch.aten.index_select' op index dtype must be si64 or si32, got 'f32'}}
  %0 = torch.aten.index_select %x, %int1, %i : (!torch.vtensor<[4,5],f32>, !torch.int, !torch.vtensor<[2],f32>) -> !torch.vtensor<[4,2],f32>
  return %0 : !torch.vtensor<[4,2],f32>
}

// -----

func.func @index_select_count(%x: !torch.vtensor<[4,5],f32>, %i: !torch.vtensor<[2],si64>) -> !torch.vtensor<[4,3],f32> {
  %int1 = torch.constant.int 1
  // expected-error @+1 {{'torch.aten.index_select' op result size 3 at dim 1 differs from the 2 indices}}
  %0 = torch.aten.index_select %x, %int1, %i : (!torch.vtensor<[4,5],f32>, !torch.int, !torch.vtensor<[2],si64>) -> !torch.vtensor<[4,3],f32>
  return %0 : !torch.vtensor<[4,3],f32>
}

// -----

// x[:, i, j] of a [4,5,6] x with i [2,1] and j [3]: [4,2,3].
func.func @index_tensor_shape(%x: !torch.vtensor<[4,5,6],f32>, %i: !torch.vtensor<[2,1],si64>, %j: !torch.vtensor<[3],si64>) -> !torch.vtensor<[4,3,2],f32> {
  %none = torch.constant.none
  %l = torch.prim.ListConstruct %none, %i, %j : (!torch.none, !torch.vtensor<[2,1],si64>, !torch.vtensor<[3],si64>) -> !torch.list<vtensor<[2,1],si64>>
  // expected-error @+1 {{'torch.aten.index.Tensor' op result shape [4,3,2] differs from the indexing result's [4,2,3]}}
  %0 = torch.aten.index.Tensor %x, %l : (!torch.vtensor<[4,5,6],f32>, !torch.list<vtensor<[2,1],si64>>) -> !torch.vtensor<[4,3,2],f32>
  return %0 : !torch.vtensor<[4,3,2],f32>
}

// -----

// Non-adjacent indexed dims put the broadcast shape in front: [3,5].
func.func @index_tensor_non_adjacent(%x: !torch.vtensor<[4,5,6],f32>, %i: !torch.vtensor<[3],si64>) -> !torch.vtensor<[5,3],f32> {
  %none = torch.constant.none
  %l = torch.prim.ListConstruct %i, %none, %i : (!torch.vtensor<[3],si64>, !torch.none, !torch.vtensor<[3],si64>) -> !torch.list<vtensor<[3],si64>>
  // expected-error @+1 {{'torch.aten.index.Tensor' op result shape [5,3] differs from the indexing result's [3,5]}}
  %0 = torch.aten.index.Tensor %x, %l : (!torch.vtensor<[4,5,6],f32>, !torch.list<vtensor<[3],si64>>) -> !torch.vtensor<[5,3],f32>
  return %0 : !torch.vtensor<[5,3],f32>
}

// -----

func.func @index_tensor_float_index(%x: !torch.vtensor<[4,5],f32>, %i: !torch.vtensor<[3],f32>) -> !torch.vtensor<[3,5],f32> {
  %l = torch.prim.ListConstruct %i : (!torch.vtensor<[3],f32>) -> !torch.list<vtensor<[3],f32>>
  // expected-error @+1 {{'torch.aten.index.Tensor' op index 0 must be an integer or bool tensor or None}}
  %0 = torch.aten.index.Tensor %x, %l : (!torch.vtensor<[4,5],f32>, !torch.list<vtensor<[3],f32>>) -> !torch.vtensor<[3,5],f32>
  return %0 : !torch.vtensor<[3,5],f32>
}

// -----

func.func @index_tensor_too_many(%x: !torch.vtensor<[4],f32>, %i: !torch.vtensor<[3],si64>) -> !torch.vtensor<[3],f32> {
  %l = torch.prim.ListConstruct %i, %i : (!torch.vtensor<[3],si64>, !torch.vtensor<[3],si64>) -> !torch.list<vtensor<[3],si64>>
  // expected-error @+1 {{'torch.aten.index.Tensor' op has 2 indices for a self of rank 1}}
  %0 = torch.aten.index.Tensor %x, %l : (!torch.vtensor<[4],f32>, !torch.list<vtensor<[3],si64>>) -> !torch.vtensor<[3],f32>
  return %0 : !torch.vtensor<[3],f32>
}

// -----

func.func @index_tensor_no_broadcast(%x: !torch.vtensor<[4,5],f32>, %i: !torch.vtensor<[3],si64>, %j: !torch.vtensor<[2],si64>) -> !torch.vtensor<[3],f32> {
  %l = torch.prim.ListConstruct %i, %j : (!torch.vtensor<[3],si64>, !torch.vtensor<[2],si64>) -> !torch.list<vtensor<[3],si64>>
  // expected-error @+1 {{'torch.aten.index.Tensor' op index tensors of shapes [3], [2] cannot be broadcast together}}
  %0 = torch.aten.index.Tensor %x, %l : (!torch.vtensor<[4,5],f32>, !torch.list<vtensor<[3],si64>>) -> !torch.vtensor<[3],f32>
  return %0 : !torch.vtensor<[3],f32>
}

// -----

func.func @index_put_values_dtype(%x: !torch.vtensor<[4,5],f32>, %i: !torch.vtensor<[3],si64>, %v: !torch.vtensor<[3,5],f64>) -> !torch.vtensor<[4,5],f32> {
  %false = torch.constant.bool false
  %l = torch.prim.ListConstruct %i : (!torch.vtensor<[3],si64>) -> !torch.list<vtensor<[3],si64>>
  // expected-error @+1 {{'torch.aten.index_put' op values dtype 'f64' differs from self's 'f32'}}
  %0 = torch.aten.index_put %x, %l, %v, %false : (!torch.vtensor<[4,5],f32>, !torch.list<vtensor<[3],si64>>, !torch.vtensor<[3,5],f64>, !torch.bool) -> !torch.vtensor<[4,5],f32>
  return %0 : !torch.vtensor<[4,5],f32>
}

// -----

func.func @index_put_values_shape(%x: !torch.vtensor<[4,5],f32>, %i: !torch.vtensor<[3],si64>, %v: !torch.vtensor<[2,5],f32>) -> !torch.vtensor<[4,5],f32> {
  %true = torch.constant.bool true
  %l = torch.prim.ListConstruct %i : (!torch.vtensor<[3],si64>) -> !torch.list<vtensor<[3],si64>>
  // expected-error @+1 {{'torch.aten._index_put_impl' op values of shape [2,5] cannot be broadcast to the indexing result of shape [3,5]}}
  %0 = torch.aten._index_put_impl %x, %l, %v, %true, %true : (!torch.vtensor<[4,5],f32>, !torch.list<vtensor<[3],si64>>, !torch.vtensor<[2,5],f32>, !torch.bool, !torch.bool) -> !torch.vtensor<[4,5],f32>
  return %0 : !torch.vtensor<[4,5],f32>
}

// -----

func.func @index_put_result_type(%x: !torch.vtensor<[4,5],f32>, %i: !torch.vtensor<[3],si64>, %v: !torch.vtensor<[5],f32>) -> !torch.vtensor<[3,5],f32> {
  %true = torch.constant.bool true
  %l = torch.prim.ListConstruct %i : (!torch.vtensor<[3],si64>) -> !torch.list<vtensor<[3],si64>>
  // expected-error @+1 {{'torch.aten.index_put' op result type '!torch.vtensor<[3,5],f32>' differs from self's '!torch.vtensor<[4,5],f32>'}}
  %0 = torch.aten.index_put %x, %l, %v, %true : (!torch.vtensor<[4,5],f32>, !torch.list<vtensor<[3],si64>>, !torch.vtensor<[5],f32>, !torch.bool) -> !torch.vtensor<[3,5],f32>
  return %0 : !torch.vtensor<[3,5],f32>
}
