// torch.equal on lazy tensors inside the graph.
//
// aten::equal returns a host bool, so it must sync; without a Lazy kernel it
// ran through the eager fallback, which copies both operands to the CPU and
// compares them there (torch.cov and torch.corrcoef call it on every use).
// Here the comparison is lazy ops (eq, then all), so the sync runs one
// native graph and reads back a single bool. As eager's CPU kernel: false
// for different sizes, operands compared in their common dtype, NaN unequal.
#include <ATen/ATen.h>
#include <torch/library.h>

#include "ltc_backend/lazy_kernels/device_check.h"
#include "ltc_backend/lazy_kernels/kernel_table.h"
#include "ltc_backend/lazy_kernels/lazy_kernels.h"

namespace ltc_mlir {
namespace backend {
namespace {

void Equal(const c10::OperatorHandle& op, torch::jit::Stack* stack) {
  CheckOperandDevices(op, *stack);
  const at::Tensor self = (*stack)[stack->size() - 2].toTensor();
  const at::Tensor other = (*stack)[stack->size() - 1].toTensor();
  bool equal = self.sizes().equals(other.sizes()) &&
               (self.numel() == 0 || at::all(at::eq(self, other)).item<bool>());
  torch::jit::drop(*stack, 2);
  torch::jit::push(*stack, equal);
}

}  // namespace

void RegisterEqualKernel() {
  static torch::Library* lib = new torch::Library(torch::Library::IMPL, "aten",
                                                  c10::DispatchKey::Lazy, __FILE__, __LINE__);
  QuietWarnings quiet;
  lib->impl("equal", torch::CppFunction::makeFromBoxedFunction<&Equal>());
}

}  // namespace backend
}  // namespace ltc_mlir
