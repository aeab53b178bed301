//===- ExternalConvolution.h - f32 convolutions as oneDNN calls -*- C++ -*-===//
//
// Kept out of Patterns.h, which every pattern file includes.
//
//===----------------------------------------------------------------------===//
#ifndef LTC_MLIR_LIB_CONVERSION_TORCHTOLINALG_EXTERNALCONVOLUTION_H
#define LTC_MLIR_LIB_CONVERSION_TORCHTOLINALG_EXTERNALCONVOLUTION_H

#include "ltc_mlir/Conversion/TorchToLinalg/Patterns.h"

namespace ltc_mlir::torch_to_linalg {

/// convolution and convolution_backward of f32 1-D and 2-D regular
/// (not transposed) convolutions as runtime calls (ExternalConvolution.cpp),
/// tried before the im2col patterns (populateConvolutionPatterns), which
/// take everything else.
void populateExternalConvolutionPatterns(TorchTypeConverter &typeConverter,
                                         mlir::RewritePatternSet &patterns);

} // namespace ltc_mlir::torch_to_linalg

#endif // LTC_MLIR_LIB_CONVERSION_TORCHTOLINALG_EXTERNALCONVOLUTION_H
