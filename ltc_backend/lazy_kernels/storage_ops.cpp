// storage_ops: ops whose meaning is sharing storage.
//
// `x.set_(y)` makes x share y's storage: later writes through either are seen
// by both. A lazy tensor has no storage, but under functionalization (which
// every lazy tensor runs under) an alias group plays that part: its members
// see each other's writes. So set_(y) moves x into y's alias group, with y's
// value, view chain and generation, as torch's functionalization does
// (FunctionalTensorWrapper::set__impl). Views of x taken before keep the
// old group, as in eager where they keep the old storage.
//
// nn.utils.parametrize (register_parametrization, remove_parametrizations)
// and parametrizations.orthogonal rely on set_. torch 2.14 runs x.set_(y)
// without this kernel, but views of x taken before then differ from eager
// and eager's errors are not raised (test_set_storage.py:
// test_earlier_views_keep_the_old_values, test_errors_are_clear;
// test_lazy_kernels.py: test_set_source_shares_writes_or_raises). The
// overloads naming a raw Storage or an offset/size/stride still raise: a
// lazy tensor's storage cannot be addressed.
#include <ATen/ATen.h>
#include <ATen/FunctionalTensorWrapper.h>
#include <torch/csrc/autograd/variable.h>
#include <torch/library.h>

#include <vector>

#include "ltc_backend/lazy_kernels/kernel_table.h"
#include "ltc_backend/lazy_kernels/lazy_kernels.h"
#include "ltc_backend/functional_wrapper_fields.h"
#include "ltc_backend/view_kernels.h"

namespace ltc_mlir {
namespace backend {

namespace {

// Moves self into source's alias group: source's storage, view chain, value
// and generation.
at::Tensor& JoinAliasGroup(at::Tensor& self, const at::Tensor& source) {
  if (self.unsafeGetTensorImpl() == source.unsafeGetTensorImpl()) return self;
  TORCH_CHECK(IsLazyFunctional(self) && IsLazyFunctional(source),
              "set_: self is on ", self.device(), " and source on ", source.device(),
              "; ltc_mlir supports set_ between two lazy tensors only. Move the source "
              "first: x.set_(y.to(x.device))");
  // Eager only asserts this (an internal assert in its Python binding).
  TORCH_CHECK(self.scalar_type() == source.scalar_type(), "set_: source has dtype ",
              source.scalar_type(), " and self ", self.scalar_type(),
              "; set_ needs one dtype: convert the source first, x.set_(y.to(x.dtype))");
  at::functionalization::impl::sync(source);
  auto* target = at::functionalization::impl::unsafeGetFunctionalWrapper(self);
  auto* origin = at::functionalization::impl::unsafeGetFunctionalWrapper(source);
  // Eager's set_ also rebinds tensors from .data / .detach(), whose metadata
  // is otherwise frozen.
  const bool allowed = target->allow_tensor_metadata_change();
  target->set_allow_tensor_metadata_change(true);
  target->set_storage_keep_dtype(origin->storage());
  target->set_allow_tensor_metadata_change(allowed);
  ViewMetasOf(target) = ViewMetasOf(origin);
  target->replace_(origin->value());
  GenerationOf(target) = GenerationOf(origin);
  return self;
}

// AutogradLazy: autograd's checks, then the version bump ADInplaceOrView
// would make.
at::Tensor& SetSourceTensorAutograd(at::Tensor& self, const at::Tensor& source) {
  if (at::GradMode::is_enabled() && (self.requires_grad() || source.requires_grad())) {
    TORCH_CHECK(!(self.is_leaf() && self.requires_grad()),
                "a leaf Variable that requires grad is being used in an in-place operation.");
    TORCH_CHECK(false, "set_ of lazy tensors that take part in autograd is not supported by "
                "ltc_mlir; call it under torch.no_grad() (as nn.utils.parametrize does)");
  }
  JoinAliasGroup(self, source);
  if (self.unsafeGetTensorImpl() != source.unsafeGetTensorImpl())
    torch::autograd::impl::bump_version(self);
  return self;
}

// Functionalize: reached without the autograd keys (torch.inference_mode()),
// after ADInplaceOrView has bumped the version. Other functionalized tensors
// (functorch's functionalize) keep torch's kernel.
class SetSourceTensorFunctionalize final : public c10::OperatorKernel {
 public:
  explicit SetSourceTensorFunctionalize(c10::KernelFunction inner) : inner_(std::move(inner)) {}

  void operator()(const c10::OperatorHandle& op, c10::DispatchKeySet keys,
                  torch::jit::Stack* stack) {
    at::Tensor self = (*stack)[stack->size() - 2].toTensor();
    const at::Tensor source = (*stack)[stack->size() - 1].toTensor();
    if (!self.device().is_lazy()) return inner_.callBoxed(op, keys, stack);
    JoinAliasGroup(self, source);
    torch::jit::drop(*stack, 2);
    torch::jit::push(*stack, self);
  }

 private:
  c10::KernelFunction inner_;
};

void RejectSharing(const c10::OperatorHandle& op, torch::jit::Stack*) {
  TORCH_CHECK(false, OperatorFullName(op), " is not supported on lazy tensors: it addresses "
              "raw storage, which lazy tensors do not have. Use x.set_(y) with a lazy "
              "tensor y, x.copy_(y) to copy values, or rebind the Python name (x = y).");
}

}  // namespace

void RegisterStorageOps() {
  static torch::Library* autograd = new torch::Library(
      torch::Library::IMPL, "aten", c10::DispatchKey::AutogradLazy, __FILE__, __LINE__);
  autograd->impl("set_.source_Tensor", TORCH_FN(SetSourceTensorAutograd));
  static torch::Library* functionalize = new torch::Library(
      torch::Library::IMPL, "aten", c10::DispatchKey::Functionalize, __FILE__, __LINE__);
  {
    QuietWarnings quiet;  // wraps functionalization's kernel on purpose
    c10::OperatorHandle set =
        c10::Dispatcher::singleton().findSchemaOrThrow("aten::set_", "source_Tensor");
    functionalize->impl("set_.source_Tensor",
                        torch::CppFunction::makeFromBoxedFunctor(
                            std::make_unique<SetSourceTensorFunctionalize>(
                                RegisteredKernel(set, c10::DispatchKey::Functionalize))));
  }
  static torch::Library* lib = new torch::Library(torch::Library::IMPL, "aten",
                                                  c10::DispatchKey::Lazy, __FILE__, __LINE__);
  // The in-place ops and the functional variants functionalization makes of them.
  for (const char* name :
       {"set_.source_Tensor", "set_.source_Storage", "set_.source_Storage_storage_offset",
        "set_.source_Tensor_storage_offset", "set.source_Tensor", "set.source_Storage",
        "set.source_Storage_storage_offset"})
    lib->impl(name, torch::CppFunction::makeFromBoxedFunction<&RejectSharing>());
}

}  // namespace backend
}  // namespace ltc_mlir
