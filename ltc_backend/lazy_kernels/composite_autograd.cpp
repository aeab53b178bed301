// Autograd for ops that are CompositeImplicitAutograd and also have a Lazy
// kernel (ours: diag, logdet, svd; torch's own LTC: std, std.dim).
//
// torch 2.x gives such an op no Autograd kernel for the Lazy key: the
// dispatcher picks the Lazy kernel, and the autograd "not implemented"
// fallback records a node whose backward returns nothing. x.std(1) on a
// lazy tensor then trains with a None gradient, only warning at backward.
// Our AutogradLazy kernel runs the op's composite (its decomposition into
// differentiable ops) when a gradient is wanted, and the Lazy kernel (one
// graph node) otherwise: no_grad, inference and operands without grad.
#include <ATen/core/dispatch/Dispatcher.h>
#include <c10/core/GradMode.h>
#include <torch/library.h>

#include <string>
#include <vector>

#include "ltc_backend/lazy_kernels/kernel_table.h"
#include "ltc_backend/lazy_kernels/lazy_kernels.h"

namespace ltc_mlir {
namespace backend {
namespace {

bool AnyRequiresGrad(const c10::IValue& value) {
  if (value.isTensor())
    return value.toTensor().defined() && value.toTensor().requires_grad();
  if (value.isTensorList()) {
    for (const at::Tensor& t : value.toTensorList().vec())
      if (t.defined() && t.requires_grad()) return true;
  }
  if (value.isList()) {  // Tensor?[]
    for (const c10::IValue& item : value.toListRef())
      if (AnyRequiresGrad(item)) return true;
  }
  return false;
}

void CompositeOrLazy(const c10::OperatorHandle& op, c10::DispatchKeySet keys,
                     torch::jit::Stack* stack) {
  const size_t arguments = op.schema().arguments().size();
  bool wantsGrad = false;
  if (c10::GradMode::is_enabled())
    for (size_t i = stack->size() - arguments; i < stack->size() && !wantsGrad; ++i)
      wantsGrad = AnyRequiresGrad((*stack)[i]);
  if (wantsGrad) {
    op.callBoxedForDispatchKey(c10::DispatchKey::CompositeImplicitAutograd, *stack);
    return;
  }
  op.redispatchBoxed(keys & c10::after_ADInplaceOrView_keyset, stack);
}

bool IsFunctional(const c10::FunctionSchema& schema) {
  for (const c10::Argument& arg : schema.arguments())
    if (arg.alias_info() != nullptr) return false;
  return true;
}

}  // namespace

size_t RegisterCompositeAutogradKernels() {
  static torch::Library* lib = nullptr;
  c10::Dispatcher& dispatcher = c10::Dispatcher::singleton();
  std::vector<std::string> names;  // "diag", "std.dim"
  for (const c10::OperatorName& name :
       dispatcher.getRegistrationsForDispatchKey(c10::DispatchKey::Lazy)) {
    if (name.name.rfind("aten::", 0) != 0) continue;
    std::optional<c10::OperatorHandle> op = dispatcher.findOp(name);
    if (!op || !op->hasKernelForDispatchKey(c10::DispatchKey::CompositeImplicitAutograd) ||
        op->hasKernelForDispatchKey(c10::DispatchKey::AutogradLazy) ||
        op->hasKernelForDispatchKey(c10::DispatchKey::Autograd) ||
        !IsFunctional(op->schema()))
      continue;
    names.push_back(OperatorFullName(*op).substr(6));
  }
  if (names.empty()) return 0;
  if (lib == nullptr)
    lib = new torch::Library(torch::Library::IMPL, "aten", c10::DispatchKey::AutogradLazy,
                             __FILE__, __LINE__);
  QuietWarnings quiet;  // the dispatcher warns about each override
  for (const std::string& name : names)
    lib->impl(name.c_str(), torch::CppFunction::makeFromBoxedFunction<&CompositeOrLazy>());
  return names.size();
}

}  // namespace backend
}  // namespace ltc_mlir
