// private_member: reading a private data member of torch's headers, which
// keep some state (the kernels registered per key, a functional tensor's
// view chain and generation) private with no accessor that does what we
// need (FunctionalTensorWrapper::view_metas() is read-only).
//
// An explicit template instantiation may name a private member (C++17
// [temp.spec]/6); the friend function defined in it hands the member pointer
// out. The headers are the exact ones we link against, so the layout cannot
// drift. Use, at namespace ltc_mlir::backend scope (the instantiation must be
// in the template's namespace, and MemberOf is found there):
//   struct FieldTag {};
//   constexpr auto MemberOf(FieldTag);
//   template struct ExposePrivateMember<FieldTag, &Class::field_>;
//   object.*MemberOf(FieldTag{})
#pragma once

namespace ltc_mlir {
namespace backend {

template <typename Tag, auto Member>
struct ExposePrivateMember {
  friend constexpr auto MemberOf(Tag) { return Member; }
};

}  // namespace backend
}  // namespace ltc_mlir
