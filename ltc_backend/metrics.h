// metrics: what ran natively, what fell back and why, and how long it took.
// Thread-safe. Exposed to Python as ltc_mlir.metrics() (keys in DESIGN.md).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace ltc_mlir {
namespace backend {

struct MetricsSnapshot {
  int64_t compile_count = 0;         // graphs compiled to native code
  int64_t cache_hits = 0;            // executions of an already-compiled graph
  int64_t execute_count = 0;         // graph executions (native or fallback)
  int64_t native_execute_count = 0;
  double compile_time_ms = 0;        // native compiles, incl. lowering + JIT
  double execute_time_ms = 0;        // all graph executions
  int64_t fallback_graph_count = 0;  // graphs that could not compile natively
  int64_t fallback_execute_count = 0;
  std::map<std::string, int64_t> fallback_ops;  // op -> ops run outside native code
  std::map<std::string, int64_t> native_ops;    // op -> ops run inside native graphs
  std::vector<std::string> fallback_reasons;    // one line per fallback graph
  std::vector<std::string> compiled_graphs;     // names of native graphs
  // Calls of the runtime's oneDNN kernels ("gemm", "convolution") computed
  // by plain loops instead (oneDNN missing or refusing): right, but slow.
  std::map<std::string, int64_t> kernel_fallback_calls;
  int64_t disk_cache_hits = 0;    // graphs loaded from the persistent cache
  int64_t disk_cache_misses = 0;  // graphs looked up there and compiled
  // Graphs new to LTC whose module text equals that of a live compiled
  // graph (e.g. a step with its inputs in another order): code shared.
  int64_t code_reuse_hits = 0;
  // One compile for every batch size (batch_families.h): generic graphs
  // compiled (or loaded from disk), graphs of a new batch size that run one
  // without compiling, and pairs of sizes whose lowerings could not be
  // merged (the new size compiled on its own), with the reasons.
  int64_t batch_generic_compiles = 0;
  int64_t batch_generic_hits = 0;
  int64_t batch_generic_refusals = 0;
  std::vector<std::string> batch_generic_refusal_reasons;
  // Output shapes of AtenOpNode ops (lazy_kernels/meta_shape_cache.h):
  // probes run on meta tensors, and lookups answered from the cache.
  int64_t meta_shape_probes = 0;
  int64_t meta_shape_cache_hits = 0;
  // New shapes of graphs compiled in enough shapes already: graphs whose
  // compile waits until their shape recurs, and their runs meanwhile
  // (through the fallback; neither native nor fallback executions).
  int64_t deferred_graphs = 0;
  int64_t deferred_execute_count = 0;
  // Compile time per stage, summed over compiles and cache loads: emit,
  // parse, torch_to_linalg, linalg_to_llvm, llvm_codegen, object_load.
  std::map<std::string, double> compile_stage_ms;
  // With debugging on (recompile_diagnostics.h): why each graph compiled,
  // counted by category, and the messages (the first kMaxReasons).
  std::map<std::string, int64_t> compile_reasons;
  std::vector<std::string> compile_explanations;
  // torch.distributed collectives run by compiled graphs
  // (collectives/collective_runner.cpp): calls by kind ("all_reduce", ...),
  // bytes received, and the time the graphs' threads waited for them.
  std::map<std::string, int64_t> collective_calls;
  int64_t collective_bytes = 0;
  double collective_wait_ms = 0;
  // torch.compile(backend="ltc_mlir") (replay_graph.h): FX graphs built
  // (one per argument signature), calls replayed, time spent in those calls
  // (binding, running, unwrapping), and graphs that run eagerly instead
  // with the reason (also in fallback_reasons).
  int64_t replay_graphs = 0;
  int64_t replay_calls = 0;
  double replay_time_ms = 0;
  int64_t replay_eager_graphs = 0;
  // Inputs a replayed graph updated (an optimizer's parameters and state):
  // written by the compiled code into the input's own buffer, or copied
  // there after the run.
  int64_t replay_inputs_written_in_place = 0;
  int64_t replay_inputs_copied_back = 0;
};

class Metrics {
 public:
  static void RecordCompile(const std::string& graph_name, double ms);
  static void RecordDiskCache(bool hit);
  static void RecordCodeReuse();
  static void RecordBatchGeneric(const std::string& outcome, const std::string& reason = "");
  static void RecordMetaShapeLookup(bool hit);
  static void RecordDeferredGraph();
  static void RecordDeferredExecution(double ms);
  static void RecordCompileStages(const std::vector<std::pair<std::string, double>>& stages);
  static void RecordFallbackGraph(const std::string& reason);
  static void RecordCompileExplanation(const std::string& category, const std::string& message);
  // `native_ops`: the graph's aten ops with their multiplicity, counted
  // once per native execution.
  static void RecordExecution(bool native, bool cache_hit, double ms,
                              const std::vector<std::string>& fallback_ops,
                              const std::vector<std::pair<std::string, int64_t>>& native_ops);
  static void RecordCollective(const std::string& kind, int64_t bytes);
  static void RecordCollectiveWait(double ms);
  static void RecordReplayGraph();
  static void RecordReplayCall(double ms, int64_t written_in_place, int64_t copied_back);
  static void RecordReplayEagerGraph(const std::string& reason);
  static MetricsSnapshot Get();  // includes the eager-fallback op counters
  static void Reset();
  static std::string Report();
};

}  // namespace backend
}  // namespace ltc_mlir
