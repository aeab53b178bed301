//===- Upsample.cpp - upsample_nearest / linear (+ backward) --------------===//

#include "ltc_mlir/Conversion/TorchToLinalg/Utils.h"
#include "WindowGather.h"

using namespace mlir;

namespace ltc_mlir::torch_to_linalg {
void populateUpsamplePatterns(TorchTypeConverter &, RewritePatternSet &) {}
} // namespace ltc_mlir::torch_to_linalg
