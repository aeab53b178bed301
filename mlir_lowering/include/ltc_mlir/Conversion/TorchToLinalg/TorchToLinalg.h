//===- TorchToLinalg.h - torch dialect -> linalg-on-tensors ----*- C++ -*-===//
#ifndef LTC_MLIR_CONVERSION_TORCHTOLINALG_TORCHTOLINALG_H
#define LTC_MLIR_CONVERSION_TORCHTOLINALG_TORCHTOLINALG_H

#include "mlir/Pass/Pass.h"
#include <memory>

namespace ltc_mlir {

/// Converts every torch op (and the signature of func.func) to builtin types
/// and linalg/tensor/arith/math ops. On failure it emits, per op it could
/// not convert, an error "unsupported op '<op name>': <why>" and fails.
std::unique_ptr<mlir::Pass> createConvertTorchToLinalgPass();

} // namespace ltc_mlir

#endif
