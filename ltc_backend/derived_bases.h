#pragma once
// Bases that a live sync derives from their views instead of returning.
//
// Functionalization keeps the base of every view alive in the view's
// storage. Autograd's Linear weight gradient is `t(mm(g^T, x))` and its
// bias gradient `view(sum(g, 0, keepdim))`, so after backward both the mm
// result and its transposed copy are live lazy tensors. A mark_step that
// syncs both makes the graph return the base as well as the view, and the
// transpose cannot fold into the GEMM (the base must exist in memory).
//
// Before a live sync, `DerivedBasePlan::Make` picks each live tensor whose
// pending value is the operand of a bijective view (t, transpose, permute,
// a reshape) held by another live tensor that is synced. That base is left
// out of the sync (`Skips`). After the sync, `Rederive` gives it the
// inverse view of the view's new device data: same values, no output, no
// copy; a later reader of the base computes the (cheap) inverse view. A
// derived base stays out of later syncs while its value is that view.

#include <torch/csrc/lazy/core/tensor.h>

#include <cstdint>
#include <mutex>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace ltc_mlir {
namespace backend {

class DerivedBasePlan {
 public:
  static DerivedBasePlan Make(const std::vector<torch::lazy::LazyTensorPtr>& live);

  bool Skips(const torch::lazy::LazyTensor& tensor) const {
    return skipped_ids_.count(tensor.GetUniqueId()) != 0;
  }
  bool empty() const { return pairs_.empty(); }

  // After the sync ran: each skipped base becomes a view of its view's
  // device data (recorded in DerivedBases).
  void Rederive() const;

 private:
  struct Pair {
    torch::lazy::LazyTensorPtr base;
    torch::lazy::LazyTensorPtr view;
    bool transpose;  // the view is t(base); otherwise a reshape of it
  };
  std::vector<Pair> pairs_;
  std::unordered_set<int64_t> skipped_ids_;
};

// The bases given a derived value, while they keep it: a later live sync
// leaves them out too.
class DerivedBases {
 public:
  static DerivedBases& Get();
  void Record(const torch::lazy::LazyTensor& tensor);
  // True while `tensor`'s pending value is still the one Rederive gave it.
  bool IsDerived(const torch::lazy::LazyTensor& tensor);
  void Forget(int64_t unique_id);

 private:
  std::mutex mutex_;
  // The node is held so that its address is not reused while recorded.
  std::unordered_map<int64_t, torch::lazy::NodePtr> nodes_;
};

}  // namespace backend
}  // namespace ltc_mlir
