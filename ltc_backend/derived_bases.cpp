#include "ltc_backend/derived_bases.h"

#include <ATen/core/dispatch/Dispatcher.h>
#include <ATen/ops/t_copy.h>
#include <ATen/ops/view_copy.h>
#include <c10/core/impl/LocalDispatchKeySet.h>

#include <map>
#include <set>
#include <utility>

namespace ltc_mlir {
namespace backend {
namespace {

enum class ViewKind { kNone, kTranspose2d, kReshape };

// How `node`'s single result re-indexes its first operand, when that is a
// bijection whose inverse needs no attribute of the node: t (its own
// inverse) and the ops that only reshape (their inverse is a view to the
// base's sizes). Row-major order is all a lazy value has.
ViewKind KindOf(const torch::lazy::Node& node) {
  static const std::unordered_set<c10::Symbol> reshapes = {
      at::aten::view_copy,      at::aten::_unsafe_view,    at::aten::alias_copy,
      at::aten::squeeze_copy,   at::aten::unsqueeze_copy,  at::aten::_reshape_alias_copy,
  };
  if (node.num_outputs() != 1 || node.operands().empty()) return ViewKind::kNone;
  const c10::Symbol op = node.op().op;
  if (op == at::aten::t_copy) return ViewKind::kTranspose2d;
  return reshapes.count(op) ? ViewKind::kReshape : ViewKind::kNone;
}

bool HasPendingValue(const torch::lazy::LazyTensor& tensor) {
  return tensor.CurrentIrValue() && !tensor.CurrentDataHandle() && !tensor.CurrentTensorData();
}

}  // namespace

DerivedBasePlan DerivedBasePlan::Make(const std::vector<torch::lazy::LazyTensorPtr>& live) {
  DerivedBasePlan plan;
  using ValueKey = std::pair<const torch::lazy::Node*, size_t>;
  // The live tensors holding each pending value: functionalization often
  // holds one value in two lazy tensors (a wrapper's and its storage's).
  // Values are visited in the order of `live`, not of node addresses, so
  // that the same step always derives the same bases (and traces the same
  // graph, whose compiled code is then reused).
  std::map<ValueKey, std::vector<const torch::lazy::LazyTensorPtr*>> holders;
  std::vector<ValueKey> order;
  for (const torch::lazy::LazyTensorPtr& t : live) {
    if (!t || !HasPendingValue(*t)) continue;
    torch::lazy::Value v = t->CurrentIrValue();
    auto& tensors = holders[std::make_pair(v.node.get(), v.index)];
    if (tensors.empty()) order.emplace_back(v.node.get(), v.index);
    tensors.push_back(&t);
  }
  // A value some view is derived from, and the values that are such views
  // (synced: never derived themselves).
  std::set<ValueKey> bases, views;
  for (const ValueKey& value : order) {
    const torch::lazy::Node* node = value.first;
    const ViewKind kind = KindOf(*node);
    if (kind == ViewKind::kNone) continue;
    ValueKey base(node->operand(0).node, node->operand(0).index);
    auto it = holders.find(base);
    if (it == holders.end() || bases.count(base) || views.count(base) || bases.count(value)) continue;
    const torch::lazy::LazyTensorPtr& view = *holders[value].front();
    const torch::lazy::LazyTensorPtr& first_base = *it->second.front();
    if (first_base->dtype() != view->dtype() ||
        first_base->shape().Get().numel() != view->shape().Get().numel())
      continue;
    bases.insert(base);
    views.insert(value);
    for (const torch::lazy::LazyTensorPtr* holder : it->second) {
      plan.skipped_ids_.insert((*holder)->GetUniqueId());
      plan.pairs_.push_back({*holder, view, kind == ViewKind::kTranspose2d});
    }
  }
  return plan;
}

void DerivedBasePlan::Rederive() const {
  // Below autograd: the inverse view is a plain Lazy kernel call.
  at::AutoDispatchBelowADInplaceOrView below_autograd;
  for (const Pair& pair : pairs_) {
    // The view was synced: its value is device data (or the placeholder of
    // a pipelined graph). Otherwise the base keeps its own pending value.
    if (!pair.view->CurrentDataHandle() || !HasPendingValue(*pair.base)) continue;
    at::Tensor view = torch::lazy::CreateAtenFromLtcTensor(pair.view);
    const auto& sizes = pair.base->shape().Get().sizes();
    at::Tensor base = pair.transpose ? at::t_copy(view)
                                     : at::view_copy(view, std::vector<int64_t>(sizes.begin(), sizes.end()));
    torch::lazy::LazyTensorPtr derived = torch::lazy::TryGetLtcTensor(base);
    if (!derived || derived->shape().Get().sizes() != pair.base->shape().Get().sizes()) continue;
    pair.base->SetIrValue(derived->GetIrValue());
    DerivedBases::Get().Record(*pair.base);
  }
}

DerivedBases& DerivedBases::Get() {
  static DerivedBases* bases = new DerivedBases();  // used until exit
  return *bases;
}

void DerivedBases::Record(const torch::lazy::LazyTensor& tensor) {
  std::lock_guard<std::mutex> lock(mutex_);
  nodes_[tensor.GetUniqueId()] = tensor.CurrentIrValue().node;
}

bool DerivedBases::IsDerived(const torch::lazy::LazyTensor& tensor) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = nodes_.find(tensor.GetUniqueId());
  if (it == nodes_.end()) return false;
  torch::lazy::Value v = tensor.CurrentIrValue();
  if (v && v.node == it->second && !tensor.CurrentDataHandle()) return true;
  nodes_.erase(it);  // the tensor has another value now
  return false;
}

void DerivedBases::Forget(int64_t unique_id) {
  std::lock_guard<std::mutex> lock(mutex_);
  nodes_.erase(unique_id);
}

}  // namespace backend
}  // namespace ltc_mlir
