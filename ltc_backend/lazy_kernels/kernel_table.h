// kernel_table: reading and replacing the kernels registered for a dispatch
// key, which is what a guard in front of existing kernels needs.
//
// torch lets a library register a kernel for (op, key); its public
// OperatorHandle::lookup / getComputedKernelForDispatchKey read only the
// dispatch table's entry, not the kernels registered per key behind it
// (OperatorEntry's private kernels_). RegisteredKernel() and TorchCppKernel()
// reach OperatorEntry (see kernel_table.cpp) so that a wrapper can keep
// calling the kernel it replaces.
#pragma once

#include <ATen/core/dispatch/Dispatcher.h>
#include <c10/util/Exception.h>

#include <functional>
#include <string>

namespace torch {
class Library;
}

namespace ltc_mlir {
namespace backend {

// The kernel registered directly for `key` (not through an alias key such as
// CompositeImplicitAutograd); invalid when there is none. A copy: it stays
// callable after another kernel replaces it in the dispatch table.
c10::KernelFunction RegisteredKernel(const c10::OperatorHandle& op, c10::DispatchKey key);

// torch's own C++ kernel of `op` for `key` (a backend key such as Meta),
// as the dispatch table held it before any boxed-only kernel was put in
// front (torch's Python registrations, our wrappers): the newest kernel
// registered for `key` with an unboxed entry, else the one of
// CompositeExplicitAutogradNonFunctional or CompositeExplicitAutograd.
// Invalid when there is none.
c10::KernelFunction TorchCppKernel(const c10::OperatorHandle& op, c10::DispatchKey key);

// Registers, in `lib` (an IMPL library for the Functionalize key), a wrapper
// around the Functionalize kernel of every aten op whose schema `select`
// accepts: `wrap` receives the kernel it replaces. Returns how many.
using BoxedKernel =
    std::function<void(const c10::OperatorHandle&, c10::DispatchKeySet, torch::jit::Stack*)>;
size_t WrapFunctionalizeKernels(torch::Library& lib,
                                const std::function<bool(const c10::FunctionSchema&)>& select,
                                const std::function<BoxedKernel(c10::KernelFunction)>& wrap);

// Calls visit(op, name) for every aten op with a schema; `name` is what
// torch::Library::impl takes ("add.Tensor", "erf"). Each of our generic
// wrappers walks the ops this way.
void ForEachAtenOp(
    const std::function<void(const c10::OperatorHandle& op, const std::string& name)>& visit);

// "aten::add.Tensor": the name LTC's counters and our messages use.
std::string OperatorFullName(const c10::OperatorHandle& op);

// The aten op named "add.Tensor" ("erf": the default overload); raises when
// torch has no such op.
c10::OperatorHandle FindAtenOp(const std::string& name);

// Silences c10 warnings (the dispatcher warns once per overridden kernel)
// while it is alive.
class QuietWarnings {
 public:
  QuietWarnings() : guard_(&handler_) {}

 private:
  struct Discard : c10::WarningHandler {
    void process(const c10::Warning&) override {}
  };
  Discard handler_;
  c10::WarningUtils::WarningHandlerGuard guard_;
};

}  // namespace backend
}  // namespace ltc_mlir
