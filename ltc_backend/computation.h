// computation: one synced LTC graph, compiled natively or kept for fallback.
#pragma once

#include <torch/csrc/lazy/backend/lowering_context.h>

#include <atomic>
#include <chrono>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "ltc_backend/output_buffer_pool.h"
#include "ltc_backend/recompile_diagnostics.h"
#include "ltc_backend/sync_trace.h"
#include "ltc_backend/emitted_module.h"
#include "ltc_backend/torchscript/boundary.h"
#include "ltc_mlir/runtime/executable.h"

namespace ltc_mlir {
namespace backend {

struct PartitionedGraph;

class MlirComputation : public torch::lazy::Computation {
 public:
  MlirComputation(std::shared_ptr<const TracedGraph> graph,
                  std::vector<torch::lazy::Shape> parameter_shapes,
                  std::vector<torch::lazy::Shape> result_shapes);

  int parameters_size() const override { return parameter_names_.size(); }
  const std::vector<torch::lazy::Shape>& parameter_shapes() const override {
    return parameter_shapes_;
  }
  const std::vector<std::string>& parameter_names() const override {
    return parameter_names_;
  }
  const torch::lazy::Shape& result_shape() const override { return result_shape_; }
  // The torch-dialect module when one was emitted, else the traced graph.
  const std::string to_string() const override;

  const TracedGraph& graph() const { return *graph_; }
  const std::vector<torch::lazy::Shape>& result_shapes() const { return result_shapes_; }

  // Set once by Compile().
  std::string name;            // graph_<hash of the torch-dialect text>
  std::string torch_dialect;   // what was handed to mlir_lowering
  std::vector<OutputRef> outputs;  // graph output -> function result or input
  // The compiled function takes a random seed after the graph's inputs
  // (EmittedModule::rng_seed_input): RunNative draws one per run.
  bool rng_seed_input = false;
  // Function argument j is graph input input_order[j] (EmittedModule).
  std::vector<size_t> input_order;
  // Shape of each function result (that of the first graph output it feeds).
  std::vector<torch::lazy::Shape> function_result_shapes;
  std::shared_ptr<runtime::Executable> executable;  // null: fallback path
  // Set instead when the graph runs as native segments + ATen ops.
  std::shared_ptr<PartitionedGraph> partitioned;
  std::vector<std::string> fallback_ops;            // why it fell back, as op names
  // Native graphs: each aten op of the graph and how often it occurs.
  std::vector<std::pair<std::string, int64_t>> native_op_counts;
  std::string fallback_reason;
  // A new shape of a graph already compiled in enough shapes
  // (shape_variants.h): runs through the fallback until its second run,
  // which compiles deferred_module.
  std::atomic<bool> deferred{false};
  std::string deferred_module;
  std::mutex deferred_mutex;
  std::atomic<int64_t> executions{0};
  // Pipelined execution (pipelined_execution.h): how its runs run, chosen
  // from the step periods its first runs gave.
  std::atomic<int64_t> pipeline_tuning_runs{0};  // runs submitted
  struct PipelineTuning {
    std::mutex mutex;
    std::chrono::steady_clock::time_point last_end;
    // All threads, one fewer, all threads with the caller waiting.
    std::vector<double> periods_ms[3];
    int chosen = -1;  // index into periods_ms; -1: still measuring
  } pipeline_tuning;
  // Output buffers recycled once the graph runs repeatedly (steady state).
  OutputBufferPool output_pool;

  // The DAG this computation was lowered from (sync_trace.h): LTC's cache
  // hands it every graph with the same hash, which may be wired otherwise.
  std::optional<DagWiring> wiring;
  // Set while debugging: what the trace was made of, to explain its compile.
  std::shared_ptr<const TraceSummary> trace_summary;
  // Computations for the other wirings seen with this hash.
  std::mutex variants_mutex;
  std::vector<std::pair<DagWiring, std::shared_ptr<MlirComputation>>> variants;

  bool is_native() const { return executable != nullptr; }

  // The graph's torch.distributed collectives (collective_runner.h), read
  // from torch_dialect at the first run: empty sequence if it has none.
  struct Collectives {
    std::string sequence;
    int64_t group = -1;
  };
  const Collectives& collectives();

 private:
  std::shared_ptr<const TracedGraph> graph_;
  std::vector<torch::lazy::Shape> parameter_shapes_;
  std::vector<torch::lazy::Shape> result_shapes_;
  std::vector<std::string> parameter_names_;
  torch::lazy::Shape result_shape_;
  std::once_flag collectives_once_;
  Collectives collectives_;
};

}  // namespace backend
}  // namespace ltc_mlir
