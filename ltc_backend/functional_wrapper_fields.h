// functional_wrapper_fields: the private fields of torch 1.13's
// FunctionalTensorWrapper that our kernels must rewrite (set_ joins an alias
// group; resize_ replaces its own earlier view), reached once through
// private_member.h.
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
