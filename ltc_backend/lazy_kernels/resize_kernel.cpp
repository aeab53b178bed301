// resize_kernel: resize_ of a lazy tensor to at most its storage's size.
//
// Under functionalization, torch's resize_ kernel treats a resize that fits
// in the current storage as a view of the tensor's current value. On torch
// 2.14 that gives eager's values for one resize (x.resize_(5, 25) or
// (25, 5) of a 5x5x5 tensor), but growing after a shrink views the shrunken
// value ("setStorage: ... out of bounds"). Eager keeps the storage: the
// result is its first numel elements in the layout the memory format gives.
// Our kernel for the Functionalize key records that view with the right
// strides, in place of an earlier resize's view (so that shrinking then
// growing reads the storage again). A resize beyond the tensor (new
// storage) of a lazy tensor that is not a view appends zeros in the graph;
// other memory formats and non-lazy tensors keep torch's kernel.
// resize_as_ is resize_ to the template's sizes, as in eager.
#include <ATen/ATen.h>
#include <ATen/FunctionalTensorWrapper.h>
#include <torch/library.h>

#include <vector>

#include "ltc_backend/eager_layout.h"
#include "ltc_backend/functional_wrapper_fields.h"
#include "ltc_backend/lazy_kernels/kernel_table.h"
#include "ltc_backend/lazy_kernels/lazy_kernels.h"

