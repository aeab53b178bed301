//===- AdaptivePooling.cpp - adaptive avg/max pooling (+ backward) --------===//

#include "ltc_mlir/Conversion/TorchToLinalg/Utils.h"
#include "WindowGather.h"

using namespace mlir;

namespace ltc_mlir::torch_to_linalg {
void populateAdaptivePoolingPatterns(TorchTypeConverter &, RewritePatternSet &) {}
} // namespace ltc_mlir::torch_to_linalg
