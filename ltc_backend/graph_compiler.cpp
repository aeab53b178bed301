#include "ltc_backend/graph_compiler.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <chrono>
#include <functional>
#include <iostream>
#include <optional>
#include <set>
#include <map>
#include <mutex>

#include "ltc_backend/batch_families.h"
#include "ltc_backend/compile_cache.h"
#include "ltc_backend/config.h"
#include "ltc_backend/metrics.h"
#include "ltc_backend/recompile_diagnostics.h"
#include "ltc_backend/shape_variants.h"
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

// A compiled shape (-1: any size, generic code) against LTC's.
bool ShapeFits(const std::vector<int64_t>& compiled, c10::IntArrayRef actual) {
  if (compiled.size() != actual.size()) return false;
  for (size_t d = 0; d < compiled.size(); ++d)
    if (compiled[d] != runtime::kDynamicSize && compiled[d] != actual[d]) return false;
  return true;
}

// The compiled signature must be exactly what LTC will pass and expect.
std::string CheckSignature(const CompiledFunction& fn, const MlirComputation& comp) {
  const size_t graph_inputs = comp.parameter_names().size();
  const size_t expected = graph_inputs + (comp.rng_seed_input ? 1 : 0);
  if (fn.inputs.size() != expected)
    return "compiled function takes " + std::to_string(fn.inputs.size()) +
           " inputs, the graph has " + std::to_string(graph_inputs) +
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
    size_t index = ref.index;
    if (ref.source == OutputSource::kInput) {  // a graph input: find its argument
      auto arg = std::find(comp.input_order.begin(), comp.input_order.end(), ref.index);
      index = static_cast<size_t>(arg - comp.input_order.begin());
    }
    if (index >= from.size())
      return "output " + std::to_string(i) + " refers to a missing value";
    const ValueDesc& d = from[index];
    if (d.kind != ValueKind::Tensor || d.dtype != DtypeName(s.scalar_type()) ||
        !ShapeFits(d.shape, s.sizes()))
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
  comp.fallback_ops = comp.graph().AtenOps();
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

// Warnings of the persistent cache: once per distinct text, so that a full
// disk does not print on every graph.
void WarnCacheProblem(const std::string& warning) {
  static std::mutex mu;
  static std::set<std::string> said;
  std::lock_guard<std::mutex> lock(mu);
  if (said.size() < 32 && said.insert(warning).second) TORCH_WARN(warning);
}

// The persistent-cache key of a module compiled with `options`.
std::string CacheKey(const std::string& module_text, const CompileOptions& options) {
  // Not cached: the options it covers (LTC_MLIR_EXTERNAL_GEMM, the
  // optimization level) may change between graphs; it costs microseconds.
  return sha256Hex(module_text + "\n" + compilerFingerprint(options));
}

// A graph compiled by an earlier process, or a null function.
CompileResult LoadFromDiskCache(const std::string& dir, const std::string& key,
                                const CompileOptions& options) {
  std::string warning;
  std::optional<CachedGraph> cached = LoadCachedGraph(dir, key, warning);
  if (!warning.empty()) WarnCacheProblem(warning);
  if (!cached) return {};
  CompileResult loaded = loadCompiledObject(cached->object, cached->inputs, cached->outputs,
                                            cached->check_messages, options);
  if (!loaded.function)
    WarnCacheProblem("ltc_mlir: compile cache entry " + dir + "/" + key + " cannot be used (" +
                     loaded.error + "); the graph is compiled again");
  return loaded;
}

// Native code of the graphs alive in this process, by module text: LTC
// caches computations by its own graph hash, which differs for graphs that
// emit the same module (e.g. the same training step with its inputs seen in
// another order). Weak: an entry lives as long as a computation uses it.
class LiveCodeIndex {
 public:
  bool Find(const std::string& key, NativeCode& code) {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = entries_.find(key);
    if (it == entries_.end()) return false;
    code.executable = it->second.executable.lock();
    code.result.function = it->second.function.lock();
    if (code.executable && code.result.function) return true;
    entries_.erase(it);
    code = NativeCode();
    return false;
  }
  void Add(const std::string& key, const NativeCode& code) {
    std::lock_guard<std::mutex> lock(mu_);
    if (++adds_ % 256 == 0) {  // drop the entries whose code was freed
      for (auto it = entries_.begin(); it != entries_.end();)
        it = it->second.executable.expired() ? entries_.erase(it) : std::next(it);
    }
    entries_[key] = {code.executable, code.result.function};
  }

 private:
  struct Entry {
    std::weak_ptr<runtime::Executable> executable;
    std::weak_ptr<CompiledFunction> function;
  };
  std::mutex mu_;
  std::map<std::string, Entry> entries_;
  size_t adds_ = 0;
};

// Debugging: says on stderr why this graph compiles, and counts why.
// `outcome` says what became of it when that was not a compile.
void ExplainToUser(const MlirComputation& comp, const std::string& outcome = "") {
  CompileExplanation why = ExplainCompile(comp.name, comp.trace_summary);
  std::string line = comp.name + ": " + why.message + outcome;
  Metrics::RecordCompileExplanation(why.category, line);
  std::cerr << "ltc_mlir: compiling " << comp.trace_summary->ops.size() << " ops, "
            << comp.trace_summary->inputs.size() << " inputs as " << line << std::endl;
}

LiveCodeIndex& LiveCode() {
  static LiveCodeIndex* index = new LiveCodeIndex();  // never destroyed: used at exit
  return *index;
}

// Keeps a fresh compile for later processes.
void StoreInDiskCache(const std::string& dir, const std::string& key, const CompileResult& result) {
  if (result.object.empty()) {
    WarnCacheProblem("ltc_mlir: a compiled graph cannot be kept in the compile cache: " +
                     result.objectError);
    return;
  }
  std::string warning;
  StoreCachedGraph(dir, key,
                   {result.object, result.function->inputs, result.function->outputs,
                    result.function->checkMessages},
                   warning);
  if (!warning.empty()) WarnCacheProblem(warning);
}

// The executable keeps the function (and its code) alive.
std::shared_ptr<runtime::Executable> MakeExecutable(
    const std::shared_ptr<CompiledFunction>& function) {
  std::vector<runtime::ArgSpec> inputs, outputs;
  for (const ValueDesc& d : function->inputs) inputs.push_back({ToRuntimeKind(d.kind), d.shape});
  for (const ValueDesc& d : function->outputs)
    outputs.push_back({ToRuntimeKind(d.kind), d.shape, d.overwritableInputs});
  return std::make_shared<runtime::Executable>(function->entry, std::move(inputs),
                                               std::move(outputs), function,
                                               function->checkMessages);
}

// The family key of a canonical module: its text without numbers.
std::string FamilyKey(const NumberedText& split) {
  std::string key;
  for (const std::string& w : split.words) key += w + '\x1f';
  return sha256Hex(key);
}

// A graph compiled on its own: a shape its family's next ones may pair with.
void RememberSingleShape(const std::string& text, const NumberedText& split,
                         const std::string& family_key) {
  std::lock_guard<std::mutex> lock(BatchFamiliesMutex());
  BatchFamily& family = GetBatchFamily(family_key);
  for (const SingleShape& single : family.singles)
    if (single.text == text) return;
  family.singles.push_back({text, split});
  if (family.singles.size() > kMaxSingles) family.singles.erase(family.singles.begin());
}

// Generic code of `family` built from `single` and the graph `text`, or
// nullopt (refused: the lowerings do not merge, or a compiler error).
std::optional<NativeCode> CompileGeneric(BatchFamily& family, const SingleShape& single,
                                         const std::string& text, const NumberedText& split,
                                         const BatchMatch& match, CompileOptions options,
                                         double emit_ms) {
  options.otherBatchText = single.text;
  options.batchSize = match.second;
  options.otherBatchSize = match.first;
  options.dumpName += ".every_batch";
  NativeCode code;
  CompileResult& result = code.result;
  const std::string cache_dir = GetCacheDir();
  const std::string key =
      cache_dir.empty() ? "" : CacheKey(text + "\n// every batch size, with\n" + single.text, options);
  if (!cache_dir.empty()) {
    result = LoadFromDiskCache(cache_dir, key, options);
    code.from_disk = result.function != nullptr;
    Metrics::RecordDiskCache(code.from_disk);
  }
  if (!code.from_disk) result = compileTorchModule(text, options);
  if (!result.writeError.empty()) WarnWriteErrorOnce(result.writeError);
  if (!result.function) {
    family.refusals++;
    for (SingleShape& s : family.singles)
      if (s.text == single.text) s.refusals++;
    // `text` compiles on its own now; either of the two may be the shape
    // whose sizes coincide.
    family.singles.push_back({text, split, 1});
    if (family.singles.size() > kMaxSingles) family.singles.erase(family.singles.begin());
    Metrics::RecordBatchGeneric("refused", result.error.substr(0, 500));
    if (DebugEnabled())
      std::cerr << "ltc_mlir: two batch sizes of a graph cannot share code, it compiles per "
                << "shape: " << result.error.substr(0, 500) << std::endl;
    return std::nullopt;
  }
  result.stageMs.insert(result.stageMs.begin(), {"emit", emit_ms});
  Metrics::RecordCompileStages(result.stageMs);
  Metrics::RecordBatchGeneric("compile");
  if (!code.from_disk && !cache_dir.empty()) StoreInDiskCache(cache_dir, key, result);
  code.executable = MakeExecutable(result.function);
  code.batch_generic = true;
  // Later graphs are compared with the single shape (`match` is relative to it).
  family.generics.push_back({single.split, match, std::make_shared<NativeCode>(code)});
  if (DebugEnabled())
    std::cerr << "ltc_mlir: compiled one graph for every batch size (from batch sizes "
              << match.first << " and " << match.second << ")" << std::endl;
  return code;
}

// Code for every batch size serving `text` (batch_families.h): generic
// code of its family that `text` is an instance of, else generic code
// built from `text` and a single shape it pairs with. nullopt: compile
// `text` on its own.
std::optional<NativeCode> BatchGenericCode(const std::string& text, const NumberedText& split,
                                           const std::string& family_key,
                                           const CompileOptions& options, double emit_ms) {
  std::lock_guard<std::mutex> lock(BatchFamiliesMutex());
  BatchFamily& family = GetBatchFamily(family_key);
  for (const GenericShapes& generic : family.generics) {
    if (!InstanceBatchSize(generic.first_split, generic.match, split)) {
      if (DebugEnabled())
        std::cerr << "ltc_mlir: a graph does not fit the code compiled for every batch size "
                  << "(from sizes " << generic.match.first << " and " << generic.match.second
                  << "): " << DescribeMismatch(generic.first_split, generic.match, split)
                  << std::endl;
      continue;
    }
    NativeCode code = *std::static_pointer_cast<NativeCode>(generic.code);
    code.reused = true;
    Metrics::RecordBatchGeneric("hit");
    return code;
  }
  if (family.refusals >= kMaxGenericAttempts) return std::nullopt;
  // The single shape to pair with: the oldest among those with the fewest
  // refused pairs (one whose size coincides with another is refused again).
  std::optional<size_t> best;
  std::optional<BatchMatch> best_match;
  for (size_t i = 0; i < family.singles.size(); ++i) {
    if (best && family.singles[i].refusals >= family.singles[*best].refusals) continue;
    std::optional<BatchMatch> match = MatchBatchSizes(family.singles[i].split, split);
    if (!match) continue;
    best = i;
    best_match = std::move(match);
  }
  if (!best) return std::nullopt;
  SingleShape single = family.singles[*best];
  std::optional<NativeCode> code =
      CompileGeneric(family, single, text, split, *best_match, options, emit_ms);
  if (code) family.singles.erase(family.singles.begin() + static_cast<std::ptrdiff_t>(*best));
  return code;
}

}  // namespace

