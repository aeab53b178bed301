// backend_data: the data behind a lazy tensor on our device. It is LTC's
// TSData (a contiguous host at::Tensor or a scalar) plus, for the results of
// a graph that failed, the error that graph raised: such a value was never
// computed, and using it says why instead of "has no data".
#pragma once

#include <torch/csrc/lazy/ts_backend/ts_backend_impl.h>

#include <condition_variable>
#include <memory>
#include <mutex>
#include <string>

namespace ltc_mlir {
namespace backend {

// The run of a graph that computes some MlirData's values on the pipeline
// thread (pipelined_execution.h): done once its outputs are written, with
// `failure` set if the run failed.
struct Completion {
  std::mutex mu;
  std::condition_variable cv;
  bool done = false;
  std::shared_ptr<const std::string> failure;

  void Finish(std::shared_ptr<const std::string> failed) {
    {
      std::lock_guard<std::mutex> lock(mu);
      failure = std::move(failed);
      done = true;
    }
    cv.notify_all();
  }
  void Wait() {
    std::unique_lock<std::mutex> lock(mu);
    cv.wait(lock, [&] { return done; });
  }
};

class MlirData : public torch::lazy::TSData {
 public:
  using TSData::TSData;

  // LTC fills a sync's placeholders with the graph's results this way.
  void Assign(const torch::lazy::BackendData& data) override;
  // A failed result counts as a value, so that reading it reaches the
  // backend (which raises its error) instead of LTC's "an async operation
  // is in flight".
  bool HasValue() const override { return TSData::HasValue() || failure != nullptr; }
  // Values that hold one buffer are one graph input. Functionalization often
  // keeps a value in two lazy tensors (a wrapper's and its storage's); a
  // graph that returned it gives both the same buffer, and the next step's
  // graph must take it once, like the step that computed it (else the
  // retraced step's module differs and compiles again). LTC's post-order
  // and lowering context key parameters by this handle.
  Handle GetHandle() override;

  // Set when the graph that was to compute this value failed.
  std::shared_ptr<const std::string> failure;
  // Set while a pipelined run may still be writing the value (its buffer
  // is allocated, its contents are not there yet).
  std::shared_ptr<Completion> completion;
};

// The failure recorded on `data` (directly, or by its finished pipelined
// run), or null (also for LTC's own TSData).
const std::string* FailureOf(const torch::lazy::BackendData& data);

}  // namespace backend
}  // namespace ltc_mlir
