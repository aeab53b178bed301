// split_kernels: split/chunk/unbind/split_with_sizes for lazy tensors.
//
// Functionalization turns these views into split_copy.Tensor,
// split_with_sizes_copy and unbind_copy.int (chunk goes through split); the
// unsafe_ variants reach the Lazy key as themselves. torch's LTC has no
// Lazy kernel for any of them: the copies ran through the eager fallback
// (cutting the graph), the unsafe_ ones raised (an as_strided view cannot
// fall back). Here each piece is a slice_copy/select_copy of the input: ops
// LTC has kernels for, which our compiler lowers, so the pieces stay in the
// graph.
#include <ATen/ATen.h>
#include <ATen/ops/tensor_split_native.h>
#include <c10/core/WrapDimMinimal.h>
#include <torch/library.h>

#include "ltc_backend/lazy_kernels/lazy_kernels.h"

namespace ltc_mlir {
namespace backend {
namespace {

std::vector<at::Tensor> SlicesLike(const at::Tensor& self, const std::vector<at::Tensor>& meta,
                                   int64_t dim) {
  dim = c10::maybe_wrap_dim(dim, self.dim());
  std::vector<at::Tensor> pieces;
  pieces.reserve(meta.size());
  int64_t start = 0;
  for (const at::Tensor& m : meta) {
    int64_t length = m.size(dim);
    pieces.push_back(at::slice_copy(self, dim, start, start + length, 1));
    start += length;
  }
  return pieces;
}

std::vector<at::Tensor> SplitCopy(const at::Tensor& self, int64_t split_size, int64_t dim) {
  return SlicesLike(self, at::split(MetaLike(self), split_size, dim), dim);
}

std::vector<at::Tensor> SplitWithSizesCopy(const at::Tensor& self, at::IntArrayRef split_sizes,
                                           int64_t dim) {
  return SlicesLike(self, at::split_with_sizes(MetaLike(self), split_sizes, dim), dim);
}

std::vector<at::Tensor> UnbindCopy(const at::Tensor& self, int64_t dim) {
  size_t count = at::unbind(MetaLike(self), dim).size();
  dim = c10::maybe_wrap_dim(dim, self.dim());
  std::vector<at::Tensor> pieces;
  pieces.reserve(count);
  for (size_t i = 0; i < count; ++i)
    pieces.push_back(at::select_copy(self, dim, static_cast<int64_t>(i)));
  return pieces;
}

// tensor_split(self, indices_or_sections: Tensor, dim): torch insists on
// CPU indices (any other device raises the same), so lazy code that moved
// every tensor to the lazy device failed. The indices are host data that decide
// the pieces' shapes: a lazy one is read back (a small sync), then the
// composite runs as usual and its slices stay lazy.
std::vector<at::Tensor> TensorSplitIndicesTensor(const at::Tensor& self,
                                                 const at::Tensor& indices_or_sections,
                                                 int64_t dim) {
  if (indices_or_sections.is_lazy())
    return at::native::tensor_split(self, indices_or_sections.cpu(), dim);
  return at::native::tensor_split(self, indices_or_sections, dim);
}

}  // namespace

void RegisterSplitKernels() {
  static torch::Library* lib = new torch::Library(torch::Library::IMPL, "aten",
                                                  c10::DispatchKey::Lazy, __FILE__, __LINE__);
  lib->impl("split_copy.Tensor", TORCH_FN(SplitCopy));
  lib->impl("split_with_sizes_copy", TORCH_FN(SplitWithSizesCopy));
  lib->impl("unbind_copy.int", TORCH_FN(UnbindCopy));
  // Not views: pieces that are copies are what they promise.
  lib->impl("unsafe_split.Tensor", TORCH_FN(SplitCopy));
  lib->impl("unsafe_split_with_sizes", TORCH_FN(SplitWithSizesCopy));
  static torch::Library* autograd = new torch::Library(
      torch::Library::IMPL, "aten", c10::DispatchKey::AutogradLazy, __FILE__, __LINE__);
  autograd->impl("tensor_split.tensor_indices_or_sections", TORCH_FN(TensorSplitIndicesTensor));
}

}  // namespace backend
}  // namespace ltc_mlir
