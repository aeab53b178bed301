// nn.Embedding and nn.EmbeddingBag with sparse=True on the lazy device: the
// weight's gradient is computed dense.
//
// Eager's embedding_backward and _embedding_bag_backward build a sparse COO gradient; lazy tensors are
// dense only, so the sparse constructor failed inside backward() with
// "Could not run 'aten::_sparse_coo_tensor_with_dims_and_tensors' with
// arguments from the 'SparseLazy' backend". The dense gradient has the same
// values (eager's sparse one, coalesced), so SGD, Adagrad and the rest of
// the dense optimizers update the weights as eager does; `weight.grad` is a
// strided tensor, which a one-time warning says. (SparseAdam needs sparse
// gradients and raises its own error.) The sum and mean bags that
// embedding_bag_kernel.cpp builds from differentiable ops get their dense
// gradient from autograd and only the warning from here.
#include <ATen/ATen.h>
#include <ATen/ops/_embedding_bag_backward_native.h>
#include <torch/library.h>

#include "ltc_backend/lazy_kernels/lazy_kernels.h"
#include "ltc_backend/lazy_kernels/sparse_embedding_grad.h"

namespace ltc_mlir {
namespace backend {

void WarnSparseGradientIsDense() {
  TORCH_WARN_ONCE(
      "Embedding/EmbeddingBag with sparse=True on the lazy device: lazy tensors are dense, "
      "so the weight's gradient is computed as a dense tensor with the same values "
      "(optimizers that accept dense gradients update the weights as eager does; SparseAdam "
      "does not). Use sparse=False to silence this warning.");
}

namespace {

at::Tensor EmbeddingBackward(const at::Tensor& grad, const at::Tensor& indices,
                             c10::SymInt num_weights, c10::SymInt padding_idx,
                             bool scale_grad_by_freq, bool sparse) {
  if (sparse) WarnSparseGradientIsDense();
  return at::embedding_dense_backward(grad, indices, num_weights.expect_int(),
                                      padding_idx.expect_int(),
                                      scale_grad_by_freq);
}

at::Tensor EmbeddingBagBackward(const at::Tensor& grad, const at::Tensor& indices,
                                const at::Tensor& offsets, const at::Tensor& offset2bag,
                                const at::Tensor& bag_size, const at::Tensor& maximum_indices,
                                int64_t num_weights, bool scale_grad_by_freq, int64_t mode,
                                bool sparse, const std::optional<at::Tensor>& per_sample_weights,
                                int64_t padding_idx) {
  if (sparse) WarnSparseGradientIsDense();
  return at::native::_embedding_bag_backward_symint(grad, indices, offsets, offset2bag, bag_size,
                                             maximum_indices, num_weights, scale_grad_by_freq,
                                             mode, /*sparse=*/false, per_sample_weights,
                                             padding_idx);
}

}  // namespace

void RegisterSparseEmbeddingGrad() {
  static torch::Library* lib = new torch::Library(
      torch::Library::IMPL, "aten", c10::DispatchKey::AutogradLazy, __FILE__, __LINE__);
  lib->impl("embedding_backward", TORCH_FN(EmbeddingBackward));
  lib->impl("_embedding_bag_backward", TORCH_FN(EmbeddingBagBackward));
}

}  // namespace backend
}  // namespace ltc_mlir
