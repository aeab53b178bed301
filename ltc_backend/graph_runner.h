// graph_runner: executes a compiled graph on LTC's BackendData, natively
// through the runtime or through the TorchScript fallback executor.
#pragma once

#include <torch/csrc/lazy/backend/backend_data.h>

#include <vector>

#include "ltc_backend/computation.h"

namespace ltc_mlir {
namespace backend {

// The seed of a graph's random ops for one run: drawn from torch's default
// CPU generator, so torch.manual_seed makes runs reproducible and every
// run (every training step) gets new dropout masks.
int64_t NextRandomSeed();

// Runs `comp` on `arguments` as a sync does: deferred compiles, metrics,
// collectives, errors recorded for the sync (execution_errors.h). Native
// graphs go to the pipeline thread when pipelining is on and
// `allow_pipeline`; otherwise the pipeline drains first. `result_buffers`
// (native runs only): per function result, a buffer to write it into
// instead of a fresh one (undefined: a fresh one).
std::vector<torch::lazy::BackendDataPtr> RunComputation(
    std::shared_ptr<MlirComputation> comp, c10::ArrayRef<torch::lazy::BackendDataPtr> arguments,
    const torch::lazy::BackendDevice& device, bool allow_pipeline,
    c10::ArrayRef<at::Tensor> result_buffers = {});

// Inputs' host buffers are passed without copies; outputs come from the
// computation's buffer pool once the graph repeats. Graph outputs that pass
// an input through, or repeat a result, share its buffer.
std::vector<torch::lazy::BackendDataPtr> RunNative(
    MlirComputation& comp, c10::ArrayRef<torch::lazy::BackendDataPtr> arguments,
    const torch::lazy::BackendDevice& device, c10::ArrayRef<at::Tensor> result_buffers = {});

// RunNative in two halves, for runs on another thread
// (pipelined_execution.h): PrepareNative checks the arguments, draws the
// random seed and allocates the outputs without reading any value (it waits
// for an input still being computed only when that input must be converted
// first); RunPrepared runs the compiled code.
struct PreparedRun {
  std::vector<runtime::Arg> inputs, outputs;
  std::vector<at::Tensor> buffers;  // the inputs' and outputs', alive during the run
  std::vector<torch::lazy::BackendDataPtr> results;
  std::vector<bool> computed;  // per result: written by this run (not an input passed through)
};
PreparedRun PrepareNative(MlirComputation& comp,
                          c10::ArrayRef<torch::lazy::BackendDataPtr> arguments,
                          const torch::lazy::BackendDevice& device,
                          c10::ArrayRef<at::Tensor> result_buffers = {});
void RunPrepared(MlirComputation& comp, PreparedRun& run, int threads);

// The whole graph through its TracedGraph interpreter (torchscript/boundary.h).
std::vector<torch::lazy::BackendDataPtr> RunFallback(
    MlirComputation& comp, c10::ArrayRef<torch::lazy::BackendDataPtr> arguments,
    const torch::lazy::BackendDevice& device);

}  // namespace backend
}  // namespace ltc_mlir
