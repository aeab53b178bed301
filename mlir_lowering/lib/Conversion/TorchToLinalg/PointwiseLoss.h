//===- PointwiseLoss.h - populate smooth_l1/huber/soft_margin/BCE --*- C++ -*-===//
//
// Internal to lib/Conversion/TorchToLinalg. (Kept out of Patterns.h, which
// every pattern file includes through Utils.h; move it there when that header
// changes anyway.)
//
//===----------------------------------------------------------------------===//
#ifndef LTC_MLIR_LIB_CONVERSION_TORCHTOLINALG_POINTWISELOSS_H
#define LTC_MLIR_LIB_CONVERSION_TORCHTOLINALG_POINTWISELOSS_H

#include "ltc_mlir/Conversion/TorchToLinalg/Patterns.h"

namespace ltc_mlir::torch_to_linalg {

void populatePointwiseLossPatterns(TorchTypeConverter &typeConverter,
                                   mlir::RewritePatternSet &patterns);

} // namespace ltc_mlir::torch_to_linalg

#endif // LTC_MLIR_LIB_CONVERSION_TORCHTOLINALG_POINTWISELOSS_H
