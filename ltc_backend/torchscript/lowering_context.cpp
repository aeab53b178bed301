#include "ltc_backend/torchscript/lowering_context.h"

#include <torch/csrc/jit/passes/dead_code_elimination.h>

#include "ltc_backend/computation.h"
#include "ltc_backend/torchscript/torchscript_graph.h"

namespace ltc_mlir {
namespace backend {

MlirLoweringContext::MlirLoweringContext(const std::string& name,
                                         torch::lazy::BackendDevice device)
    : TSLoweringContext(name, std::move(device)) {}

MlirLoweringContext::MlirLoweringContext(
    const std::string& name, torch::lazy::BackendDevice device,
    c10::ArrayRef<const torch::lazy::Node*> post_order,
    torch::lazy::Util::EmissionMap emit_status)
    : TSLoweringContext(name, std::move(device), post_order, std::move(emit_status)),
      post_order_(post_order.begin(), post_order.end()),
      has_post_order_(true) {}

size_t MlirLoweringContext::AddResult(const torch::lazy::Output& output) {
  results_.push_back(output);
  return TSLoweringContext::AddResult(output);
}

void MlirLoweringContext::Annotate(const torch::lazy::Output& output) {
  torch::jit::Value* value = nullptr;
  try {
    value = GetOutputOp(output);
  } catch (const c10::Error&) {
    return;  // an output the TS lowering never materialized: nothing to type
  }
  // Scalars (int/float graph inputs, constants) keep their TorchScript type.
  if (!value->type()->cast<c10::TensorType>()) return;
  const torch::lazy::Shape& shape = output.shape();
  value->setType(c10::TensorType::createContiguous(shape.scalar_type(), c10::kCPU,
                                                   shape.sizes()));
}

torch::lazy::ComputationPtr MlirLoweringContext::Build() {
  for (const torch::lazy::Node* node : post_order_)
    for (size_t i = 0; i < node->num_outputs(); ++i)
      Annotate(torch::lazy::Output(node, i));
  for (const torch::lazy::Output& out : results_) Annotate(out);

  auto ts = std::static_pointer_cast<torch::lazy::TSComputation>(
      TSLoweringContext::Build());
  std::shared_ptr<torch::jit::Graph> graph = ts->graph();
  // LTC leaves unused tuples and duplicated list constants behind.
  torch::jit::EliminateDeadCode(graph);

  std::vector<torch::lazy::Shape> parameter_shapes;
  for (const torch::lazy::BackendDataPtr& data : parameters_)
    parameter_shapes.push_back(data->shape());
  std::vector<torch::lazy::Shape> result_shapes;
  for (const torch::lazy::Output& out : results_) result_shapes.push_back(out.shape());
  auto computation = std::make_shared<MlirComputation>(
      std::make_shared<const TorchScriptGraph>(graph), std::move(parameter_shapes),
      std::move(result_shapes));
  if (has_post_order_) computation->wiring = DagFingerprint(post_order_, results_);
  if (has_post_order_ && DebugEnabled())
    computation->trace_summary = SummarizeTrace(post_order_, results_);
  return computation;
}

std::unique_ptr<torch::lazy::LoweringContext> MakeLoweringContext(
    const std::string& name, torch::lazy::BackendDevice device) {
  return std::make_unique<MlirLoweringContext>(name, std::move(device));
}

std::unique_ptr<torch::lazy::LoweringContext> MakeLoweringContext(
    const std::string& name, torch::lazy::BackendDevice device,
    c10::ArrayRef<const torch::lazy::Node*> post_order,
    torch::lazy::Util::EmissionMap emit_status) {
  return std::make_unique<MlirLoweringContext>(name, std::move(device), post_order,
                                               std::move(emit_status));
}

}  // namespace backend
}  // namespace ltc_mlir
