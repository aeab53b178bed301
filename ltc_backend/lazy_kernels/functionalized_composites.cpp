// Functionalized composites: ops whose Lazy kernel is their
// CompositeExplicitAutograd kernel run it under functionalization.
//
// Views of lazy tensors only exist above the Functionalize key (LTC has no
// Lazy kernel for as_strided, view, expand, diagonal...: functionalization
// turns them into *_copy ops). A CompositeExplicitAutograd kernel runs at
// the Lazy key, below it, on the bare LTC tensors, so a composite that takes
// a view (diag_embed writes through `result.diagonal()`, addr calls view,
// masked_scatter and mvlgamma expand) reached our eager fallback with a view
// op and raised "a view operator with no kernel". The fix is torch's
// functionalize_op_helper's: wrap the arguments in functional tensors again,
// run the op's composite with functionalization re-enabled and unwrap the
// results. We call the composite kernel ourselves: the helper reaches it
// through the Meta key, which only works while the op has no Meta kernel of
// its own, and torch 2.x's Python meta registrations gave one to ~110 of
// these ops (addr, mvlgamma, _euclidean_dist: cdist's matmul path,
// affine_grid_generator, masked_scatter_backward...), whose views reached
// the fallback again.
//
// About 260 ops qualify on torch 2.14 (add.Scalar, new_zeros, _convolution,
// the functional _foreach_ ops...), most of whose composites use no view and
// work as they are; those keep their path. An op goes through functionalization from the first time
// its composite raises the fallback's view error (it is then run again: a
// functional op has written nothing). A composite that writes into its own
// result with its in-place variant (masked_scatter: clone, then
// masked_scatter_) comes back here under functionalization, which made that
// in-place op functional again: the inner call runs on the eager fallback.
#include <ATen/FunctionalTensorWrapper.h>
#include <ATen/core/dispatch/Dispatcher.h>
#include <c10/core/impl/LocalDispatchKeySet.h>
#include <torch/library.h>

#include <algorithm>
#include <atomic>
#include <string>
#include <vector>

#include "ltc_backend/lazy_kernels/kernel_table.h"
#include "ltc_backend/lazy_kernels/lazy_kernels.h"

namespace ltc_mlir {
namespace backend {
namespace {

namespace fz = at::functionalization::impl;

// Each tensor (list) among the last n stack entries, wrapped in functional tensors.
void WrapFunctional(size_t n, torch::jit::Stack* stack) {
  for (auto it = stack->end() - n; it != stack->end(); ++it) {
    if (it->isTensor()) {
      if (it->toTensor().defined()) *it = fz::to_functional_tensor(it->toTensor());
    } else if (it->isTensorList()) {
      *it = fz::to_functional_tensor(it->toTensorList());
    } else if (it->isOptionalTensorList()) {
      *it = fz::to_functional_tensor(it->toOptionalTensorList());
    }
  }
}

// The inverse for results: their values (after pending updates), unwrapped.
// A result the composite did not make under functionalization (an argument
// that is not a tensor, a CPU scalar) is returned as it is.
at::Tensor Unwrapped(const at::Tensor& t) {
  if (!t.defined() || !fz::isFunctionalTensor(t)) return t;
  fz::sync(t);
  return fz::from_functional_tensor(t);
}

void UnwrapFunctional(size_t n, torch::jit::Stack* stack) {
  for (auto it = stack->end() - n; it != stack->end(); ++it) {
    if (it->isTensor()) {
      *it = Unwrapped(it->toTensor());
    } else if (it->isTensorList()) {
      c10::List<at::Tensor> list = it->toTensorList();
      for (size_t i = 0; i < list.size(); ++i) list.set(i, Unwrapped(list.get(i)));
      *it = std::move(list);
    }
  }
}

// Runs `composite` on the call on `stack` under functionalization.
void CallFunctionalized(const c10::KernelFunction& composite, const c10::OperatorHandle& op,
                        c10::DispatchKeySet keys, torch::jit::Stack* stack) {
  WrapFunctional(op.schema().arguments().size(), stack);
  {
    // We run below the Functionalize key, which the fallback that brought
    // us here excluded: the composite's ops must pass it again (LTC's
    // factory kernels also wrap their results only while it is enabled).
    c10::impl::LocalDispatchKeySet tls = c10::impl::tls_local_dispatch_key_set();
    c10::impl::ForceDispatchKeyGuard reenable(
        tls.included_, tls.excluded_.remove(c10::DispatchKey::Functionalize));
    composite.callBoxed(op, keys, stack);
  }
  UnwrapFunctional(op.schema().returns().size(), stack);
}

class FunctionalizeOnViewError final : public c10::OperatorKernel {
 public:
  explicit FunctionalizeOnViewError(c10::KernelFunction composite)
      : composite_(std::move(composite)) {}

