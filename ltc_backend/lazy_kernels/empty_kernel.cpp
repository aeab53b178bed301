// empty_kernel: a 0-dim tensor from empty()/empty_strided() on the lazy
// device holds zero, not whatever the allocator left there.
//
// LTC's empty kernels allocate a CPU tensor and keep it as the lazy tensor's
// data. When that data enters a graph, LTC makes a 0-dim value that equals 0
// or 1 a constant of the graph (we turn on torch_lazy_handle_special_scalars)
// and any other value a graph input. For an uninitialized 0-dim tensor that
// choice followed the garbage in its memory: the same training step traced
// a graph with a constant one time and with an input the next, so the step
// compiled twice instead of reusing the code (test_code_reuse.py). Any value
// is a valid content of empty(); zero makes the graph the same every time.
#include <ATen/ATen.h>
#include <ATen/FunctionalTensorWrapper.h>
#include <torch/csrc/lazy/core/tensor.h>
#include <torch/library.h>

#include <string>

#include "ltc_backend/lazy_kernels/kernel_table.h"
#include "ltc_backend/lazy_kernels/lazy_kernels.h"

namespace ltc_mlir {
namespace backend {
namespace {

class ZeroFilledScalarEmpty final : public c10::OperatorKernel {
 public:
  ZeroFilledScalarEmpty(c10::KernelFunction ltc_kernel, bool strided)
      : ltc_kernel_(std::move(ltc_kernel)), strided_(strided) {}

  void operator()(const c10::OperatorHandle& op, c10::DispatchKeySet keys,
                  torch::jit::Stack* stack) {
    // LTC's empty_strided is a strided view of an empty(): for 0-dim, take
    // the empty() itself (no strides to apply), which is filled below.
    if (strided_ && (*stack)[0].toSymIntList().empty()) {
      at::TensorOptions options = at::TensorOptions()
                                      .dtype((*stack)[2].toOptional<at::ScalarType>())
                                      .layout((*stack)[3].toOptional<at::Layout>())
                                      .device((*stack)[4].toOptional<at::Device>())
                                      .pinned_memory((*stack)[5].toOptional<bool>());
      torch::jit::drop(*stack, 6);
      torch::jit::push(*stack, at::empty({}, options));
      return;
    }
    ltc_kernel_.callBoxed(op, keys, stack);
    const at::Tensor& result = stack->back().toTensor();
    if (result.dim() != 0) return;
    at::Tensor lazy = at::functionalization::impl::isFunctionalTensor(result)
                          ? at::functionalization::impl::from_functional_tensor(result)
                          : result;
    torch::lazy::LazyTensorPtr ltc = torch::lazy::TryGetLtcTensor(lazy);
    if (!ltc) return;
    // The host tensor LTC's kernel allocated (no IR yet): fill it in place.
    if (std::optional<at::Tensor> data = ltc->CurrentTensorData()) data->zero_();
  }

 private:
  c10::KernelFunction ltc_kernel_;
  bool strided_;  // empty_strided (else empty.memory_format)
};

}  // namespace

void RegisterZeroFilledScalarEmpty() {
  static torch::Library* lib = new torch::Library(torch::Library::IMPL, "aten",
                                                  c10::DispatchKey::Lazy, __FILE__, __LINE__);
  QuietWarnings quiet;  // we override LTC's kernels on purpose
  for (const char* name : {"empty.memory_format", "empty_strided"}) {
    const bool strided = std::string(name) == "empty_strided";
    c10::KernelFunction ltc_kernel = RegisteredKernel(FindAtenOp(name), c10::DispatchKey::Lazy);
    TORCH_CHECK(ltc_kernel.isValid(), "ltc_mlir: LTC's ", name, " kernel must be registered first");
    lib->impl(name, torch::CppFunction::makeFromBoxedFunctor(
                        std::make_unique<ZeroFilledScalarEmpty>(std::move(ltc_kernel), strided)));
  }
}

}  // namespace backend
}  // namespace ltc_mlir
