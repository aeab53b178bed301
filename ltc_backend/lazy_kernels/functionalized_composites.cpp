// Functionalized composites: ops whose Lazy kernel is their
// CompositeExplicitAutograd kernel run it under functionalization.
//
// Views of lazy tensors only exist above the Functionalize key (LTC has no
// Lazy kernel for as_strided, view, expand, diagonal...: functionalization
// turns them into *_copy ops). A CompositeExplicitAutograd kernel runs at
// the Lazy key, below it, on the bare LTC tensors, so a composite that takes
// a view (diag_embed writes through `result.diagonal()`, addr calls view,
// masked_scatter and mvlgamma expand) reached our eager fallback with a view
// op and raised "a view operator with no kernel". This is the case torch's
// functionalize_op_helper is for: it wraps the arguments in functional
// tensors again, runs the op's composite (through the Meta key, where the
// composite is registered too) and unwraps the results.
//
// About 130 ops qualify (add.Scalar, new_zeros, upsample_*, native_group_norm
// ...), most of whose composites use no view and work as they are; those keep
// their path. An op goes through functionalization from the first time its
// composite raises the fallback's view error (it is then run again: a
// functional op has written nothing). A composite that writes into its own
// result with its in-place variant (masked_scatter: clone, then
// masked_scatter_) comes back here under functionalization, which made that
// in-place op functional again: the inner call runs on the eager fallback.
#include <ATen/FunctionalTensorWrapper.h>
#include <ATen/core/dispatch/Dispatcher.h>
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
    at::functionalization::functionalize_op_helper(op, stack);
  }

 private:
  c10::KernelFunction composite_;
  std::atomic<bool> functionalize_{false};
  // The kernels functionalizing on this thread, innermost last.
  static thread_local std::vector<const FunctionalizeOnViewError*> active_;
};

thread_local std::vector<const FunctionalizeOnViewError*> FunctionalizeOnViewError::active_;

// A functional op (no argument written, no result aliasing an argument)
// whose Lazy and Meta kernels are both its CompositeExplicitAutograd kernel
// (functionalize_op_helper reaches the composite through the Meta key).
bool IsFunctionalExplicitComposite(const c10::OperatorHandle& op) {
  if (!op.hasKernelForDispatchKey(c10::DispatchKey::CompositeExplicitAutograd)) return false;
  if (op.hasKernelForDispatchKey(c10::DispatchKey::Lazy) ||
      op.hasKernelForDispatchKey(c10::DispatchKey::Meta))
    return false;
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
  c10::Dispatcher& dispatcher = c10::Dispatcher::singleton();
  for (const c10::OperatorName& name : dispatcher.getAllOpNames()) {
    if (name.name.rfind("aten::", 0) != 0) continue;
    std::optional<c10::OperatorHandle> op = dispatcher.findOp(name);
    if (!op || !op->hasSchema() || !IsFunctionalExplicitComposite(*op)) continue;
    std::string impl_name = name.name.substr(6);
    if (!name.overload_name.empty()) impl_name += "." + name.overload_name;
    c10::KernelFunction composite =
        RegisteredKernel(*op, c10::DispatchKey::CompositeExplicitAutograd);
    if (!composite.isValid()) continue;
    library->impl(impl_name.c_str(),
                  torch::CppFunction::makeFromBoxedFunctor(
                      std::make_unique<FunctionalizeOnViewError>(std::move(composite))));
    ++count;
  }
  return count;
}

}  // namespace backend
}  // namespace ltc_mlir
