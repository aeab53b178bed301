// sync_trace: guards LTC's computation cache against graphs that share its
// hash but not its wiring.
//
// torch's LTC hashes a synced graph as the tree hashes of its roots plus the
// sequence of its parameters (device data numbered in post-order). A node's
// hash covers its operands' hashes, never which node an operand is, and all
// device data of one shape hash alike: two graphs whose roots are
// `x = device_data a`, `y = device_data b`, `mul(c, a)` and `x, y, mul(c, b)`
// have one hash (the second visit of a or b in post-order adds no parameter),
// so the second ran the code compiled for the first and returned the wrong
// tensor (dot's backward after vdot's gave the gradients swapped, on torch
// 2.14's TS backend too).
//
// The backend sees every sync: ShouldSyncTensor is asked for each root in
// order, then GetComputationDataFromNode for each node of the post-order.
// SyncTrace records both (per thread), and a DAG fingerprint (every
// operand as the post-order position of its node, device data as the
// parameter it reads) tells ExecuteComputation whether the cached
// computation was built for this wiring; if not, the backend compiles the
// traced graph as a variant of that computation.
#pragma once

#include <torch/csrc/lazy/backend/backend_data.h>
#include <torch/csrc/lazy/core/ir.h>

#include <climits>
#include <cstdint>
#include <optional>
#include <vector>

namespace ltc_mlir {
namespace backend {

// The wiring of a graph given as LTC's post-order and its roots (compared
// exactly, not hashed); nullopt when `post_order` is not a post-order of
// `roots` (an operand or root missing before its use).
// `data_handles` (optional, one per node, kNoData for nodes without device
// data) saves asking the backend again.
using DagWiring = std::vector<int64_t>;
constexpr int64_t kNoData = INT64_MIN;
std::optional<DagWiring> DagFingerprint(c10::ArrayRef<const torch::lazy::Node*> post_order,
                                       c10::ArrayRef<torch::lazy::Output> roots,
                                       c10::ArrayRef<int64_t> data_handles = {});

struct SyncTrace {
  std::vector<torch::lazy::Value> roots;   // in ShouldSyncTensor order (the results)
  std::vector<const torch::lazy::Node*> post_order;  // LTC's, for the parameters' order
  std::vector<int64_t> data_handles;           // per node, kNoData if none
};

// Hooks called by the backend (this thread's trace).
void TraceRoot(const torch::lazy::Value& root);
void TracePostOrderNode(const torch::lazy::Node* node, const torch::lazy::BackendDataPtr& data);
// The post-order is complete (LTC lowers it next): later calls are not part of it.
void FreezeSyncTrace();
// The trace of the sync being executed on this thread, and a fresh start.
SyncTrace TakeSyncTrace();

}  // namespace backend
}  // namespace ltc_mlir
