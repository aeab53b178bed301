// output_buffer_pool: reuses the output buffers of a graph that runs every
// step. Fresh at::empty buffers of a few MB cost their page faults on first
// touch (measured ~2 ms of a 5 ms MLP step); a buffer whose only owner left
// is the pool (the lazy tensor it backed was replaced) is written again.
#pragma once

#include <ATen/Tensor.h>
#include <torch/csrc/lazy/core/shape.h>

#include <mutex>
#include <vector>

namespace ltc_mlir {
namespace backend {

class OutputBufferPool {
 public:
  // A contiguous host tensor of `shape` that nobody else references.
  // Thread-safe.
  at::Tensor Acquire(size_t result, const torch::lazy::Shape& shape);

 private:
  // A step's new parameters are produced while the previous ones are still
  // its inputs, so each result cycles through (at least) two buffers.
  static constexpr size_t kBuffersPerResult = 3;
  std::mutex mu_;
  std::vector<std::vector<at::Tensor>> pools_;  // per function result
};

}  // namespace backend
}  // namespace ltc_mlir
