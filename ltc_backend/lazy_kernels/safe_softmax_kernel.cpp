// _safe_softmax on the lazy device as lowered lazy ops.
//
// torch 2.x's math attention (F.scaled_dot_product_attention on a device
// without a fused kernel, which is every lazy one) normalizes the scores
// with _safe_softmax: softmax, except that a row whose inputs are all -inf
// (fully masked) is zeros instead of NaN. Its CompositeExplicitAutograd
// kernel calls where's out= overload, which has no Lazy kernel: every
// attention cut the graph at an eager where.self_out. Here it is softmax,
// all(-inf) along dim and where.self (all lowered); autograd's formula
// (_softmax_backward_data of the result) is unchanged.
#include <ATen/ATen.h>
#include <torch/library.h>

#include <limits>

#include "ltc_backend/lazy_kernels/lazy_kernels.h"

namespace ltc_mlir {
namespace backend {
namespace {

at::Tensor SafeSoftmax(const at::Tensor& self, int64_t dim, std::optional<at::ScalarType> dtype) {
  at::Tensor out = at::softmax(self, dim, dtype);
  at::Tensor masked_rows =
      at::all(at::eq(self, -std::numeric_limits<double>::infinity()), dim, /*keepdim=*/true);
  return at::where(masked_rows, at::zeros({}, out.options()), out);
}

}  // namespace

void RegisterSafeSoftmaxKernel() {
  static torch::Library* lib =
      new torch::Library(torch::Library::IMPL, "aten", c10::DispatchKey::Lazy, __FILE__, __LINE__);
  lib->impl("_safe_softmax", TORCH_FN(SafeSoftmax));
}

}  // namespace backend
}  // namespace ltc_mlir
