#include "ltc_backend/inplace_write_kernels.h"

#include <ATen/core/dispatch/Dispatcher.h>
#include <torch/library.h>

#include <mutex>

#include "ltc_backend/failed_step_rollback.h"
#include "ltc_backend/lazy_kernels/kernel_table.h"

namespace ltc_mlir {
namespace backend {
namespace {

bool WritesAnArgument(const c10::FunctionSchema& schema) {
  for (const c10::Argument& arg : schema.arguments())
    if (arg.alias_info() && arg.alias_info()->isWrite()) return true;
  return false;
}

// Calls fn on every tensor of an argument (Tensor, Tensor?, Tensor[]).
template <typename Fn>
void ForEachTensor(const c10::IValue& v, Fn fn) {
  if (v.isTensor()) {
    fn(v.toTensor());
  } else if (v.isList()) {  // Tensor[] / Tensor?[] (the _foreach_ ops)
    for (const c10::IValue& e : v.toListRef()) ForEachTensor(e, fn);
  }
}

void RememberThenRunAutograd(const c10::OperatorHandle& op, c10::DispatchKeySet,
                          torch::jit::Stack* stack) {
  const std::vector<c10::Argument>& args = op.schema().arguments();
  std::vector<c10::IValue> written;
  const size_t first = stack->size() - args.size();
  for (size_t i = 0; i < args.size(); ++i)
    if (args[i].alias_info() && args[i].alias_info()->isWrite())
      written.push_back((*stack)[first + i]);
  for (const c10::IValue& v : written)
    ForEachTensor(v, [](const at::Tensor& t) { RememberValueBeforeUpdate(t); });
  // The kernel every other backend gets for this op (VariableType).
  op.callBoxedForDispatchKey(c10::DispatchKey::Autograd, *stack);
}

// LTC records zero_ as aten::zero(self): the zeroed gradient reads the old
// one, so every step's graph takes the previous gradients as inputs (and a
// gradient whose graph failed could never be zeroed). fill_(0) is the same
// update without that read.
at::Tensor& ZeroWithoutReadingSelf(at::Tensor& self) { return self.fill_(0); }

}  // namespace

void RegisterInplaceWriteKernels() {
  static std::once_flag once;
  std::call_once(once, [] {
    // Lives until exit: destroying it would unregister the kernels.
    auto* lib = new torch::Library(torch::Library::IMPL, "aten", c10::DispatchKey::AutogradLazy,
                                   __FILE__, __LINE__);
    ForEachAtenOp([&](const c10::OperatorHandle& op, const std::string& name) {
      if (!WritesAnArgument(op.schema())) return;
      if (!op.hasKernelForDispatchKey(c10::DispatchKey::Autograd) ||
          op.hasKernelForDispatchKey(c10::DispatchKey::AutogradLazy))
        return;
      // Every backend runs a CompositeImplicitAutograd op (matmul.out) as its
      // decomposition, whose ops get this kernel themselves; its Autograd
      // kernel would send it whole to functionalization, which has no kernel
      // for it ("Found a custom (non-ATen) operator whose output has alias
      // annotations").
      if (op.hasKernelForDispatchKey(c10::DispatchKey::CompositeImplicitAutograd)) return;
      if (name == "zero_")
        lib->impl("zero_", TORCH_FN(ZeroWithoutReadingSelf));  // goes on as fill_
      else
        lib->impl(name.c_str(),
                  torch::CppFunction::makeFromBoxedFunction<&RememberThenRunAutograd>());
    });
  });
}

}  // namespace backend
}  // namespace ltc_mlir
