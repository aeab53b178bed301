// implicit_composites: functional CompositeImplicitAutograd ops decompose at
// the Functionalize key.
//
// A CompositeImplicitAutograd kernel (linear, matmul, batch_norm, dropout,
// layer_norm, ...) serves the autograd keys and the backend keys, not the
// Functionalize key between them. With autograd on, the AutogradLazy entry
// decomposes the op before functionalization sees it. Under
// torch.inference_mode() the autograd keys are excluded: the op reaches
// functionalization's fallback, which unwraps the lazy tensors and runs the
// decomposition at the Lazy key, where views do not exist (LTC has no Lazy
// kernel for as_strided, view, t...): F.linear's t() raised the eager
// fallback's "a view operator with no kernel", and no model ran in
// inference mode on torch 2.14. (torch registers the composite at the
// Functionalize key itself only for view ops: reshape, flatten, mT...)
//
// Here the composite serves the Functionalize key too, so its ops are
// functionalized as with autograd on. Ops with a Lazy kernel (LTC's or ours:
// std, logdet, svd...) keep functionalization's fallback, which reaches it;
// mutating and view ops keep their path.
#include <ATen/core/dispatch/Dispatcher.h>
#include <torch/library.h>

#include <string>

#include "ltc_backend/lazy_kernels/kernel_table.h"
#include "ltc_backend/lazy_kernels/lazy_kernels.h"

namespace ltc_mlir {
namespace backend {
namespace {

class DecomposeAtFunctionalize final : public c10::OperatorKernel {
 public:
  explicit DecomposeAtFunctionalize(c10::KernelFunction composite)
      : composite_(std::move(composite)) {}

  void operator()(const c10::OperatorHandle& op, c10::DispatchKeySet keys,
                  torch::jit::Stack* stack) {
    composite_.callBoxed(op, keys, stack);
  }

 private:
  c10::KernelFunction composite_;
};

// Functional (no argument written, no result aliasing one), with a
// CompositeImplicitAutograd kernel and neither a Functionalize nor a Lazy one.
bool DecomposesBelowFunctionalization(const c10::OperatorHandle& op) {
  if (!op.hasKernelForDispatchKey(c10::DispatchKey::CompositeImplicitAutograd) ||
      op.hasKernelForDispatchKey(c10::DispatchKey::Functionalize) ||
      op.hasKernelForDispatchKey(c10::DispatchKey::Lazy))
    return false;
  const c10::FunctionSchema& schema = op.schema();
  if (schema.is_mutable()) return false;
  for (const c10::Argument& ret : schema.returns())
    if (ret.alias_info() != nullptr) return false;
  return true;
}

}  // namespace

size_t RegisterImplicitCompositesAtFunctionalize() {
  static auto* library = new torch::Library(torch::Library::IMPL, "aten",
                                            c10::DispatchKey::Functionalize, __FILE__, __LINE__);
  size_t count = 0;
  ForEachAtenOp([&](const c10::OperatorHandle& op, const std::string& name) {
    if (!DecomposesBelowFunctionalization(op)) return;
    c10::KernelFunction composite =
        RegisteredKernel(op, c10::DispatchKey::CompositeImplicitAutograd);
    if (!composite.isValid()) return;
    library->impl(name.c_str(),
                  torch::CppFunction::makeFromBoxedFunctor(
                      std::make_unique<DecomposeAtFunctionalize>(std::move(composite))));
    ++count;
  });
  return count;
}

}  // namespace backend
}  // namespace ltc_mlir
