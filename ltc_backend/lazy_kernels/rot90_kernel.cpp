// torch.rot90 on the lazy device as flip + transpose_copy.
//
// torch's rot90 is CompositeExplicitAutograd: it runs at the Lazy key,
// below functionalization, and its in-place `transpose_` there reached the
// eager fallback through as_strided_, cutting the graph (k = 1 and 3). Here
// the same flip and transpose are functional copies. Eager's argument checks
// run first on a meta tensor, so bad dims raise eager's errors.
#include <ATen/ATen.h>
#include <torch/library.h>

#include "ltc_backend/lazy_kernels/device_check.h"
#include "ltc_backend/lazy_kernels/kernel_table.h"
#include "ltc_backend/lazy_kernels/lazy_kernels.h"

namespace ltc_mlir {
namespace backend {
namespace {

at::Tensor Rot90(const at::Tensor& self, int64_t k, at::IntArrayRef dims) {
  at::rot90(MetaLike(self), k, dims);
  const int64_t d0 = c10::maybe_wrap_dim(dims[0], self.dim());
  const int64_t d1 = c10::maybe_wrap_dim(dims[1], self.dim());
  std::vector<int64_t> order(self.dim());
  for (int64_t d = 0; d < self.dim(); ++d) order[d] = d;
  std::swap(order[d0], order[d1]);
  switch ((4 + k % 4) % 4) {
    case 1:
      return at::permute_copy(at::flip(self, {d1}), order);
    case 2:
      return at::flip(self, {d0, d1});
    case 3:
      return at::permute_copy(at::flip(self, {d0}), order);
    default:
      return self.clone(at::MemoryFormat::Contiguous);
  }
}

}  // namespace

void RegisterRot90Kernel() {
  static torch::Library* lib = new torch::Library(torch::Library::IMPL, "aten",
                                                  c10::DispatchKey::Lazy, __FILE__, __LINE__);
  QuietWarnings quiet;
  lib->impl("rot90", TORCH_FN(Rot90));
}

}  // namespace backend
}  // namespace ltc_mlir
