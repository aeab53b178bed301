// RUN: ltc-mlir-opt %s -split-input-file -verify-diagnostics

// expected-error @+1 {{vtensor size of dim 1 is -1, but sizes must be static and non-negative}}
func.func @negative_size(%a: !torch.vtensor<[2,-1],f32>)

// -----

// expected-error @+1 {{unsupported vtensor dtype 'i32' (expected f16, bf16, f32, f64, si8, si16, si32, si64, ui8 or i1)}}
func.func @signless_int(%a: !torch.vtensor<[2],i32>)

// -----

// expected-error @+1 {{unsupported vtensor dtype 'complex<f32>'}}
func.func @complex(%a: !torch.vtensor<[2],complex<f32>>)

// -----

func.func @list_mismatch(%a: !torch.int, %b: !torch.float) -> !torch.list<int> {
  // expected-error @+1 {{'torch.prim.ListConstruct' op element #1 has type '!torch.float' but the list holds '!torch.int'}}
  %l = torch.prim.ListConstruct %a, %b : (!torch.int, !torch.float) -> !torch.list<int>
  return %l : !torch.list<int>
}

// -----

func.func @bad_broadcast(%a: !torch.vtensor<[2,3],f32>, %b: !torch.vtensor<[4],f32>, %alpha: !torch.int) -> !torch.vtensor<[2,3],f32> {
  // expected-error @+1 {{'torch.aten.add.Tensor' op operand #1 of shape [4] is not broadcast-compatible with the result shape [2,3]}}
  %0 = torch.aten.add.Tensor %a, %b, %alpha : (!torch.vtensor<[2,3],f32>, !torch.vtensor<[4],f32>, !torch.int) -> !torch.vtensor<[2,3],f32>
  return %0 : !torch.vtensor<[2,3],f32>
}

// -----

func.func @unary_shape(%a: !torch.vtensor<[2,3],f32>) -> !torch.vtensor<[3],f32> {
  // expected-error @+1 {{'torch.aten.relu' op operand #0 of shape [2,3] is not broadcast-compatible with the result shape [3]}}
  %0 = torch.aten.relu %a : (!torch.vtensor<[2,3],f32>) -> !torch.vtensor<[3],f32>
  return %0 : !torch.vtensor<[3],f32>
}

// -----

func.func @mm_inner(%a: !torch.vtensor<[64,784],f32>, %b: !torch.vtensor<[512,784],f32>) -> !torch.vtensor<[64,784],f32> {
  // expected-error @+1 {{'torch.aten.mm' op inner dimensions mismatch: self is [64,784] but mat2 is [512,784]}}
  %0 = torch.aten.mm %a, %b : (!torch.vtensor<[64,784],f32>, !torch.vtensor<[512,784],f32>) -> !torch.vtensor<[64,784],f32>
  return %0 : !torch.vtensor<[64,784],f32>
}

// -----

func.func @mm_result(%a: !torch.vtensor<[2,3],f32>, %b: !torch.vtensor<[3,4],f32>) -> !torch.vtensor<[2,5],f32> {
  // expected-error @+1 {{'torch.aten.mm' op result shape [2,5] does not match the product shape [2,4]}}
  %0 = torch.aten.mm %a, %b : (!torch.vtensor<[2,3],f32>, !torch.vtensor<[3,4],f32>) -> !torch.vtensor<[2,5],f32>
  return %0 : !torch.vtensor<[2,5],f32>
}

// -----

func.func @mm_rank(%a: !torch.vtensor<[2,3,4],f32>, %b: !torch.vtensor<[4,5],f32>) -> !torch.vtensor<[2,5],f32> {
  // expected-error @+1 {{'torch.aten.mm' op expects self and mat2 of rank 2, got [2,3,4] and [4,5]}}
  %0 = torch.aten.mm %a, %b : (!torch.vtensor<[2,3,4],f32>, !torch.vtensor<[4,5],f32>) -> !torch.vtensor<[2,5],f32>
  return %0 : !torch.vtensor<[2,5],f32>
}

