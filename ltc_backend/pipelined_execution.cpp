#include "ltc_backend/pipelined_execution.h"

#include <c10/util/Exception.h>
#include <pthread.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>

#include "ltc_backend/backend_data.h"
#include "ltc_backend/computation.h"
#include "ltc_backend/config.h"
#include "ltc_backend/execution_errors.h"
#include "ltc_backend/graph_runner.h"
#include "ltc_backend/metrics.h"

namespace ltc_mlir {
namespace backend {
namespace {

std::atomic<bool> enabled{false};

// Runs at most this many graphs ahead of the caller: one running, one
// queued. More would only hold more steps' buffers.
constexpr size_t kMaxQueued = 2;

// Runs before the measured ones (buffers and oneDNN kernels are created in
// the first ones), and runs per measured thread count (the first of each
// is not a sample).
constexpr int64_t kWarmRuns = 3, kRunsPerChoice = 5;

// The pipeline thread and its queue (leaked: the thread outlives static
// destruction; the Python package drains the queue at exit).
class Pipeline {
 public:
  static Pipeline& Get() {
    static auto* pipeline = [] {
      auto* p = new Pipeline();
      started.store(p);
      return p;
    }();
    return *pipeline;
  }
  // The pipeline if it was started, else null.
  static Pipeline* Started() { return started.load(); }

  void Submit(std::function<void()> job) {
    std::unique_lock<std::mutex> lock(mu_);
    changed_.wait(lock, [&] { return queued_ < kMaxQueued; });
    jobs_.push_back(std::move(job));
    ++queued_;
    changed_.notify_all();
  }

  void Drain() {
    std::unique_lock<std::mutex> lock(mu_);
    changed_.wait(lock, [&] { return queued_ == 0; });
  }

 private:
  Pipeline() { std::thread([this] { Loop(); }).detach(); }

  void Loop() {
    for (;;) {
      std::function<void()> job;
      {
        std::unique_lock<std::mutex> lock(mu_);
        changed_.wait(lock, [&] { return !jobs_.empty(); });
        job = std::move(jobs_.front());
        jobs_.pop_front();
      }
      job();  // never throws (SubmitNative's job catches)
      job = nullptr;  // its buffers go before the queue says it is done
      std::lock_guard<std::mutex> lock(mu_);
      --queued_;
      changed_.notify_all();
    }
  }

