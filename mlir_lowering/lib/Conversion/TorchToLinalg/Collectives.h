//===- Collectives.h - torch.distributed collectives -------------*- C++ -*-===//
//
// Kept out of Patterns.h, which every pattern file includes.
//
//===----------------------------------------------------------------------===//
#ifndef LTC_MLIR_LIB_CONVERSION_TORCHTOLINALG_COLLECTIVES_H
#define LTC_MLIR_LIB_CONVERSION_TORCHTOLINALG_COLLECTIVES_H

#include "ltc_mlir/Conversion/TorchToLinalg/Patterns.h"

namespace ltc_mlir::torch_to_linalg {

/// torch.ltc_mlir.collective (Collectives.cpp).
void populateCollectivePatterns(TorchTypeConverter &typeConverter,
                                mlir::RewritePatternSet &patterns);

} // namespace ltc_mlir::torch_to_linalg

#endif // LTC_MLIR_LIB_CONVERSION_TORCHTOLINALG_COLLECTIVES_H
