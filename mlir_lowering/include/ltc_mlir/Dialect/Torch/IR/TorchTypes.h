//===- TorchTypes.h - torch dialect types -----------------------*- C++ -*-===//
#ifndef LTC_MLIR_DIALECT_TORCH_IR_TORCHTYPES_H
#define LTC_MLIR_DIALECT_TORCH_IR_TORCHTYPES_H

#include "ltc_mlir/Dialect/Torch/IR/TorchDialect.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Types.h"

#define GET_TYPEDEF_CLASSES
#include "ltc_mlir/Dialect/Torch/IR/TorchTypes.h.inc"

namespace ltc_mlir::torch {
/// True for the dtypes a vtensor may hold: f16, bf16, f32, f64, si8, si16,
/// si32, si64, ui8 and i1.
bool isSupportedDtype(mlir::Type dtype);
} // namespace ltc_mlir::torch

#endif // LTC_MLIR_DIALECT_TORCH_IR_TORCHTYPES_H
