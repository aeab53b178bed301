// runtime/ctc_loss.h - the CTC loss (Graves et al. 2006) and its gradient,
// as eager PyTorch's CPU kernels compute them (_ctc_loss,
// _ctc_loss_backward).
//
// The forward variables alpha and the backward variables beta are dynamic
// programs over time, each step reading the previous one: the lowerings
// (TorchToLinalg CtcLoss.cpp) call these entry points, which run the
// recursions in log space per batch element, in eager's order of the
// logsumexp terms. Descriptors: log_probs [T, B, C]; targets [B, S] (padded)
// or [1, N] (concatenated, `concatenated` = 1); lengths [B] (int64);
// neg_log_likelihood [B]; log_alpha [B, T, 2 * max target length + 1];
// gradient [T, B, C]. One set per f32 and f64.
#ifndef LTC_MLIR_RUNTIME_CTC_LOSS_H
#define LTC_MLIR_RUNTIME_CTC_LOSS_H

#include <string>

namespace ltc_mlir {
namespace runtime {

/// Address of a CTC entry point ("_mlir_ciface_ltc_mlir_rt_ctc_loss_f32",
/// "..._ctc_loss_backward_f64", ...), or null when `name` is not one.
void *resolveCtcLossSymbol(const std::string &name);

} // namespace runtime
} // namespace ltc_mlir

#endif // LTC_MLIR_RUNTIME_CTC_LOSS_H
