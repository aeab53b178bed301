#include "ltc_backend/eager_layout.h"

#include <ATen/ATen.h>
#include <ATen/FunctionalTensorWrapper.h>
#include <ATen/core/LegacyTypeDispatch.h>
#include <c10/core/MemoryFormat.h>
#include <c10/util/strides.h>
#include <torch/csrc/lazy/backend/backend_interface.h>
#include <torch/csrc/autograd/variable.h>
#include <torch/csrc/lazy/core/tensor.h>

#include <algorithm>
#include <numeric>
#include <string>

namespace ltc_mlir {
namespace backend {
namespace {

std::vector<int64_t> RowMajor(at::IntArrayRef sizes) {
  c10::DimVector strides = c10::contiguous_strides(sizes);
  return std::vector<int64_t>(strides.begin(), strides.end());
}

std::vector<int64_t> FromData(const torch::lazy::BackendDataPtr& data, at::IntArrayRef sizes) {
  auto host = std::dynamic_pointer_cast<HostLayoutData>(data);
  if (host && host->host_strides().size() == sizes.size()) return host->host_strides();
  return RowMajor(sizes);
}

// `memory_format=<value>` of an LTC node's description (the generated
// ToCopy node class is not in the installed headers).
std::string MemoryFormatOf(const torch::lazy::Node* node) {
  std::string text = node->ToString();
  const std::string key = "memory_format=";
  size_t at = text.find(key);
  if (at == std::string::npos) return "";
  at += key.size();
  size_t end = text.find_first_of(", ", at);
  return text.substr(at, end == std::string::npos ? std::string::npos : end - at);
}

std::vector<int64_t> FromNode(const torch::lazy::Node* node, at::IntArrayRef sizes) {
  static const torch::lazy::OpKind to_copy(at::aten::_to_copy);
  // A chain of dtype conversions keeps the layout; a few links are plenty.
  for (int depth = 0; node && depth < 8; ++depth) {
    if (torch::lazy::BackendDataPtr data =
            torch::lazy::getBackend()->GetComputationDataFromNode(const_cast<torch::lazy::Node*>(node)))
      return FromData(data, sizes);
    if (node->op() != to_copy || node->operands().empty()) break;
    std::string format = MemoryFormatOf(node);
    if (format == "ChannelsLast3d" && sizes.size() == 5)
      return c10::get_channels_last_strides_3d(sizes);
    if (format == "ChannelsLast" && sizes.size() == 4)
      return c10::get_channels_last_strides_2d(sizes);
    if (format != "null" && format != "Preserve") break;
    node = node->operand(0).node;
  }
  return RowMajor(sizes);
}

}  // namespace

std::vector<int64_t> PreservedPermutedStrides(const at::Tensor& host) {
  if (host.numel() == 0 || host.is_contiguous() || !host.is_non_overlapping_and_dense()) return {};
  return host.strides().vec();
}

std::vector<int64_t> EagerStrides(const at::Tensor& tensor) {
  at::IntArrayRef sizes = tensor.sizes();
  at::Tensor value = at::functionalization::impl::isFunctionalTensor(tensor)
                         ? at::functionalization::impl::from_functional_tensor(tensor)
                         : tensor;
  torch::lazy::LazyTensorPtr lazy = torch::lazy::TryGetLtcTensor(value);
  if (!lazy) return RowMajor(sizes);
  if (c10::optional<at::Tensor> host = lazy->CurrentTensorData()) {
    std::vector<int64_t> strides = PreservedPermutedStrides(*host);
    return strides.empty() ? RowMajor(sizes) : strides;
  }
  if (torch::lazy::BackendDataPtr data = lazy->CurrentDataHandle()) return FromData(data, sizes);
  torch::lazy::Value ir = lazy->CurrentIrValue();
  return ir ? FromNode(ir.node.get(), sizes) : RowMajor(sizes);
}

std::vector<int64_t> StorageOrder(at::IntArrayRef sizes, at::IntArrayRef strides) {
  int64_t rank = static_cast<int64_t>(sizes.size());
  if (static_cast<int64_t>(strides.size()) != rank) return {};
  std::vector<int64_t> order(rank);
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](int64_t a, int64_t b) { return strides[a] > strides[b]; });
  // Dense: the dims in this order have row-major strides (size-1 dims aside).
  int64_t expected = 1;
  for (int64_t i = rank - 1; i >= 0; --i) {
    int64_t d = order[i];
    if (sizes[d] == 1) continue;
    if (strides[d] != expected) return {};
    expected *= sizes[d];
  }
  bool identity = true;
  for (int64_t i = 0; i < rank; ++i) identity = identity && (order[i] == i || sizes[order[i]] == 1);
  return identity ? std::vector<int64_t>{} : order;
}

ViewOrigin FindViewOrigin(const at::Tensor& tensor) {
  ViewOrigin origin{tensor, nullptr};
  auto* view = torch::autograd::impl::get_view_autograd_meta(tensor);
  if (!view || !view->has_bw_view() || !view->get_backward_view().has_view_fn()) return origin;
  const torch::autograd::ViewInfo& info = view->get_backward_view();
  if (tensor.requires_grad() && !info.base_.requires_grad()) return origin;
  // A view chained onto an output of split/unbind/chunk (multi-output
  // views carry no view_fn) gets autograd's replay function that always
  // throws ("This view is the output of a function that returns multiple
  // views"): such a view counts as its own base.
  try {
    at::AutoDispatchBelowADInplaceOrView guard;
    info.view_fn()(at::empty(info.base_.sizes(), info.base_.options().device(at::kMeta)));
  } catch (const c10::Error&) {
    return origin;
  }
  origin.base = info.base_;
  origin.view_fn = info.view_fn();
  return origin;
}

ViewGeometry PlaceView(const std::function<at::Tensor(const at::Tensor&)>& view_fn,
                       const at::Tensor& base, at::IntArrayRef base_strides,
                       at::IntArrayRef view_sizes) {
  at::Tensor meta_base =
      at::empty_strided(base.sizes(), base_strides, base.options().device(at::kMeta));
  at::Tensor view;
  {
    at::AutoDispatchBelowADInplaceOrView guard;
    view = view_fn(meta_base);
  }
  TORCH_CHECK(view.sizes() == view_sizes,
              "ltc_mlir: as_strided: replaying the view on its base gave sizes ", view.sizes(),
              " instead of ", view_sizes);
  ViewGeometry geometry{view.sizes().vec(), view.strides().vec(), view.storage_offset(), false};
  geometry.covers_storage = view.numel() == base.numel() && view.is_non_overlapping_and_dense();
  return geometry;
}


std::vector<int64_t> EagerStridesOfAny(const at::Tensor& tensor) {
  ViewOrigin origin = FindViewOrigin(tensor);
  if (!origin.view_fn) return EagerStrides(tensor);
  return PlaceView(origin.view_fn, origin.base, EagerStrides(origin.base), tensor.sizes()).strides;
}

}  // namespace backend
}  // namespace ltc_mlir
