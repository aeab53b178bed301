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
#include <mutex>
#include <numeric>
#include <set>
#include <cstdlib>
#include <string>
#include <unordered_map>

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

// Ops eager runs through TensorIterator, whose output takes the layout of
// its inputs (x.t().neg() is stored like x).
bool IsElementwise(const std::string& op) {
  static const std::set<std::string> ops = {
      "aten::neg", "aten::abs", "aten::exp", "aten::expm1", "aten::log", "aten::log1p",
      "aten::log2", "aten::log10", "aten::sqrt", "aten::rsqrt", "aten::sin", "aten::cos",
      "aten::tan", "aten::tanh", "aten::sigmoid", "aten::relu", "aten::gelu", "aten::silu",
      "aten::erf", "aten::reciprocal", "aten::sign", "aten::sgn", "aten::floor", "aten::ceil",
      "aten::round", "aten::trunc", "aten::frac", "aten::square", "aten::logical_not",
      "aten::bitwise_not", "aten::add", "aten::sub", "aten::mul", "aten::div", "aten::pow",
      "aten::maximum", "aten::minimum", "aten::fmod", "aten::remainder", "aten::atan2",
      "aten::eq", "aten::ne", "aten::lt", "aten::le", "aten::gt", "aten::ge", "aten::where",
      "aten::clamp", "aten::clamp_min", "aten::clamp_max", "aten::hardtanh", "aten::leaky_relu",
      "aten::elu", "aten::softplus", "aten::threshold", "aten::threshold_backward",
      "aten::masked_fill", "aten::lerp", "aten::addcmul", "aten::addcdiv", "aten::logical_and",
      "aten::logical_or", "aten::logical_xor", "aten::bitwise_and", "aten::bitwise_or",
      "aten::bitwise_xor", "aten::fill", "aten::isnan", "aten::nan_to_num", "aten::hardswish",
      "aten::hardsigmoid", "aten::mish", "aten::sinh", "aten::cosh", "aten::asin", "aten::acos",
      "aten::atan", "aten::asinh", "aten::acosh", "aten::atanh", "aten::exp2", "aten::lgamma",
      "aten::digamma", "aten::erfc", "aten::erfinv", "aten::sigmoid_backward",
      "aten::tanh_backward", "aten::gelu_backward", "aten::hardtanh_backward",
      "aten::silu_backward"};
  return ops.count(op) > 0;
}

// TensorIterator's dimension order (innermost first) for operands with
// these strides (ATen's reorder_dimensions): an insertion sort in which
// the first operand whose strides tell two dims apart decides.
std::vector<int64_t> IteratorOrder(at::IntArrayRef sizes,
                                   const std::vector<std::vector<int64_t>>& operand_strides) {
  int64_t rank = static_cast<int64_t>(sizes.size());
  std::vector<int64_t> perm(rank);
  for (int64_t i = 0; i < rank; ++i) perm[i] = rank - 1 - i;
  auto should_swap = [&](int64_t d0, int64_t d1) {
    for (const std::vector<int64_t>& st : operand_strides) {
      int64_t s0 = st[d0], s1 = st[d1];
      if (s0 == 0 || s1 == 0) continue;
      if (s0 < s1) return -1;
      if (s0 > s1) return 1;
      if (sizes[d0] > sizes[d1]) return 1;
    }
    return 0;
  };
  for (int64_t i = 1; i < rank; ++i) {
    int64_t d1 = i;
    for (int64_t d0 = i - 1; d0 >= 0; --d0) {
      int c = should_swap(perm[d0], perm[d1]);
      if (c > 0) {
        std::swap(perm[d0], perm[d1]);
        d1 = d0;
      } else if (c < 0) {
        break;
      }
    }
  }
  return perm;
}

std::vector<int64_t> DenseIn(const std::vector<int64_t>& inner_first, at::IntArrayRef sizes) {
  std::vector<int64_t> strides(sizes.size());
  int64_t next = 1;
  for (int64_t d : inner_first) {
    strides[d] = next;
    next *= std::max<int64_t>(sizes[d], 1);
  }
  return strides;
}

// Nodes a layout query may visit: binary ops branch, and beyond this many
// (a long chain of elementwise ops) the layout is taken as row-major.
constexpr int kLayoutVisits = 256;

std::vector<int64_t> FromNode(const torch::lazy::Node* node, at::IntArrayRef sizes, int& budget);

// The eager strides of operand `i` of `node`, sized as LTC shapes it.
std::vector<int64_t> OperandStrides(const torch::lazy::Node* node, size_t i, int& budget) {
  const torch::lazy::Output& operand = node->operand(i);
  return FromNode(operand.node, operand.node->shape(operand.index).sizes(), budget);
}

