// mutation_guard: a CPU tensor written by an op with lazy operands
// (`cpu.copy_(lazy)`, `cpu.add_(lazy)`, `torch.add(a, b, out=cpu)`).
//
// Lazy tensors are functionalization wrappers, so such ops stop in the
// Functionalize kernels, which fail an internal assert ("mutating a
// non-functional tensor with a functional tensor is not allowed"). Eager
// copies across devices and rejects other cross-device writes; so do we:
// copy_ reads the lazy source back to the destination's device, every other
// mutating op raises the device-mismatch error.
#include <ATen/ATen.h>
#include <ATen/FunctionalTensorWrapper.h>
#include <torch/library.h>

#include "ltc_backend/lazy_kernels/kernel_table.h"
#include "ltc_backend/lazy_kernels/lazy_kernels.h"
#include "ltc_backend/view_kernels.h"

namespace ltc_mlir {
namespace backend {
namespace {

bool Writes(const c10::Argument& arg) {
  return arg.alias_info() != nullptr && arg.alias_info()->isWrite();
}

struct CrossDeviceWrite {
  size_t written_arg;
  at::Tensor written;
  at::Tensor lazy_operand;
};

std::optional<CrossDeviceWrite> FindCrossDeviceWrite(const c10::OperatorHandle& op,
                                                     const torch::jit::Stack& stack) {
  const auto& args = op.schema().arguments();
  const size_t n = args.size();
  std::optional<size_t> written;
  at::Tensor lazy_operand;
  for (size_t i = 0; i < n; ++i) {
    const c10::IValue& v = stack[stack.size() - n + i];
    if (v.isTensor()) {
      const at::Tensor& t = v.toTensor();
      if (!t.defined()) continue;
      if (IsLazyFunctional(t)) {
        if (!lazy_operand.defined()) lazy_operand = t;
      } else if (Writes(args[i]) && !at::functionalization::impl::isFunctionalTensor(t) &&
                 !written) {
        written = i;
      }
    } else if (v.isTensorList() || v.isOptionalTensorList()) {
      for (const c10::IValue& e : v.toListRef())
        if (e.isTensor() && IsLazyFunctional(e.toTensor()) && !lazy_operand.defined())
          lazy_operand = e.toTensor();
    }
  }
  if (!written || !lazy_operand.defined()) return std::nullopt;
  return CrossDeviceWrite{*written, stack[stack.size() - n + *written].toTensor(), lazy_operand};
}

class MutationDeviceCheck final : public c10::OperatorKernel {
 public:
  explicit MutationDeviceCheck(c10::KernelFunction inner) : inner_(std::move(inner)) {}

  void operator()(const c10::OperatorHandle& op, c10::DispatchKeySet keys,
                  torch::jit::Stack* stack) {
    std::optional<CrossDeviceWrite> bad = FindCrossDeviceWrite(op, *stack);
    if (!bad) return inner_.callBoxed(op, keys, stack);
    if (op.operator_name().name == "aten::copy_") return CopyToEager(*stack);
    TORCH_CHECK(false, "Expected all tensors to be on the same device, but found at least two "
                "devices, ", bad->lazy_operand.device(), " and ", bad->written.device(),
                "! (", OperatorFullName(op), " writes its argument '",
                op.schema().arguments()[bad->written_arg].name(), "' on ",
                bad->written.device(), " from lazy operands; move that tensor with .to(\"",
                bad->lazy_operand.device(), "\"), or the operands with .cpu())");
  }

 private:
  // copy_(Tensor(a!) self, Tensor src, bool non_blocking) with a lazy src:
  // the pending lazy value is computed, read back and copied as eager does.
  static void CopyToEager(torch::jit::Stack& stack) {
    at::Tensor self = stack[stack.size() - 3].toTensor();
    at::Tensor src = stack[stack.size() - 2].toTensor();
    bool non_blocking = stack[stack.size() - 1].toBool();
    at::functionalization::impl::sync(src);
    at::Tensor inner = at::functionalization::impl::from_functional_tensor(src);
    self.copy_(inner.to(self.device()), non_blocking);
    torch::jit::drop(stack, 3);
    torch::jit::push(stack, self);
  }

  c10::KernelFunction inner_;
};

}  // namespace

size_t InstallMutationGuard() {
  static torch::Library* lib = new torch::Library(
      torch::Library::IMPL, "aten", c10::DispatchKey::Functionalize, __FILE__, __LINE__);
  return WrapFunctionalizeKernels(
      *lib,
      [](const c10::FunctionSchema& schema) {
        const auto& args = schema.arguments();
        return std::any_of(args.begin(), args.end(), Writes);
      },
      [](c10::KernelFunction inner) -> BoxedKernel { return MutationDeviceCheck(std::move(inner)); });
}

}  // namespace backend
}  // namespace ltc_mlir
