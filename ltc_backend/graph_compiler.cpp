#include "ltc_backend/graph_compiler.h"

#include <algorithm>
#include <cstdio>
#include <functional>
#include <mutex>

#include "ltc_backend/config.h"
#include "ltc_backend/metrics.h"
#include "ltc_backend/torch_mlir_emitter.h"
#include "ltc_mlir/Compiler/Compiler.h"
#include "ltc_mlir/runtime/openmp.h"
#include "ltc_mlir/runtime/symbols.h"

namespace ltc_mlir {
namespace backend {
namespace {

// "torch.aten.add.Tensor" / "aten::add" -> "aten::add": the key users see.
std::string OpKey(const std::string& name) {
  std::string s = name;
  if (s.rfind("torch.aten.", 0) == 0) {
    s = s.substr(11);
    s = "aten::" + s.substr(0, s.find('.'));
  }
  return s;
}

std::vector<std::string> GraphOps(const torch::jit::Graph& graph) {
  std::vector<std::string> ops;
  for (const torch::jit::Node* n : graph.nodes())
    if (n->kind().is_aten()) ops.push_back(n->kind().toQualString());
  return ops;
}

std::string Join(const std::vector<std::string>& v, const char* sep) {
  std::string out;
  for (size_t i = 0; i < v.size(); ++i) out += (i ? sep : "") + v[i];
  return out;
}

runtime::ArgKind ToRuntimeKind(ValueKind k) {
  switch (k) {
    case ValueKind::Tensor: return runtime::ArgKind::Tensor;
    case ValueKind::Int: return runtime::ArgKind::Int;
    case ValueKind::Float: return runtime::ArgKind::Float;
  }
  return runtime::ArgKind::Tensor;
}

// The compiled signature must be exactly what LTC will pass and expect.
std::string CheckSignature(const CompiledFunction& fn, const MlirComputation& comp) {
  const auto& graph = *comp.graph();
  const size_t expected = graph.inputs().size() + (comp.rng_seed_input ? 1 : 0);
  if (fn.inputs.size() != expected)
    return "compiled function takes " + std::to_string(fn.inputs.size()) +
           " inputs, the graph has " + std::to_string(graph.inputs().size()) +
           (comp.rng_seed_input ? " and a random seed" : "");
  if (comp.rng_seed_input && fn.inputs.back().kind != ValueKind::Int)
    return "the random seed argument is not an int";
  if (comp.outputs.size() != comp.result_shapes().size())
    return "graph has " + std::to_string(comp.outputs.size()) + " outputs, LTC expects " +
           std::to_string(comp.result_shapes().size());
  for (size_t i = 0; i < comp.outputs.size(); ++i) {
    const OutputRef& ref = comp.outputs[i];
    const torch::lazy::Shape& s = comp.result_shapes()[i];
    const std::vector<ValueDesc>& from = ref.source == OutputSource::kResult ? fn.outputs : fn.inputs;
    if (ref.index >= from.size())
      return "output " + std::to_string(i) + " refers to a missing value";
    const ValueDesc& d = from[ref.index];
    if (d.kind != ValueKind::Tensor || d.dtype != DtypeName(s.scalar_type()) ||
        d.shape != s.sizes().vec())
      return "output " + std::to_string(i) + " does not match LTC's shape " + s.to_string();
  }
  for (size_t r = 0; r < fn.outputs.size(); ++r) {
    bool feeds = std::any_of(comp.outputs.begin(), comp.outputs.end(), [&](const OutputRef& ref) {
      return ref.source == OutputSource::kResult && ref.index == r;
    });
    if (!feeds) return "result " + std::to_string(r) + " feeds no graph output";
  }
  return "";
}

// Computed once here rather than on every run.
std::vector<torch::lazy::Shape> FunctionResultShapes(const MlirComputation& comp,
                                                     size_t num_results) {
  std::vector<torch::lazy::Shape> shapes(num_results);
  std::vector<bool> set(num_results, false);
  for (size_t i = 0; i < comp.outputs.size(); ++i) {
    const OutputRef& ref = comp.outputs[i];
    if (ref.source != OutputSource::kResult || set[ref.index]) continue;
    shapes[ref.index] = comp.result_shapes()[i];
    set[ref.index] = true;
  }
  return shapes;
}

void FallBack(MlirComputation& comp, const std::string& why,
              const std::vector<std::string>& blocking_ops) {
  // Every op of the graph runs in TorchScript: that is what fallback_ops
  // counts per execution. The reason names the ops that blocked it.
  comp.fallback_ops = GraphOps(*comp.graph());
  std::vector<std::string> blocking;
  for (const std::string& op : blocking_ops) blocking.push_back(OpKey(op));
  std::sort(blocking.begin(), blocking.end());
  blocking.erase(std::unique(blocking.begin(), blocking.end()), blocking.end());
  std::string text = blocking.empty() ? "" : "unsupported " + Join(blocking, ", ");
  if (!why.empty()) text += (text.empty() ? "" : " -- ") + why;
  comp.fallback_reason = comp.name + ": " + text;
  if (comp.fallback_ops.empty() && !blocking.empty()) comp.fallback_ops = blocking;
  Metrics::RecordFallbackGraph(comp.fallback_reason);
  TORCH_WARN("ltc_mlir: graph runs through the TorchScript fallback (", comp.fallback_reason,
             ")");
}

// A dump or reproducer directory that cannot be written would otherwise
// lose every file silently; once per process is enough.
void WarnWriteErrorOnce(const std::string& error) {
  static std::once_flag once;
  std::call_once(once, [&] {
    TORCH_WARN("ltc_mlir: ", error,
               ". Set LTC_MLIR_DUMP_DIR / ltc_mlir.set_dump_dir() and LTC_MLIR_REPRODUCER_DIR / "
               "ltc_mlir.set_reproducer_dir() to a writable directory (or unset them).");
  });
}

}  // namespace

void CompileComputation(MlirComputation& comp) {
  EmittedModule emitted = EmitTorchDialect(*comp.graph(), comp.parameter_shapes());
  comp.torch_dialect = emitted.text;
  comp.outputs = emitted.outputs;
  comp.rng_seed_input = emitted.rng_seed_input;
  char name[32];
  std::snprintf(name, sizeof(name), "graph_%016zx", std::hash<std::string>()(emitted.text));
  comp.name = name;
  if (!emitted.unsupported_ops.empty())
    return FallBack(comp, Join(emitted.reasons, "; "), emitted.unsupported_ops);

  CompileOptions options;
  options.dumpDir = GetDumpDir();
  options.dumpName = comp.name;
  options.reproducerDir = GetReproducerDir();
  options.maxReproducers = kMaxReproducers;
  options.symbolResolver = [](const std::string& symbol) {
    if (void* address = runtime::resolveRuntimeSymbol(symbol)) return address;
    return runtime::resolveOpenMPSymbol(symbol);
  };
  CompileResult result = compileTorchModule(emitted.text, options);
  if (!result.writeError.empty()) WarnWriteErrorOnce(result.writeError);
  if (!result.function) {
    // Unsupported ops are named by FallBack; other errors keep their text.
    std::string why = result.unsupportedOps.empty() ? result.error : "";
    if (why.size() > 2000) why = why.substr(0, 2000) + "...";
    if (!result.reproducerPath.empty())
      why += std::string(why.empty() ? "" : " ") + "[reproducer: " + result.reproducerPath + "]";
    return FallBack(comp, why, result.unsupportedOps);
  }
  std::string mismatch = CheckSignature(*result.function, comp);
  if (!mismatch.empty()) return FallBack(comp, "internal error: " + mismatch, {});
  comp.function_result_shapes = FunctionResultShapes(comp, result.function->outputs.size());

  std::vector<runtime::ArgSpec> inputs, outputs;
  for (const ValueDesc& d : result.function->inputs)
    inputs.push_back({ToRuntimeKind(d.kind), d.shape});
  for (const ValueDesc& d : result.function->outputs)
    outputs.push_back({ToRuntimeKind(d.kind), d.shape});
  comp.executable = std::make_shared<runtime::Executable>(
      result.function->entry, std::move(inputs), std::move(outputs), result.function,
      result.function->checkMessages);
  Metrics::RecordCompile(comp.name, result.compileTimeMs);
}


}  // namespace backend
}  // namespace ltc_mlir
