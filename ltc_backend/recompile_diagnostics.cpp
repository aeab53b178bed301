#include "ltc_backend/recompile_diagnostics.h"

#include <c10/util/Flags.h>
#include <torch/csrc/lazy/core/config.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <deque>
#include <mutex>
#include <set>
#include <sstream>
#include <unordered_set>

#include "ltc_backend/torchscript/boundary.h"

namespace ltc_mlir {
namespace backend {
namespace {

std::atomic<int> debug_override{-1};  // -1: from the environment

bool DebugFromEnvironment() {
  const char* v = std::getenv("LTC_MLIR_DEBUG");
  return v != nullptr && *v != '\0' && std::string(v) != "0";
}

std::string ShapeText(const torch::lazy::Shape& shape) {
  std::ostringstream out;
  out << c10::toString(shape.scalar_type()) << "[";
  for (size_t i = 0; i < shape.sizes().size(); ++i)
    out << (i ? ", " : "") << shape.sizes()[i];
  out << "]";
  return out.str();
}

// Frames of torch and of this package are not where the user traced the op.
bool IsLibraryFrame(const std::string& file) {
  return file.find("-packages/torch/") != std::string::npos ||
         file.find("python_packages/ltc_mlir/") != std::string::npos ||
         file.find("-packages/ltc_mlir/") != std::string::npos ||
         file.rfind("<frozen", 0) == 0;
}

std::string UserLocation(const torch::lazy::Node* node) {
  // LTC records the frames innermost first.
  for (const torch::lazy::SourceLocation& frame : node->metadata().frame_info) {
    if (IsLibraryFrame(frame.file)) continue;
    return frame.file + ":" + std::to_string(frame.line) + " (" + frame.function + ")";
  }
  return "";
}

// Node text without the ", location=..." LTC inserts while debugging.
std::string NodeText(const torch::lazy::Node* node) {
  std::string text = node->ToString();
  size_t at = text.find(", location=");
  if (at != std::string::npos) {
    size_t end = text.find(", ", at + 2);
    text.erase(at, end == std::string::npos ? std::string::npos : end - at);
  }
  return text;
}

struct Remembered {
  std::string name;
  std::shared_ptr<const TraceSummary> summary;
};

constexpr size_t kRemembered = 256;

std::mutex& HistoryMutex() {
  static std::mutex m;
  return m;
}
std::deque<Remembered>& History() {
  static auto* h = new std::deque<Remembered>();  // never destroyed: used at exit
  return *h;
}

size_t CommonPrefix(const std::vector<std::string>& a, const std::vector<std::string>& b) {
  size_t n = 0;
  while (n < a.size() && n < b.size() && a[n] == b[n]) ++n;
  return n;
}

size_t Differences(const TraceSummary& a, const TraceSummary& b) {
  size_t d = 0;
  for (size_t i = 0; i < std::min(a.inputs.size(), b.inputs.size()); ++i)
    d += a.inputs[i] != b.inputs[i];
  for (size_t i = 0; i < std::min(a.nodes.size(), b.nodes.size()); ++i)
    d += a.nodes[i] != b.nodes[i];
  return d + (a.inputs.size() != b.inputs.size()) + (a.outputs != b.outputs);
}

std::string At(const std::string& location) {
  return location.empty() ? "" : " at " + location;
}

// Only the dtype part of "Float[32, 784]".
std::string DtypeOf(const std::string& shape_text) {
  return shape_text.substr(0, shape_text.find('['));
}

CompileExplanation AgainstSameOps(const TraceSummary& s, const Remembered& near) {
  const TraceSummary& p = *near.summary;
  const std::string was = " in " + near.name;
  // Inputs compared as a multiset: LTC may order the same graph's inputs
  // otherwise from one step to the next.
  std::multiset<std::string> only_here(s.inputs.begin(), s.inputs.end());
  std::multiset<std::string> only_there(p.inputs.begin(), p.inputs.end());
  for (const std::string& t : p.inputs) {
    auto it = only_here.find(t);
    if (it != only_here.end()) only_here.erase(it), only_there.erase(only_there.find(t));
  }
  if (!only_here.empty()) {
    size_t i = std::find(s.inputs.begin(), s.inputs.end(), *only_here.begin()) - s.inputs.begin();
    std::string before = only_there.empty() ? "no input of that type" : *only_there.begin();
    bool dtype = !only_there.empty() && DtypeOf(s.inputs[i]) != DtypeOf(before);
    return {dtype ? "input dtype changed" : "input shape changed",
            "input " + std::to_string(i) + " is " + s.inputs[i] + ", where " + near.name +
                " had " + before +
                (s.input_locations[i].empty() ? "" : " (first used" + At(s.input_locations[i]) + ")")};
  }
  if (!only_there.empty())
    return {"inputs changed", std::to_string(s.inputs.size()) + " inputs, " +
                                  std::to_string(p.inputs.size()) + was};
  for (size_t i = 0; i < s.nodes.size(); ++i) {
    if (s.nodes[i] == p.nodes[i]) continue;
    return {"constant changed", s.ops[i] + " differs: '" + s.nodes[i] + "', was '" + p.nodes[i] +
                                    "'" + was + At(s.locations[i])};
  }
  if (s.outputs != p.outputs)
    return {"outputs changed", "the graph returns " + std::to_string(s.outputs.size()) +
                                   " tensors, " + near.name + " returned " +
                                   std::to_string(p.outputs.size())};
  if (s.inputs != p.inputs)
    return {"input order changed", "the trace of " + near.name +
                                       " with its inputs in another order"};
  return {"same trace", "the same trace as " + near.name +
                            " (LTC hashed it anew: its graph cache dropped it, or the outputs' "
                            "order differs)"};
}

CompileExplanation AgainstOtherOps(const TraceSummary& s, const Remembered& near) {
  const TraceSummary& p = *near.summary;
  size_t k = CommonPrefix(s.ops, p.ops);
  std::set<std::string> known;
  for (const Remembered& r : History()) known.insert(r.summary->ops.begin(), r.summary->ops.end());
  for (size_t i = 0; i < s.ops.size(); ++i)
    if (!known.count(s.ops[i]))
      return {"new op", "a new op " + s.ops[i] + At(s.locations[i])};
  if (k == s.ops.size())
    return {"different ops", "the ops of " + near.name + " up to op " + std::to_string(k) +
                                 " of its " + std::to_string(p.ops.size()) +
                                 " (a shorter graph: something synced earlier)"};
  std::string instead = k < p.ops.size() ? ", where " + near.name + " has " + p.ops[k] : "";
  return {"different ops", "op " + std::to_string(k) + " is " + s.ops[k] + instead +
                               At(s.locations[k]) + " (the nearest graph, " + near.name +
                               ", shares the first " + std::to_string(k) + " ops)"};
}

}  // namespace

void SetDebug(bool enabled) {
  debug_override = enabled ? 1 : 0;
  FLAGS_torch_lazy_ir_debug = enabled;
}

bool DebugEnabled() {
  int v = debug_override.load();
  if (v >= 0) return v == 1;
  bool enabled = DebugFromEnvironment();
  // Once decided, the trace records source lines from then on.
  int expected = -1;
  if (debug_override.compare_exchange_strong(expected, enabled ? 1 : 0) && enabled)
    FLAGS_torch_lazy_ir_debug = true;
  return debug_override.load() == 1;
}

std::shared_ptr<const TraceSummary> SummarizeTrace(
    const std::vector<const torch::lazy::Node*>& post_order,
    const std::vector<torch::lazy::Output>& results) {
  auto s = std::make_shared<TraceSummary>();
  torch::lazy::BackendImplInterface* ts = TorchScriptBackendServices();
  std::unordered_set<torch::lazy::BackendData::Handle> seen_data;
  for (const torch::lazy::Node* node : post_order) {
    if (torch::lazy::BackendDataPtr data =
            ts->GetComputationDataFromNode(node)) {
      // Graph inputs in the order the lowering makes them parameters.
      if (seen_data.insert(data->GetHandle()).second) {
        s->inputs.push_back(ShapeText(data->shape()));
        s->input_locations.push_back(UserLocation(node));
      }
      continue;
    }
    s->ops.push_back(node->op().ToString());
    s->nodes.push_back(NodeText(node));
    s->locations.push_back(UserLocation(node));
  }
  for (const torch::lazy::Output& out : results) s->outputs.push_back(ShapeText(out.shape()));
  return s;
}

CompileExplanation ExplainCompile(const std::string& graph_name,
                                  const std::shared_ptr<const TraceSummary>& summary) {
  std::lock_guard<std::mutex> lock(HistoryMutex());
  std::deque<Remembered>& history = History();
  CompileExplanation why;
  // The nearest graph: one with the same ops and the fewest differences,
  // else the one sharing the longest prefix of ops (the latest on ties).
  const Remembered* same_ops = nullptr;
  size_t fewest = SIZE_MAX;
  const Remembered* prefix = nullptr;
  size_t longest = 0;
  for (const Remembered& r : history) {
    if (r.summary->ops == summary->ops) {
      size_t d = Differences(*summary, *r.summary);
      if (d <= fewest) fewest = d, same_ops = &r;
    } else {
      size_t k = CommonPrefix(summary->ops, r.summary->ops);
      if (!prefix || k >= longest) longest = k, prefix = &r;
    }
  }
  if (same_ops)
    why = AgainstSameOps(*summary, *same_ops);
  else if (prefix)
    why = AgainstOtherOps(*summary, *prefix);
  else
    why = {"first graph", "the first graph compiled since the start (or reset_metrics())"};
  history.push_back({graph_name, summary});
  if (history.size() > kRemembered) history.pop_front();
  return why;
}

void ResetCompileHistory() {
  std::lock_guard<std::mutex> lock(HistoryMutex());
  History().clear();
}

}  // namespace backend
}  // namespace ltc_mlir
