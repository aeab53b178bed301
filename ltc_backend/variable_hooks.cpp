// `Tensor.data` does not go through the dispatcher: it calls autograd's
// VariableHooks::variable_data, a shallow copy of the TensorImpl. Here
// variable_data of a lazy view (a FunctionalTensorWrapper) is an alias made
// by the functionalization instead (the view metas plus alias), with what
// variable_data gives: no autograd meta, a fresh version counter, metadata
// frozen. It guards against a shallow copy that drops the view metas (as
// with detach, view_kernels.cpp); on torch 2.14 the TS backend gets
// `v = x[:, 1]; v.mul_(2); v.data` right without it. `p.data = q` is fixed
// in set_data below. Every other hook is autograd's own.
#include "ltc_backend/variable_hooks.h"

#include "ltc_backend/view_kernels.h"

#include <ATen/ATen.h>
#include <ATen/FunctionalTensorWrapper.h>
#include <ATen/core/LegacyTypeDispatch.h>
#include <ATen/core/VariableHooksInterface.h>
#include <c10/core/impl/LocalDispatchKeySet.h>

namespace ltc_mlir {
namespace backend {
namespace {

class LazyAliasVariableHooks : public at::impl::VariableHooksInterface {
 public:
  explicit LazyAliasVariableHooks(at::impl::VariableHooksInterface* autograd)
      : autograd_(autograd) {}

  at::TensorBase variable_data(const at::TensorBase& self) const override {
    if (!IsLazyFunctional(self) || !IsFunctionalView(self) ||
        c10::impl::tls_is_dispatch_key_excluded(c10::DispatchKey::Functionalize))
      return autograd_->variable_data(self);
    at::Tensor alias;
    {
      at::AutoDispatchBelowADInplaceOrView guard;
      alias = at::_ops::alias::call(at::Tensor(at::TensorBase(self)));
    }
    if (alias.unsafeGetTensorImpl() == self.unsafeGetTensorImpl())
      return autograd_->variable_data(self);
    alias.unsafeGetTensorImpl()->set_allow_tensor_metadata_change(false);
    return alias;
  }

  at::TensorBase tensor_data(const at::TensorBase& self) const override {
    return autograd_->tensor_data(self);
  }
  const c10::intrusive_ptr<torch::autograd::Node>& grad_fn(const at::TensorBase& self) const override {
    return autograd_->grad_fn(self);
  }
  unsigned _register_hook(const at::TensorBase& self,
                          std::function<at::TensorBase(const at::TensorBase&)> hook) const override {
    return autograd_->_register_hook(self, std::move(hook));
  }
  void remove_hook(const at::TensorBase& self, unsigned pos) const override {
    autograd_->remove_hook(self, pos);
  }
  bool is_view(const at::TensorBase& self) const override { return autograd_->is_view(self); }
  const at::TensorBase& base(const at::TensorBase& self) const override {
    return autograd_->base(self);
  }
  const std::string& name(const at::TensorBase& self) const override {
    return autograd_->name(self);
  }
  bool is_leaf(const at::TensorBase& self) const override { return autograd_->is_leaf(self); }
  int64_t output_nr(const at::TensorBase& self) const override {
    return autograd_->output_nr(self);
  }
  // `p.data = q`: autograd's set_data shallow-copies q's TensorImpl into
  // p's, which for a FunctionalTensorWrapper moves the storage but keeps
  // p's old value, which would leave a lazy p unchanged (torch 2.14's TS
  // backend does update it: `p.data = q` gives q's values). Here p gets a
  // new alias group holding q's current value (views taken of p before keep
  // the old data, as in eager; later in-place ops on q are not seen by p,
  // unlike eager's shared storage). autograd's set_data still runs for its
  // checks and gradient-accumulator reset.
  void set_data(const at::TensorBase& self, const at::TensorBase& new_data) const override {
    if (!IsLazyFunctional(self) || !IsLazyFunctional(new_data))
      return autograd_->set_data(self, new_data);
    TORCH_CHECK(!autograd_->is_view(self),
                "ltc_mlir: assigning `.data` of a view of a lazy tensor is not supported "
                "(torch 1.13's functionalization cannot rebind a view): assign to its base, "
                "or write the values with view.copy_(value)");
    at::Tensor fresh;
    {
      at::AutoDispatchBelowADInplaceOrView guard;
      fresh = at::_ops::clone::call(at::Tensor(at::TensorBase(new_data)), std::nullopt);
    }
    autograd_->set_data(self, fresh);
    at::Tensor value = at::functionalization::impl::from_functional_tensor(fresh);
    fresh.reset();  // p now holds the only reference to that storage
    at::Tensor target{at::TensorBase(self)};
    at::functionalization::impl::unsafeGetFunctionalWrapper(target)->maybe_replace_storage(value);
  }
  at::TensorBase data(const at::TensorBase& self) const override { return autograd_->data(self); }
  int64_t _version(const at::TensorBase& self) const override { return autograd_->_version(self); }
  void retain_grad(const at::TensorBase& self) const override { autograd_->retain_grad(self); }
  bool retains_grad(const at::TensorBase& self) const override {
    return autograd_->retains_grad(self);
  }
  void _backward(const at::Tensor& self, at::TensorList inputs,
                 const std::optional<at::Tensor>& gradient, std::optional<bool> keep_graph,
                 bool create_graph) const override {
    autograd_->_backward(self, inputs, gradient, keep_graph, create_graph);
  }
  void requires_grad_(const at::TensorBase& self, bool requires_grad) const override {
    autograd_->requires_grad_(self, requires_grad);
  }
  void basic_autograd_not_implemented_fallback(const c10::OperatorHandle& op,
                                               c10::DispatchKeySet keys,
                                               torch::jit::Stack* stack) const override {
    autograd_->basic_autograd_not_implemented_fallback(op, keys, stack);
  }
  std::optional<c10::ScalarType> grad_dtype(const at::TensorBase& self) const override {
    return autograd_->grad_dtype(self);
  }
  void set_grad_dtype(const at::TensorBase& self,
                      const std::optional<c10::ScalarType>& dtype) const override {
    autograd_->set_grad_dtype(self, dtype);
  }

 private:
  at::impl::VariableHooksInterface* autograd_;
};

}  // namespace

void InstallVariableHooks() {
  static LazyAliasVariableHooks* hooks = new LazyAliasVariableHooks(at::impl::GetVariableHooks());
  at::impl::SetVariableHooks(hooks);
}

}  // namespace backend
}  // namespace ltc_mlir
