// partitioned_graph: a graph holding ops the compiler cannot lower runs as
// native segments (maximal runs of lowerable ops, compiled like whole
// graphs) with only the other ops run by ATen's CPU kernels, one by one.
//
// Segments are runs of consecutive nodes in the graph's topological order,
// so no path leaves a segment and comes back into it: each one can run as a
// unit once its inputs exist. Constants and list constructions are copied
// into every segment that uses them. Values cross between segments and ATen
// ops as at::Tensors, without copies.
#pragma once

#include <torch/csrc/jit/ir/ir.h>
#include <torch/csrc/jit/runtime/operator.h>
#include <torch/csrc/lazy/backend/backend_data.h>

#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "ltc_backend/computation.h"

namespace ltc_mlir {
namespace backend {

struct NativeSegment {
  std::string name;
  std::shared_ptr<runtime::Executable> executable;
  std::vector<const torch::jit::Value*> inputs;   // values of the full graph
  std::vector<const torch::jit::Value*> outputs;  // idem, one per segment output
  std::vector<OutputRef> output_refs;             // segment output -> result/input
  std::vector<torch::lazy::Shape> result_shapes;  // per function result
  bool rng_seed_input = false;
  std::vector<size_t> input_order;  // function argument -> index in `inputs`
};

struct PartitionedGraph {
  // In execution order: a segment index (>= 0), or -1 - i for ATen node i.
  std::vector<int64_t> steps;
  std::vector<NativeSegment> segments;
  std::vector<const torch::jit::Node*> aten_nodes;
  std::vector<torch::jit::Operation> aten_operations;
  int64_t native_op_count = 0, total_op_count = 0;
};

// Splits comp's graph around the nodes whose ops are in `unsupported` (names
// as reported by the emitter, "aten::topk", or the compiler,
// "torch.aten.topk") and compiles the segments. On success sets
// comp.partitioned, comp.native_op_counts, comp.fallback_ops (the ops run by
// ATen), a fallback_reason (with `why`) saying how much is native, and
// returns true.
// Returns false (comp untouched) when nothing would run natively or a
// segment does not compile: the whole graph then falls back as before.
bool TryPartition(MlirComputation& comp, const std::vector<std::string>& unsupported,
                  const std::string& why);

std::vector<torch::lazy::BackendDataPtr> RunPartitioned(
    MlirComputation& comp, c10::ArrayRef<torch::lazy::BackendDataPtr> arguments,
    const torch::lazy::BackendDevice& device);

}  // namespace backend
}  // namespace ltc_mlir
