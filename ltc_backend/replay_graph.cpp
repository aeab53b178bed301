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

std::vector<int64_t> ReplayInputHandles(const std::vector<at::Tensor>& lazy_inputs) {
  std::vector<int64_t> handles;
  for (size_t i = 0; i < lazy_inputs.size(); ++i) {
    torch::lazy::BackendDataPtr data =
        LazyTensorOf(lazy_inputs[i], kPrefix, "input", i)->CurrentDataHandle();
    TORCH_CHECK(data, kPrefix, ": input #", i, " holds no data");
    handles.push_back(static_cast<int64_t>(data->GetHandle()));
  }
  return handles;
}

std::shared_ptr<ReplayGraph> BuildReplayGraph(const std::vector<at::Tensor>& lazy_inputs,
                                              const std::vector<at::Tensor>& outputs,
                                              const std::vector<int64_t>& input_handles) {
  TORCH_CHECK_VALUE(input_handles.size() == lazy_inputs.size(), kPrefix, ": ",
                    lazy_inputs.size(), " inputs, ", input_handles.size(), " handles");
  auto graph = std::make_shared<ReplayGraph>();
  graph->num_outputs = outputs.size();
  std::vector<at::Tensor> values = outputs;
  // Which input held each data handle. An input that holds another one now
  // was written by the graph: its new value is one more output.
  std::unordered_map<int64_t, int64_t> input_of_handle;
  for (size_t i = 0; i < lazy_inputs.size(); ++i) {
    torch::lazy::LazyTensorPtr lazy = LazyTensorOf(lazy_inputs[i], kPrefix, "input", i);
    input_of_handle.emplace(input_handles[i], static_cast<int64_t>(i));
    torch::lazy::BackendDataPtr data = lazy->CurrentDataHandle();
    if (!data || static_cast<int64_t>(data->GetHandle()) != input_handles[i]) {
      graph->written_inputs.push_back(static_cast<int64_t>(i));
      values.push_back(lazy_inputs[i]);
    }
    graph->input_dtypes.push_back(lazy->dtype());
    graph->input_sizes.push_back(lazy->shape().Get().sizes().vec());
  }
  if (values.empty()) return nullptr;  // nothing to compute
  PendingGraph pending = LowerPendingGraph(values, "replay", kPrefix, "output");
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

// Per written input (ReplayGraph::written_inputs), the function result the
// native code may write into that call tensor's buffer, or -1. The result
// must feed that output alone, and the tensor must feed exactly one
// parameter, which the code allows that result to overwrite.
std::vector<int64_t> InPlaceResults(const ReplayGraph& graph) {
  const MlirComputation& comp = *graph.comp;
  const std::vector<runtime::ArgSpec>& specs = comp.executable->outputs();
  std::vector<int64_t> results(graph.written_inputs.size(), -1);
  for (size_t w = 0; w < graph.written_inputs.size(); ++w) {
    const int64_t k = graph.written_inputs[w];
    const OutputRef& ref = comp.outputs[graph.num_outputs + w];
    if (ref.source != OutputSource::kResult || ref.index >= specs.size()) continue;
    const size_t r = ref.index;
    int64_t feeds = 0;
    for (const OutputRef& other : comp.outputs)
      feeds += other.source == OutputSource::kResult && other.index == r;
    int64_t parameters_of_k = 0;
    for (int64_t s : graph.sources) parameters_of_k += s == k;
    if (feeds != 1 || parameters_of_k != 1) continue;
    for (int64_t arg : specs[r].overwritableInputs)
      if (static_cast<size_t>(arg) < comp.input_order.size() &&
          graph.sources[comp.input_order[arg]] == k)
        results[w] = static_cast<int64_t>(r);
  }
  return results;
}

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

// Per function result, for the native code to write into: a written
// input's own buffer, where the compiled code allows it (the update reads
// each element before writing it and is the input's only reader:
// ltc-mark-overwritable-inputs) and the input shares no memory with
// another input. Undefined elsewhere.
std::vector<at::Tensor> InPlaceBuffers(ReplayGraph& graph, const std::vector<at::Tensor>& inputs) {
  MlirComputation& comp = *graph.comp;
  if (graph.written_inputs.empty() || !comp.is_native()) return {};
  if (!graph.in_place_planned) {
    graph.in_place_results = InPlaceResults(graph);
    graph.in_place_planned = true;
  }
  // Inputs per storage, counted once per call (not per written input).
  std::unordered_map<const c10::StorageImpl*, int> tensors_of_storage;
  for (const at::Tensor& t : inputs)
    if (t.defined() && t.has_storage()) ++tensors_of_storage[t.storage().unsafeGetStorageImpl()];
  std::vector<at::Tensor> buffers;
  for (size_t w = 0; w < graph.written_inputs.size(); ++w) {
    const int64_t r = graph.in_place_results[w];
    const at::Tensor& target = inputs[graph.written_inputs[w]];
    if (r < 0 || !target.is_contiguous() || target.is_conj() || target.is_neg() ||
        !target.has_storage() ||
        target.scalar_type() != comp.function_result_shapes[r].scalar_type() ||
        tensors_of_storage[target.storage().unsafeGetStorageImpl()] != 1)
      continue;
    if (buffers.empty()) buffers.resize(comp.function_result_shapes.size());
    buffers[r] = target;
  }
  return buffers;
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
  std::vector<at::Tensor> result_buffers = InPlaceBuffers(graph, inputs);
  std::vector<torch::lazy::BackendDataPtr> results = RunComputation(
      graph.comp, arguments, graph.device, /*allow_pipeline=*/false, result_buffers);
  RaisePendingError();
  std::vector<at::Tensor> out;
  out.reserve(graph.num_outputs);
  int64_t in_place = 0, copied = 0;
  for (size_t o = 0; o < results.size(); ++o) {
    CheckComputed(*results[o], "a result of this graph");
    auto data = std::static_pointer_cast<torch::lazy::TSData>(results[o]);
    at::Tensor value;
    if (data->HasValue() && data->data().defined()) {
      value = data->data();
    } else {
      TORCH_CHECK(data->scalar.has_value(), "ltc_mlir torch.compile: graph ",
                  graph.comp->name, " returned a value without data");
      value = at::scalar_tensor(*data->scalar,
                                at::TensorOptions().dtype(data->shape().scalar_type()));
    }
    if (o < graph.num_outputs) {
      out.push_back(OwnImplOnSameStorage(value));
      continue;
    }
    // A written input: already in place, or copied now (a leaf that
    // requires grad through its detached alias, as AOTAutograd does).
    // AOTAutograd bumps the version of every input its graph mutates.
    const at::Tensor& target = inputs[graph.written_inputs[o - graph.num_outputs]];
    if (value.is_alias_of(target)) {
      ++in_place;
    } else {
      (target.is_leaf() && target.requires_grad() ? target.detach() : target).copy_(value);
      ++copied;
    }
  }
  Metrics::RecordReplayCall(
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count(),
      in_place, copied);
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
