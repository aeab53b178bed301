#include "ltc_backend/computation.h"

namespace ltc_mlir {
namespace backend {

MlirComputation::MlirComputation(std::shared_ptr<const TracedGraph> graph,
                                 std::vector<torch::lazy::Shape> parameter_shapes,
                                 std::vector<torch::lazy::Shape> result_shapes)
    : graph_(std::move(graph)),
      parameter_shapes_(std::move(parameter_shapes)),
      result_shapes_(std::move(result_shapes)),
      parameter_names_(graph_->InputNames()) {}

const std::string MlirComputation::to_string() const {
  if (!torch_dialect.empty()) return torch_dialect;
  return graph_->ToString();
}

}  // namespace backend
}  // namespace ltc_mlir
