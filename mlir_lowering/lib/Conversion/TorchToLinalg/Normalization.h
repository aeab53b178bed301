//===- Normalization.h - populate native_layer_norm (+ backward) -*- C++ -*-===//
//
// Internal to lib/Conversion/TorchToLinalg, like PointwiseLoss.h (kept out
// of Patterns.h, which every pattern file includes through Utils.h). The
// softmax family keeps populateNormalizationPatterns (Patterns.h, defined in
// Softmax.cpp); rename it when that header changes anyway.
//
//===----------------------------------------------------------------------===//
#ifndef LTC_MLIR_LIB_CONVERSION_TORCHTOLINALG_NORMALIZATION_H
#define LTC_MLIR_LIB_CONVERSION_TORCHTOLINALG_NORMALIZATION_H

#include "ltc_mlir/Conversion/TorchToLinalg/Utils.h"

namespace ltc_mlir::torch_to_linalg {

/// native_layer_norm and native_layer_norm_backward (LayerNorm.cpp).
void populateLayerNormPatterns(TorchTypeConverter &typeConverter,
                               mlir::RewritePatternSet &patterns);

} // namespace ltc_mlir::torch_to_linalg

#endif // LTC_MLIR_LIB_CONVERSION_TORCHTOLINALG_NORMALIZATION_H
