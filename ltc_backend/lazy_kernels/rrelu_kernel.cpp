// F.rrelu (rrelu_with_noise and its in-place form) as lowered lazy ops;
// LTC has no Lazy kernel, so every RReLU ran eagerly.
//
// Eager's semantics: in evaluation, leaky_relu with slope (lower + upper) / 2
// (computed in double); in training, each element <= 0 is multiplied by a
// slope drawn uniformly from [lower, upper], and `noise` receives the slopes
// (1 for positive elements); the backward (rrelu_with_noise_backward, a
// composite) multiplies the gradient by noise. The slopes come from the
// lazy device's counter-based generator (distribution as eager's, not its
// stream).
#include <ATen/ATen.h>
#include <torch/library.h>

#include "ltc_backend/lazy_kernels/kernel_table.h"
#include "ltc_backend/lazy_kernels/lazy_kernels.h"

namespace ltc_mlir {
namespace backend {
namespace {

// rrelu_with_noise_functional (what functionalization makes of both
// mutating forms): the result and the new noise.
std::tuple<at::Tensor, at::Tensor> RreluWithNoiseFunctional(
    const at::Tensor& self, const at::Tensor& noise, const at::Scalar& lower,
    const at::Scalar& upper, bool training, std::optional<at::Generator> generator) {
  if (!training)
    return {at::leaky_relu(self, (lower.toDouble() + upper.toDouble()) / 2), noise};
  TORCH_CHECK(noise.numel() == self.numel(), "rrelu_with_noise: noise has ", noise.numel(),
              " elements, input ", self.numel());
  at::Tensor slopes =
      at::uniform(at::empty_like(self), lower.toDouble(), upper.toDouble(), generator);
  at::Tensor negative = at::le(self, 0);
  at::Tensor noise_out =
      at::view_copy(at::where(negative, slopes, at::ones_like(slopes)), noise.sizes());
  return {at::where(negative, at::mul(self, slopes), self), noise_out};
}

at::Tensor RreluWithNoise(const at::Tensor& self, at::Tensor& noise, const at::Scalar& lower,
                          const at::Scalar& upper, bool training,
                          std::optional<at::Generator> generator) {
  auto [result, noise_out] =
      RreluWithNoiseFunctional(self, noise, lower, upper, training, generator);
  if (training) AssignLazyValue(noise, noise_out);
  return result;
}

at::Tensor& RreluWithNoiseInPlace(at::Tensor& self, at::Tensor& noise, const at::Scalar& lower,
                                  const at::Scalar& upper, bool training,
                                  std::optional<at::Generator> generator) {
  AssignLazyValue(self, RreluWithNoise(self, noise, lower, upper, training, generator));
  return self;
}

}  // namespace

void RegisterRreluKernels() {
  static torch::Library* lib = new torch::Library(torch::Library::IMPL, "aten",
                                                  c10::DispatchKey::Lazy, __FILE__, __LINE__);
  QuietWarnings quiet;
  lib->impl("rrelu_with_noise_functional", TORCH_FN(RreluWithNoiseFunctional));
  lib->impl("rrelu_with_noise", TORCH_FN(RreluWithNoise));
  lib->impl("rrelu_with_noise_", TORCH_FN(RreluWithNoiseInPlace));
}

}  // namespace backend
}  // namespace ltc_mlir
