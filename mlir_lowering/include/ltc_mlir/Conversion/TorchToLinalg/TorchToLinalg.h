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

/// Lowering for code for every batch size (Compiler/GeneralizeShapes.h):
/// the module attribute `ltc.generic_batch_size` (i64 B) asks lowerings
/// whose structure would depend on the batch size to avoid that. Float
/// sums over loops whose size is a multiple of B are plain sums over those
/// loops (after the usual blocked sums over the other reduced loops), not
/// lanes or blocks chosen from B's divisors.
inline constexpr llvm::StringLiteral kGenericBatchSizeAttrName =
    "ltc.generic_batch_size";
/// On a torch op of such a module: the sizes of its operands and results
/// that scale with B (found by comparing the two modules op by op), which
/// then decide what is summed plainly instead of the multiples of B (a
/// static size may be one: 16 channels next to batch 4).
inline constexpr llvm::StringLiteral kBatchSizesAttrName = "ltc.batch_sizes";

/// Converts every torch op (and the signature of func.func) to builtin types
/// and linalg/tensor/arith/math ops. On failure it emits, per op it could
/// not convert, an error "unsupported op '<op name>': <why>" and fails.
std::unique_ptr<mlir::Pass> createConvertTorchToLinalgPass();

} // namespace ltc_mlir

#endif
