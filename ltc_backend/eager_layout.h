#pragma once

// The memory layout eager PyTorch would give a lazy tensor. Lazy tensors
// report row-major strides and our buffers are row-major, but as_strided
// addresses storage, so its result depends on the layout eager would have
// used: a channels-last CPU tensor moved to the lazy device, or
// `.to(memory_format=torch.channels_last)` on a lazy tensor.

#include <ATen/Tensor.h>
#include "ltc_backend/backend_data.h"

#include <functional>
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

// The tensor whose storage a lazy tensor lives in, as eager sees it:
// autograd's view base and the function replaying the view's ops on it
// (view_fn empty: the tensor is its own base). A view that requires grad
// on its own (a leaf view of a base that does not) counts as a base.
struct ViewOrigin {
  at::Tensor base;
  std::function<at::Tensor(const at::Tensor&)> view_fn;
};
ViewOrigin FindViewOrigin(const at::Tensor& tensor);

// `detached` was made by detach() from the lazy view `source`: in eager it
// shares the view's storage and offset, but it has no autograd view meta, so
// FindViewOrigin would take it for its own base. Remembered while
// `detached` lives (the base as a detached alias: no autograd graph).
void RememberDetachedView(const at::Tensor& detached, const at::Tensor& source);

// Where a view lives in its base's eager storage (sizes, strides, offset),
// found by replaying the view's ops on a meta tensor with the base's eager
// strides.
struct ViewGeometry {
  std::vector<int64_t> sizes, strides;
  int64_t offset = 0;
  bool covers_storage = false;  // every storage location, each once
};
ViewGeometry PlaceView(const std::function<at::Tensor(const at::Tensor&)>& view_fn,
                       const at::Tensor& base, at::IntArrayRef base_strides,
                       at::IntArrayRef view_sizes);

// The strides eager would give `tensor`, a view (its ops replayed on its
// base) or not (EagerStrides).
std::vector<int64_t> EagerStridesOfAny(const at::Tensor& tensor);

}  // namespace backend
}  // namespace ltc_mlir
