#include "ltc_backend/lazy_kernels/kernel_table.h"

#include <ATen/core/dispatch/OperatorEntry.h>

namespace ltc_mlir {
namespace backend {
namespace {

// OperatorHandle::operatorDef_ is private, and torch 1.13 has no public way
// to read a registered kernel. An explicit template instantiation may name a
// private member (C++17 [temp.spec]/6), and the friend function defined in
// it hands the member pointer out. The headers are the exact ones we link
// against, so the layout cannot drift.
struct OperatorDefTag {};
template <auto Member>
struct ExposeMember {
  friend constexpr auto MemberOf(OperatorDefTag) { return Member; }
};
constexpr auto MemberOf(OperatorDefTag);
template struct ExposeMember<&c10::OperatorHandle::operatorDef_>;

const c10::impl::OperatorEntry& EntryOf(const c10::OperatorHandle& op) {
  return (op.*MemberOf(OperatorDefTag{}))->op;
}

}  // namespace

c10::KernelFunction RegisteredKernel(const c10::OperatorHandle& op, c10::DispatchKey key) {
  if (!op.hasKernelForDispatchKey(key)) return c10::KernelFunction();
  return EntryOf(op).kernelForDispatchKey(key);
}

std::string OperatorFullName(const c10::OperatorHandle& op) {
  const c10::OperatorName& name = op.operator_name();
  return name.overload_name.empty() ? name.name : name.name + "." + name.overload_name;
}

}  // namespace backend
}  // namespace ltc_mlir