  static std::atomic<Pipeline*> started;
  std::mutex mu_;
  std::condition_variable changed_;
  std::deque<std::function<void()>> jobs_;
  size_t queued_ = 0;  // submitted and not finished
};

std::atomic<Pipeline*> Pipeline::started{nullptr};

struct RunMode {
  int threads;
  bool caller_waits;
};

double MsBetween(std::chrono::steady_clock::time_point a, std::chrono::steady_clock::time_point b) {
  return std::chrono::duration<double, std::milli>(b - a).count();
}

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

// How a run of `comp` runs: its thread count, and whether the caller waits
// for it (as without pipelining). Per graph, the first runs measure three
// ways: all threads pipelined, one fewer pipelined (leaving a core to the
// trace), all threads with the caller waiting (for graphs whose trace is
// short: pipelined, their threads and the trace would share the cores);
// later runs take the one with the shortest median period. The period of a
// run is the time from the end of the previous run to its own end on the
// pipeline thread: its work plus any wait for the caller to submit it.
enum class Phase { kWarm, kAll, kOneFewer, kSerial, kChosen };
constexpr int kOptions = 3;  // the measured phases, in order

Phase PhaseOf(int64_t run) {
  if (run < kWarmRuns) return Phase::kWarm;
  int64_t measured = (run - kWarmRuns) / kRunsPerChoice;
  return measured < kOptions ? static_cast<Phase>(1 + measured) : Phase::kChosen;
}

RunMode ModeOf(Phase phase, int threads) {
  switch (phase) {
    case Phase::kOneFewer:
      return {threads - 1, false};
    case Phase::kSerial:
      return {threads, true};
    default:
      return {threads, false};
  }
}

RunMode ModeForRun(MlirComputation& comp, int64_t run, int threads) {
  // One thread: pipelined is what the user asked for; nothing to choose.
  if (threads <= 1) return {threads, false};
  Phase phase = PhaseOf(run);
  if (phase != Phase::kChosen) return ModeOf(phase, threads);
  MlirComputation::PipelineTuning& t = comp.pipeline_tuning;
  std::lock_guard<std::mutex> lock(t.mutex);
  if (t.chosen < 0) {
    // Serial runs end before the next is submitted: all samples are in.
    int best = 0;
    for (int k = 1; k < kOptions; ++k)
      if (!t.periods_ms[k].empty() &&
          (t.periods_ms[best].empty() || Median(t.periods_ms[k]) < Median(t.periods_ms[best])))
        best = k;
    t.chosen = best;
  }
  return ModeOf(static_cast<Phase>(1 + t.chosen), threads);
}

// Called by run `run` of `comp` when it ends (on the pipeline thread).
void RecordRunEnd(MlirComputation& comp, int64_t run, int all_threads) {
  MlirComputation::PipelineTuning& t = comp.pipeline_tuning;
  std::lock_guard<std::mutex> lock(t.mutex);
  auto now = std::chrono::steady_clock::now();
  Phase phase = PhaseOf(run);
  // The first run of each phase pays for the change (new oneDNN kernels
  // for another cut, a caller that was ahead): not a sample.
  bool first_of_phase = run >= kWarmRuns && (run - kWarmRuns) % kRunsPerChoice == 0;
  // Runs end in order on the one pipeline thread: a measured run (after
  // the warm ones) always has a previous end.
  if (all_threads > 1 && !first_of_phase && phase != Phase::kWarm && phase != Phase::kChosen)
    t.periods_ms[static_cast<int>(phase) - 1].push_back(MsBetween(t.last_end, now));
  t.last_end = now;
}

}  // namespace

bool PipelinedExecution() {
  // fork() (a DataLoader worker, subprocess) first lets the queued graphs
  // finish, so that no lock of the pipeline thread's (libomp's, oneDNN's,
  // a static being initialized) is held in the child; the child has no
  // pipeline thread and runs its graphs itself.
  static bool registered = [] {
    pthread_atfork([] { if (Pipeline* p = Pipeline::Started()) p->Drain(); }, nullptr,
                   [] { enabled.store(false); });
    return true;
  }();
  (void)registered;
  return enabled.load();
}

void SetPipelinedExecution(bool on) {
  if (!on) DrainPipeline();
  enabled.store(on);
}

std::vector<torch::lazy::BackendDataPtr> SubmitNative(
    const std::shared_ptr<MlirComputation>& comp,
    c10::ArrayRef<torch::lazy::BackendDataPtr> arguments,
    const torch::lazy::BackendDevice& device, bool cache_hit) {
  auto run = std::make_shared<PreparedRun>(PrepareNative(*comp, arguments, device));
  auto completion = std::make_shared<Completion>();
  for (size_t i = 0; i < run->results.size(); ++i)
    if (run->computed[i])
      std::static_pointer_cast<MlirData>(run->results[i])->completion = completion;
  const int all_threads = GetNumThreads();
  const int64_t run_index = comp->pipeline_tuning_runs.fetch_add(1);
  const RunMode mode = ModeForRun(*comp, run_index, all_threads);
  const int threads = mode.threads;
  std::vector<torch::lazy::BackendDataPtr> inputs(arguments.begin(), arguments.end());
  std::vector<torch::lazy::BackendDataPtr> results = run->results;
  Pipeline::Get().Submit([comp, run, completion, inputs = std::move(inputs), threads,
                          all_threads, run_index, cache_hit]() mutable {
    auto start = std::chrono::steady_clock::now();
    std::shared_ptr<const std::string> failure;
    try {
      // The graphs computing the inputs ran before this one: a failed one
      // fails this one too.
      for (const auto& input : inputs) CheckComputed(*input, "an input of this graph");
      RunPrepared(*comp, *run, threads);
    } catch (const std::exception& e) {
      failure = RecordPipelinedFailure(*comp, e);
    }
    RecordRunEnd(*comp, run_index, all_threads);
    Metrics::RecordExecution(/*native=*/true, cache_hit,
                             MsBetween(start, std::chrono::steady_clock::now()),
                             comp->fallback_ops, comp->native_op_counts);
    run.reset();
    inputs.clear();
    completion->Finish(std::move(failure));
  });
  if (mode.caller_waits) completion->Wait();
  return results;
}

void DrainPipeline() {
  if (PipelinedExecution()) Pipeline::Get().Drain();
}

void WaitUntilComputed(const torch::lazy::BackendData& data) {
  const auto* mlir = dynamic_cast<const MlirData*>(&data);
  if (mlir && mlir->completion) mlir->completion->Wait();
}

}  // namespace backend
}  // namespace ltc_mlir
