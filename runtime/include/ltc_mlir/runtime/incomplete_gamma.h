// runtime/incomplete_gamma.h - regularized incomplete gamma functions.
//
// torch.igamma(a, x) = P(a, x) and torch.igammac(a, x) = Q(a, x) = 1 - P,
// which the TorchToLinalg lowering (SpecialFunctions.cpp) calls per element
// as `double ltc_mlir_rt_igamma(double, double)` and `..._igammac`.
// Computed in double (f32 results are rounded once) with the boundary values
// ATen uses: NaN for a < 0 or x < 0; P(0, x > 0) = 1 and P(0, 0) = NaN;
// P(a, 0) = 0; P(inf, x) = 0 (NaN for x = inf); P(a, inf) = 1.
#ifndef LTC_MLIR_RUNTIME_INCOMPLETE_GAMMA_H
#define LTC_MLIR_RUNTIME_INCOMPLETE_GAMMA_H

#include <string>

extern "C" {
double ltc_mlir_rt_igamma(double a, double x);
double ltc_mlir_rt_igammac(double a, double x);
}

namespace ltc_mlir {
namespace runtime {

/// Address of ltc_mlir_rt_igamma / ltc_mlir_rt_igammac, or null.
void *resolveIncompleteGammaSymbol(const std::string &name);

} // namespace runtime
} // namespace ltc_mlir

#endif // LTC_MLIR_RUNTIME_INCOMPLETE_GAMMA_H
