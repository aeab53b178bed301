// embedding_bag (nn.EmbeddingBag, F.embedding_bag) in sum and mean mode as
// differentiable lazy ops, registered on the AutogradLazy key in place of
// the composite.
//
// The composite calls _embedding_bag / _embedding_bag_forward_only, whose
// backward is _embedding_bag_backward (dense and per-sample-weights parts):
// none has a Lazy kernel in torch's LTC, so a recommendation model's every
// step went through the eager fallback. Here, for n indices and B bags:
//   bag of element i = (number of bag starts <= i) - 1, a cumsum over a
//     scatter_add of ones at the offsets (no data-dependent shape);
//   rows = weight.index_select(indices) * per_sample_weights (sum) and * 0
//     for padding_idx;
//   output = zeros(B, D).index_add(bag, rows), divided by max(bag size, 1)
//     in mean mode, as ATen does.
// Autograd differentiates these ops: weight's gradient is the index_add of
// the output gradient's rows (eager's dense backward), per_sample_weights'
// is the rows' dot products, dense also for sparse=True (lazy tensors are
// dense; sparse_embedding_grad.h warns). Max mode and scale_grad_by_freq
// keep the composite (and its eager fallback).
// The other three results follow eager's forward values for these modes.
#include <ATen/ATen.h>
#include <ATen/ops/embedding_bag_native.h>
#include <torch/library.h>

#include "ltc_backend/lazy_kernels/device_check.h"
#include "ltc_backend/lazy_kernels/lazy_kernels.h"
#include "ltc_backend/lazy_kernels/sparse_embedding_grad.h"

namespace ltc_mlir {
namespace backend {
namespace {

constexpr int64_t kModeSum = 0;
constexpr int64_t kModeMean = 1;

using Results = std::tuple<at::Tensor, at::Tensor, at::Tensor, at::Tensor>;

Results LazyEmbeddingBag(const at::Tensor& weight, const at::Tensor& indices,
                         const at::Tensor& offsets, int64_t mode,
                         const std::optional<at::Tensor>& perSampleWeights,
                         bool includeLastOffset, int64_t paddingIdx) {
  at::TensorOptions longs = indices.options().dtype(at::kLong);
  int64_t n = indices.numel();
  int64_t bags = offsets.numel() - (includeLastOffset ? 1 : 0);
  at::Tensor starts = offsets.narrow(0, 0, bags).to(at::kLong);
  // Bag starts counted per element position (a start at n, an empty last
  // bag, lands in the spare slot).
  at::Tensor marks = at::zeros({n + 1}, longs).scatter_add(0, starts, at::ones({bags}, longs));
  at::Tensor bagOf = marks.cumsum(0).narrow(0, 0, n) - 1;
  at::Tensor flatIndices = indices.to(at::kLong);
  at::Tensor rows = weight.index_select(0, flatIndices);
  at::Tensor counted = at::ones({n}, longs);
  if (paddingIdx >= 0) {
    at::Tensor keep = flatIndices.ne(paddingIdx);
    rows = rows * keep.unsqueeze(1).to(rows.scalar_type());
    counted = keep.to(at::kLong);
  }
  if (perSampleWeights && perSampleWeights->defined())
    rows = rows * perSampleWeights->unsqueeze(1);
  at::Tensor output = at::zeros({bags, weight.size(1)}, weight.options()).index_add(0, bagOf, rows);
  at::Tensor bagSize = at::zeros({bags}, longs).index_add(0, bagOf, counted);
  if (mode == kModeMean) {
    output = output / bagSize.clamp_min(1).unsqueeze(1).to(output.scalar_type());
    return {output, bagOf, bagSize, bagSize.clone()};
  }
  return {output, at::empty({0}, longs), at::zeros({bags}, longs), at::zeros({bags}, longs)};
}

bool Handled(const at::Tensor& weight, const at::Tensor& indices, const at::Tensor& offsets,
             bool scaleGradByFreq, int64_t mode,
             const std::optional<at::Tensor>& perSampleWeights) {
  bool perSampleOk = !perSampleWeights || !perSampleWeights->defined() ||
                     (mode == kModeSum && perSampleWeights->sizes().equals(indices.sizes()) &&
                      perSampleWeights->scalar_type() == weight.scalar_type());
  return weight.is_lazy() && indices.is_lazy() && offsets.is_lazy() && weight.dim() == 2 &&
         indices.dim() == 1 && offsets.dim() == 1 && offsets.numel() >= 1 &&
         at::isFloatingType(weight.scalar_type()) && !scaleGradByFreq &&
         (mode == kModeSum || mode == kModeMean) && perSampleOk &&
         (indices.scalar_type() == at::kLong || indices.scalar_type() == at::kInt) &&
         offsets.scalar_type() == indices.scalar_type();
}

// embedding_bag.padding_idx(weight, indices, offsets, scale_grad_by_freq,
// mode, sparse, per_sample_weights, include_last_offset, padding_idx)
Results EmbeddingBagPadding(const at::Tensor& weight, const at::Tensor& indices,
                            const at::Tensor& offsets, bool scaleGradByFreq, int64_t mode,
                            bool sparse, const std::optional<at::Tensor>& perSampleWeights,
                            bool includeLastOffset, std::optional<int64_t> paddingIdx) {
  if (!Handled(weight, indices, offsets, scaleGradByFreq, mode, perSampleWeights) ||
      (includeLastOffset && offsets.numel() < 1))
    return at::native::embedding_bag(weight, indices, offsets, scaleGradByFreq, mode, sparse,
                                     perSampleWeights, includeLastOffset, paddingIdx);
  if (sparse) WarnSparseGradientIsDense();
  int64_t padding = paddingIdx.value_or(-1);
  if (padding < 0 && paddingIdx) padding += weight.size(0);
  return LazyEmbeddingBag(weight, indices, offsets, mode, perSampleWeights, includeLastOffset,
                          padding);
}

Results EmbeddingBag(const at::Tensor& weight, const at::Tensor& indices,
                     const at::Tensor& offsets, bool scaleGradByFreq, int64_t mode, bool sparse,
                     const std::optional<at::Tensor>& perSampleWeights, bool includeLastOffset) {
  return EmbeddingBagPadding(weight, indices, offsets, scaleGradByFreq, mode, sparse,
                             perSampleWeights, includeLastOffset, std::nullopt);
}

}  // namespace

void RegisterEmbeddingBagKernel() {
  static torch::Library* lib = new torch::Library(
      torch::Library::IMPL, "aten", c10::DispatchKey::AutogradLazy, __FILE__, __LINE__);
  lib->impl("embedding_bag.padding_idx", TORCH_FN(EmbeddingBagPadding));
  lib->impl("embedding_bag", TORCH_FN(EmbeddingBag));
}

}  // namespace backend
}  // namespace ltc_mlir
