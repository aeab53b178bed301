// pending_graph: the graph that would compute a set of lazy tensors,
// lowered to an MlirComputation without running it. Shared by
// ltc_mlir.export (export_capture.h) and torch.compile's replay
// (replay_graph.h).
#pragma once

#include <ATen/core/Tensor.h>
#include <torch/csrc/lazy/backend/backend_data.h>
#include <torch/csrc/lazy/core/tensor.h>

#include <memory>
#include <string>
#include <vector>

namespace ltc_mlir {
namespace backend {

class MlirComputation;

// The lazy tensor behind `tensor` (its functional wrapper synced first).
// Raises ValueError "<prefix>: <what> #<index> is on <device>, not on the
// lazy device" for a tensor of another device.
torch::lazy::LazyTensorPtr LazyTensorOf(const at::Tensor& tensor, const char* prefix,
                                        const char* what, size_t index);

struct PendingGraph {
  std::shared_ptr<MlirComputation> comp;
  // The data of each parameter of comp, in parameter order.
  std::vector<torch::lazy::BackendDataPtr> parameters;
  torch::lazy::BackendDevice device;
};

// Lowers the graph whose results are `tensors` (in order); `name` names the
// lowering context; `prefix` and `what` (the tensors' name) go into errors.
PendingGraph LowerPendingGraph(const std::vector<at::Tensor>& tensors, const std::string& name,
                               const char* prefix, const char* what);

}  // namespace backend
}  // namespace ltc_mlir
