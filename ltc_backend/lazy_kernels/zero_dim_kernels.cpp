// zero_dim_kernels: ops whose LTC shape inference rejects 0-dim tensors that
// eager accepts.
//
// index_select: torch's compute_shape_index_select raises "Empty
// output_sizes is not supported." for a 0-dim self (eager: the index holds
// one value, 0, and the result is 0-dim), which is also what the backward of
// index_add/index_copy/index_reduce calls on 0-dim operands. Here a 0-dim
// self is selected from as a one-element vector and the result viewed back;
// the index value is checked at run time like any index_select's.
#include <ATen/ATen.h>
#include <ATen/WrapDimUtils.h>
#include <torch/library.h>

#include "ltc_backend/lazy_kernels/kernel_table.h"
#include "ltc_backend/lazy_kernels/lazy_kernels.h"

namespace ltc_mlir {
namespace backend {
namespace {

struct LtcKernel {
  c10::OperatorHandle op;
  c10::KernelFunction kernel;  // LTC's own
};

const LtcKernel& IndexSelectKernel() {
  static const LtcKernel* state = [] {
    c10::OperatorHandle op = c10::Dispatcher::singleton().findSchemaOrThrow("aten::index_select", "");
    return new LtcKernel{op, RegisteredKernel(op, c10::DispatchKey::Lazy)};
  }();
  return *state;
}

at::Tensor IndexSelect(const at::Tensor& self, int64_t dim, const at::Tensor& index) {
  const LtcKernel& ltc = IndexSelectKernel();
  auto call = [&](const at::Tensor& s, int64_t d, const at::Tensor& i) {
    return ltc.kernel.call<at::Tensor, const at::Tensor&, int64_t, const at::Tensor&>(
        ltc.op, c10::DispatchKeySet(c10::DispatchKey::Lazy), s, d, i);
  };
  if (self.dim() != 0) return call(self, dim, index);
  c10::maybe_wrap_dim(dim, static_cast<int64_t>(0));  // eager's error for other dims
  TORCH_CHECK_INDEX(index.dim() <= 1, "index_select(): Index is supposed to be a vector");
  TORCH_CHECK_INDEX(index.numel() == 1, "index_select(): Index to scalar can have only 1 value, got ",
                    index.numel(), " value(s)");
  // view_copy: views of raw lazy tensors have no kernel.
  at::Tensor out = call(at::view_copy(self, {1}), 0, at::view_copy(index, {1}));
  return at::view_copy(out, c10::IntArrayRef{});
}

}  // namespace

void RegisterZeroDimKernels() {
  TORCH_CHECK(IndexSelectKernel().kernel.isValid(),
              "ltc_mlir: LTC's index_select kernel must be registered first");
  static torch::Library* lib = new torch::Library(torch::Library::IMPL, "aten",
                                                  c10::DispatchKey::Lazy, __FILE__, __LINE__);
  QuietWarnings quiet;  // we override LTC's kernel on purpose
  lib->impl("index_select", TORCH_FN(IndexSelect));
}

}  // namespace backend
}  // namespace ltc_mlir
