// functional_wrapper_fields: the private fields of torch's
// FunctionalTensorWrapper that our kernels rewrite (set_ joins an alias
// group; resize_ replaces its own earlier view), reached once through
// private_member.h. torch 2.14 has no setter for them (view_metas() is
// read-only, mutate_view_meta only appends), though its public set__impl
// joins an alias group itself.
#pragma once

#include <ATen/FunctionalTensorWrapper.h>

#include <vector>

namespace ltc_mlir {
namespace backend {

// The wrapper's view chain from its storage's base.
std::vector<std::shared_ptr<at::functionalization::ViewMeta>>& ViewMetasOf(at::FunctionalTensorWrapper* wrapper);

// The storage generation the wrapper's value reflects.
size_t& GenerationOf(at::FunctionalTensorWrapper* wrapper);

}  // namespace backend
}  // namespace ltc_mlir
