//===- TorchOps.h - torch dialect operations --------------------*- C++ -*-===//
//
// Declares the hand-written ops and the generated ATen ops listed in
// tools/torch_ods_gen/op_table.py. The other ATen ops are registered with
// the dialect too, but their C++ classes stay in their shard's translation
// unit (see GeneratedTorchOpsShard*.td): add an op to op_table.py to use its
// class here.
//
//===----------------------------------------------------------------------===//
#ifndef LTC_MLIR_DIALECT_TORCH_IR_TORCHOPS_H
#define LTC_MLIR_DIALECT_TORCH_IR_TORCHOPS_H

#include "ltc_mlir/Dialect/Torch/IR/TorchTypes.h"
#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace ltc_mlir::torch {
/// Shared verifier of elementwise ops: every vtensor operand must broadcast
/// (ATen rules, aligned at the trailing dims) to the result shape.
llvm::LogicalResult verifyElementwiseOp(mlir::Operation *op);
/// verifyElementwiseOp plus a bool (i1) result dtype.
llvm::LogicalResult verifyComparisonOp(mlir::Operation *op);

/// The assembly format of every ATen op:
/// `%r = torch.aten.<name> %a, %b attr-dict : (types) -> result types`.
mlir::ParseResult parseAtenOp(mlir::OpAsmParser &parser,
                              mlir::OperationState &result);
void printAtenOp(mlir::OpAsmPrinter &printer, mlir::Operation *op);

class TorchDialect;
/// Registers the ATen ops of the GeneratedTorchOpsShard*.td files (defined
/// in a file CMake generates next to the shards' translation units).
void registerGeneratedOpShards(TorchDialect &dialect);
} // namespace ltc_mlir::torch

#define GET_OP_CLASSES
#include "ltc_mlir/Dialect/Torch/IR/TorchOps.h.inc"

#endif // LTC_MLIR_DIALECT_TORCH_IR_TORCHOPS_H
