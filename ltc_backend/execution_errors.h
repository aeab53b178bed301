// execution_errors: an error raised while a graph runs (a runtime check of
// the compiled code, an exception of the TorchScript fallback) reaches
// Python once, at the sync that ran the graph, and the lazy tensors stay
// usable afterwards.
//
// torch's LazyGraphExecutor raises an exception thrown by
// ExecuteComputation, but also parks it in the device lock, so the next
// sync raises it again; and the tensors the graph was to compute keep
// placeholders without data (every later graph using them fails).
// So the backend does not let the exception reach LTC:
//  - the graph's results are MlirData carrying the error (using one of
//    them later raises "... comes from graph G, which failed: <error>");
//  - tensors the step updated in place get back the value they had before
//    (failed_step_rollback), as in eager where the failing op raises before
//    the later updates run;
//  - the exception is kept pending for the calling thread and rethrown by
//    the end of the same sync: when LTC fetches a value to the host
//    (.item(), .cpu()) or, for torch._lazy.mark_step, by the Python package
//    right after it.
// With FLAGS_torch_lazy_use_thread_pool (graphs run on another thread) the
// exception is left to LTC as before.
#pragma once

#include <torch/csrc/lazy/backend/backend_data.h>

#include <exception>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace ltc_mlir {
namespace backend {

class MlirComputation;

// Runs `run` (the native or fallback execution of `comp`) under the policy
// above. Never throws unless LTC runs graphs on its thread pool.
std::vector<torch::lazy::BackendDataPtr> RunReportingErrorsAtSync(
    MlirComputation& comp, const torch::lazy::BackendDevice& device,
    const std::function<std::vector<torch::lazy::BackendDataPtr>()>& run);

// Rethrows (once) the error of the last graph this thread ran, if any, or
// else that of a failed pipelined run (pipelined_execution.h).
void RaisePendingError();

// For a pipelined run of `comp` that threw (call inside the catch): the
// failure its results carry; the error is kept for RaisePendingError.
std::shared_ptr<const std::string> RecordPipelinedFailure(const MlirComputation& comp,
                                                          const std::exception& e);

// Throws a clear error if `data` is the result of a failed graph.
void CheckComputed(const torch::lazy::BackendData& data, const char* what);

}  // namespace backend
}  // namespace ltc_mlir
