// AutogradLazy kernels for view ops whose torch 1.13 lazy behaviour differs
// from eager. Lazy tensors are FunctionalTensorWrappers around LTC tensors:
// views are replayed from their base through the functionalization's view
// metas, and mutations of any member of an alias group are applied to the
// base. Our kernels sit at the AutogradLazy key (above ADInplaceOrView and
// Functionalize), so they only see lazy tensors.
#include "ltc_backend/view_kernels.h"

#include <ATen/ATen.h>
#include <ATen/FunctionalTensorWrapper.h>
#include <ATen/core/LegacyTypeDispatch.h>
#include <torch/csrc/autograd/variable.h>
#include <torch/library.h>

#include <memory>

namespace ltc_mlir {
namespace backend {
namespace {

// detach: in torch 1.13, ADInplaceOrView's detach returns a shallow copy of
// the functionalization's result (make_variable_non_differentiable_view).
// FunctionalTensorWrapper's shallow copy keeps the storage (the alias group
// of the base) but not the view metas, so once a member of the group has
// been mutated, syncing the copy regenerates it from the base with no view
// applied: after `v = x[:, 1]; v.mul_(2)`, `v.detach().cpu()` had x's shape
// and values. The functionalization's own result is a correct view wrapper
// (v's view metas plus detach); it is returned with what ADInplaceOrView
// would give it: self's version counter, metadata frozen, no autograd meta.
at::Tensor DetachLazy(c10::DispatchKeySet ks, const at::Tensor& self) {
  at::Tensor out;
  {
    at::AutoDispatchBelowADInplaceOrView guard;
    out = at::_ops::detach::redispatch(ks & c10::after_ADInplaceOrView_keyset, self);
  }
  if (!at::functionalization::impl::isFunctionalTensor(out) ||
      out.unsafeGetTensorImpl() == self.unsafeGetTensorImpl()) {
    // Not functionalized (or the same impl): what torch does.
    return torch::autograd::make_variable_non_differentiable_view(
        self, out, /*allow_tensor_metadata_change=*/false);
  }
  torch::autograd::impl::set_version_counter(out, torch::autograd::impl::version_counter(self));
  out.unsafeGetTensorImpl()->set_allow_tensor_metadata_change(false);
  return out;
}

}  // namespace

void RegisterViewKernels() {
  static auto* library = new torch::Library(torch::Library::IMPL, "aten",
                                            c10::DispatchKey::AutogradLazy, __FILE__, __LINE__);
  library->impl("detach", TORCH_FN(DetachLazy));
}

}  // namespace backend
}  // namespace ltc_mlir
