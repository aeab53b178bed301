//===- Collectives.h - torch.distributed collectives -------------*- C++ -*-===//
//
// Kept out of Patterns.h, which every pattern file includes.
//
//===----------------------------------------------------------------------===//
#ifndef LTC_MLIR_LIB_CONVERSION_TORCHTOLINALG_COLLECTIVES_H
#define LTC_MLIR_LIB_CONVERSION_TORCHTOLINALG_COLLECTIVES_H

#include "ltc_mlir/Conversion/TorchToLinalg/Patterns.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

namespace ltc_mlir::torch_to_linalg {

/// torch.ltc_mlir.collective (Collectives.cpp).
void populateCollectivePatterns(TorchTypeConverter &typeConverter,
                                mlir::RewritePatternSet &patterns);

/// Orders `func`'s body so that each collective comes right after what it
/// needs: for each collective in chain order, the ops it depends on that are
/// not placed yet, then the collective; everything else after, in its
/// order. A data-parallel step then starts each gradient bucket's
/// all-reduce as soon as backward has produced it, and computes the next
/// bucket while it runs. Only torch ops are moved (pure, or random ops with
/// their own stream); no-op without collectives.
void scheduleCollectivesEarly(mlir::func::FuncOp func);

} // namespace ltc_mlir::torch_to_linalg

#endif // LTC_MLIR_LIB_CONVERSION_TORCHTOLINALG_COLLECTIVES_H
