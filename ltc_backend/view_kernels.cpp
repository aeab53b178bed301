// AutogradLazy kernels for view ops whose lazy behaviour differs from eager
// (see each kernel). Lazy tensors are FunctionalTensorWrappers around LTC tensors:
// views are replayed from their base through the functionalization's view
// metas, and mutations of any member of an alias group are applied to the
// base. Our kernels sit at the AutogradLazy key (above ADInplaceOrView and
// Functionalize), so they only see lazy tensors.
#include "ltc_backend/view_kernels.h"

#include <ATen/ATen.h>
#include <ATen/core/dispatch/Dispatcher.h>
#include <ATen/InferSize.h>
#include <ATen/TensorUtils.h>
#include <c10/core/MemoryFormat.h>
#include <ATen/FunctionalStorageImpl.h>
#include <ATen/FunctionalTensorWrapper.h>
#include <ATen/core/LegacyTypeDispatch.h>
#include <torch/csrc/autograd/custom_function.h>
#include <torch/csrc/autograd/variable.h>
#include <torch/csrc/lazy/core/tensor.h>
#include <torch/library.h>

#include <memory>
#include <vector>

#include "ltc_backend/eager_layout.h"
#include "ltc_backend/lazy_kernels/kernel_table.h"
#include "ltc_backend/lazy_kernels/lazy_kernels.h"

