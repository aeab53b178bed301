//===- TorchOps.h - torch dialect operations --------------------*- C++ -*-===//
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
} // namespace ltc_mlir::torch

#define GET_OP_CLASSES
#include "ltc_mlir/Dialect/Torch/IR/TorchOps.h.inc"

#endif // LTC_MLIR_DIALECT_TORCH_IR_TORCHOPS_H
