// Sparse embedding gradients are computed dense on the lazy device
// (sparse_embedding_grad.cpp).
#pragma once

namespace ltc_mlir {
namespace backend {

// Warns once that a sparse=True embedding's gradient is a dense tensor.
void WarnSparseGradientIsDense();

}  // namespace backend
}  // namespace ltc_mlir
