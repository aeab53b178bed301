//===- TorchToLinalg.h - torch dialect -> linalg-on-tensors ----*- C++ -*-===//
#ifndef LTC_MLIR_CONVERSION_TORCHTOLINALG_TORCHTOLINALG_H
#define LTC_MLIR_CONVERSION_TORCHTOLINALG_TORCHTOLINALG_H

#include "mlir/Pass/Pass.h"
#include "llvm/ADT/StringRef.h"
#include <memory>

namespace ltc_mlir {

/// Runtime checks (see emitRuntimeCheck in TorchToLinalg/Utils.h): compiled
/// code calls `void ltc_mlir_rt_check_failed(int64_t index)` when a check
/// fails, and the module attribute `ltc.runtime_checks` (an array of strings)
/// holds the message of check `index`.
inline constexpr llvm::StringLiteral kRuntimeChecksAttrName =
    "ltc.runtime_checks";
inline constexpr llvm::StringLiteral kRuntimeCheckFailedFuncName =
    "ltc_mlir_rt_check_failed";

/// Converts every torch op (and the signature of func.func) to builtin types
/// and linalg/tensor/arith/math ops. On failure it emits, per op it could
/// not convert, an error "unsupported op '<op name>': <why>" and fails.
std::unique_ptr<mlir::Pass> createConvertTorchToLinalgPass();

} // namespace ltc_mlir

#endif
