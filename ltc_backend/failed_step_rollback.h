// failed_step_rollback: when a graph fails, the lazy tensors it was to
// update in place get back the value they had before the update.
//
// In eager PyTorch a failing op raises before the later in-place updates of
// the step (optimizer.step(), grad accumulation) run, so parameters and
// optimizer state keep their values and the user can go on. On the lazy
// device the whole step is one graph: the in-place kernels
// (inplace_write_kernels) call RememberValueBeforeUpdate before each update,
// which keeps the tensor's last computed value until the graph computing
// the new one has run.
#pragma once

#include <ATen/Tensor.h>

namespace ltc_mlir {
namespace backend {

// `functional_tensor` (a lazy FunctionalTensorWrapper) is about to be
// updated in place: keep its current value if it is a computed one.
void RememberValueBeforeUpdate(const at::Tensor& functional_tensor);

// The running graph computes the tensors' new values: forget the old ones.
void ForgetValuesBeforeUpdates();

// The running graph failed: the tensors whose new value it was to compute
// get their remembered value back.
void RestoreValuesBeforeUpdates();

}  // namespace backend
}  // namespace ltc_mlir
