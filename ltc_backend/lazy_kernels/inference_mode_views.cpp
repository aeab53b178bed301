// inference_mode_views: views of normal lazy tensors under torch.inference_mode().
//
// In eager, a view of a normal tensor taken in inference mode is a normal
// tensor: the view's TensorImpl copies its base's dispatch keys. A lazy view
// is a new FunctionalTensorWrapper around a new LTC tensor, both built by the
// ordinary TensorImpl constructor, which in inference mode drops the autograd
// keys: the view became an inference tensor, and ADInplaceOrView, sharing
// the base's version counter with it, failed with "Cannot set version_counter
// for inference tensor". Every F.linear (through t()), indexing or reshape of
// a model's weights failed; torch 2.14's TorchScript backend fails the same
// way on indexing and reshape.
//
// The Functionalize kernel of every view op is wrapped: when inference mode
// is on and a lazy operand is a normal tensor, the kernel runs with the
// inference flag cleared (grad mode stays off, the dispatch keys excluded by
// inference mode stay excluded), so the view is built as a normal tensor,
// as eager's is. Views of inference tensors stay inference tensors.
#include <ATen/ATen.h>
#include <ATen/FunctionalTensorWrapper.h>
#include <c10/core/AutogradState.h>
#include <c10/core/InferenceMode.h>
#include <torch/library.h>

#include "ltc_backend/lazy_kernels/kernel_table.h"
#include "ltc_backend/lazy_kernels/lazy_kernels.h"

namespace ltc_mlir {
namespace backend {
namespace {

// View ops return `Tensor(a)` (or `Tensor(a)[]`): an alias that is not written.
bool ReturnsView(const c10::FunctionSchema& schema) {
  for (const c10::Argument& ret : schema.returns())
    if (const c10::AliasInfo* alias = ret.alias_info()) return !alias->isWrite();
  return false;
}

bool HasNormalLazyOperand(const c10::OperatorHandle& op, const torch::jit::Stack& stack) {
  const size_t n = op.schema().arguments().size();
  for (size_t i = stack.size() - n; i < stack.size(); ++i) {
    if (!stack[i].isTensor()) continue;
    const at::Tensor& t = stack[i].toTensor();
    if (t.defined() && t.device().is_lazy() && !t.is_inference()) return true;
  }
  return false;
}

class NormalViewsInInferenceMode final : public c10::OperatorKernel {
 public:
  explicit NormalViewsInInferenceMode(c10::KernelFunction inner) : inner_(std::move(inner)) {}

  void operator()(const c10::OperatorHandle& op, c10::DispatchKeySet keys,
                  torch::jit::Stack* stack) {
    if (!c10::InferenceMode::is_enabled() || !HasNormalLazyOperand(op, *stack))
      return inner_.callBoxed(op, keys, stack);
    struct RestoreOnExit {
      c10::AutogradState saved = c10::AutogradState::get_tls_state();
      ~RestoreOnExit() { c10::AutogradState::set_tls_state(saved); }
    } restore;
    c10::AutogradState::set_tls_state(c10::AutogradState(
        /*grad_mode=*/false, /*inference_mode=*/false, /*fw_grad_mode=*/false,
        /*multithreading_enabled=*/restore.saved.get_multithreading_enabled()));
    inner_.callBoxed(op, keys, stack);
  }

 private:
  c10::KernelFunction inner_;
};

}  // namespace

size_t InstallInferenceModeViewFix() {
  static torch::Library* lib = new torch::Library(
      torch::Library::IMPL, "aten", c10::DispatchKey::Functionalize, __FILE__, __LINE__);
  return WrapFunctionalizeKernels(
      *lib, ReturnsView, [](c10::KernelFunction inner) -> BoxedKernel {
        return NormalViewsInInferenceMode(std::move(inner));
      });
}

}  // namespace backend
}  // namespace ltc_mlir
