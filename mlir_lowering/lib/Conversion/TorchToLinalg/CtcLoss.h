//===- CtcLoss.h - _ctc_loss and its backward through the runtime -*- C++ -*-===//
//
// Kept out of Patterns.h, which every pattern file includes.
//
//===----------------------------------------------------------------------===//
#ifndef LTC_MLIR_LIB_CONVERSION_TORCHTOLINALG_CTCLOSS_H
#define LTC_MLIR_LIB_CONVERSION_TORCHTOLINALG_CTCLOSS_H

#include "ltc_mlir/Conversion/TorchToLinalg/Patterns.h"

namespace ltc_mlir::torch_to_linalg {

/// _ctc_loss, _ctc_loss_backward (CtcLoss.cpp).
void populateCtcLossPatterns(TorchTypeConverter &typeConverter,
                             mlir::RewritePatternSet &patterns);

} // namespace ltc_mlir::torch_to_linalg

#endif // LTC_MLIR_LIB_CONVERSION_TORCHTOLINALG_CTCLOSS_H
