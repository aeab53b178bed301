#include "ltc_backend/computation.h"

#include "ltc_backend/collectives/collective_runner.h"

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

const MlirComputation::Collectives& MlirComputation::collectives() {
  std::call_once(collectives_once_, [&] {
    collectives_.sequence = CollectiveSequence(torch_dialect, &collectives_.group);
  });
  return collectives_;
}

}  // namespace backend
}  // namespace ltc_mlir
