// pending_graph: see pending_graph.h.
#include "ltc_backend/pending_graph.h"

#include <ATen/FunctionalTensorWrapper.h>
#include <c10/util/Exception.h>
#include <torch/csrc/lazy/core/ir_util.h>

#include "ltc_backend/computation.h"
#include "ltc_backend/torchscript/boundary.h"

namespace ltc_mlir {
namespace backend {

torch::lazy::LazyTensorPtr LazyTensorOf(const at::Tensor& tensor, const char* prefix,
                                        const char* what, size_t index) {
  at::Tensor t = tensor;
  if (at::functionalization::impl::isFunctionalTensor(t)) at::functionalization::impl::sync(t);
  torch::lazy::LazyTensorPtr lazy = torch::lazy::TryGetLtcTensor(t);
  TORCH_CHECK_VALUE(lazy, prefix, ": ", what, " #", index, " is on ", tensor.device(),
                    ", not on the lazy device");
  return lazy;
}

PendingGraph LowerPendingGraph(const std::vector<at::Tensor>& tensors, const std::string& name,
                               const char* prefix, const char* what) {
  PendingGraph graph;
  std::vector<torch::lazy::Value> values;
  std::vector<const torch::lazy::Node*> roots;
  for (size_t i = 0; i < tensors.size(); ++i) {
    torch::lazy::LazyTensorPtr lazy = LazyTensorOf(tensors[i], prefix, what, i);
    graph.device = lazy->GetDevice();
    values.push_back(lazy->GetIrValue());
    roots.push_back(values.back().node.get());
  }
  std::vector<const torch::lazy::Node*> post_order = torch::lazy::Util::ComputePostOrder(roots);
  std::unique_ptr<torch::lazy::LoweringContext> ctx =
      MakeLoweringContext(name, graph.device, post_order, {});
  for (const torch::lazy::Value& v : values)
    ctx->AddResult(torch::lazy::Output(v.node.get(), v.index));
  graph.comp = std::dynamic_pointer_cast<MlirComputation>(ctx->Build());
  TORCH_CHECK(graph.comp, prefix,
              ": internal error: the lowering context built no MlirComputation");
  graph.parameters = ctx->GetParametersData();
  return graph;
}

}  // namespace backend
}  // namespace ltc_mlir
