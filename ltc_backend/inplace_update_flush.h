// inplace_update_flush: keeps in-place updates of lazy tensors from piling up.
//
// Every lazy tensor is a FunctionalTensorWrapper. An in-place op (zero_,
// add_, an optimizer update) gives the wrapper a new value and queues that
// value on the wrapper's FunctionalStorageImpl for aliases (views) to replay
// until a sync applies it. This guards against the queue of a tensor that is
// mutated but never viewed again (a gradient zeroed and accumulated into, a
// momentum buffer, a bias) keeping every step's value alive. On torch 2.14
// the TS backend's live LTC tensor count stays flat over such steps without
// this kernel.
//
// For the lazy autograd key we register a boxed kernel on every ATen op that
// writes a tensor argument: it runs the op's usual autograd kernel, then
// applies the queued updates of the written tensors right away
// (FunctionalTensorWrapper::apply_updates), which is what the next sync of an
// alias would have done. Before the op it lets failed_step_rollback keep
// the tensors' current values. zero_ becomes fill_(0) (see the .cpp).
#pragma once

namespace ltc_mlir {
namespace backend {

// Idempotent. Call after LTC's own kernels are registered: ops that already
// have a kernel for the lazy autograd key keep it.
void RegisterInplaceUpdateFlush();

}  // namespace backend
}  // namespace ltc_mlir