NativeCode CompileEmitted(const std::string& emitted_text, const std::string& name,
                          double emit_ms, bool allow_defer, bool allow_batch_generic) {
  // What is compiled and keys both caches: graphs LTC tells apart by its
  // own hash often emit the same module up to SSA numbering and repeated
  // pure ops (the same training step traced again). Same signature, so the
  // code is interchangeable.
  std::string canonical = canonicalTorchModule(emitted_text);
  const std::string& text = canonical.empty() ? emitted_text : canonical;
  const std::string live_key = sha256Hex(text);
  NativeCode code;
  if (LiveCode().Find(live_key, code)) {
    code.reused = true;
    Metrics::RecordCodeReuse();
    return code;
  }
  CompileOptions options;
  options.dumpDir = GetDumpDir();
  options.dumpName = name;
  options.reproducerDir = GetReproducerDir();
  options.maxReproducers = kMaxReproducers;
  if (const char* level = std::getenv("LTC_MLIR_OPT_LEVEL"))  // experiments only
    options.optLevel = static_cast<unsigned>(std::atoi(level));
  // LTC_MLIR_EXTERNAL_GEMM=0: generated matmul kernels instead of oneDNN's.
  if (const char* gemm = std::getenv("LTC_MLIR_EXTERNAL_GEMM"))
    options.externalGemm = std::string(gemm) != "0";
  options.symbolResolver = [](const std::string& symbol) {
    if (void* address = runtime::resolveRuntimeSymbol(symbol)) return address;
    return runtime::resolveOpenMPSymbol(symbol);
  };
  const std::string cache_dir = GetCacheDir();
  options.keepObject = !cache_dir.empty();
  // The module split into its numbers, once per compile (batch_families.h).
  std::optional<NumberedText> split;
  std::string family_key;
  if (BatchGenericEnabled()) {
    split = SplitNumbers(text);
    family_key = FamilyKey(*split);
  }
  if (allow_batch_generic && split) {
    std::optional<NativeCode> generic =
        BatchGenericCode(text, *split, family_key, options, emit_ms);
    if (generic) return *generic;
  }
  std::string key = cache_dir.empty() ? "" : CacheKey(text, options);
  CompileResult& result = code.result;
  if (!cache_dir.empty()) {
    result = LoadFromDiskCache(cache_dir, key, options);
    code.from_disk = result.function != nullptr;
    Metrics::RecordDiskCache(code.from_disk);
  }
  if (!code.from_disk && allow_defer && ShouldDeferCompile(text, live_key)) {
    code.deferred = true;
    return code;
  }
  if (!code.from_disk) result = compileTorchModule(text, options);
  if (!result.writeError.empty()) WarnWriteErrorOnce(result.writeError);
  result.stageMs.insert(result.stageMs.begin(), {"emit", emit_ms});
  Metrics::RecordCompileStages(result.stageMs);
  if (!result.function) return code;
  RecordNativeVariant(text);
  if (!code.from_disk && !cache_dir.empty()) StoreInDiskCache(cache_dir, key, result);
  code.executable = MakeExecutable(result.function);
  LiveCode().Add(live_key, code);
  if (split) RememberSingleShape(text, *split, family_key);
  return code;
}

