// _efficientzerotensor on the lazy device: a plain lazy zeros tensor.
//
// Autograd formulas return it for gradients known to be zero (sgn, sign,
// floor, round...). torch's LTC has no Lazy kernel for it, so it runs
// through the eager fallback. This guards against the CPU ZeroTensor that
// made later uses fail ("DispatchStub: unsupported device typelazy", or
// functionalization's internal assert when an in-place op met it); on torch
// 2.14's TS backend `x.sgn().sum().backward()` gives zeros without it.
#include <ATen/ATen.h>
#include <torch/library.h>

#include "ltc_backend/lazy_kernels/lazy_kernels.h"

namespace ltc_mlir {
namespace backend {
namespace {

at::Tensor EfficientZeroTensor(at::IntArrayRef size, std::optional<at::ScalarType> dtype,
                               std::optional<at::Layout> layout,
                               std::optional<at::Device> device,
                               std::optional<bool> pin_memory) {
  return at::zeros(size, at::TensorOptions()
                             .dtype(dtype)
                             .layout(layout)
                             .device(device)
                             .pinned_memory(pin_memory));
}

}  // namespace

void RegisterZeroTensorKernel() {
  static torch::Library* lib = new torch::Library(torch::Library::IMPL, "aten",
                                                  c10::DispatchKey::Lazy, __FILE__, __LINE__);
  lib->impl("_efficientzerotensor", TORCH_FN(EfficientZeroTensor));
}

}  // namespace backend
}  // namespace ltc_mlir
