// export_capture: see export_capture.h.
#include "ltc_backend/export_capture.h"

#include <ATen/FunctionalTensorWrapper.h>
#include <c10/util/Exception.h>
#include <torch/csrc/lazy/core/tensor.h>

#include <unordered_map>

#include "ltc_backend/backend_data.h"
#include "ltc_backend/computation.h"
#include "ltc_backend/pending_graph.h"
#include "ltc_backend/torchscript/boundary.h"

namespace ltc_mlir {
namespace backend {

int64_t DataId(const at::Tensor& tensor) {
  at::Tensor t = tensor;
  if (at::functionalization::impl::isFunctionalTensor(t)) at::functionalization::impl::sync(t);
  torch::lazy::LazyTensorPtr lazy = torch::lazy::TryGetLtcTensor(t);
  if (!lazy) return 0;
  torch::lazy::BackendDataPtr data = lazy->CurrentDataHandle();
  return data ? static_cast<int64_t>(data->GetHandle()) : 0;
}

CapturedGraph CaptureGraph(const std::vector<at::Tensor>& tensors) {
  TORCH_CHECK_VALUE(!tensors.empty(), "ltc_mlir.export: nothing to capture");
  PendingGraph pending = LowerPendingGraph(tensors, "export", "ltc_mlir.export", "tensor");
  std::shared_ptr<MlirComputation> comp = pending.comp;
  const std::vector<torch::lazy::BackendDataPtr>& inputs = pending.parameters;

  EmittedModule emitted = comp->graph().EmitTorchDialect(comp->parameter_shapes());
  CapturedGraph graph;
  graph.torch_text = emitted.text;
  graph.unsupported_ops = emitted.unsupported_ops;
  graph.reasons = emitted.reasons;
  // A collective runs through this process's torch.distributed group, which
  // an exported program does not have.
  if (emitted.text.find("\"torch.ltc_mlir.collective\"") != std::string::npos) {
    graph.unsupported_ops.push_back("ltc_mlir::collective");
    graph.reasons.push_back(
        "torch.distributed collectives cannot be exported: export the model without "
        "DistributedDataParallel, dist.* calls or SyncBatchNorm");
  }
  if (!graph.unsupported_ops.empty()) return graph;
  for (size_t graph_input : emitted.input_order) {
    CapturedArgument argument;
    argument.data = inputs.at(graph_input);
    argument.data_id = static_cast<int64_t>(argument.data->GetHandle());
    graph.arguments.push_back(std::move(argument));
  }
  if (emitted.rng_seed_input) {
    CapturedArgument seed;
    seed.rng_seed = true;
    graph.arguments.push_back(std::move(seed));
  }
  for (const OutputRef& ref : emitted.outputs) {
    CapturedOutput output;
    if (ref.source == OutputSource::kResult) {
      output.index = ref.index;
    } else {
      output.is_result = false;
      output.data_id = static_cast<int64_t>(inputs.at(ref.index)->GetHandle());
    }
    graph.outputs.push_back(output);
  }
  return graph;
}

at::Tensor HostValue(const CapturedArgument& argument) {
  auto* data = dynamic_cast<torch::lazy::TSData*>(argument.data.get());
  TORCH_CHECK(data, "ltc_mlir.export: argument has no host data");
  if (data->HasValue()) return data->data();
  TORCH_CHECK(data->scalar.has_value(), "ltc_mlir.export: argument has no value yet");
  return at::scalar_tensor(*data->scalar,
                           at::TensorOptions().dtype(data->shape().scalar_type()));
}

}  // namespace backend
}  // namespace ltc_mlir
