// recompile_diagnostics: with LTC_MLIR_DEBUG=1 or ltc_mlir.set_debug(True),
// every graph that compiles says why: what differs from the nearest graph
// compiled before it (an input shape or dtype, a new op, a changed
// constant), with the Python line that traced the op. LTC records that
// line in each node's metadata while torch_lazy_ir_debug is on, which
// set_debug() turns on (it costs a Python stack walk per traced op).
#pragma once

#include <torch/csrc/lazy/core/ir.h>

#include <map>
#include <memory>
#include <string>
#include <vector>

namespace ltc_mlir {
namespace backend {

void SetDebug(bool enabled);
bool DebugEnabled();  // LTC_MLIR_DEBUG=1 or SetDebug(true)

// What a traced graph is made of, as the diagnostics compare it.
struct TraceSummary {
  std::vector<std::string> ops;        // node op names, post order ("aten::add")
  std::vector<std::string> nodes;      // node text without its source location
  std::vector<std::string> locations;  // the user's "file:line (function)", or ""
  std::vector<std::string> inputs;     // device-data inputs, "f32[32, 784]"
  std::vector<std::string> input_locations;
  std::vector<std::string> outputs;    // result shapes
};

std::shared_ptr<const TraceSummary> SummarizeTrace(
    const std::vector<const torch::lazy::Node*>& post_order,
    const std::vector<torch::lazy::Output>& results);

struct CompileExplanation {
  std::string category;  // "first graph", "input shape changed", "new op", ...
  std::string message;   // one line for the user
};

// Why `summary` needs a compile, against the graphs explained before; the
// graph is then remembered under `graph_name`. Thread-safe.
CompileExplanation ExplainCompile(const std::string& graph_name,
                                  const std::shared_ptr<const TraceSummary>& summary);

// Forgets the remembered graphs (ltc_mlir.reset_metrics()).
void ResetCompileHistory();

}  // namespace backend
}  // namespace ltc_mlir
