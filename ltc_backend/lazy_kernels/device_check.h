// device_check: eager PyTorch's "all tensors on one device" rule, applied to
// an op's boxed arguments before any lazy kernel sees them.
//
// LTC's kernels read every tensor argument with torch::lazy::GetLtcTensor,
// whose glog CHECK aborts the process on a CPU tensor (or hands a CPU result
// back through the eager fallback). Checking first turns that into the
// RuntimeError eager raises for a CUDA/CPU mix.
#pragma once

#include <ATen/core/dispatch/Dispatcher.h>
#include <ATen/core/stack.h>

namespace ltc_mlir {
namespace backend {

// Returns the lazy device of the op's tensor arguments (nullopt if it has
// none). Throws "Expected all tensors to be on the same device, but found at
// least two devices, lazy:0 and cpu! ..." when a tensor lives on another
// device: CPU, or another lazy device. Allowed, as in eager: 0-dim CPU
// tensors as plain Tensor arguments (they act as scalars and LTC's kernels
// upload them), and CPU tensors inside Tensor?[] (index tensors).
std::optional<c10::Device> CheckOperandDevices(const c10::OperatorHandle& op,
                                               const torch::jit::Stack& stack);

}  // namespace backend
}  // namespace ltc_mlir