// -----

func.func @bmm_batch(%a: !torch.vtensor<[2,3,4],f32>, %b: !torch.vtensor<[3,4,5],f32>) -> !torch.vtensor<[2,3,5],f32> {
  // expected-error @+1 {{'torch.aten.bmm' op batch dimensions mismatch: self is [2,3,4] but mat2 is [3,4,5]}}
  %0 = torch.aten.bmm %a, %b : (!torch.vtensor<[2,3,4],f32>, !torch.vtensor<[3,4,5],f32>) -> !torch.vtensor<[2,3,5],f32>
  return %0 : !torch.vtensor<[2,3,5],f32>
}

// -----

func.func @bmm_inner(%a: !torch.vtensor<[2,3,4],f32>, %b: !torch.vtensor<[2,5,5],f32>) -> !torch.vtensor<[2,3,5],f32> {
  // expected-error @+1 {{'torch.aten.bmm' op inner dimensions mismatch: self is [2,3,4] but mat2 is [2,5,5]}}
  %0 = torch.aten.bmm %a, %b : (!torch.vtensor<[2,3,4],f32>, !torch.vtensor<[2,5,5],f32>) -> !torch.vtensor<[2,3,5],f32>
  return %0 : !torch.vtensor<[2,3,5],f32>
}

// -----

func.func @addmm_inner(%s: !torch.vtensor<[4],f32>, %a: !torch.vtensor<[2,3],f32>, %b: !torch.vtensor<[2,4],f32>, %one: !torch.int) -> !torch.vtensor<[2,4],f32> {
  // expected-error @+1 {{'torch.aten.addmm' op inner dimensions mismatch: mat1 is [2,3] but mat2 is [2,4]}}
  %0 = torch.aten.addmm %s, %a, %b, %one, %one : (!torch.vtensor<[4],f32>, !torch.vtensor<[2,3],f32>, !torch.vtensor<[2,4],f32>, !torch.int, !torch.int) -> !torch.vtensor<[2,4],f32>
  return %0 : !torch.vtensor<[2,4],f32>
}

// -----

func.func @addmm_self(%s: !torch.vtensor<[3],f32>, %a: !torch.vtensor<[2,3],f32>, %b: !torch.vtensor<[3,4],f32>, %one: !torch.int) -> !torch.vtensor<[2,4],f32> {
  // expected-error @+1 {{'torch.aten.addmm' op self of shape [3] is not broadcast-compatible with the result shape [2,4]}}
  %0 = torch.aten.addmm %s, %a, %b, %one, %one : (!torch.vtensor<[3],f32>, !torch.vtensor<[2,3],f32>, !torch.vtensor<[3,4],f32>, !torch.int, !torch.int) -> !torch.vtensor<[2,4],f32>
  return %0 : !torch.vtensor<[2,4],f32>
}

// -----

func.func @view_count(%x: !torch.vtensor<[2,3],f32>, %l: !torch.list<int>) -> !torch.vtensor<[7],f32> {
  // expected-error @+1 {{'torch.aten.view_copy' op cannot view [2,3] (6 elements) as [7] (7 elements)}}
  %0 = torch.aten.view_copy %x, %l : (!torch.vtensor<[2,3],f32>, !torch.list<int>) -> !torch.vtensor<[7],f32>
  return %0 : !torch.vtensor<[7],f32>
}

// -----

func.func @operand_type(%x: !torch.vtensor<[2],f32>, %f: !torch.bool) -> !torch.vtensor<[2],f32> {
  // expected-error @+1 {{'torch.aten.mul.Scalar' op operand #1 must be torch scalar (int or float), but got '!torch.bool'}}
  %0 = torch.aten.mul.Scalar %x, %f : (!torch.vtensor<[2],f32>, !torch.bool) -> !torch.vtensor<[2],f32>
  return %0 : !torch.vtensor<[2],f32>
}
