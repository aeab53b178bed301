// inplace_write_kernels: an AutogradLazy kernel on every ATen op that
// writes a tensor argument.
//
// Before the op it lets failed_step_rollback remember the written tensors'
// current values, so that a step whose graph fails can be rolled back; then
// it runs the op's usual autograd kernel. zero_ becomes fill_(0) instead: LTC
// records zero_ as aten::zero(self), so every step's graph read the previous
// gradients (test_zero_grad_graph_does_not_read_the_old_gradients).
#pragma once

namespace ltc_mlir {
namespace backend {

// Idempotent. Call after LTC's own kernels are registered: ops that already
// have a kernel for the lazy autograd key keep it.
void RegisterInplaceWriteKernels();

}  // namespace backend
}  // namespace ltc_mlir
