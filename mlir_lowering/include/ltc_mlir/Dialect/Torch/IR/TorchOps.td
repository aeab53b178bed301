//===- TorchOps.td - torch dialect operations --------------*- tablegen -*-===//
//
// The hand-written ops (constants, lists, tensor literals) and the ATen ops,
// which tools/torch_ods_gen generates from torch's operator registry into
// GeneratedTorchOps.td: `torch.aten.<name>[.<overload>]` with operands named
// like the schema's arguments (so `getSelf()`, `getAlpha()`...). ltc_backend
// emits them from the TorchScript graph LTC builds, using the node's schema
// name and overload.
//
//===----------------------------------------------------------------------===//
#ifndef LTC_MLIR_TORCH_OPS
#define LTC_MLIR_TORCH_OPS

include "ltc_mlir/Dialect/Torch/IR/TorchOpBase.td"

//===----------------------------------------------------------------------===//
// Constants and lists
//===----------------------------------------------------------------------===//

def Torch_ConstantIntOp : Torch_Op<"constant.int", [ConstantLike, Pure]> {
  let summary = "TorchScript int constant";
  let arguments = (ins I64Attr:$value);
  let results = (outs Torch_Int:$result);
  let assemblyFormat = "$value attr-dict";
  let hasFolder = 1;
}
def Torch_ConstantFloatOp : Torch_Op<"constant.float", [ConstantLike, Pure]> {
  let summary = "TorchScript float constant";
  let arguments = (ins F64Attr:$value);
  let results = (outs Torch_Float:$result);
  let assemblyFormat = "$value attr-dict";
  let hasFolder = 1;
}
def Torch_ConstantBoolOp : Torch_Op<"constant.bool", [ConstantLike, Pure]> {
  let summary = "TorchScript bool constant";
  let arguments = (ins BoolAttr:$value);
  let results = (outs Torch_Bool:$result);
  let assemblyFormat = "$value attr-dict";
  let hasFolder = 1;
}
def Torch_ConstantNoneOp : Torch_Op<"constant.none", [ConstantLike, Pure]> {
  let summary = "TorchScript None";
  let arguments = (ins);
  let results = (outs Torch_None:$result);
  let assemblyFormat = "attr-dict";
  let hasFolder = 1;
}
def Torch_ConstantStrOp : Torch_Op<"constant.str", [ConstantLike, Pure]> {
  let summary = "TorchScript str constant";
  let arguments = (ins StrAttr:$value);
  let results = (outs Torch_Str:$result);
  let assemblyFormat = "$value attr-dict";
  let hasFolder = 1;
}
def Torch_ConstantDeviceOp : Torch_Op<"constant.device", [ConstantLike, Pure]> {
  let summary = "TorchScript Device constant, e.g. \"cpu\"";
  let arguments = (ins StrAttr:$value);
  let results = (outs Torch_Device:$result);
  let assemblyFormat = "$value attr-dict";
  let hasFolder = 1;
}
def Torch_PrimListConstructOp : Torch_Op<"prim.ListConstruct", [Pure]> {
  let summary = "builds a list; every element has the list's element type";
  let description = [{
    Lists of ints, floats, bools and None hold elements of exactly the list's
    element type. A list of tensors (`Tensor[]`, e.g. the operand of
    `aten.cat`) holds tensors of *different* shapes and possibly dtypes, which
    one static element type cannot describe: when the element type is a
    vtensor type it is only a representative (ltc_backend prints the first
    element's type, `!torch.list<vtensor<[3,2],f32>>`), every element must be
    a vtensor of any shape and dtype, and the ops taking the list (cat)
    verify the elements themselves. A `Tensor?[]` (the indices of
    `aten.index.Tensor`, `aten.index_put`) also holds Nones: a list typed
    by a vtensor or by none may hold both. (A shape-less `!torch.list<vtensor>`
    would need a vtensor type without sizes, which every op verifier and
    pattern would have to reject; the representative keeps the type system
    static.)
  }];
  let arguments = (ins Variadic<AnyType>:$elements);
  let results = (outs Torch_List:$result);
  let assemblyFormat = "$elements attr-dict `:` functional-type($elements, $result)";
  let hasVerifier = 1;
}

def Torch_ValueTensorLiteralOp : Torch_Op<"vtensor.literal", [ConstantLike, Pure]> {
  let summary = "tensor constant";
  let description = [{
    A tensor embedded in the graph, e.g. the 0-dim `1.0` LTC creates as the
    seed of backward. `value` is a dense elements attribute of the builtin
    tensor type that the result converts to (signless integers):
    `%0 = torch.vtensor.literal(dense<1.0> : tensor<f32>) : !torch.vtensor<[],f32>`.
  }];
  let arguments = (ins ElementsAttr:$value);
  let results = (outs Torch_VTensor:$result);
  let assemblyFormat = "`(` $value `)` attr-dict `:` qualified(type($result))";
  let hasVerifier = 1;
  let hasFolder = 1;
}

// ltc_mlir::collective(Tensor input, Tensor? after, int kind, int group,
// int reduce_op, int root) -> Tensor: a torch.distributed collective
// recorded by ltc_backend/collectives. Not Pure: it communicates, so it is
// never merged, reordered against other collectives or removed. `after` is
// the previous collective's result (the chain that keeps every rank's
// collectives in issue order); the lowering does not read it. `ltc.dtype`
// (i64, c10::ScalarType) says how the process group reads the bytes.
def Torch_LtcCollectiveOp : Torch_Op<"ltc_mlir.collective", []> {
  let summary = "a torch.distributed collective inside a lazy graph";
  let arguments = (ins Torch_VTensor:$input, Torch_OptionalVTensor:$after,
                       Torch_Int:$kind, Torch_Int:$group, Torch_Int:$reduce_op,
                       Torch_Int:$root);
  let results = (outs Torch_VTensor:$result);
  let hasCustomAssemblyFormat = 1;
  let extraClassDefinition = [{
    ::mlir::ParseResult $cppClass::parse(::mlir::OpAsmParser &parser,
                                         ::mlir::OperationState &result) {
      return ::ltc_mlir::torch::parseAtenOp(parser, result);
    }
    void $cppClass::print(::mlir::OpAsmPrinter &printer) {
      ::ltc_mlir::torch::printAtenOp(printer, getOperation());
    }
  }];
}

include "ltc_mlir/Dialect/Torch/IR/GeneratedTorchOps.td"

#endif // LTC_MLIR_TORCH_OPS
