// F.ctc_loss on the lazy device: _ctc_loss and _ctc_loss_backward as lazy
// ops (AtenOpNodes), lowered to the runtime's CTC recursions (TorchToLinalg
// CtcLoss.cpp, runtime/ctc_loss.h). torch's LTC has no Lazy kernel for
// either, so a speech or OCR model's every step went through the eager
// fallback. _ctc_loss_backward has no Meta kernel; both get eager's result
// shapes here (neg_log_likelihood [B], log_alpha [B, T, 2 * max target
// length + 1], the gradient like log_probs), which _ctc_loss's Meta kernel
// also gives. Arguments outside what the lowering takes
// (eager's errors, an input length of 0, f16) run eagerly,
// which gives eager's result or error.
#include <ATen/ATen.h>
#include <torch/library.h>

#include <algorithm>
#include <vector>

#include "ltc_backend/lazy_kernels/aten_op_node.h"
#include "ltc_backend/lazy_kernels/device_check.h"
#include "ltc_backend/lazy_kernels/lazy_kernels.h"

namespace ltc_mlir {
namespace backend {
namespace {

// Whether the lowering takes these operands (positions: log_probs at
// `first`, then targets, input_lengths, target_lengths; blank at `blank`).
bool Lowered(const c10::OperatorHandle& op, const torch::jit::Stack& stack, size_t first,
             size_t blankIndex, int64_t* maxTargetLength) {
  const at::Tensor& lp = BoxedArgument(op, stack, first).toTensor();
  const at::Tensor& targets = BoxedArgument(op, stack, first + 1).toTensor();
  std::vector<int64_t> inputLengths = BoxedArgument(op, stack, first + 2).toIntVector();
  std::vector<int64_t> targetLengths = BoxedArgument(op, stack, first + 3).toIntVector();
  const int64_t blank = BoxedArgument(op, stack, blankIndex).toInt();
  if (!lp.is_lazy() || !targets.is_lazy() || lp.dim() != 3 ||
      (lp.scalar_type() != at::kFloat && lp.scalar_type() != at::kDouble) ||
      targets.scalar_type() != at::kLong || (targets.dim() != 1 && targets.dim() != 2))
    return false;
  const int64_t steps = lp.size(0), batch = lp.size(1), classes = lp.size(2);
  if (static_cast<int64_t>(inputLengths.size()) != batch ||
      static_cast<int64_t>(targetLengths.size()) != batch || blank < 0 || blank >= classes)
    return false;
  int64_t total = 0;
  *maxTargetLength = 0;
  for (int64_t i = 0; i < batch; ++i) {
    if (inputLengths[i] < 1 || inputLengths[i] > steps || targetLengths[i] < 0) return false;
    if (targets.dim() == 2 && (targets.size(0) != batch || targetLengths[i] > targets.size(1)))
      return false;
    total += targetLengths[i];
    *maxTargetLength = std::max(*maxTargetLength, targetLengths[i]);
  }
  return targets.dim() == 2 || total <= targets.size(0);
}

// _ctc_loss(log_probs, targets, input_lengths, target_lengths, blank, zero_infinity)
void CtcLoss(const c10::OperatorHandle& op, torch::jit::Stack* stack) {
  CheckOperandDevices(op, *stack);
  int64_t maxTarget = 0;
  if (!Lowered(op, *stack, 0, 4, &maxTarget)) return RunEagerFallback(op, stack);
  const at::Tensor& lp = BoxedArgument(op, *stack, 0).toTensor();
  CallAtenOpLazilyWithShapes(
      op, stack,
      {torch::lazy::Shape(lp.scalar_type(), {lp.size(1)}),
       torch::lazy::Shape(lp.scalar_type(), {lp.size(1), lp.size(0), 2 * maxTarget + 1})});
}

// _ctc_loss_backward(grad, log_probs, targets, input_lengths, target_lengths,
// neg_log_likelihood, log_alpha, blank, zero_infinity)
void CtcLossBackward(const c10::OperatorHandle& op, torch::jit::Stack* stack) {
  CheckOperandDevices(op, *stack);
  int64_t maxTarget = 0;
  const at::Tensor& alpha = BoxedArgument(op, *stack, 6).toTensor();
  if (!Lowered(op, *stack, 1, 7, &maxTarget) || alpha.dim() != 3 ||
      alpha.size(2) != 2 * maxTarget + 1)
    return RunEagerFallback(op, stack);
  const at::Tensor& lp = BoxedArgument(op, *stack, 1).toTensor();
  CallAtenOpLazilyWithShapes(op, stack, {torch::lazy::Shape(lp.scalar_type(), lp.sizes().vec())});
}

// Lengths the list overloads take: 1-D integer tensors (others keep torch's
// kernel, with eager's error).
bool ListableLengths(const at::Tensor& inputLengths, const at::Tensor& targetLengths) {
  for (const at::Tensor* t : {&inputLengths, &targetLengths})
    if (t->dim() != 1 || !at::isIntegralType(t->scalar_type(), /*includeBool=*/false))
      return false;
  return true;
}

std::vector<int64_t> Lengths(const at::Tensor& lengths) {
  at::Tensor host = lengths.to(at::kCPU, at::kLong).contiguous();  // a sync if lazy
  return std::vector<int64_t>(host.data_ptr<int64_t>(), host.data_ptr<int64_t>() + host.numel());
}

// _ctc_loss.Tensor: torch 2.x's F.ctc_loss passes tensor lengths (CPU
// tensors beside lazy log_probs): LTC's device check raised. Eager reads
// the lengths on the host; so does this kernel (AutogradLazy), then calls
// the list overload, whose autograd and lowering are the ones above.
std::tuple<at::Tensor, at::Tensor> CtcLossTensorLengths(
    c10::DispatchKeySet ks, const at::Tensor& logProbs, const at::Tensor& targets,
    const at::Tensor& inputLengths, const at::Tensor& targetLengths, int64_t blank,
    bool zeroInfinity) {
  if (!ListableLengths(inputLengths, targetLengths))
    return at::_ops::_ctc_loss_Tensor::redispatch(RegularAutogradKeys(ks), logProbs, targets,
                                                  inputLengths, targetLengths, blank,
                                                  zeroInfinity);
  return at::_ctc_loss(logProbs, targets, Lengths(inputLengths), Lengths(targetLengths), blank,
                       zeroInfinity);
}

// ctc_loss.Tensor (F.ctc_loss with tensor lengths), eager's composite on
// lists of lengths: its own reduction divided the lazy loss by the CPU
// target_lengths tensor (a device error).
at::Tensor CtcLossWithTensorLengths(c10::DispatchKeySet ks, const at::Tensor& logProbs,
                                    const at::Tensor& targets, const at::Tensor& inputLengths,
                                    const at::Tensor& targetLengths, int64_t blank,
                                    int64_t reduction, bool zeroInfinity) {
  if (!ListableLengths(inputLengths, targetLengths))
    return at::_ops::ctc_loss_Tensor::redispatch(RegularAutogradKeys(ks), logProbs, targets,
                                                 inputLengths, targetLengths, blank, reduction,
                                                 zeroInfinity);
  return at::ctc_loss(logProbs, targets, Lengths(inputLengths), Lengths(targetLengths), blank,
                      reduction, zeroInfinity);
}

}  // namespace

void RegisterCtcLossKernels() {
  static torch::Library* lib =
      new torch::Library(torch::Library::IMPL, "aten", c10::DispatchKey::Lazy, __FILE__, __LINE__);
  lib->impl("_ctc_loss", torch::CppFunction::makeFromBoxedFunction<&CtcLoss>());
  lib->impl("_ctc_loss_backward", torch::CppFunction::makeFromBoxedFunction<&CtcLossBackward>());
  static torch::Library* autograd = new torch::Library(
      torch::Library::IMPL, "aten", c10::DispatchKey::AutogradLazy, __FILE__, __LINE__);
  autograd->impl("_ctc_loss.Tensor", TORCH_FN(CtcLossTensorLengths));
  autograd->impl("ctc_loss.Tensor", TORCH_FN(CtcLossWithTensorLengths));
}

}  // namespace backend
}  // namespace ltc_mlir
