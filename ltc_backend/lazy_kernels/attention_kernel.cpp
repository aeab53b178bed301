// F._scaled_dot_product_attention on the lazy device as its math
// composite (matmul, softmax, dropout, masked_fill).
//
// In torch 1.13 the op picks _scaled_dot_product_attention_math when a
// gradient is needed and the fused _scaled_dot_product_attention_forward
// otherwise. The fused op has no Lazy kernel, so inference graphs were cut
// by the eager fallback. Eager's CPU kernel of the fused op computes the
// same math, so both entry points run the composite here, on the
// AutogradLazy key (above functionalization: the composite's transposes
// are views).
#include <ATen/ATen.h>
#include <torch/library.h>

#include "ltc_backend/lazy_kernels/lazy_kernels.h"

namespace ltc_mlir {
namespace backend {
namespace {

std::tuple<at::Tensor, at::Tensor> ScaledDotProductAttention(
    const at::Tensor& query, const at::Tensor& key, const at::Tensor& value,
    const c10::optional<at::Tensor>& attn_mask, double dropout_p, bool need_attn_weights,
    bool is_causal) {
  return at::_scaled_dot_product_attention_math(query, key, value, attn_mask, dropout_p,
                                                need_attn_weights, is_causal);
}

}  // namespace

void RegisterAttentionKernels() {
  static torch::Library* lib = new torch::Library(
      torch::Library::IMPL, "aten", c10::DispatchKey::AutogradLazy, __FILE__, __LINE__);
  lib->impl("_scaled_dot_product_attention", TORCH_FN(ScaledDotProductAttention));
  lib->impl("_scaled_dot_product_attention_forward", TORCH_FN(ScaledDotProductAttention));
}

}  // namespace backend
}  // namespace ltc_mlir