namespace ltc_mlir {
namespace backend {
namespace {

struct ResizeOp {
  c10::OperatorHandle op;
  c10::KernelFunction torch_kernel;  // functionalization's own
};

const ResizeOp& State() {
  static const ResizeOp* state = [] {
    c10::OperatorHandle op = c10::Dispatcher::singleton().findSchemaOrThrow("aten::resize_", "");
    return new ResizeOp{op, RegisteredKernel(op, c10::DispatchKey::Functionalize)};
  }();
  return *state;
}

// The view a resize within the storage makes: the first elements of the
// tensor it was applied to, in the layout of `strides`. Not flagged
// is_as_strided: torch 2.x refuses a write through a view chain with an
// as_strided past its first link (an as_strided addresses its base's
// storage, which does not compose), and `x[1].resize_(2)` then `.add_(10)`
// raised that torch.compile error. Ours addresses only the row-major values
// of the tensor it was applied to (`reach <= numel` below), so it composes
// like any view.
struct ResizeView final : at::functionalization::ViewMeta {
  ResizeView(std::vector<int64_t> sizes, std::vector<int64_t> strides)
      : ViewMeta(/*has_symbolic_inputs=*/false, /*is_multi_output=*/false,
                 /*is_as_strided=*/false),
        sizes(std::move(sizes)),
        strides(std::move(strides)) {}
  at::Tensor forward(const at::Tensor& storage) override {
    return at::as_strided_copy(storage, sizes, strides);
  }
  at::Tensor reverse(const at::Tensor& base, const at::Tensor& mutated_view) override {
    return at::as_strided_scatter(base, mutated_view, sizes, strides);
  }
  std::vector<int64_t> sizes, strides;
};

// Drops self's last view when it is an earlier resize's, so that self is
// again the tensor that resize was applied to.
void UndoResizeView(at::FunctionalTensorWrapper* wrapper) {
  std::vector<std::shared_ptr<at::functionalization::ViewMeta>>& metas = ViewMetasOf(wrapper);
  if (metas.empty() || dynamic_cast<ResizeView*>(metas.back().get()) == nullptr) return;
  metas.pop_back();
  wrapper->regenerate_from_base();
}

bool IsRowMajor(at::IntArrayRef sizes, at::IntArrayRef strides) {
  int64_t expected = 1;
  for (int64_t d = static_cast<int64_t>(sizes.size()) - 1; d >= 0; --d) {
    if (sizes[d] == 1) continue;
    if (strides[d] != expected) return false;
    expected *= sizes[d];
  }
  return true;
}

const at::Tensor& ResizeFunctionalize(c10::DispatchKeySet ks, const at::Tensor& self,
                                      c10::SymIntArrayRef size,
                                      std::optional<at::MemoryFormat> memory_format) {
  const ResizeOp& state = State();
  auto call_torch = [&]() -> const at::Tensor& {
    return state.torch_kernel.call<const at::Tensor&, const at::Tensor&, c10::SymIntArrayRef,
                                   std::optional<at::MemoryFormat>>(state.op, ks, self, size,
                                                                    memory_format);
  };
  if (!self.device().is_lazy() || !at::functionalization::impl::isFunctionalTensor(self))
    return call_torch();
  std::vector<int64_t> sizes = C10_AS_INTARRAYREF_SLOW(size).vec();
  for (int64_t s : sizes)
    TORCH_CHECK(s >= 0, "Trying to create tensor with negative dimension ", s, ": ", sizes);
  if (!memory_format && self.sizes() == c10::IntArrayRef(sizes)) return self;  // eager: no-op
  at::functionalization::impl::sync(self);
  at::FunctionalTensorWrapper* wrapper = at::functionalization::impl::unsafeGetFunctionalWrapper(self);
  UndoResizeView(wrapper);
  // Our values are row-major; eager's resize_ addresses storage. Both agree
  // when self is row-major in eager's storage and the new layout stays
  // within self (a view's storage beyond the view, or a permuted layout,
  // would need the base's storage order: refused rather than guessed).
  const bool row_major = IsRowMajor(self.sizes(), EagerStridesOfAny(self));
  const bool is_view = !ViewMetasOf(wrapper).empty();
  // The new layout: contiguous in the requested memory format (eager's
  // resize_ restrides the same way).
  at::MemoryFormat format = memory_format.value_or(at::MemoryFormat::Contiguous);
  std::vector<int64_t> strides =
      at::empty(sizes, at::TensorOptions().device(at::kMeta).memory_format(format)).strides().vec();
  int64_t reach = 1;  // elements the new layout reaches
  for (size_t d = 0; d < sizes.size(); ++d) {
    if (sizes[d] == 0) reach = 0;
    if (reach) reach += (sizes[d] - 1) * strides[d];
  }
  TORCH_CHECK(row_major,
              "resize_ of this lazy tensor is not supported: its elements are not in row-major "
              "order in storage (e.g. a transposed view). Call .contiguous() first.");
  TORCH_CHECK(reach <= self.numel() || !is_view,
              "resize_ of this lazy view to more elements than it has is not supported: they "
              "would come from its base's storage. Call .clone() first.");
  if (reach > self.numel()) {
    if (format != at::MemoryFormat::Contiguous) return call_torch();
    // A new storage with self's elements first. Eager leaves the rest
    // uninitialised; here they are zeros (Rprop's grad.new().resize_as_(grad)
    // .fill_(lr) no longer runs an eager op per parameter).
    at::Tensor value = at::functionalization::impl::from_functional_tensor(self);
    at::Tensor grown;
    {
      at::AutoDispatchSkipFunctionalize guard;
      // Below functionalization only the _copy variants of views exist.
      grown = at::view_copy(
          at::cat({at::view_copy(value, {value.numel()}),
                   at::zeros({c10::multiply_integers(sizes) - value.numel()}, value.options())}),
          sizes);
    }
    at::functionalization::impl::replace_(self, grown);
    at::functionalization::impl::commit_update(self);
    at::functionalization::impl::sync(self);
    return self;
  }
  wrapper->mutate_view_meta(std::make_shared<ResizeView>(sizes, strides));
  return self;
}

// resize_as_(self, the_template, memory_format) as eager's: resize_ to the
// template's sizes. Functionalization's own kernel ran resize_as_ below it,
// on the unwrapped lazy tensor, where resize_ has no Lazy kernel (the eager
// fallback, even for a same-size resize).
const at::Tensor& ResizeAsFunctionalize(c10::DispatchKeySet ks, const at::Tensor& self,
                                        const at::Tensor& the_template,
                                        std::optional<at::MemoryFormat> memory_format) {
  static const c10::OperatorHandle op =
      c10::Dispatcher::singleton().findSchemaOrThrow("aten::resize_as_", "");
  static const c10::KernelFunction torch_kernel =
      RegisteredKernel(op, c10::DispatchKey::Functionalize);
  if (!self.device().is_lazy() || !at::functionalization::impl::isFunctionalTensor(self))
    return torch_kernel.call<const at::Tensor&, const at::Tensor&, const at::Tensor&,
                             std::optional<at::MemoryFormat>>(op, ks, self, the_template,
                                                              memory_format);
  if (memory_format == at::MemoryFormat::Preserve)
    memory_format = the_template.suggest_memory_format();
  return ResizeFunctionalize(ks, self, c10::fromIntArrayRefSlow(the_template.sizes()),
                             memory_format);
}

}  // namespace

void RegisterResizeKernel() {
  TORCH_CHECK(State().torch_kernel.isValid(),
              "ltc_mlir: functionalization's resize_ kernel must be registered first");
  static torch::Library* lib = new torch::Library(torch::Library::IMPL, "aten",
                                                  c10::DispatchKey::Functionalize, __FILE__,
                                                  __LINE__);
  QuietWarnings quiet;  // we override functionalization's kernel on purpose
  lib->impl("resize_", TORCH_FN(ResizeFunctionalize));
  lib->impl("resize_as_", TORCH_FN(ResizeAsFunctionalize));
}

}  // namespace backend
}  // namespace ltc_mlir
