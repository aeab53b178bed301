// Argument checks for ops whose torch 2.14 lazy shape functions fail on bad
// arguments (repeat: a "Check failed" RuntimeError, not eager's error;
// convolution with stride 0: an integer division by zero, SIGFPE) or compute
// a shape where eager raises (a kernel larger than the padded input). The
// device guard runs the eager probe when a check finds the arguments
// invalid, which raises eager's error.
#pragma once

#include <ATen/core/dispatch/Dispatcher.h>
#include <ATen/core/stack.h>

namespace ltc_mlir {
namespace backend {

// Whether the arguments of `op` on the stack are invalid (eager raises).
using InvalidArguments = bool (*)(const c10::OperatorHandle& op, const torch::jit::Stack& stack);

// The check for an op, or nullptr when it has none.
InvalidArguments FindArgumentCheck(const c10::OperatorName& name);

}  // namespace backend
}  // namespace ltc_mlir
