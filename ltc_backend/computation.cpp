#include "ltc_backend/computation.h"

#include <torch/csrc/jit/passes/shape_analysis.h>

#include <sstream>

namespace ltc_mlir {
namespace backend {

MlirComputation::MlirComputation(std::shared_ptr<torch::jit::Graph> graph,
                                 std::vector<torch::lazy::Shape> parameter_shapes,
                                 std::vector<torch::lazy::Shape> result_shapes)
    : graph_(std::move(graph)),
      parameter_shapes_(std::move(parameter_shapes)),
      result_shapes_(std::move(result_shapes)) {
  for (torch::jit::Value* input : graph_->inputs())
    parameter_names_.push_back(input->debugName());
}

const std::string MlirComputation::to_string() const {
  if (!torch_dialect.empty()) return torch_dialect;
  std::ostringstream os;
  os << *graph_;
  return os.str();
}

torch::jit::GraphExecutor& MlirComputation::fallback_executor() {
  std::call_once(fallback_once_, [this] {
    // The static shapes we annotated are for the emitter; the TorchScript
    // executor works on a copy without them, as with the TS backend.
    std::shared_ptr<torch::jit::Graph> g = graph_->copy();
    torch::jit::EraseShapeInformation(g);
    fallback_executor_ = std::make_unique<torch::jit::GraphExecutor>(g, "");
  });
  return *fallback_executor_;
}

}  // namespace backend
}  // namespace ltc_mlir
