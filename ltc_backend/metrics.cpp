#include "ltc_backend/metrics.h"

#include "ltc_backend/recompile_diagnostics.h"

#include <torch/csrc/lazy/core/metrics.h>

#include "ltc_mlir/runtime/convolution.h"
#include "ltc_mlir/runtime/gemm.h"

#include <algorithm>
#include <iomanip>
#include <mutex>
#include <sstream>

namespace ltc_mlir {
namespace backend {
namespace {

std::mutex mu;
MetricsSnapshot state;
// LTC's boxed eager fallback counts each op under an "aten::<op>" counter;
// reset() remembers their values so metrics() reports the difference.
std::map<std::string, int64_t> eager_baseline;
// The runtime's process-wide counters of kernel calls computed by plain
// loops, and their values at the last reset().
std::map<std::string, int64_t> kernel_baseline;
constexpr size_t kMaxReasons = 64;

std::map<std::string, int64_t> KernelFallbackCounters() {
  return {{"gemm", ltc_mlir::runtime::gemmReferenceCalls()},
          {"convolution", ltc_mlir::runtime::convolutionStats().fallbackCalls}};
}

std::map<std::string, int64_t> EagerFallbackCounters() {
  std::map<std::string, int64_t> out;
  for (const std::string& name : torch::lazy::GetCounterNames()) {
    if (name.rfind("aten::", 0) != 0) continue;
    // .item() reads a value back to the host through this op: a transfer,
    // not computation that escaped the compiler.
    if (name == "aten::_local_scalar_dense") continue;
    if (torch::lazy::CounterData* c = torch::lazy::GetCounter(name))
      out[name] = c->Value();
  }
  return out;
}

}  // namespace

void Metrics::RecordCompile(const std::string& graph_name, double ms) {
  std::lock_guard<std::mutex> lock(mu);
  state.compile_count++;
  state.compile_time_ms += ms;
  if (state.compiled_graphs.size() < kMaxReasons) state.compiled_graphs.push_back(graph_name);
}

void Metrics::RecordDiskCache(bool hit) {
  std::lock_guard<std::mutex> lock(mu);
  (hit ? state.disk_cache_hits : state.disk_cache_misses)++;
}

void Metrics::RecordCodeReuse() {
  std::lock_guard<std::mutex> lock(mu);
  state.code_reuse_hits++;
}

void Metrics::RecordBatchGeneric(const std::string& outcome, const std::string& reason) {
  std::lock_guard<std::mutex> lock(mu);
  if (outcome == "compile") {
    state.batch_generic_compiles++;
  } else if (outcome == "hit") {
    state.batch_generic_hits++;
  } else {
    state.batch_generic_refusals++;
    if (state.batch_generic_refusal_reasons.size() < 32)
      state.batch_generic_refusal_reasons.push_back(reason);
  }
}

void Metrics::RecordMetaShapeLookup(bool hit) {
  std::lock_guard<std::mutex> lock(mu);
  (hit ? state.meta_shape_cache_hits : state.meta_shape_probes)++;
}

void Metrics::RecordDeferredGraph() {
  std::lock_guard<std::mutex> lock(mu);
  state.deferred_graphs++;
}

void Metrics::RecordDeferredExecution(double ms) {
  std::lock_guard<std::mutex> lock(mu);
  state.execute_count++;
  state.execute_time_ms += ms;
  state.deferred_execute_count++;
}

void Metrics::RecordCompileStages(const std::vector<std::pair<std::string, double>>& stages) {
  std::lock_guard<std::mutex> lock(mu);
  for (const auto& s : stages) state.compile_stage_ms[s.first] += s.second;
}

void Metrics::RecordCompileExplanation(const std::string& category,
                                       const std::string& message) {
  std::lock_guard<std::mutex> lock(mu);
  state.compile_reasons[category]++;
  if (state.compile_explanations.size() < kMaxReasons)
    state.compile_explanations.push_back(message);
}

void Metrics::RecordFallbackGraph(const std::string& reason) {
  std::lock_guard<std::mutex> lock(mu);
  state.fallback_graph_count++;
  if (state.fallback_reasons.size() < kMaxReasons) state.fallback_reasons.push_back(reason);
}

void Metrics::RecordExecution(bool native, bool cache_hit, double ms,
                              const std::vector<std::string>& fallback_ops,
                              const std::vector<std::pair<std::string, int64_t>>& native_ops) {
  std::lock_guard<std::mutex> lock(mu);
  state.execute_count++;
  state.execute_time_ms += ms;
  if (cache_hit) state.cache_hits++;
  // Partially native graphs (TryPartition, torchscript/boundary.h) count both kinds.
  for (const auto& op : native_ops) state.native_ops[op.first] += op.second;
  if (native) {
    state.native_execute_count++;
  } else {
    state.fallback_execute_count++;
    for (const std::string& op : fallback_ops) state.fallback_ops[op]++;
  }
}

void Metrics::RecordCollective(const std::string& kind, int64_t bytes) {
  std::lock_guard<std::mutex> lock(mu);
  state.collective_calls[kind]++;
  state.collective_bytes += bytes;
}

void Metrics::RecordCollectiveWait(double ms) {
  std::lock_guard<std::mutex> lock(mu);
  state.collective_wait_ms += ms;
}

void Metrics::RecordReplayGraph() {
  std::lock_guard<std::mutex> lock(mu);
  state.replay_graphs++;
}

void Metrics::RecordReplayCall(double ms, int64_t written_in_place, int64_t copied_back) {
  std::lock_guard<std::mutex> lock(mu);
  state.replay_calls++;
  state.replay_time_ms += ms;
  state.replay_inputs_written_in_place += written_in_place;
  state.replay_inputs_copied_back += copied_back;
}

void Metrics::RecordReplayEagerGraph(const std::string& reason) {
  std::lock_guard<std::mutex> lock(mu);
  state.replay_eager_graphs++;
  state.fallback_reasons.push_back("torch.compile graph run eagerly: " + reason);
}

MetricsSnapshot Metrics::Get() {
  std::map<std::string, int64_t> eager = EagerFallbackCounters();
  std::map<std::string, int64_t> kernels = KernelFallbackCounters();
  std::lock_guard<std::mutex> lock(mu);
  MetricsSnapshot out = state;
  for (const auto& kv : kernels) {
    int64_t n = kv.second - kernel_baseline[kv.first];
    if (n > 0) out.kernel_fallback_calls[kv.first] = n;
  }
  for (const auto& kv : eager) {
    auto base = eager_baseline.find(kv.first);
    int64_t n = kv.second - (base == eager_baseline.end() ? 0 : base->second);
    if (n > 0) out.fallback_ops[kv.first] += n;
  }
  return out;
}

void Metrics::Reset() {
  std::map<std::string, int64_t> eager = EagerFallbackCounters();
  std::map<std::string, int64_t> kernels = KernelFallbackCounters();
  std::lock_guard<std::mutex> lock(mu);
  state = MetricsSnapshot();
  eager_baseline = std::move(eager);
  kernel_baseline = std::move(kernels);
  ResetCompileHistory();
}

std::string Metrics::Report() {
  MetricsSnapshot m = Get();
  std::ostringstream os;
  os << std::fixed << std::setprecision(1);
  os << "ltc_mlir metrics\n"
     << "  graphs compiled natively : " << m.compile_count << " (" << m.compile_time_ms
     << " ms compiling)\n"
     << "  graph executions         : " << m.execute_count << " (" << m.native_execute_count
     << " native, " << m.fallback_execute_count << " fallback; " << m.execute_time_ms
     << " ms)\n"
     << "  compile cache hits       : " << m.cache_hits << " in memory, " << m.disk_cache_hits
     << " from disk (" << m.disk_cache_misses << " disk misses), " << m.code_reuse_hits
     << " graphs sharing the code of an identical one\n"
     << "  fallback graphs          : " << m.fallback_graph_count << "\n";
  if (m.batch_generic_compiles + m.batch_generic_refusals > 0)
    os << "  every-batch-size graphs  : " << m.batch_generic_compiles << " compiled, "
       << m.batch_generic_hits << " new batch sizes run without compiling, "
       << m.batch_generic_refusals << " pairs of sizes that could not share code\n";
  if (m.deferred_graphs > 0)
    os << "  new shapes not compiled  : " << m.deferred_graphs << " graphs ("
       << m.deferred_execute_count << " runs through the fallback until their shape recurs)\n";
  if (!m.compile_stage_ms.empty()) {
    os << "  compile time by stage    :";
    for (const char* stage : {"emit", "parse", "torch_to_linalg", "linalg_to_llvm",
                              "llvm_codegen", "object_load"}) {
      auto it = m.compile_stage_ms.find(stage);
      if (it != m.compile_stage_ms.end()) os << " " << stage << " " << it->second << " ms;";
    }
    os << "\n";
  }
  int64_t native_op_runs = 0;
  for (const auto& kv : m.native_ops) native_op_runs += kv.second;
  os << "  ops run natively         : " << native_op_runs << " (" << m.native_ops.size()
     << " distinct ops)\n";
  if (m.fallback_ops.empty()) {
    os << "  fallback ops             : none\n";
  } else {
    os << "  fallback ops (op: count) :\n";
    for (const auto& kv : m.fallback_ops) os << "    " << kv.first << ": " << kv.second << "\n";
  }
  if (!m.kernel_fallback_calls.empty()) {
    os << "  kernels run as plain loops:";
    for (const auto& kv : m.kernel_fallback_calls) os << " " << kv.first << " " << kv.second << ";";
    std::string why = ltc_mlir::runtime::oneDnnLibraryError();
    os << (why.empty() ? " (oneDNN refused these calls)" : " (" + why + ")") << "\n";
  }
  if (!m.collective_calls.empty()) {
    os << "  collectives in graphs    :";
    for (const auto& kv : m.collective_calls) os << " " << kv.first << " " << kv.second << ";";
    os << " " << m.collective_bytes << " bytes, " << m.collective_wait_ms << " ms waited\n";
  }
  if (m.replay_graphs > 0 || m.replay_eager_graphs > 0)
    os << "  torch.compile graphs     : " << m.replay_graphs << " built, " << m.replay_calls
       << " calls replayed in " << m.replay_time_ms << " ms, " << m.replay_eager_graphs
       << " run eagerly; updated inputs: " << m.replay_inputs_written_in_place
       << " written in place, " << m.replay_inputs_copied_back << " copied back\n";
  if (!m.compile_reasons.empty()) {
    // Most frequent first: what keeps making graphs compile.
    std::vector<std::pair<int64_t, std::string>> reasons;
    for (const auto& kv : m.compile_reasons) reasons.push_back({-kv.second, kv.first});
    std::sort(reasons.begin(), reasons.end());
    os << "  why graphs compiled      :";
    for (const auto& r : reasons) os << " " << r.second << " " << -r.first << ";";
    os << "\n";
  }
  for (const std::string& r : m.fallback_reasons) os << "  fell back: " << r << "\n";
  for (const std::string& g : m.compiled_graphs) os << "  compiled: " << g << "\n";
  return os.str();
}

}  // namespace backend
}  // namespace ltc_mlir
