// RUN: ltc-mlir-opt %s -split-input-file -verify-diagnostics

// A generated op checks its operand types against the schema: `dim` of
// cumsum is an int.
func.func @wrong_operand_type(%x: !torch.vtensor<[4],f32>, %d: !torch.float) -> !torch.vtensor<[4],f32> {
  %none = torch.constant.none
  // expected-error @+1 {{'torch.aten.cumsum' op operand #1 must be torch int, but got '!torch.float'}}
  %0 = torch.aten.cumsum %x, %d, %none : (!torch.vtensor<[4],f32>, !torch.float, !torch.none) -> !torch.vtensor<[4],f32>
  return %0 : !torch.vtensor<[4],f32>
}

// -----

// ... and the schema's number of operands (every default is explicit).
func.func @missing_operand(%x: !torch.vtensor<[4],f32>, %d: !torch.int) -> !torch.vtensor<[4],f32> {
  // expected-error @+1 {{'torch.aten.cumsum' op expected 3 operands, but found 2}}
  %0 = "torch.aten.cumsum"(%x, %d) : (!torch.vtensor<[4],f32>, !torch.int) -> !torch.vtensor<[4],f32>
  return %0 : !torch.vtensor<[4],f32>
}

// -----

// ... and its results: topk returns values and indices.
func.func @wrong_result_count(%x: !torch.vtensor<[4],f32>, %k: !torch.int, %d: !torch.int, %b: !torch.bool) -> !torch.vtensor<[2],f32> {
  // expected-error @+1 {{'torch.aten.topk' op expected 2 results}}
  %0 = "torch.aten.topk"(%x, %k, %d, %b, %b) : (!torch.vtensor<[4],f32>, !torch.int, !torch.int, !torch.bool, !torch.bool) -> !torch.vtensor<[2],f32>
  return %0 : !torch.vtensor<[2],f32>
}

// -----

// A Device? operand takes a device or None, nothing else.
func.func @device_is_not_a_string(%x: !torch.vtensor<[3],f32>) -> !torch.vtensor<[3],f32> {
  %none = torch.constant.none
  %false = torch.constant.bool false
  %cpu = torch.constant.str "cpu"
  // expected-error @+1 {{'torch.aten._to_copy' op operand #3 must be torch Device or none, but got '!torch.str'}}
  %0 = torch.aten._to_copy %x, %none, %none, %cpu, %none, %false, %none : (!torch.vtensor<[3],f32>, !torch.none, !torch.none, !torch.str, !torch.none, !torch.bool, !torch.none) -> !torch.vtensor<[3],f32>
  return %0 : !torch.vtensor<[3],f32>
}

// -----

// A Tensor?[] holds tensors and Nones, not other values.
func.func @tensor_list_with_int(%i: !torch.vtensor<[3],si64>, %n: !torch.int) -> !torch.list<none> {
  %none = torch.constant.none
  // expected-error @+1 {{'torch.prim.ListConstruct' op element #2 has type '!torch.int' but the list holds '!torch.none'}}
  %l = torch.prim.ListConstruct %none, %i, %n : (!torch.none, !torch.vtensor<[3],si64>, !torch.int) -> !torch.list<none>
  return %l : !torch.list<none>
}

// -----

// cat takes no Nones.
func.func @cat_with_none(%a: !torch.vtensor<[3],f32>) -> !torch.vtensor<[3],f32> {
  %none = torch.constant.none
  %int0 = torch.constant.int 0
  %l = torch.prim.ListConstruct %a, %none : (!torch.vtensor<[3],f32>, !torch.none) -> !torch.list<vtensor<[3],f32>>
  // expected-error @+1 {{'torch.aten.cat' op tensor #1 is None}}
  %0 = torch.aten.cat %l, %int0 : (!torch.list<vtensor<[3],f32>>, !torch.int) -> !torch.vtensor<[3],f32>
  return %0 : !torch.vtensor<[3],f32>
}
