// Writing a lazy value into a lazy tensor from inside a Lazy-key kernel.
//
// dst.copy_(src) there reaches LTC's _copy_from, which materializes src
// (runs a graph) when dst holds host data rather than an IR value, e.g. a
// tensor fresh from torch.empty or .to("lazy"). Besides the graph cut, a
// random src is then drawn in that run and again in the main graph:
// rrelu's noise disagreed with the slopes its output used. Giving dst src's
// IR value keeps the write in the graph.
#include <ATen/ATen.h>
#include <torch/csrc/lazy/core/tensor.h>

#include "ltc_backend/lazy_kernels/lazy_kernels.h"

namespace ltc_mlir {
namespace backend {

void AssignLazyValue(at::Tensor& dst, const at::Tensor& src) {
  torch::lazy::LazyTensorPtr dstLazy = torch::lazy::TryGetLtcTensor(dst);
  torch::lazy::LazyTensorPtr srcLazy = torch::lazy::TryGetLtcTensor(src);
  if (!dstLazy || !srcLazy || dst.scalar_type() != src.scalar_type() ||
      !dst.sizes().equals(src.sizes())) {
    dst.copy_(src);
    return;
  }
  dstLazy->SetInPlaceIrValue(srcLazy->GetIrValue());
}

}  // namespace backend
}  // namespace ltc_mlir
