// pipelined_execution: the graph of step N runs on a pipeline thread while
// Python traces step N+1 (ltc_mlir.set_pipelined(True), LTC_MLIR_PIPELINE=1).
//
// Tracing runs on one core and costs milliseconds per step in real models
// (torch's LTC core: IR nodes, shapes, hashing); by default the graph
// then runs while the trace waits, so on 2 cores the second one idles for
// the whole trace. Pipelined, ExecuteComputation does everything that
// needs the caller's thread (the wiring check, the arguments, the random
// seed, the output buffers) and returns the results at once; a single
// pipeline thread runs the compiled code, graphs in the order they were
// submitted. A result's MlirData carries its run's Completion: reading the
// value on the host (.item(), .cpu(), an eager fallback op) waits for it;
// a later graph reading it runs after it anyway.
//
// What changes for the user:
//  - an error of a pipelined graph is raised once, by the first sync point
//    after it failed (mark_step, possibly the one that queued it; a host
//    read; torch._lazy.wait_device_ops), and every value
//    that graph was to compute raises "comes from graph G, which failed" when
//    used. Unlike the default mode, the tensors the failed step updated in
//    place do not get their old values back;
//  - each graph runs pipelined with all threads, pipelined with one fewer
//    (the other core traces), or with the caller waiting as without
//    pipelining: whichever gave the shortest step period in its first runs;
//  - graphs that do not run natively (fallback, partitioned) wait for the
//    pipeline to drain and run on the caller's thread as before;
//  - fork() waits for the pipeline to drain; the child runs its graphs
//    itself.
#pragma once

#include <torch/csrc/lazy/backend/backend_data.h>

#include <memory>
#include <vector>

namespace ltc_mlir {
namespace backend {

class MlirComputation;

bool PipelinedExecution();
// Turning it off waits for the pipeline to drain first.
void SetPipelinedExecution(bool enabled);

// Queues the native run of `comp` on the pipeline thread and returns its
// results, whose values are being computed.
std::vector<torch::lazy::BackendDataPtr> SubmitNative(
    const std::shared_ptr<MlirComputation>& comp,
    c10::ArrayRef<torch::lazy::BackendDataPtr> arguments,
    const torch::lazy::BackendDevice& device, bool cache_hit);

// Waits until every submitted run has finished.
void DrainPipeline();
// Waits until `data`'s value has been computed (or its run failed).
void WaitUntilComputed(const torch::lazy::BackendData& data);

}  // namespace backend
}  // namespace ltc_mlir
