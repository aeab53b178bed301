#include "ltc_backend/torchscript/torchscript_graph.h"

#include <torch/csrc/jit/passes/shape_analysis.h>

#include <sstream>

#include "ltc_backend/computation.h"
#include "ltc_backend/torchscript/torch_mlir_emitter.h"

namespace ltc_mlir {
namespace backend {
namespace {

// TorchScript's interpreter turns an op's error into a std::runtime_error
// "The following operation failed in the TorchScript interpreter.
// Traceback ... RuntimeError: <message>". The graph has no TorchScript
// source a user could read, so the op's own message is raised again (as the
// named Python exception type where the interpreter kept one), with the
// graph's name.
[[noreturn]] void RethrowWithoutInterpreterFrame(const std::exception& e, const std::string& graph) {
  const std::string text = e.what();
  const std::string header = "The following operation failed in the TorchScript interpreter.";
  const std::string trace = "Traceback of TorchScript (most recent call last):\n";
  size_t start = text.find(trace);
  if (text.rfind(header, 0) != 0 || start == std::string::npos) throw;
  std::string rest = text.substr(start + trace.size());
  size_t colon = rest.find(": ");
  if (colon == std::string::npos) throw;
  std::string kind = rest.substr(0, colon);
  std::string message = rest.substr(colon + 2);
  while (!message.empty() && message.back() == '\n') message.pop_back();
  message += "\n(raised while graph " + graph + " ran through the TorchScript fallback)";
  const c10::SourceLocation here{__func__, __FILE__, static_cast<uint32_t>(__LINE__)};
  if (kind == "IndexError") throw c10::IndexError(here, message);
  if (kind == "ValueError") throw c10::ValueError(here, message);
  if (kind == "TypeError") throw c10::TypeError(here, message);
  if (kind == "NotImplementedError") throw c10::NotImplementedError(here, message);
  throw c10::Error(here, message);
}

}  // namespace


TorchScriptGraph::TorchScriptGraph(std::shared_ptr<torch::jit::Graph> graph)
    : graph_(std::move(graph)) {}

std::vector<std::string> TorchScriptGraph::InputNames() const {
  std::vector<std::string> names;
  for (const torch::jit::Value* input : graph_->inputs()) names.push_back(input->debugName());
  return names;
}

std::string TorchScriptGraph::ToString() const {
  std::ostringstream os;
  os << *graph_;
  return os.str();
}

std::vector<std::string> TorchScriptGraph::AtenOps() const {
  std::vector<std::string> ops;
  for (const torch::jit::Node* n : graph_->nodes())
    if (n->kind().is_aten()) ops.push_back(n->kind().toQualString());
  return ops;
}

EmittedModule TorchScriptGraph::EmitTorchDialect(
    const std::vector<torch::lazy::Shape>& input_shapes) const {
  return backend::EmitTorchDialect(*graph_, input_shapes);
}

void TorchScriptGraph::Interpret(torch::jit::Stack& stack, const std::string& name) const {
  std::call_once(executor_once_, [this] {
    // The static shapes we annotated are for the emitter; the TorchScript
    // executor works on a copy without them, as with the TS backend.
    std::shared_ptr<torch::jit::Graph> g = graph_->copy();
    torch::jit::EraseShapeInformation(g);
    executor_ = std::make_unique<torch::jit::GraphExecutor>(g, "");
  });
  try {
    executor_->run(stack);
  } catch (const std::exception& e) {
    RethrowWithoutInterpreterFrame(e, name);
  }
}

const torch::jit::Graph& JitGraphOf(const MlirComputation& comp) {
  return static_cast<const TorchScriptGraph&>(comp.graph()).graph();
}

}  // namespace backend
}  // namespace ltc_mlir
