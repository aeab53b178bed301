//===- TorchDialect.h - ltc_mlir torch dialect ------------------*- C++ -*-===//
#ifndef LTC_MLIR_DIALECT_TORCH_IR_TORCHDIALECT_H
#define LTC_MLIR_DIALECT_TORCH_IR_TORCHDIALECT_H

#include "mlir/IR/Dialect.h"

#include "ltc_mlir/Dialect/Torch/IR/TorchDialect.h.inc"

#endif // LTC_MLIR_DIALECT_TORCH_IR_TORCHDIALECT_H
