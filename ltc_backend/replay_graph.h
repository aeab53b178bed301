// replay_graph: a lazy graph compiled once and replayed on host tensors, for
// torch.compile(backend="ltc_mlir") (python/ltc_mlir/dynamo_backend.py).
//
// The FX graph runs once on lazy tensors made from the call's arguments, so
// the lazy kernels, the lowering, partial graphs and both compile caches are
// those of mark_step. What is kept is the computation and, per parameter,
// where its value comes from: an argument of the call, or a constant the
// trace made (a scalar, a tensor attribute of the graph). A later call
// wraps its host tensors as the parameters and runs the computation: no LTC
// trace, no IR hashing, no graph walk.
#pragma once

#include <ATen/core/Tensor.h>
#include <torch/csrc/lazy/backend/backend_data.h>

#include <memory>
#include <string>
#include <vector>

namespace ltc_mlir {
namespace backend {

class MlirComputation;

struct ReplayGraph {
  std::shared_ptr<MlirComputation> comp;
  torch::lazy::BackendDevice device;
  // Per parameter of comp: the index of the call's tensor that feeds it,
  // or -1 when constants[i] does.
  std::vector<int64_t> sources;
  std::vector<torch::lazy::BackendDataPtr> constants;
  // The call's tensors: dtype and sizes the graph was compiled for.
  std::vector<at::ScalarType> input_dtypes;
  std::vector<std::vector<int64_t>> input_sizes;
  // The computation's outputs are the graph's `num_outputs` outputs, then
  // one new value per call tensor the graph wrote to (an in-place update
  // AOTAutograd kept in the graph): written_inputs[w] is that tensor.
  size_t num_outputs = 0;
  std::vector<int64_t> written_inputs;
  // Per written input: the function result the native code may write
  // straight into the call tensor's buffer, or -1 (copied after the run).
  // Found at the first native run (InPlaceResults).
  std::vector<int64_t> in_place_results;
  bool in_place_planned = false;
};

// Fresh lazy tensors (functionalized, as `.to("lazy")` makes them) holding
// copies of host tensors `inputs`, each with its own data.
std::vector<at::Tensor> MakeReplayInputs(const std::vector<at::Tensor>& inputs);

// The data handle of each lazy input, read before the graph runs on them:
// BuildReplayGraph finds the inputs the graph wrote to by their new handle.
std::vector<int64_t> ReplayInputHandles(const std::vector<at::Tensor>& lazy_inputs);

// The graph computing lazy tensors `outputs` from `lazy_inputs` (made by
// MakeReplayInputs, whose handles were `input_handles` before the graph ran
// on them), compiled. Inputs the graph wrote to are written back by every
// replay. Null when there are no outputs and no input was written.
std::shared_ptr<ReplayGraph> BuildReplayGraph(const std::vector<at::Tensor>& lazy_inputs,
                                              const std::vector<at::Tensor>& outputs,
                                              const std::vector<int64_t>& input_handles);

// Runs `graph` on host tensors like those it was built from; returns its
// outputs as host tensors and writes the new values of the inputs it
// updates into them (in place when the native code allows it, else by a
// copy). Raises ValueError naming the argument when one does not match,
// and the graph's own error if it fails.
std::vector<at::Tensor> RunReplayGraph(ReplayGraph& graph, const std::vector<at::Tensor>& inputs);

// The computation's name (graph_<hash>), how it runs ("native", "partitioned":
// native segments around ATen ops, or "fallback") and the ops that kept it
// from running natively.
std::string ReplayGraphName(const ReplayGraph& graph);
std::string ReplayGraphKind(const ReplayGraph& graph);
std::vector<std::string> ReplayGraphFallbackOps(const ReplayGraph& graph);

// What RunReplayGraph runs, for debugging: the computation's name, whether
// it is native, and the number of parameters fed by the call and by constants.
std::string DescribeReplayGraph(const ReplayGraph& graph);

}  // namespace backend
}  // namespace ltc_mlir
