#include "ltc_backend/functional_wrapper_fields.h"

#include "ltc_backend/private_member.h"

namespace ltc_mlir {
namespace backend {

struct GenerationTag {};
constexpr auto MemberOf(GenerationTag);
template struct ExposePrivateMember<GenerationTag, &at::FunctionalTensorWrapper::generation_>;
struct ViewMetasTag {};
constexpr auto MemberOf(ViewMetasTag);
template struct ExposePrivateMember<ViewMetasTag, &at::FunctionalTensorWrapper::view_metas_>;

std::vector<std::shared_ptr<at::functionalization::ViewMeta>>& ViewMetasOf(at::FunctionalTensorWrapper* wrapper) {
  return wrapper->*MemberOf(ViewMetasTag{});
}

size_t& GenerationOf(at::FunctionalTensorWrapper* wrapper) {
  return wrapper->*MemberOf(GenerationTag{});
}

}  // namespace backend
}  // namespace ltc_mlir
