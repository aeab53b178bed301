#include "ltc_backend/output_buffer_pool.h"

#include <ATen/Functions.h>

namespace ltc_mlir {
namespace backend {

at::Tensor OutputBufferPool::Acquire(size_t result, const torch::lazy::Shape& shape) {
  std::lock_guard<std::mutex> lock(mu_);
  if (pools_.size() <= result) pools_.resize(result + 1);
  std::vector<at::Tensor>& pool = pools_[result];
  for (const at::Tensor& t : pool) {
    // Free when the pool holds the only reference to the tensor and to its
    // storage (no view, .cpu() result or numpy array still sees it).
    if (t.use_count() == 1 && t.storage().use_count() == 1) return t;
  }
  at::Tensor fresh = at::empty(shape.sizes(), at::TensorOptions().dtype(shape.scalar_type()));
  if (pool.size() < kBuffersPerResult) pool.push_back(fresh);
  return fresh;
}

}  // namespace backend
}  // namespace ltc_mlir