  void operator()(const c10::OperatorHandle& op, c10::DispatchKeySet keys,
                  torch::jit::Stack* stack) {
    if (!functionalize_.load(std::memory_order_relaxed)) {
      const size_t n = op.schema().arguments().size();
      const size_t base = stack->size() - n;
      std::vector<c10::IValue> arguments(stack->begin() + base, stack->end());
      try {
        composite_.callBoxed(op, keys, stack);
        return;
      } catch (const c10::Error& e) {
        if (!IsViewFallbackError(e)) throw;
      }
      functionalize_.store(true, std::memory_order_relaxed);
      stack->resize(base);
      stack->insert(stack->end(), arguments.begin(), arguments.end());
    }
    if (std::find(active_.begin(), active_.end(), this) != active_.end()) {
      RunEagerFallback(op, stack);
      return;
    }
    active_.push_back(this);
    struct Pop {
      ~Pop() { active_.pop_back(); }
    } pop;
    CallFunctionalized(composite_, op, keys, stack);
  }

 private:
  c10::KernelFunction composite_;
  std::atomic<bool> functionalize_{false};
  // The kernels functionalizing on this thread, innermost last.
  static thread_local std::vector<const FunctionalizeOnViewError*> active_;
};

thread_local std::vector<const FunctionalizeOnViewError*> FunctionalizeOnViewError::active_;

// A functional op (no argument written, no result aliasing an argument)
// whose Lazy kernel is its CompositeExplicitAutograd kernel. (A Meta kernel
// of its own does not matter: CallFunctionalized calls the composite.)
bool IsFunctionalExplicitComposite(const c10::OperatorHandle& op) {
  if (!op.hasKernelForDispatchKey(c10::DispatchKey::CompositeExplicitAutograd)) return false;
  if (op.hasKernelForDispatchKey(c10::DispatchKey::Lazy)) return false;
  const c10::FunctionSchema& schema = op.schema();
  if (schema.is_mutable()) return false;
  for (const c10::Argument& ret : schema.returns())
    if (ret.alias_info() != nullptr) return false;
  bool takes_tensor = false;
  for (const c10::Argument& arg : schema.arguments()) {
    const c10::TypePtr& type = arg.type();
    if (type->isSubtypeOf(*c10::TensorType::get()) ||
        type->isSubtypeOf(*c10::OptionalType::ofTensor()) ||
        type->isSubtypeOf(*c10::ListType::ofTensors()) ||
        type->isSubtypeOf(*c10::ListType::ofOptionalTensors()))
      takes_tensor = true;
  }
  return takes_tensor;
}

}  // namespace

size_t RegisterFunctionalizedComposites() {
  static auto* library =
      new torch::Library(torch::Library::IMPL, "aten", c10::DispatchKey::Lazy, __FILE__, __LINE__);
  size_t count = 0;
  ForEachAtenOp([&](const c10::OperatorHandle& op, const std::string& name) {
    if (!IsFunctionalExplicitComposite(op)) return;
    c10::KernelFunction composite =
        RegisteredKernel(op, c10::DispatchKey::CompositeExplicitAutograd);
    if (!composite.isValid()) return;
    library->impl(name.c_str(),
                  torch::CppFunction::makeFromBoxedFunctor(
                      std::make_unique<FunctionalizeOnViewError>(std::move(composite))));
    ++count;
  });
  return count;
}

}  // namespace backend
}  // namespace ltc_mlir
