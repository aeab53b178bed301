// lazy_kernels: our own kernels for the Lazy dispatch key, fixing torch 1.13
// lazy-tensor bugs that abort the process or corrupt state. InitBackend()
// (backend_impl.cpp) calls these in this order.
#pragma once

#include <cstddef>

namespace ltc_mlir {
namespace backend {

// Boxed fallback for ops without a Lazy kernel (eager_fallback.cpp). Must be
// the first fallback registered for the Lazy key (in place of LTC's).
void RegisterLazyEagerFallback();

// split/chunk/unbind/split_with_sizes and their unsafe_ variants as lazy
// slices (split_kernels.cpp): LTC has no kernel and the fallback returned
// the pieces on the CPU.
void RegisterSplitKernels();

// native_batch_norm whose running-stat update is ordinary lazy ops
// (batch_norm_kernel.cpp): LTC's lowering updated them once per graph run.
void RegisterBatchNormKernel();

// Wraps every kernel registered for the Lazy key so far with the device check
// (device_guard.cpp). Call last. Returns how many kernels it wrapped.
size_t InstallLazyDeviceGuard();

}  // namespace backend
}  // namespace ltc_mlir
