// replay_graph: see replay_graph.h.
#include "ltc_backend/replay_graph.h"

#include <ATen/FunctionalTensorWrapper.h>
#include <ATen/Functions.h>
#include <c10/util/Exception.h>
#include <torch/csrc/lazy/backend/backend_interface.h>
#include <torch/csrc/lazy/core/tensor.h>

#include <chrono>
#include <sstream>
#include <unordered_map>

#include "ltc_backend/backend_data.h"
#include "ltc_backend/computation.h"
#include "ltc_backend/execution_errors.h"
#include "ltc_backend/graph_compiler.h"
#include "ltc_backend/graph_runner.h"
#include "ltc_backend/metrics.h"
#include "ltc_backend/pending_graph.h"

namespace ltc_mlir {
namespace backend {
namespace {

constexpr const char* kPrefix = "ltc_mlir torch.compile";

}  // namespace

std::vector<at::Tensor> MakeReplayInputs(const std::vector<at::Tensor>& inputs) {
  torch::lazy::BackendDevice device;
  std::vector<at::Tensor> lazy;
  lazy.reserve(inputs.size());
  for (size_t i = 0; i < inputs.size(); ++i) {
    const at::Tensor& t = inputs[i];
    TORCH_CHECK_VALUE(t.device().is_cpu(), "ltc_mlir torch.compile: argument #", i, " is on ",
                      t.device(), "; the ltc_mlir backend compiles CPU programs");
    torch::lazy::BackendDataPtr data = torch::lazy::getBackend()->MakeComputationDataFromTensor(
        t, torch::lazy::Shape(t.scalar_type(), t.sizes().vec()), device);
    at::Tensor l = torch::lazy::CreateAtenFromLtcTensor(torch::lazy::LazyTensor::Create(data));
    lazy.push_back(at::functionalization::impl::to_functional_tensor(l));
  }
  return lazy;
}

std::shared_ptr<ReplayGraph> BuildReplayGraph(const std::vector<at::Tensor>& lazy_inputs,
                                              const std::vector<at::Tensor>& outputs) {
  TORCH_CHECK_VALUE(!outputs.empty(), "ltc_mlir torch.compile: a graph without tensor outputs");
  auto graph = std::make_shared<ReplayGraph>();
  // Which input holds each data handle. An input the graph wrote to has no
  // handle any more: its new value would be lost, so such graphs are refused.
  std::unordered_map<int64_t, int64_t> input_of_handle;
  for (size_t i = 0; i < lazy_inputs.size(); ++i) {
    torch::lazy::LazyTensorPtr lazy = LazyTensorOf(lazy_inputs[i], kPrefix, "input", i);
    torch::lazy::BackendDataPtr data = lazy->CurrentDataHandle();
    TORCH_CHECK(data, "ltc_mlir torch.compile: the graph writes to its input #", i,
                ", which replay does not support");
    input_of_handle.emplace(static_cast<int64_t>(data->GetHandle()), static_cast<int64_t>(i));
    graph->input_dtypes.push_back(lazy->dtype());
    graph->input_sizes.push_back(lazy->shape().Get().sizes().vec());
  }
  PendingGraph pending = LowerPendingGraph(outputs, "replay", kPrefix, "output");
  graph->comp = pending.comp;
  graph->device = pending.device;
  for (const torch::lazy::BackendDataPtr& data : pending.parameters) {
    auto it = input_of_handle.find(static_cast<int64_t>(data->GetHandle()));
    graph->sources.push_back(it == input_of_handle.end() ? -1 : it->second);
    graph->constants.push_back(it == input_of_handle.end() ? data : nullptr);
  }
  CompileComputation(*graph->comp);
  Metrics::RecordReplayGraph();
  return graph;
}

namespace {

// A new TensorImpl on the same storage. A graph's outputs come from its
// OutputBufferPool, which reuses a buffer once it holds the only reference.
// Handed to Python as they are, the pool's own TensorImpls get a PyObject
// that torch keeps alive (PyObject preservation) while the pool refers to
// them, so they never looked free again and every call allocated fresh
// outputs: ResNet-18's SGD update faulted in 90 MB of new pages per step.
at::Tensor OwnImplOnSameStorage(const at::Tensor& t) {
  auto impl = c10::make_intrusive<c10::TensorImpl>(c10::Storage(t.storage()), t.key_set(),
                                                   t.dtype());
  impl->set_sizes_and_strides(t.sizes(), t.strides(), t.storage_offset());
  return at::Tensor(std::move(impl));
}

}  // namespace

std::vector<at::Tensor> RunReplayGraph(ReplayGraph& graph, const std::vector<at::Tensor>& inputs) {
  const auto start = std::chrono::steady_clock::now();
  TORCH_CHECK_VALUE(inputs.size() == graph.input_dtypes.size(), "ltc_mlir torch.compile: graph ",
                    graph.comp->name, " takes ", graph.input_dtypes.size(), " tensors, got ",
                    inputs.size());
  std::vector<at::Tensor> bound(inputs.size());
  for (size_t i = 0; i < inputs.size(); ++i) {
    const at::Tensor& t = inputs[i];
    // Dynamo's guards recompile on a new dtype or shape; a mismatch here
    // would be a guard we do not know of, so it raises instead of computing.
    TORCH_CHECK_VALUE(t.defined() && t.device().is_cpu() &&
                          t.scalar_type() == graph.input_dtypes[i] &&
                          t.sizes() == c10::IntArrayRef(graph.input_sizes[i]),
                      "ltc_mlir torch.compile: argument #", i, " of graph ", graph.comp->name,
                      " is ", (t.defined() ? t.toString() : "undefined"),
                      (t.defined() ? " " + c10::str(t.sizes()) : ""), " on ",
                      (t.defined() ? c10::str(t.device()) : "-"), ", compiled for ",
                      graph.input_dtypes[i], " ", c10::IntArrayRef(graph.input_sizes[i]),
                      " on cpu");
    bound[i] = t.is_contiguous() ? t : t.contiguous();
  }
  const std::vector<torch::lazy::Shape>& shapes = graph.comp->parameter_shapes();
  std::vector<torch::lazy::BackendDataPtr> arguments(graph.sources.size());
  for (size_t p = 0; p < graph.sources.size(); ++p) {
    const int64_t src = graph.sources[p];
    arguments[p] = src < 0 ? graph.constants[p]
                           : std::make_shared<MlirData>(bound[src], shapes[p], graph.device);
  }
  std::vector<torch::lazy::BackendDataPtr> results =
      RunComputation(graph.comp, arguments, graph.device, /*allow_pipeline=*/false);
  RaisePendingError();
  std::vector<at::Tensor> out;
  out.reserve(results.size());
  for (const torch::lazy::BackendDataPtr& r : results) {
    CheckComputed(*r, "a result of this graph");
    auto data = std::static_pointer_cast<torch::lazy::TSData>(r);
    if (data->HasValue() && data->data().defined()) {
      out.push_back(OwnImplOnSameStorage(data->data()));
    } else {
      TORCH_CHECK(data->scalar.has_value(), "ltc_mlir torch.compile: graph ",
                  graph.comp->name, " returned a value without data");
      out.push_back(at::scalar_tensor(*data->scalar,
                                      at::TensorOptions().dtype(data->shape().scalar_type())));
    }
  }
  Metrics::RecordReplayCall(
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count());
  return out;
}

std::string ReplayGraphName(const ReplayGraph& graph) { return graph.comp->name; }

std::string ReplayGraphKind(const ReplayGraph& graph) {
  if (graph.comp->is_native()) return "native";
  return graph.comp->partitioned ? "partitioned" : "fallback";
}

std::vector<std::string> ReplayGraphFallbackOps(const ReplayGraph& graph) {
  return graph.comp->fallback_ops;
}

std::string DescribeReplayGraph(const ReplayGraph& graph) {
  int64_t from_call = 0;
  for (int64_t s : graph.sources) from_call += s >= 0;
  std::ostringstream os;
  os << graph.comp->name << " (" << ReplayGraphKind(graph) << ", " << from_call << " parameters from the call, "
     << graph.sources.size() - from_call << " constants)";
  return os.str();
}

}  // namespace backend
}  // namespace ltc_mlir
