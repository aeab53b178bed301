// collectives_guard: torch.distributed collectives on lazy tensors raise
// NotImplementedError instead of returning the tensor unreduced (see
// collectives_guard.cpp).
#pragma once

#include <ATen/core/dispatch/Dispatcher.h>

namespace ltc_mlir {
namespace backend {

// A c10d or _c10d_functional op (the eager fallback asks).
bool IsCollective(const c10::OperatorHandle& op);
// Raises NotImplementedError naming the op and what to do instead.
[[noreturn]] void RejectCollective(const c10::OperatorHandle& op);
// Lazy kernels that raise for the functional collectives, whose
// CompositeExplicitAutograd kernels would return their input unreduced.
void RegisterCollectivesGuard();

}  // namespace backend
}  // namespace ltc_mlir
