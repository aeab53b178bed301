#include "ltc_backend/lazy_kernels/kernel_table.h"

#include <ATen/core/dispatch/OperatorEntry.h>
#include <torch/library.h>

#include "ltc_backend/private_member.h"

namespace ltc_mlir {
namespace backend {

// OperatorHandle::operatorDef_ is private, and torch has no public way to
// read the kernels registered per key (private_member.h).
struct OperatorDefTag {};
constexpr auto MemberOf(OperatorDefTag);
template struct ExposePrivateMember<OperatorDefTag, &c10::OperatorHandle::operatorDef_>;
// OperatorEntry::kernels_: every kernel registered per key, newest first
// (the dispatch table holds only the front one).
struct KernelsTag {};
constexpr auto MemberOf(KernelsTag);
template struct ExposePrivateMember<KernelsTag, &c10::impl::OperatorEntry::kernels_>;

namespace {

const c10::impl::OperatorEntry& EntryOf(const c10::OperatorHandle& op) {
  return (op.*MemberOf(OperatorDefTag{}))->op;
}

}  // namespace

c10::KernelFunction RegisteredKernel(const c10::OperatorHandle& op, c10::DispatchKey key) {
  if (!op.hasKernelForDispatchKey(key)) return c10::KernelFunction();
  return EntryOf(op).kernelForDispatchKey(key);
}

c10::KernelFunction TorchCppKernel(const c10::OperatorHandle& op, c10::DispatchKey key) {
  const auto& kernels = EntryOf(op).*MemberOf(KernelsTag{});
  // Python kernels and makeFromBoxedFunctor ones have no unboxed entry;
  // torch's generated registrations have both.
  for (c10::DispatchKey k : {key, c10::DispatchKey::CompositeExplicitAutogradNonFunctional,
                             c10::DispatchKey::CompositeExplicitAutograd}) {
    auto it = kernels.find(k);
    if (it == kernels.end()) continue;
    for (const c10::impl::AnnotatedKernel& annotated : it->second)
      if (annotated.kernel.isValidUnboxed()) return annotated.kernel;
  }
  return c10::KernelFunction();
}

std::string OperatorFullName(const c10::OperatorHandle& op) {
  const c10::OperatorName& name = op.operator_name();
  return name.overload_name.empty() ? name.name : name.name + "." + name.overload_name;
}

c10::OperatorHandle FindAtenOp(const std::string& name) {
  size_t dot = name.find('.');
  std::string base = name.substr(0, dot);
  std::string overload = dot == std::string::npos ? "" : name.substr(dot + 1);
  return c10::Dispatcher::singleton().findSchemaOrThrow(("aten::" + base).c_str(),
                                                        overload.c_str());
}

namespace {

// A boxed kernel held in a std::function (makeFromBoxedFunctor needs one
// concrete functor type).
class HeldKernel final : public c10::OperatorKernel {
 public:
  explicit HeldKernel(BoxedKernel kernel) : kernel_(std::move(kernel)) {}
  void operator()(const c10::OperatorHandle& op, c10::DispatchKeySet keys,
                  torch::jit::Stack* stack) {
    kernel_(op, keys, stack);
  }

 private:
  BoxedKernel kernel_;
};

}  // namespace

void ForEachAtenOp(
    const std::function<void(const c10::OperatorHandle& op, const std::string& name)>& visit) {
  c10::Dispatcher& dispatcher = c10::Dispatcher::singleton();
  for (const c10::OperatorName& name : dispatcher.getAllOpNames()) {
    if (name.name.rfind("aten::", 0) != 0) continue;
    std::optional<c10::OperatorHandle> op = dispatcher.findOp(name);
    if (!op || !op->hasSchema()) continue;
    std::string short_name = name.name.substr(6);
    if (!name.overload_name.empty()) short_name += "." + name.overload_name;
    visit(*op, short_name);
  }
}

size_t WrapFunctionalizeKernels(torch::Library& lib,
                                const std::function<bool(const c10::FunctionSchema&)>& select,
                                const std::function<BoxedKernel(c10::KernelFunction)>& wrap) {
  QuietWarnings quiet;  // one "overriding a previously registered kernel" per op
  size_t wrapped = 0;
  ForEachAtenOp([&](const c10::OperatorHandle& op, const std::string& name) {
    if (!op.hasKernelForDispatchKey(c10::DispatchKey::Functionalize) || !select(op.schema()))
      return;
    c10::KernelFunction inner = RegisteredKernel(op, c10::DispatchKey::Functionalize);
    if (!inner.isValid()) return;
    lib.impl(name.c_str(), torch::CppFunction::makeFromBoxedFunctor(
                               std::make_unique<HeldKernel>(wrap(std::move(inner)))));
    ++wrapped;
  });
  return wrapped;
}

}  // namespace backend
}  // namespace ltc_mlir