namespace {

// Native code for comp, or the partition / fallback its failure calls for.
void AdoptCode(MlirComputation& comp, const NativeCode& code) {
  const CompileResult& result = code.result;
  if (!result.function) {
    // Only unsupported ops can be worked around by running them apart; a
    // compiler error sends the whole graph to TorchScript with its reproducer.
    if (!result.unsupportedOps.empty() && TryPartition(comp, result.unsupportedOps, "")) return;
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
  std::map<std::string, int64_t> op_counts;
  for (const std::string& op : comp.graph().AtenOps()) op_counts[op]++;
  comp.native_op_counts.assign(op_counts.begin(), op_counts.end());
  comp.executable = code.executable;
  if (!code.from_disk && !code.reused) Metrics::RecordCompile(comp.name, result.compileTimeMs);
}

}  // namespace

std::string GraphName(const std::string& module_text) {
  char name[32];
  std::snprintf(name, sizeof(name), "graph_%016zx", std::hash<std::string>()(module_text));
  return name;
}

void CompileComputation(MlirComputation& comp) {
  auto emit_start = std::chrono::steady_clock::now();
  EmittedModule emitted = comp.graph().EmitTorchDialect(comp.parameter_shapes());
  double emit_ms = std::chrono::duration<double, std::milli>(
                       std::chrono::steady_clock::now() - emit_start).count();
  comp.torch_dialect = emitted.text;
  comp.outputs = emitted.outputs;
  comp.rng_seed_input = emitted.rng_seed_input;
  comp.input_order = emitted.input_order;
  comp.name = GraphName(emitted.text);
  if (!emitted.unsupported_ops.empty()) {
    if (comp.trace_summary) ExplainToUser(comp);
    if (TryPartition(comp, emitted.unsupported_ops, Join(emitted.reasons, "; "))) return;
    return FallBack(comp, Join(emitted.reasons, "; "), emitted.unsupported_ops);
  }

  NativeCode code = CompileEmitted(emitted.text, comp.name, emit_ms, /*allow_defer=*/true,
                                   /*allow_batch_generic=*/true);
  if (comp.trace_summary) {
    ExplainToUser(comp, code.deferred ? " [not compiled yet: a new shape of a graph compiled in "
                                        "enough shapes, run by the fallback until it recurs]"
                        : code.batch_generic && code.reused
                            ? " [runs the code compiled for every batch size]"
                        : code.batch_generic ? " [compiled for every batch size]"
                        : code.reused    ? " [shares the code of an identical graph]"
                        : code.from_disk ? " [loaded from the compile cache]"
                                         : "");
  }
  if (code.deferred) {
    // Runs through the fallback until it recurs (ExecuteComputation).
    comp.deferred_module = emitted.text;
    comp.deferred = true;
    Metrics::RecordDeferredGraph();
    return;
  }
  AdoptCode(comp, code);
}

void CompileDeferred(MlirComputation& comp) {
  std::lock_guard<std::mutex> lock(comp.deferred_mutex);
  if (!comp.deferred) return;
  NativeCode code = CompileEmitted(comp.deferred_module, comp.name, 0.0, /*allow_defer=*/false,
                                   /*allow_batch_generic=*/true);
  AdoptCode(comp, code);
  comp.deferred = false;
}

}  // namespace backend
}  // namespace ltc_mlir
