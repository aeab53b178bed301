#pragma once

// The memory layout eager PyTorch would give a lazy tensor. Lazy tensors
// report row-major strides and our buffers are row-major, but as_strided
// addresses storage, so its result depends on the layout eager would have
// used: a channels-last CPU tensor moved to the lazy device, or
// `.to(memory_format=torch.channels_last)` on a lazy tensor.

#include <ATen/Tensor.h>
#include "ltc_backend/backend_data.h"

#include <vector>

namespace ltc_mlir {
namespace backend {

// The host buffer of a tensor moved to the lazy device is made row-major;
// this remembers the strides the host tensor had (dense, not row-major).
class HostLayoutData : public MlirData {
 public:
  HostLayoutData(const at::Tensor& row_major, const torch::lazy::Shape& shape,
                 const torch::lazy::BackendDevice& device, std::vector<int64_t> host_strides)
      : MlirData(row_major, shape, device), host_strides_(std::move(host_strides)) {}
  const std::vector<int64_t>& host_strides() const { return host_strides_; }

 private:
  std::vector<int64_t> host_strides_;
};

// The strides of `host` if they describe a dense, non-overlapping layout
// other than row-major (what `.to("lazy")` would preserve in eager), else
// an empty vector.
std::vector<int64_t> PreservedPermutedStrides(const at::Tensor& host);

// The strides of the storage eager would give `tensor` (a lazy tensor that
// is not a view): the host layout it came from, channels-last after
// `_to_copy(memory_format=channels_last)`, else row-major.
std::vector<int64_t> EagerStrides(const at::Tensor& tensor);

// The dims of a dense tensor with `strides`, outermost in memory first
// (empty when the strides are row-major or not a dense permutation).
std::vector<int64_t> StorageOrder(at::IntArrayRef sizes, at::IntArrayRef strides);

}  // namespace backend
}  // namespace ltc_mlir
