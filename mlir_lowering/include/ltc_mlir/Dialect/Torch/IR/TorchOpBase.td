//===- TorchOpBase.td - base classes of the ATen ops -------*- tablegen -*-===//
//
// The classes the generated ATen ops (GeneratedTorchOps.td) derive from;
// tools/torch_ods_gen/op_table.py picks one per op.
//
//===----------------------------------------------------------------------===//
#ifndef LTC_MLIR_TORCH_OP_BASE
#define LTC_MLIR_TORCH_OP_BASE

include "ltc_mlir/Dialect/Torch/IR/TorchTypes.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

// `torch.aten.<mnemonic>`, printed as
// `torch.aten.add.Tensor %a, %b, %alpha : (types) -> type`. The generator
// passes [Pure] in `traits` except for random ops. Parsing and printing are
// shared functions (TorchOps.cpp) instead of per-op generated code: with
// ~1500 ops the generated assembly format would dominate build time.
class Torch_AtenOp<string mnemonic, list<Trait> traits = []>
    : Torch_Op<"aten." # mnemonic, traits> {
  let hasCustomAssemblyFormat = 1;
  code assemblyDefinition = [{
    ::mlir::ParseResult $cppClass::parse(::mlir::OpAsmParser &parser,
                                         ::mlir::OperationState &result) {
      return ::ltc_mlir::torch::parseAtenOp(parser, result);
    }
    void $cppClass::print(::mlir::OpAsmPrinter &printer) {
      ::ltc_mlir::torch::printAtenOp(printer, getOperation());
    }
  }];
  let extraClassDefinition = assemblyDefinition;
}

// Elementwise ops with ATen broadcasting; the result dtype comes from LTC.
class Torch_ElementwiseOp<string mnemonic, list<Trait> traits = []>
    : Torch_AtenOp<mnemonic, traits> {
  let hasVerifier = 1;
  // One shared check: every tensor operand broadcasts to the result shape.
  let extraClassDefinition = assemblyDefinition # [{
    ::llvm::LogicalResult $cppClass::verify() {
      return ::ltc_mlir::torch::verifyElementwiseOp(getOperation());
    }
  }];
}

// Comparisons: elementwise with ATen broadcasting and a bool (i1) result.
class Torch_ComparisonOp<string mnemonic, list<Trait> traits = []>
    : Torch_AtenOp<mnemonic, traits> {
  let hasVerifier = 1;
  let extraClassDefinition = assemblyDefinition # [{
    ::llvm::LogicalResult $cppClass::verify() {
      return ::ltc_mlir::torch::verifyComparisonOp(getOperation());
    }
  }];
}

#endif // LTC_MLIR_TORCH_OP_BASE
