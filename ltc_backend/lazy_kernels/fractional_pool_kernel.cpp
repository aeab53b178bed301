// fractional_max_pool2d/3d and their backward as lowered lazy ops; torch's
// LTC has no Lazy kernel for them, so FractionalMaxPool ran eagerly.
//
// Eager's windows: along a spatial dim of input size S, pool size k and
// output size o, window i starts at trunc((i + u) * alpha) - trunc(u * alpha)
// with alpha = (S - k) / (o - 1), both in the input dtype, and the last
// window starts at S - k. u is the plane's random sample for that dim
// (random_samples[n, c, j]: j = 0 is W and 1 is H in 2-d; T, H, W in 3-d).
// Here the starts are computed in the graph with the same arithmetic, each
// window's input positions form an index table [N, C, windows * elements],
// and a gather + max over the window gives the value and (through the
// table) eager's index: the flat position in the plane, the first maximum
// in row-major window order. The backward scatter_adds the gradient to
// those positions. Argument errors come from the ops' Meta kernels.
#include <ATen/ATen.h>
#include <torch/library.h>

#include "ltc_backend/lazy_kernels/device_check.h"
#include "ltc_backend/lazy_kernels/kernel_table.h"
#include "ltc_backend/lazy_kernels/lazy_kernels.h"

