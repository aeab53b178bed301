// torchscript_graph: the TracedGraph of boundary.h over the TorchScript graph
// LTC's TS lowering builds, for the sources in ltc_backend/torchscript/.
#pragma once

#include <torch/csrc/jit/ir/ir.h>
#include <torch/csrc/jit/runtime/graph_executor.h>

#include <memory>
#include <mutex>

#include "ltc_backend/torchscript/boundary.h"

namespace ltc_mlir {
namespace backend {

class TorchScriptGraph final : public TracedGraph {
 public:
  explicit TorchScriptGraph(std::shared_ptr<torch::jit::Graph> graph);

  std::vector<std::string> InputNames() const override;
  std::string ToString() const override;
  std::vector<std::string> AtenOps() const override;
  EmittedModule EmitTorchDialect(
      const std::vector<torch::lazy::Shape>& input_shapes) const override;
  void Interpret(torch::jit::Stack& stack, const std::string& name) const override;

  const torch::jit::Graph& graph() const { return *graph_; }

 private:
  std::shared_ptr<torch::jit::Graph> graph_;
  // Created on the first fallback run.
  mutable std::once_flag executor_once_;
  mutable std::unique_ptr<torch::jit::GraphExecutor> executor_;
};

// The TorchScript graph of a computation built by MakeLoweringContext.
const torch::jit::Graph& JitGraphOf(const MlirComputation& comp);

}  // namespace backend
}  // namespace ltc_mlir
