// to_lazy_guard: `.to("lazy")` of a tensor LTC cannot represent.
//
// LTC holds dense (strided) tensors only. Without this guard a sparse
// tensor's .to("lazy") fails deep in the dispatcher ("Could not run
// 'aten::_sparse_coo_tensor_with_dims_and_tensors' with arguments from the
// 'SparseLazy' backend" or "... 'new_compressed_tensor' from the 'lazy'
// device"), and a quantized tensor's silently stays on the CPU. Our
// _to_copy for those layouts names the problem and the fix, and otherwise
// runs the kernel it replaces (the CompositeExplicitAutograd one).
//
// A copy from one lazy device to another (lazy:0 -> lazy:1) failed in LTC's
// device lookup with the bare message "cpu:1": both live in host memory,
// so it now goes through the CPU (a sync of the source, as between real
// devices).
#include <ATen/ATen.h>
#include <torch/library.h>

#include "ltc_backend/lazy_kernels/kernel_table.h"
#include "ltc_backend/lazy_kernels/lazy_kernels.h"

namespace ltc_mlir {
namespace backend {
namespace {

// The lazy device _to_copy's `device` argument names, if any.
std::optional<c10::Device> LazyDestination(const c10::OperatorHandle& op,
                                           const torch::jit::Stack& stack) {
  const auto& args = op.schema().arguments();
  for (size_t i = 1; i < args.size(); ++i) {
    const c10::IValue& v = BoxedArgument(op, stack, i);
    if (args[i].name() == "device" && v.isDevice() && v.toDevice().is_lazy()) return v.toDevice();
  }
  return std::nullopt;
}

class ToLazyCheck final : public c10::OperatorKernel {
 public:
  explicit ToLazyCheck(c10::KernelFunction inner) : inner_(std::move(inner)) {}

  void operator()(const c10::OperatorHandle& op, c10::DispatchKeySet keys,
                  torch::jit::Stack* stack) {
    const at::Tensor& self = BoxedArgument(op, *stack, 0).toTensor();
    if (LazyDestination(op, *stack)) {
      TORCH_CHECK(!self.is_quantized(), "Quantized tensors (", self.scalar_type(),
                  ") cannot be moved to the lazy device: lazy tensors are dense. Call "
                  ".dequantize() first.");
      TORCH_CHECK(self.layout() == c10::kStrided, "Tensors with layout ", self.layout(),
                  " cannot be moved to the lazy device: lazy tensors are dense (strided). "
                  "Call .to_dense() first.");
    }
    inner_.callBoxed(op, keys, stack);
  }

 private:
  c10::KernelFunction inner_;
};

// _to_copy at the Lazy key: a lazy source with another lazy destination
// ordinal is read back and copied from the CPU.
class LazyToOtherLazy final : public c10::OperatorKernel {
 public:
  explicit LazyToOtherLazy(c10::KernelFunction inner) : inner_(std::move(inner)) {}

  void operator()(const c10::OperatorHandle& op, c10::DispatchKeySet keys,
                  torch::jit::Stack* stack) {
    c10::IValue& self = (*stack)[stack->size() - op.schema().arguments().size()];
    std::optional<c10::Device> destination = LazyDestination(op, *stack);
    if (destination && self.toTensor().is_lazy() && self.toTensor().device() != *destination) {
      self = self.toTensor().cpu();
      return op.callBoxed(stack);
    }
    inner_.callBoxed(op, keys, stack);
  }

 private:
  c10::KernelFunction inner_;
};

}  // namespace

void RegisterToLazyGuard() {
  c10::OperatorHandle op =
      c10::Dispatcher::singleton().findSchemaOrThrow("aten::_to_copy", "");
  QuietWarnings quiet;
  // BackendSelect adds the destination's backend to the source's layout
  // keys: a quantized/sparse CPU tensor going to lazy dispatches to
  // QuantizedLazy/SparseLazy/SparseCsrLazy (torch 2.x's CSR/CSC/BSR
  // raised "Could not run 'new_compressed_tensor' from the 'lazy' device").
  for (c10::DispatchKey key : {c10::DispatchKey::QuantizedLazy, c10::DispatchKey::SparseLazy,
                               c10::DispatchKey::SparseCsrLazy}) {
    c10::KernelFunction inner = RegisteredKernel(op, key);
    if (!inner.isValid())
      inner = RegisteredKernel(op, c10::DispatchKey::CompositeExplicitAutograd);
    if (!inner.isValid()) continue;
    auto* lib = new torch::Library(torch::Library::IMPL, "aten", key, __FILE__, __LINE__);
    lib->impl("_to_copy",
              torch::CppFunction::makeFromBoxedFunctor(std::make_unique<ToLazyCheck>(inner)));
  }
  c10::KernelFunction lazy = RegisteredKernel(op, c10::DispatchKey::Lazy);
  if (lazy.isValid()) {
    static torch::Library* lib =
        new torch::Library(torch::Library::IMPL, "aten", c10::DispatchKey::Lazy, __FILE__, __LINE__);
    lib->impl("_to_copy", torch::CppFunction::makeFromBoxedFunctor(
                              std::make_unique<LazyToOtherLazy>(std::move(lazy))));
  }
}

}  // namespace backend
}  // namespace ltc_mlir
