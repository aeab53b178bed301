#include "ltc_backend/failed_step_rollback.h"

#include <ATen/FunctionalTensorWrapper.h>
#include <c10/core/impl/LocalDispatchKeySet.h>
#include <c10/util/intrusive_ptr.h>
#include <torch/csrc/lazy/backend/backend_interface.h>
#include <torch/csrc/lazy/core/tensor.h>

#include <mutex>
#include <unordered_map>
#include <utility>
#include <vector>

#include "ltc_backend/pipelined_execution.h"

namespace ltc_mlir {
namespace backend {
namespace {

enum class ValueState {
  kComputed,       // host data (or a device-data node) holds the value
  kBeingComputed,  // a placeholder of the running sync, or of a failed one
  kTraced,         // IR not synced yet
};

ValueState StateOf(const at::Tensor& value) {
  torch::lazy::LazyTensorPtr lazy = torch::lazy::TryGetLtcTensor(value);
  if (!lazy || lazy->CurrentTensorData()) return ValueState::kComputed;
  if (torch::lazy::BackendDataPtr handle = lazy->CurrentDataHandle())
    return handle->HasValue() ? ValueState::kComputed : ValueState::kBeingComputed;
  torch::lazy::Value ir = lazy->CurrentIrValue();
  if (ir && torch::lazy::getBackend()->GetComputationDataFromNode(ir.node.get()))
    return ValueState::kComputed;
  return ValueState::kTraced;
}

struct Remembered {
  c10::weak_intrusive_ptr<c10::TensorImpl> wrapper;
  at::Tensor value;  // the unwrapped lazy tensor before the first update
};

std::mutex mu;
// Keyed by the wrapper; entries live from a tensor's first in-place update
// after its value was computed until the sync that computes the new value.
std::unordered_map<const c10::TensorImpl*, Remembered> remembered;

c10::intrusive_ptr<c10::TensorImpl> Lock(const Remembered& r, const c10::TensorImpl* key) {
  c10::intrusive_ptr<c10::TensorImpl> impl = r.wrapper.lock();
  return impl.get() == key ? impl : c10::intrusive_ptr<c10::TensorImpl>();
}

// Erases the entries for which `decide(wrapper, state)` returns true, and
// the dead ones.
template <typename Fn>
void Sweep(Fn decide) {
  std::lock_guard<std::mutex> lock(mu);
  for (auto it = remembered.begin(); it != remembered.end();) {
    c10::intrusive_ptr<c10::TensorImpl> impl = Lock(it->second, it->first);
    bool erase = !impl;
    if (impl) {
      auto* wrapper = static_cast<at::FunctionalTensorWrapper*>(impl.get());
      erase = decide(wrapper, it->second, StateOf(wrapper->value()));
    }
    it = erase ? remembered.erase(it) : std::next(it);
  }
}

}  // namespace

void RememberValueBeforeUpdate(const at::Tensor& t) {
  // Pipelined, a step's updates are traced while the previous step runs:
  // there is no value from before the step to go back to.
  if (PipelinedExecution()) return;
  if (!t.defined() || !at::functionalization::impl::isFunctionalTensor(t)) return;
  auto* wrapper = at::functionalization::impl::unsafeGetFunctionalWrapper(t);
  const at::Tensor& value = wrapper->value();
  if (!torch::lazy::TryGetLtcTensor(value)) return;
  bool computed = StateOf(value) == ValueState::kComputed;
  std::lock_guard<std::mutex> lock(mu);
  auto it = remembered.find(wrapper);
  if (it != remembered.end() && !Lock(it->second, wrapper)) {
    remembered.erase(it);  // a dead tensor's address, reused
    it = remembered.end();
  }
  // An older entry is the value from before this step's first update: keep
  // it. Without one, a traced value was created in this step: nothing to
  // go back to.
  if (computed) {
    Remembered entry{c10::weak_intrusive_ptr<c10::TensorImpl>(t.getIntrusivePtr()), value};
    if (it != remembered.end()) it->second = std::move(entry);
    else remembered.emplace(wrapper, std::move(entry));
  }
}

void ForgetValuesBeforeUpdates() {
  Sweep([](at::FunctionalTensorWrapper*, const Remembered&, ValueState state) {
    return state == ValueState::kBeingComputed;
  });
}

void RestoreValuesBeforeUpdates() {
  std::vector<std::pair<c10::intrusive_ptr<c10::TensorImpl>, at::Tensor>> restore;
  Sweep([&](at::FunctionalTensorWrapper* wrapper, const Remembered& r, ValueState state) {
    if (state != ValueState::kBeingComputed) return false;
    restore.emplace_back(c10::intrusive_ptr<c10::TensorImpl>::reclaim_copy(wrapper), r.value);
    return true;
  });
  // Replaying a view's value onto its base runs view-inverse ops on the
  // unwrapped tensors: below autograd, as inside functionalization.
  c10::impl::ExcludeDispatchKeyGuard below_autograd(
      c10::autograd_dispatch_keyset_with_ADInplaceOrView);
  for (auto& [impl, value] : restore) {
    auto* wrapper = static_cast<at::FunctionalTensorWrapper*>(impl.get());
    wrapper->replace_(value);
    wrapper->commit_update();  // aliases (views) see the old value too
    wrapper->apply_updates();
  }
}

}  // namespace backend
}  // namespace ltc_mlir
