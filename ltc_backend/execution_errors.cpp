#include "ltc_backend/execution_errors.h"

#include <c10/util/Exception.h>
#include <torch/csrc/lazy/core/config.h>

#include <memory>
#include <mutex>
#include <string>

#include "ltc_backend/backend_data.h"
#include "ltc_backend/computation.h"
#include "ltc_backend/failed_step_rollback.h"
#include "ltc_mlir/Compiler/Compiler.h"

namespace ltc_mlir {
namespace backend {
namespace {

// Per thread: without LTC's thread pool a sync runs on the caller's thread.
thread_local std::exception_ptr pending_error;
// The first error of a pipelined run since the last one raised.
std::mutex pipelined_error_mutex;
std::exception_ptr pipelined_error;

std::string MessageOf(const std::exception& e) {
  if (const auto* c10_error = dynamic_cast<const c10::Error*>(&e))
    return c10_error->what_without_backtrace();
  return e.what();
}

// A runtime check tagged as an index error (ltc_mlir::kIndexErrorTag):
// the message without the tag, or nullopt for any other error.
std::optional<std::string> IndexErrorMessage(const std::string& message) {
  const std::string prefix = std::string("ltc_mlir: ") + ltc_mlir::kIndexErrorTag;
  if (message.rfind(prefix, 0) != 0) return std::nullopt;
  return "ltc_mlir: " + message.substr(prefix.size());
}

// The error to raise for a failed run: a failed index check (its message
// from IndexErrorMessage) becomes c10::IndexError (Python's IndexError, as
// in eager); anything else is raised as it was thrown. Call inside the catch.
std::exception_ptr PythonFacingError(const std::optional<std::string>& indexMessage) {
  if (!indexMessage) return std::current_exception();
  return std::make_exception_ptr(c10::IndexError(
      c10::SourceLocation{__func__, __FILE__, static_cast<uint32_t>(__LINE__)}, *indexMessage));
}

// What a failed run of `comp` reports: the text its results carry, and the
// exception to raise in Python. Call inside the catch.
struct Failure {
  std::shared_ptr<const std::string> text;
  std::exception_ptr error;
};
Failure DescribeFailure(const MlirComputation& comp, const std::exception& e) {
  std::string message = MessageOf(e);
  std::optional<std::string> index = IndexErrorMessage(message);
  return {std::make_shared<const std::string>(comp.name + ", which failed: " +
                                              (index ? *index : message)),
          PythonFacingError(index)};
}

}  // namespace

std::vector<torch::lazy::BackendDataPtr> RunReportingErrorsAtSync(
    MlirComputation& comp, const torch::lazy::BackendDevice& device,
    const std::function<std::vector<torch::lazy::BackendDataPtr>()>& run) {
  if (FLAGS_torch_lazy_use_thread_pool) {
    try {
      return run();
    } catch (const std::exception& e) {
      std::rethrow_exception(PythonFacingError(IndexErrorMessage(MessageOf(e))));
    }
  }
  if (pending_error) {
    // A failed sync that neither fetched a value nor went through
    // torch._lazy.mark_step (e.g. torch._C._lazy._mark_step): say it now.
    try {
      std::rethrow_exception(std::exchange(pending_error, nullptr));
    } catch (const std::exception& e) {
      TORCH_WARN("ltc_mlir: an earlier graph failed and its error was not raised: ", MessageOf(e));
    }
  }
  try {
    std::vector<torch::lazy::BackendDataPtr> results = run();
    ForgetValuesBeforeUpdates();
    return results;
  } catch (const std::exception& e) {
    Failure failure = DescribeFailure(comp, e);
    RestoreValuesBeforeUpdates();
    pending_error = failure.error;
    std::vector<torch::lazy::BackendDataPtr> results;
    for (const torch::lazy::Shape& shape : comp.result_shapes()) {
      auto data = std::make_shared<MlirData>(shape, device);
      data->failure = failure.text;
      results.push_back(std::move(data));
    }
    return results;
  }
}

void RaisePendingError() {
  if (pending_error) std::rethrow_exception(std::exchange(pending_error, nullptr));
  std::exception_ptr pipelined;
  {
    std::lock_guard<std::mutex> lock(pipelined_error_mutex);
    pipelined = std::exchange(pipelined_error, nullptr);
  }
  if (pipelined) std::rethrow_exception(pipelined);
}

std::shared_ptr<const std::string> RecordPipelinedFailure(const MlirComputation& comp,
                                                          const std::exception& e) {
  Failure failure = DescribeFailure(comp, e);
  std::lock_guard<std::mutex> lock(pipelined_error_mutex);
  if (!pipelined_error) pipelined_error = failure.error;
  return failure.text;
}

void CheckComputed(const torch::lazy::BackendData& data, const char* what) {
  if (const std::string* failure = FailureOf(data))
    TORCH_CHECK(false, "ltc_mlir: ", what, " has no value: it comes from graph ", *failure,
                " Recompute it (for a parameter or optimizer state created in that step: "
                "re-create it).");
}

}  // namespace backend
}  // namespace ltc_mlir
