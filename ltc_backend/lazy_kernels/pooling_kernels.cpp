// 3-d pooling and 3-d nearest upsampling on the lazy device.
//
// LTC has Lazy kernels for the 2-d pooling ops only; the 3-d
// ones (lowered in TorchToLinalg Pooling/AdaptivePooling/Upsample) ran on the
// CPU op by op, cutting the graph. Most become AtenOpNodes shaped by their
// Meta kernel; the ones without one are shaped here:
//  - max_pool3d_with_indices: ATen's output-size formula and argument checks
//    (pool3d_shape_check, the eager messages);
//  - max_pool3d_with_indices_backward, _adaptive_avg_pool3d_backward: shaped
//    as self.
// max_pool3d (F.max_pool3d without indices) had LTC's AutogradLazy kernel,
// which ran max_pool3d_with_indices on the eager fallback: ours calls
// max_pool3d_with_indices, i.e. its composite.
#include <ATen/ATen.h>
#include <ATen/native/Pool.h>
#include <torch/library.h>

#include "ltc_backend/lazy_kernels/aten_op_node.h"
#include "ltc_backend/lazy_kernels/kernel_table.h"
#include "ltc_backend/lazy_kernels/lazy_kernels.h"

namespace ltc_mlir {
namespace backend {
namespace {

// A pooling int list of 1 or 3 values as 3 (an empty stride: the kernel).
std::vector<int64_t> Triple(c10::IntArrayRef v, const char* name,
                            c10::IntArrayRef if_empty = {}) {
  if (v.empty() && !if_empty.empty()) return if_empty.vec();
  TORCH_CHECK(v.size() == 1 || v.size() == 3, "max_pool3d: ", name,
              " must either be a single int, or a tuple of three ints");
  return v.size() == 1 ? std::vector<int64_t>(3, v[0]) : v.vec();
}

std::vector<torch::lazy::Shape> MaxPool3dShapes(const c10::OperatorHandle& op,
                                                const torch::jit::Stack& stack) {
  const size_t n = op.schema().arguments().size();
  auto arg = [&](size_t i) -> const c10::IValue& { return stack[stack.size() - n + i]; };
  const at::Tensor& self = arg(0).toTensor();
  std::vector<int64_t> k = Triple(arg(1).toIntVector(), "kernel_size");
  std::vector<int64_t> s = Triple(arg(2).toIntVector(), "stride", k);
  std::vector<int64_t> p = Triple(arg(3).toIntVector(), "padding");
  std::vector<int64_t> d = Triple(arg(4).toIntVector(), "dilation");
  bool ceil = arg(5).toBool();
  TORCH_CHECK(self.dim() == 4 || self.dim() == 5,
              "non-empty 4D or 5D (batch mode) tensor expected for input");
  const int64_t nd = self.dim();
  std::vector<int64_t> in = {self.size(nd - 3), self.size(nd - 2), self.size(nd - 1)};
  std::vector<int64_t> out(3);
  for (int i = 0; i < 3; ++i) {
    TORCH_CHECK(s[i] != 0, "max_pool3d: stride should not be zero");
    out[i] = at::native::pooling_output_shape<int64_t>(in[i], k[i], p[i], s[i], d[i], ceil);
  }
  at::native::pool3d_shape_check(self, self.size(nd - 4), k[0], k[1], k[2], s[0], s[1], s[2],
                                 p[0], p[1], p[2], d[0], d[1], d[2], in[0], in[1], in[2],
                                 out[0], out[1], out[2], "max_pool3d_with_indices()");
  std::vector<int64_t> sizes(self.sizes().begin(), self.sizes().end() - 3);
  sizes.insert(sizes.end(), out.begin(), out.end());
  return {torch::lazy::Shape(self.scalar_type(), sizes), torch::lazy::Shape(at::kLong, sizes)};
}

at::Tensor MaxPool3d(const at::Tensor& self, c10::IntArrayRef kernel_size, c10::IntArrayRef stride,
                     c10::IntArrayRef padding, c10::IntArrayRef dilation, bool ceil_mode) {
  return std::get<0>(
      at::max_pool3d_with_indices(self, kernel_size, stride, padding, dilation, ceil_mode));
}

// unfold_backward(grad, input_sizes, dim, size, step), Tensor.unfold's
// window gradient (lowered in TorchToLinalg Unfold.cpp): no C++ Meta
// kernel (torch's Python one gives the same shape); the result has
// input_sizes and grad's dtype.
std::vector<torch::lazy::Shape> UnfoldBackwardShapes(const c10::OperatorHandle& op,
                                                     const torch::jit::Stack& stack) {
  const size_t n = op.schema().arguments().size();
  const at::Tensor& grad = stack[stack.size() - n].toTensor();
  return {torch::lazy::Shape(grad.scalar_type(), stack[stack.size() - n + 1].toIntVector())};
}

}  // namespace

void RegisterPoolingKernels() {
  RegisterAtenOpKernel("unfold_backward", UnfoldBackwardShapes);
  for (const char* op : {"avg_pool3d", "avg_pool3d_backward", "_adaptive_avg_pool3d",
                         "adaptive_max_pool3d", "adaptive_max_pool3d_backward",
                         "upsample_nearest3d", "upsample_nearest3d_backward"})
    RegisterAtenOpKernel(op);
  for (const char* op : {"max_pool3d_with_indices_backward", "_adaptive_avg_pool3d_backward"})
    RegisterAtenOpKernel(op, "self");
  RegisterAtenOpKernel("max_pool3d_with_indices", MaxPool3dShapes);
  static torch::Library* autograd = new torch::Library(
      torch::Library::IMPL, "aten", c10::DispatchKey::AutogradLazy, __FILE__, __LINE__);
  QuietWarnings quiet;  // replaces LTC's kernel
  autograd->impl("max_pool3d", TORCH_FN(MaxPool3d));
}

}  // namespace backend
}  // namespace ltc_mlir