namespace ltc_mlir {
namespace backend {
namespace {

// detach of a functionalized view: returns the functionalization's own
// result (a view wrapper with v's view metas plus detach) with what
// ADInplaceOrView would give it: self's version counter, metadata frozen, no
// autograd meta. Values of detached views are right without it on torch
// 2.14; what needs it is RememberDetachedView: as_strided of a detached view
// addresses the base's storage as in eager
// (test_as_strided_of_a_detached_view_addresses_the_base_storage).
at::Tensor DetachLazy(c10::DispatchKeySet ks, const at::Tensor& self) {
  // The base of an alias group is right as torch makes it (and cheaper:
  // the copy shares the base's value, a synced tensor is read directly).
  if (!IsFunctionalView(self))
    return at::_ops::detach::redispatch(RegularAutogradKeys(ks), self);
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
  RememberDetachedView(out, self);  // as_strided of `out` addresses self's storage
  return out;
}

// Identity forward; the gradient keeps only the storage locations of a view
// (eager's as_strided of a view sends gradient to the base only through the
// view). Built from ops LTC has kernels for (where has none).
class RestrictGradToView : public torch::autograd::Function<RestrictGradToView> {
 public:
  static at::Tensor forward(torch::autograd::AutogradContext* ctx, const at::Tensor& storage,
                            const ViewGeometry& view) {
    ctx->saved_data["sizes"] = view.sizes;
    ctx->saved_data["strides"] = view.strides;
    ctx->saved_data["offset"] = view.offset;
    return storage.clone();
  }
  static torch::autograd::variable_list backward(torch::autograd::AutogradContext* ctx,
                                                 torch::autograd::variable_list grads) {
    std::vector<int64_t> sizes = ctx->saved_data["sizes"].toIntVector();
    std::vector<int64_t> strides = ctx->saved_data["strides"].toIntVector();
    int64_t offset = ctx->saved_data["offset"].toInt();
    const at::Tensor& grad = grads[0];
    at::Tensor in_view = at::as_strided(grad, sizes, strides, offset);
    return {at::as_strided_scatter(at::zeros_like(grad), in_view, sizes, strides, offset),
            at::Tensor()};
  }
};

bool IsExpanded(const ViewGeometry& view) {
  for (size_t d = 0; d < view.sizes.size(); ++d)
    if (view.sizes[d] > 1 && view.strides[d] == 0) return true;
  return false;
}

// as_strided: eager addresses the storage of the tensor, which for a view is
// its base's storage, laid out as eager would lay it out. Functionalization
// records `as_strided_copy(<the view's value>)` instead, a fresh row-major
// copy of the view: over `x.t()` the elements are taken in the wrong order,
// an explicit storage offset counts from the view instead of the base, and
// the bounds are checked against the view's size. Here the op is applied to
// the base (autograd's view base), after a permute_copy into eager's
// storage order when that is not row-major (channels-last); the default
// offset is the view's offset in eager (PlaceView). In eager the gradient
// reaches the base only through the view, so storage locations outside the
// view get none (RestrictGradToView).
at::Tensor AsStridedLazy(c10::DispatchKeySet ks, const at::Tensor& self, c10::SymIntArrayRef size,
                         c10::SymIntArrayRef stride, std::optional<c10::SymInt> storage_offset) {
  ViewOrigin origin = FindViewOrigin(self);
  const at::Tensor& base = origin.base;
  const auto& view_fn = origin.view_fn;
  std::vector<int64_t> base_strides = EagerStrides(base);
  std::vector<int64_t> order = StorageOrder(base.sizes(), base_strides);
  if (!view_fn && order.empty())
    return at::_ops::as_strided::redispatch(RegularAutogradKeys(ks), self, size, stride, storage_offset);

  ViewGeometry view;
  if (view_fn) view = PlaceView(view_fn, base, base_strides, self.sizes());
  // An expanded view (a stride-0 dim) whose as_strided reaches beyond its
  // base's storage: eager code getting there has called contiguous() first
  // (autograd's as_strided_scatter backward on the expanded gradient of
  // sum()), which in C++ skips the dispatcher for a lazy tensor (it says it
  // is contiguous) where eager copies. Addressing the base's storage raised
  // "setStorage: ... out of bounds"; the view's own values are what the copy
  // holds. (Within the storage, eager's as_strided of the expanded view
  // itself is taken, as for any view.)
  if (view_fn && IsExpanded(view)) {
    int64_t reach = storage_offset ? storage_offset->expect_int() : view.offset;
    bool empty = false;
    for (size_t d = 0; d < size.size(); ++d) {
      int64_t n = size[d].expect_int();
      if (n == 0) empty = true;
      reach += (n - 1) * stride[d].expect_int();
    }
    if (!empty && reach >= base.numel())
      return at::_ops::as_strided::redispatch(RegularAutogradKeys(ks), self, size, stride,
                                              storage_offset);
  }
  // Row-major copy of the base in eager's storage order (not a view, so
  // the call below takes the regular path).
  at::Tensor storage = order.empty() ? base : at::permute_copy(base, order);
  if (view_fn && !view.covers_storage && at::GradMode::is_enabled() && base.requires_grad())
    storage = RestrictGradToView::apply(storage, view);
  c10::SymInt offset = storage_offset ? *storage_offset : c10::SymInt(view.offset);
  return at::as_strided_symint(storage, size, stride, offset);
}

// as_strided_scatter's gradient. torch's formula for self
// (as_strided_scatter_backward) gives the gradient only at the scattered
// locations, zero elsewhere: the reverse of the right answer, which is the
// gradient everywhere except there (those values came from src). Eager CPU
// gets it wrong too; here: grad with the scattered locations zeroed for
// self, the scattered locations of grad for src.
class AsStridedScatterFunction : public torch::autograd::Function<AsStridedScatterFunction> {
 public:
  static at::Tensor forward(torch::autograd::AutogradContext* ctx, const at::Tensor& self,
                            const at::Tensor& src, c10::IntArrayRef size,
                            c10::IntArrayRef stride, std::optional<int64_t> offset) {
    ctx->saved_data["size"] = size.vec();
    ctx->saved_data["stride"] = stride.vec();
    ctx->saved_data["offset"] = offset ? c10::IValue(*offset) : c10::IValue();
    return at::as_strided_scatter(self, src, size, stride, offset);
  }
  static torch::autograd::variable_list backward(torch::autograd::AutogradContext* ctx,
                                                 torch::autograd::variable_list grads) {
    std::vector<int64_t> size = ctx->saved_data["size"].toIntVector();
    std::vector<int64_t> stride = ctx->saved_data["stride"].toIntVector();
    const c10::IValue& saved_offset = ctx->saved_data["offset"];
    std::optional<int64_t> offset;
    if (saved_offset.isInt()) offset = saved_offset.toInt();
    at::Tensor grad = grads[0].contiguous();
    at::Tensor grad_src = at::as_strided(grad, size, stride, offset).clone();
    at::Tensor grad_self =
        at::as_strided_scatter(grad, at::zeros(size, grad.options()), size, stride, offset);
    return {grad_self, grad_src, at::Tensor(), at::Tensor(), at::Tensor()};
  }
};

at::Tensor AsStridedScatterLazy(c10::DispatchKeySet ks, const at::Tensor& self,
                                const at::Tensor& src, c10::SymIntArrayRef size,
                                c10::SymIntArrayRef stride,
                                std::optional<c10::SymInt> storage_offset) {
  bool differentiable = at::GradMode::is_enabled() &&
                        (self.requires_grad() || src.requires_grad()) &&
                        self.scalar_type() == src.scalar_type();
  if (!differentiable)
    return at::_ops::as_strided_scatter::redispatch(RegularAutogradKeys(ks), self, src, size, stride,
                                                    storage_offset);
  std::optional<int64_t> offset;
  if (storage_offset) offset = storage_offset->expect_int();
  return AsStridedScatterFunction::apply(self, src, C10_AS_INTARRAYREF_SLOW(size),
                                         C10_AS_INTARRAYREF_SLOW(stride), offset);
}

// A meta tensor with self's sizes and the strides eager would give it.
at::Tensor EagerLayout(const at::Tensor& self) {
  return at::empty_strided(self.sizes(), EagerStridesOfAny(self), self.options().device(at::kMeta));
}

bool IsChannelsLastFor(std::optional<at::MemoryFormat> memory_format, int64_t rank) {
  return (memory_format == at::MemoryFormat::ChannelsLast && rank == 4) ||
         (memory_format == at::MemoryFormat::ChannelsLast3d && rank == 5);
}

// clone(memory_format=channels_last): LTC drops the memory format (the
// clone keeps the IR value), while eager's result is channels-last, which
// as_strided can see. A _to_copy keeps the format in the IR (see
// eager_layout.cpp); its values are unchanged.
//
// contiguous: lazy tensors say they are contiguous in every format, so
// the composite contiguous returned self: `x.t().contiguous()` stayed a view
// of x (writing into it changed x) and `.contiguous(memory_format=
// channels_last)` kept the layout. The decision is taken from the strides
// eager would have (Python's Tensor.contiguous, which decides before
// dispatching, is redirected here by ltc_mlir.init()).
at::Tensor CloneLazy(c10::DispatchKeySet ks, const at::Tensor& self,
                     std::optional<at::MemoryFormat> memory_format) {
  if (!IsChannelsLastFor(memory_format, self.dim()))
    return at::_ops::clone::redispatch(RegularAutogradKeys(ks), self, memory_format);
  return at::_to_copy(self, self.options(), /*non_blocking=*/false, memory_format);
}

at::Tensor ContiguousLazy(c10::DispatchKeySet ks, const at::Tensor& self,
                          at::MemoryFormat memory_format) {
  if (memory_format != at::MemoryFormat::Contiguous &&
      !IsChannelsLastFor(memory_format, self.dim()))
    return at::_ops::contiguous::redispatch(RegularAutogradKeys(ks), self, memory_format);
  if (EagerLayout(self).is_contiguous(memory_format)) return self;
  return at::clone(self, memory_format);
}

// reshape (and flatten, which calls it) decides between a view and a copy
// from the strides, and lazy tensors always look contiguous:
// `x.t().reshape(-1)` became a view of x (eager copies), so writing into
// the result changed x. reshape's composite always ends in `view` when it
// thinks it can; here `view` of a lazy view checks eager's strides and,
// where eager cannot view, returns a contiguous copy reshaped (what eager's
// reshape gives; a direct `x.t().view(-1)`, which eager rejects, gets it too,
// as the two calls cannot be told apart here).
at::Tensor ViewLazy(c10::DispatchKeySet ks, const at::Tensor& self, c10::SymIntArrayRef size) {
  if (FindViewOrigin(self).view_fn) {
    at::DimVector proposed = at::infer_size_dv(C10_AS_INTARRAYREF_SLOW(size), self.numel());
    at::Tensor eager = EagerLayout(self);
    if (!at::detail::computeStride(eager.sizes(), eager.strides(), proposed))
      return at::_unsafe_view(at::clone(self, at::MemoryFormat::Contiguous), proposed);
  }
  return at::_ops::view::redispatch(RegularAutogradKeys(ks), self, size);
}

// detach_copy and alias_copy of an LTC tensor (the values of detach and
// alias views under functionalization): LTC records a node for each, so
// reading a detached view (`loss.detach().cpu()`) ran a graph. The copy is
// a new LTC tensor holding the same device data when there is some (read
// without a graph), else the same IR value, like LTC's clone.
at::Tensor IdentityCopyLazy(const at::Tensor& self) {
  torch::lazy::LazyTensorPtr lazy = torch::lazy::TryGetLtcTensor(self);
  if (lazy) {
    if (torch::lazy::BackendDataPtr data = lazy->CurrentDataHandle())
      return torch::lazy::CreateAtenFromLtcTensor(torch::lazy::LazyTensor::Create(data));
  }
  return at::_ops::clone::redispatch(c10::DispatchKeySet(c10::DispatchKey::Lazy), self,
                                     std::nullopt);
}

// aten::copy, the value functionalization gives `self.copy_(src)`: src in
// self's dtype, broadcast to self's shape. torch 2.14's LTC has no kernel
// for it, so every copy_ into a lazy tensor (slice assignment, as_strided's
// backward, Tensor.copy_) ran on the CPU fallback and cut the graph.
at::Tensor CopyLazy(const at::Tensor& self, const at::Tensor& src, bool non_blocking) {
  at::Tensor value = src.device() == self.device() ? src : src.to(self.device(), non_blocking);
  if (value.scalar_type() != self.scalar_type()) value = value.to(self.scalar_type());
  if (!value.sizes().equals(self.sizes())) return at::expand_copy(value, self.sizes());
  // A new tensor, never src itself: functionalization installs it as self.
  return value.is_same(src) ? at::_ops::clone::redispatch(
                                  c10::DispatchKeySet(c10::DispatchKey::Lazy), value, std::nullopt)
                            : value;
}

}  // namespace

bool IsLazyFunctional(const at::TensorBase& t) {
  return t.defined() && t.device().type() == c10::DeviceType::Lazy &&
         t.key_set().has(c10::DispatchKey::Functionalize);
}

bool IsFunctionalView(const at::TensorBase& tensor) {
  if (!tensor.defined() || !tensor.key_set().has(c10::DispatchKey::Functionalize)) return false;
  auto* wrapper = static_cast<at::FunctionalTensorWrapper*>(tensor.unsafeGetTensorImpl());
  auto* storage = static_cast<at::functionalization::FunctionalStorageImpl*>(
      wrapper->storage().unsafeGetStorageImpl());
  // A base holds the group's base tensor itself (until a mutation of it is
  // applied to the group: then it counts as a view, which is only slower).
  return storage->base().unsafeGetTensorImpl() != wrapper->value().unsafeGetTensorImpl();
}

void RegisterViewKernels() {
  static auto* library = new torch::Library(torch::Library::IMPL, "aten",
                                            c10::DispatchKey::AutogradLazy, __FILE__, __LINE__);
  library->impl("detach", TORCH_FN(DetachLazy));
  library->impl("as_strided", TORCH_FN(AsStridedLazy));
  library->impl("as_strided_scatter", TORCH_FN(AsStridedScatterLazy));
  library->impl("clone", TORCH_FN(CloneLazy));
  library->impl("contiguous", TORCH_FN(ContiguousLazy));
  library->impl("view", TORCH_FN(ViewLazy));
  // These two replace LTC's own Lazy kernels on purpose: keep the
  // dispatcher's "overriding a previously registered kernel" warning quiet.
  QuietWarnings quiet;
  static auto* lazy_library = new torch::Library(torch::Library::IMPL, "aten",
                                                 c10::DispatchKey::Lazy, __FILE__, __LINE__);
  lazy_library->impl("detach_copy", TORCH_FN(IdentityCopyLazy));
  lazy_library->impl("alias_copy", TORCH_FN(IdentityCopyLazy));
  lazy_library->impl("copy", TORCH_FN(CopyLazy));
}

}  // namespace backend
}  // namespace ltc_mlir