std::vector<int64_t> FromNode(const torch::lazy::Node* node, at::IntArrayRef sizes, int& budget) {
  static const torch::lazy::OpKind to_copy(at::aten::_to_copy);
  if (!node || --budget < 0) return RowMajor(sizes);
  if (torch::lazy::BackendDataPtr data =
          torch::lazy::getBackend()->GetComputationDataFromNode(node))
    return FromData(data, sizes);
  const std::string op = node->op().ToString();
  const int64_t rank = static_cast<int64_t>(sizes.size());
  if (node->op() == to_copy && !node->operands().empty()) {
    std::string format = MemoryFormatOf(node);
    if (format == "ChannelsLast3d" && rank == 5) return c10::get_channels_last_strides_3d(sizes);
    if (format == "ChannelsLast" && rank == 4) return c10::get_channels_last_strides_2d(sizes);
    if (format != "null" && format != "Preserve") return RowMajor(sizes);
    std::vector<int64_t> in = OperandStrides(node, 0, budget);
    if (static_cast<int64_t>(in.size()) != rank) return RowMajor(sizes);
    return DenseIn(IteratorOrder(sizes, {in}), sizes);
  }
  // A view node here is a materialized tensor (views themselves are placed
  // on their base, EagerStridesOfAny): x.t().contiguous() is the same node
  // as x.t(), so the view's layout cannot be followed into an elementwise
  // op either (x.t() * 1 vs x.t().contiguous() * 1): taken as row-major.
  if (IsElementwise(op)) {
    // Operands of the result's rank decide (0-dim scalars and lower-rank
    // broadcast operands do not, as their broadcast strides are 0); a
    // dense non-overlapping first operand of the result's shape gives its
    // strides as they are (TensorIterator's fast setup).
    std::vector<std::vector<int64_t>> strides;
    for (size_t i = 0; i < node->operands().size(); ++i) {
      const torch::lazy::Output& operand = node->operand(i);
      at::IntArrayRef operand_sizes = operand.node->shape(operand.index).sizes();
      if (static_cast<int64_t>(operand_sizes.size()) != rank) continue;
      std::vector<int64_t> st = OperandStrides(node, i, budget);
      for (int64_t d = 0; d < rank; ++d)
        if (operand_sizes[d] != sizes[d]) st[d] = 0;  // broadcast
      strides.push_back(std::move(st));
    }
    if (strides.empty()) return RowMajor(sizes);
    return DenseIn(IteratorOrder(sizes, strides), sizes);
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
  if (std::optional<at::Tensor> host = lazy->CurrentTensorData()) {
    std::vector<int64_t> strides = PreservedPermutedStrides(*host);
    return strides.empty() ? RowMajor(sizes) : strides;
  }
  if (torch::lazy::BackendDataPtr data = lazy->CurrentDataHandle()) return FromData(data, sizes);
  torch::lazy::Value ir = lazy->CurrentIrValue();
  int budget = kLayoutVisits;
  return ir ? FromNode(ir.node.get(), sizes, budget) : RowMajor(sizes);
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

namespace {

// Origins of detached views, by the detached tensor (validated through the
// weak pointer: an address can be reused once the tensor is gone). The
// base is held as a detached alias, no autograd graph: in eager the detached
// tensor keeps the same storage alive. Entries of tensors that are gone are
// dropped at the next detach, so a training step keeps nothing alive.
struct DetachedOrigin {
  c10::weak_intrusive_ptr<c10::TensorImpl> detached;
  ViewOrigin origin;
};
std::mutex detached_mutex;
std::unordered_map<const c10::TensorImpl*, DetachedOrigin>& DetachedOrigins() {
  static auto* origins = new std::unordered_map<const c10::TensorImpl*, DetachedOrigin>();
  return *origins;
}

std::optional<ViewOrigin> FindDetachedOrigin(const at::Tensor& tensor) {
  std::lock_guard<std::mutex> lock(detached_mutex);
  auto& origins = DetachedOrigins();
  auto it = origins.find(tensor.unsafeGetTensorImpl());
  if (it == origins.end()) return std::nullopt;
  if (it->second.detached.lock().get() != tensor.unsafeGetTensorImpl()) {
    origins.erase(it);
    return std::nullopt;
  }
  return it->second.origin;
}

}  // namespace

void RememberDetachedView(const at::Tensor& detached, const at::Tensor& source) {
  ViewOrigin origin = FindViewOrigin(source);
  if (!origin.view_fn) return;
  origin.base = origin.base.detach();
  std::lock_guard<std::mutex> lock(detached_mutex);
  auto& origins = DetachedOrigins();
  for (auto it = origins.begin(); it != origins.end();)
    it = it->second.detached.expired() ? origins.erase(it) : std::next(it);
  origins.insert_or_assign(
      detached.unsafeGetTensorImpl(),
      DetachedOrigin{c10::weak_intrusive_ptr<c10::TensorImpl>(detached.getIntrusivePtr()),
                     std::move(origin)});
}

ViewOrigin FindViewOrigin(const at::Tensor& tensor) {
  ViewOrigin origin{tensor, nullptr};
  auto* view = torch::autograd::impl::get_view_autograd_meta(tensor);
  if (!view || !view->has_bw_view() || !view->get_backward_view().has_view_fn()) {
    if (std::optional<ViewOrigin> detached = FindDetachedOrigin(tensor)) return *detached;
    return origin;
  }
  const torch::autograd::ViewInfo& info = view->get_backward_view();
  if (tensor.requires_grad() && !info.base_.requires_grad()) return origin;
  // A view chained onto an output of split/unbind/chunk (multi-output
  // views carry no view_fn) gets autograd's replay function that always
  // throws ("This view is the output of a function that returns multiple
  // views"): such a view counts as its own base. Its creation meta says so
  // without the throw, whose backtrace capture (c10::Error) cost ~40% of a
  // nanoGPT step's tracing (q, k, v = split(...) then view).
  if (view->get_creation_meta() == torch::autograd::CreationMeta::MULTI_OUTPUT_NODE)
    return origin;
  try {
    at::AutoDispatchBelowADInplaceOrView guard;
    info.view_fn()(at::empty(info.base_.sizes(), info.base_.options().device(at::kMeta)));
  } catch (const c10::Error&) {
    return origin;
  }
  origin.base = info.base_;
  std::shared_ptr<torch::autograd::ViewFunc> replay = info.view_fn().clone_and_set();
  origin.view_fn = [replay](const at::Tensor& base) { return (*replay)(base); };
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
