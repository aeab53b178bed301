#include "ltc_backend/collectives/collective_runner.h"

#include <ATen/ATen.h>
#include <torch/csrc/distributed/c10d/ProcessGroup.hpp>

#include <chrono>
#include <functional>
#include <regex>
#include <sstream>
#include <vector>

#include "ltc_backend/collectives/collective_op.h"
#include "ltc_backend/collectives/process_groups.h"
#include "ltc_backend/metrics.h"
#include "ltc_backend/recompile_diagnostics.h"
#include "ltc_mlir/runtime/collectives.h"

namespace ltc_mlir {
namespace backend {
namespace {

struct Pending {
  c10::intrusive_ptr<c10d::Work> work;
  std::string what;
};

// The run in progress on this thread.
thread_local std::string current_graph;
thread_local std::vector<Pending> pending;

std::string Describe(const runtime::CollectiveCall& call) {
  std::ostringstream s;
  s << CollectiveName(static_cast<Collective>(call.kind)) << " of "
    << call.outputBytes << " bytes on process group " << call.group;
  return s.str();
}

std::string Failure(const std::string& what, const std::string& error) {
  return "ltc_mlir: graph " + current_graph + ": the collective " + what + " failed: " + error +
         "\nEvery rank must run the same steps with the same collectives; a rank that stopped, "
         "skipped one or timed out leaves the others here. LTC_MLIR_DEBUG=1 checks each "
         "graph's collectives across ranks before it runs.";
}

int64_t Start(const runtime::CollectiveCall& call) {
  std::string what = Describe(call);
  try {
    auto group = GroupOf(call.group);
    const auto dtype = static_cast<at::ScalarType>(call.dtype);
    const int64_t size = static_cast<int64_t>(c10::elementSize(dtype));
    auto options = at::TensorOptions().dtype(dtype);
    at::Tensor input = at::from_blob(call.input, {call.inputBytes / size}, options);
    at::Tensor output = at::from_blob(call.output, {call.outputBytes / size}, options);
    auto work = StartOnCpu(static_cast<Collective>(call.kind), *group, call.reduceOp, call.root,
                           input, output);
    Metrics::RecordCollective(CollectiveName(static_cast<Collective>(call.kind)),
                              call.outputBytes);
    pending.push_back({std::move(work), std::move(what)});
    return static_cast<int64_t>(pending.size() - 1);
  } catch (const std::exception& e) {
    runtime::recordCollectiveError(Failure(what, e.what()));
  } catch (...) {
    runtime::recordCollectiveError(Failure(what, "unknown error"));
  }
  return -1;
}

void Wait(int64_t ticket) {
  if (ticket < 0 || ticket >= static_cast<int64_t>(pending.size())) return;
  Pending& p = pending[ticket];
  if (!p.work) return;
  auto begin = std::chrono::steady_clock::now();
  try {
    p.work->wait();
  } catch (const std::exception& e) {
    runtime::recordCollectiveError(Failure(p.what, e.what()));
  } catch (...) {
    runtime::recordCollectiveError(Failure(p.what, "unknown error"));
  }
  Metrics::RecordCollectiveWait(
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - begin).count());
  p.work.reset();
}

// Every rank's hash of `sequence`, gathered over `group`.
std::vector<int64_t> GatherHashes(const std::string& sequence, int64_t group) {
  auto pg = GroupOf(group);
  at::Tensor mine = at::full({1}, static_cast<int64_t>(std::hash<std::string>()(sequence) >> 1),
                             at::kLong);
  at::Tensor all = at::empty({pg->getSize()}, at::kLong);
  StartOnCpu(Collective::kAllGather, *pg, 0, 0, mine, all)->wait();
  return std::vector<int64_t>(all.data_ptr<int64_t>(), all.data_ptr<int64_t>() + all.numel());
}

}  // namespace

std::string CollectiveSequence(const std::string& torch_dialect, int64_t* group) {
  static const std::regex kLine(
      R"re("torch\.ltc_mlir\.collective"\([^)]*\) \{ltc\.collective = "(\d+) (\d+) (\d+) (\d+)", ltc\.dtype = (-?\d+) : i64\} : \(([^)]*)\) -> (\S+))re");
  std::ostringstream out;
  *group = -1;
  for (std::sregex_iterator it(torch_dialect.begin(), torch_dialect.end(), kLine), end; it != end;
       ++it) {
    const std::smatch& m = *it;
    if (*group < 0) *group = std::stoll(m[2].str());
    out << CollectiveName(static_cast<Collective>(std::stoll(m[1].str()))) << " group "
        << m[2] << " reduce_op " << m[3] << " root " << m[4] << " dtype " << m[5] << " : "
        << m[6].str().substr(0, m[6].str().find(',')) << " -> " << m[7] << "\n";
  }
  return out.str();
}

CollectiveRun::CollectiveRun(const std::string& graph_name, const std::string& sequence,
                             int64_t group) {
  current_graph = graph_name;
  pending.clear();
  runtime::takeCollectiveError();
  if (!DebugEnabled() || group < 0) return;
  std::vector<int64_t> hashes = GatherHashes(sequence, group);
  const int rank = GroupOf(group)->getRank();
  std::vector<int> differ;
  for (size_t r = 0; r < hashes.size(); ++r)
    if (hashes[r] != hashes[rank]) differ.push_back(static_cast<int>(r));
  if (differ.empty()) return;
  std::ostringstream ranks;
  for (size_t i = 0; i < differ.size(); ++i) ranks << (i ? ", " : "") << differ[i];
  TORCH_CHECK(false, "ltc_mlir: graph ", graph_name, " runs different collectives on rank ", rank,
              " than on rank(s) ", ranks.str(), " (LTC_MLIR_DEBUG check). This rank's, in order:\n",
              sequence,
              "Every rank must issue the same collectives, on tensors of the same shapes and "
              "dtypes, in the same order.");
}

CollectiveRun::~CollectiveRun() {
  // An unfinished run (an exception elsewhere): nothing may stay queued.
  for (Pending& p : pending)
    if (p.work) {
      try {
        p.work->wait();
      } catch (...) {
      }
    }
  pending.clear();
  runtime::takeCollectiveError();
}

void CollectiveRun::Finish() {
  std::string error = runtime::takeCollectiveError();
  pending.clear();
  TORCH_CHECK(error.empty(), error);
}

void RegisterCollectiveHandler() {
  runtime::setCollectiveHandler({&Start, &Wait});
}

}  // namespace backend
}  // namespace ltc_mlir
