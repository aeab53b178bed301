#include "ltc_mlir/Conversion/TorchToLinalg/Utils.h"
namespace ltc_mlir::torch_to_linalg {
void populateLossPatterns(TorchTypeConverter &, mlir::RewritePatternSet &) {}
}
