#include "ltc_backend/sync_trace.h"

#include <climits>
#include <unordered_map>

#include "ltc_backend/torchscript/boundary.h"

namespace ltc_mlir {
namespace backend {
namespace {

enum class Phase { kIdle, kRoots, kPostOrder, kFrozen };

struct TraceState {
  Phase phase = Phase::kIdle;
  SyncTrace trace;
};

thread_local TraceState g_state;

// Node -> identity, open addressing (this runs on every sync: a
// std::unordered_map cost more than the rest of the check).
class NodeIds {
 public:
  explicit NodeIds(size_t n) {
    size_t capacity = 16;
    while (capacity < 2 * n) capacity <<= 1;
    keys_.assign(capacity, nullptr);
    values_.resize(capacity);
    mask_ = capacity - 1;
  }
  void Set(const torch::lazy::Node* key, int64_t value) {
    size_t i = Slot(key);
    while (keys_[i] != nullptr && keys_[i] != key) i = (i + 1) & mask_;
    keys_[i] = key;
    values_[i] = value;
  }
  const int64_t* Find(const torch::lazy::Node* key) const {
    for (size_t i = Slot(key);; i = (i + 1) & mask_) {
      if (keys_[i] == key) return &values_[i];
      if (keys_[i] == nullptr) return nullptr;
    }
  }

 private:
  size_t Slot(const torch::lazy::Node* key) const {
    return (reinterpret_cast<uintptr_t>(key) >> 4) * 0x9E3779B97F4A7C15ull >> 20 & mask_;
  }
  std::vector<const torch::lazy::Node*> keys_;
  std::vector<int64_t> values_;
  size_t mask_;
};

}  // namespace

std::optional<DagWiring> DagFingerprint(c10::ArrayRef<const torch::lazy::Node*> post_order,
                                       c10::ArrayRef<torch::lazy::Output> roots,
                                       c10::ArrayRef<int64_t> data_handles) {
  // Each node's identity: its post-order position, or for device data the
  // parameter it becomes (LTC merges device data with one handle).
  torch::lazy::BackendImplInterface* ts = TorchScriptBackendServices();
  NodeIds id(post_order.size());
  std::unordered_map<torch::lazy::BackendData::Handle, int64_t> parameter;
  std::vector<int64_t> words;
  words.reserve(post_order.size() * 3 + roots.size() * 2);
  for (size_t i = 0; i < post_order.size(); ++i) {
    const torch::lazy::Node* node = post_order[i];
    int64_t handle = kNoData;
    if (!data_handles.empty()) {
      handle = data_handles[i];
    } else if (torch::lazy::BackendDataPtr data =
                   ts->GetComputationDataFromNode(node)) {
      handle = data->GetHandle();
    }
    if (handle != kNoData) {
      auto it = parameter.emplace(handle, parameter.size()).first;
      id.Set(node, -1 - it->second);
      words.push_back(-1 - it->second);
      continue;
    }
    id.Set(node, static_cast<int64_t>(i));
    words.push_back(static_cast<int64_t>(i));
    for (const torch::lazy::Output& operand : node->operands()) {
      const int64_t* found = id.Find(operand.node);
      if (found == nullptr) return std::nullopt;
      words.push_back(*found);
      words.push_back(static_cast<int64_t>(operand.index));
    }
  }
  words.push_back(INT64_MIN);
  for (const torch::lazy::Output& root : roots) {
    const int64_t* found = id.Find(root.node);
    if (found == nullptr) return std::nullopt;
    words.push_back(*found);
    words.push_back(static_cast<int64_t>(root.index));
  }
  return words;
}

void TraceRoot(const torch::lazy::Value& root) {
  // The first root after a post-order starts the next sync.
  if (g_state.phase != Phase::kRoots) g_state.trace = SyncTrace();
  g_state.phase = Phase::kRoots;
  g_state.trace.roots.push_back(root);
}

void TracePostOrderNode(const torch::lazy::Node* node, const torch::lazy::BackendDataPtr& data) {
  // Not inside a sync's post-order (or past it: lowering).
  if (g_state.phase == Phase::kIdle || g_state.phase == Phase::kFrozen) return;
  g_state.phase = Phase::kPostOrder;
  g_state.trace.post_order.push_back(node);
  g_state.trace.data_handles.push_back(data ? data->GetHandle() : kNoData);
}

void FreezeSyncTrace() {
  if (g_state.phase != Phase::kIdle) g_state.phase = Phase::kFrozen;
}

SyncTrace TakeSyncTrace() {
  SyncTrace trace = std::move(g_state.trace);
  g_state = TraceState();
  return trace;
}

}  // namespace backend
}  // namespace ltc_mlir