namespace ltc_mlir {
namespace backend {
namespace {

// (S - k) / (o - 1) computed in `type`, as eager's scalar_t arithmetic.
double Alpha(int64_t inputSize, int64_t poolSize, int64_t outputSize, at::ScalarType type) {
  at::TensorOptions options = at::TensorOptions().dtype(type);
  return (at::scalar_tensor(static_cast<double>(inputSize - poolSize), options) /
          at::scalar_tensor(static_cast<double>(outputSize - 1), options))
      .item<double>();
}

// Window starts along one dim: [N, C, o] int64.
at::Tensor WindowStarts(const at::Tensor& sample, int64_t inputSize, int64_t poolSize,
                        int64_t outputSize) {
  at::Tensor last = at::full({sample.size(0), sample.size(1), 1}, inputSize - poolSize,
                             sample.options().dtype(at::kLong));
  if (outputSize == 1) return last;
  double alpha = Alpha(inputSize, poolSize, outputSize, sample.scalar_type());
  at::Tensor i = at::arange(outputSize - 1, sample.options());
  at::Tensor u = at::unsqueeze_copy(sample, -1);
  at::Tensor starts = at::sub(at::mul(at::add(i, u), alpha).to(at::kLong),
                              at::mul(u, alpha).to(at::kLong));
  return at::cat({starts, last}, -1);
}

// Which random sample drives spatial dim d of a `dims`-d pooling.
int64_t SampleColumn(int64_t d, int64_t dims) { return dims == 2 ? 1 - d : d; }

std::tuple<at::Tensor, at::Tensor> FractionalMaxPool(const at::Tensor& self,
                                                     at::IntArrayRef kernel,
                                                     at::IntArrayRef outputSize,
                                                     const at::Tensor& samples, int64_t dims) {
  bool batched = self.dim() == dims + 2;
  at::Tensor x = batched ? self : at::unsqueeze_copy(self, 0);
  int64_t n = x.size(0), c = x.size(1);
  std::vector<int64_t> spatial(x.sizes().begin() + 2, x.sizes().end());
  int64_t plane = c10::multiply_integers(spatial);
  // index[n, c, o_1..o_D, k_1..k_D]: the flat plane position of each window element.
  const int64_t rank = 2 + 2 * dims;
  std::vector<int64_t> unit(rank, 1);
  unit[0] = n, unit[1] = c;
  at::Tensor index = at::zeros(unit, x.options().dtype(at::kLong));
  int64_t stride = plane;
  for (int64_t d = 0; d < dims; ++d) {
    stride /= spatial[d];
    at::Tensor sample = at::select_copy(samples, 2, SampleColumn(d, dims)).to(x.scalar_type());
    at::Tensor starts = WindowStarts(sample, spatial[d], kernel[d], outputSize[d]);
    at::Tensor pos = at::add(at::unsqueeze_copy(starts, -1),
                             at::arange(kernel[d], starts.options()));  // [N, C, o, k]
    std::vector<int64_t> shape(rank, 1);
    shape[0] = n, shape[1] = c, shape[2 + d] = outputSize[d], shape[2 + dims + d] = kernel[d];
    index = at::add(index, at::mul(at::view_copy(pos, shape), stride));
  }
  int64_t windows = c10::multiply_integers(outputSize);
  int64_t elements = c10::multiply_integers(kernel);
  at::Tensor table = at::view_copy(index, {n, c, windows * elements});
  at::Tensor values = at::gather(at::view_copy(x, {n, c, plane}), 2, table);
  auto best = at::max(at::view_copy(values, {n, c, windows, elements}), -1);
  at::Tensor picked = at::gather(at::view_copy(table, {n, c, windows, elements}), -1,
                                 at::unsqueeze_copy(std::get<1>(best), -1));
  std::vector<int64_t> outShape{n, c};
  outShape.insert(outShape.end(), outputSize.begin(), outputSize.end());
  at::Tensor out = at::view_copy(std::get<0>(best), outShape);
  at::Tensor indices = at::view_copy(picked, outShape);
  if (!batched) {
    out = at::squeeze_copy(out, 0);
    indices = at::squeeze_copy(indices, 0);
  }
  return {out, indices};
}

at::Tensor FractionalMaxPoolBackward(const at::Tensor& grad, const at::Tensor& self,
                                     const at::Tensor& indices, int64_t dims) {
  bool batched = self.dim() == dims + 2;
  int64_t n = batched ? self.size(0) : 1, c = self.size(batched ? 1 : 0);
  int64_t plane = self.numel() / std::max<int64_t>(n * c, 1);
  at::Tensor g = at::view_copy(grad, {n, c, grad.numel() / std::max<int64_t>(n * c, 1)});
  at::Tensor where = at::view_copy(indices, {n, c, indices.numel() / std::max<int64_t>(n * c, 1)});
  at::Tensor result = at::scatter_add(at::zeros({n, c, plane}, grad.options()), 2, where, g);
  return at::view_copy(result, self.sizes());
}

// fractional_max_pool2d or 3d on any device (the Meta kernel's checks and
// shapes; on host copies, eager's result or error for other dtypes).
std::tuple<at::Tensor, at::Tensor> EagerPool(const at::Tensor& self, at::IntArrayRef kernel,
                                             at::IntArrayRef outputSize,
                                             const at::Tensor& samples, int64_t dims) {
  return dims == 2 ? at::fractional_max_pool2d(self, kernel, outputSize, samples)
                   : at::fractional_max_pool3d(self, kernel, outputSize, samples);
}

template <int64_t Dims>
std::tuple<at::Tensor, at::Tensor> FractionalMaxPoolNd(const at::Tensor& self,
                                                       at::IntArrayRef kernel,
                                                       at::IntArrayRef outputSize,
                                                       const at::Tensor& samples) {
  auto meta = EagerPool(MetaLike(self), kernel, outputSize, MetaLike(samples), Dims);
  if (!at::isFloatingType(self.scalar_type())) {
    auto eager = EagerPool(self.cpu(), kernel, outputSize, samples.cpu(), Dims);
    return {std::get<0>(eager).to(self.device()), std::get<1>(eager).to(self.device())};
  }
  if (self.numel() == 0)  // nothing to pool: eager's (empty) shapes
    return {at::empty(std::get<0>(meta).sizes(), self.options()),
            at::empty(std::get<1>(meta).sizes(), self.options().dtype(at::kLong))};
  return FractionalMaxPool(self, kernel, outputSize, samples, Dims);
}

template <int64_t Dims>
at::Tensor FractionalMaxPoolNdBackward(const at::Tensor& grad, const at::Tensor& self,
                                       at::IntArrayRef, at::IntArrayRef,
                                       const at::Tensor& indices) {
  return FractionalMaxPoolBackward(grad, self, indices, Dims);
}

}  // namespace

void RegisterFractionalPoolKernels() {
  static torch::Library* lib = new torch::Library(torch::Library::IMPL, "aten",
                                                  c10::DispatchKey::Lazy, __FILE__, __LINE__);
  QuietWarnings quiet;
  lib->impl("fractional_max_pool2d", TORCH_FN(FractionalMaxPoolNd<2>));
  lib->impl("fractional_max_pool3d", TORCH_FN(FractionalMaxPoolNd<3>));
  lib->impl("fractional_max_pool2d_backward", TORCH_FN(FractionalMaxPoolNdBackward<2>));
  lib->impl("fractional_max_pool3d_backward", TORCH_FN(FractionalMaxPoolNdBackward<3>));
}

}  // namespace backend
}  // namespace ltc_mlir
