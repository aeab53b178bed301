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

// stack/cat convert mixed-dtype operands to eager's promoted dtype
// (promoting_kernels.cpp): LTC's stack took the first operand's dtype.
void RegisterPromotingKernels();

// _efficientzerotensor as lazy zeros (zero_tensor_kernel.cpp): the CPU
// ZeroTensor of the eager fallback broke sgn/sign/round backward.
void RegisterZeroTensorKernel();

// one_hot with an explicit num_classes as one lazy node (one_hot_kernel.cpp):
// the decomposition synced the graph twice (.item()) and scattered eagerly.
void RegisterOneHotKernel();

// set_(source) raises (storage_ops.cpp): a lazy tensor has no storage to share.
void RegisterStorageOps();

// _to_copy of sparse/quantized/mkldnn tensors to the lazy device raises a
// clear error (to_lazy_guard.cpp).
void RegisterToLazyGuard();

// Wraps the Functionalize kernels of mutating ops (mutation_guard.cpp): a CPU
// tensor written from lazy operands is copied (copy_) or rejected like eager.
// Returns how many kernels it wrapped.
size_t InstallMutationGuard();

// Wraps every kernel registered for the Lazy key so far with the device check
// (device_guard.cpp). Call last. Returns how many kernels it wrapped.
size_t InstallLazyDeviceGuard();

}  // namespace backend
}  // namespace ltc_mlir
