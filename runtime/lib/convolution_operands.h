// The operands and parameters of one f32 2-D convolution call, shared by
// the oneDNN path (convolution.cpp) and the others: 1x1 convolutions
// (pointwise_convolution.cpp) and weight-heavy ones (gemm_convolution.cpp)
// as GEMMs.
#ifndef LTC_MLIR_RUNTIME_CONVOLUTION_OPERANDS_H
#define LTC_MLIR_RUNTIME_CONVOLUTION_OPERANDS_H

#include "ltc_mlir/runtime/memref.h"

#include <cstdint>

namespace ltc_mlir {
namespace runtime {
namespace convolution {

using Tensor4 = MemRefDescriptor<float, 4>;
using Tensor1 = MemRefDescriptor<float, 1>;

enum class Kind : int64_t { Forward, BackwardData, BackwardWeights };

struct Params {
  int64_t stride[2], padding[2], dilation[2], groups;
};

/// Every call names the same three tensors: src [N, C, H, W], weights
/// [F, C/G, KH, KW] and dst [N, F, OH, OW]; `bias` only in the forward pass
/// (may be null or empty). The forward pass writes dst, the input gradient
/// src (from dst = grad_output), the weight gradient the weights.
struct Operands {
  Tensor4 *src, *weights, *dst;
  Tensor1 *bias;
};

/// Computes a 1x1, stride-1, unpadded, ungrouped convolution as GEMMs on
/// the operands' own layouts, with no copy into oneDNN's blocked layouts.
/// False (nothing written) when the call is not one, or its spatial
/// dimensions cannot be read as one matrix dimension.
bool convolvePointwise(Kind kind, const Operands &o, const Params &p);

/// Computes an ungrouped convolution whose weights outnumber its output
/// positions (F >= N*OH*OW) as one GEMM over the batch on the weights' own
/// layout (gemm_convolution.cpp). False (nothing written) otherwise.
bool convolveWithGemm(Kind kind, const Operands &o, const Params &p);

} // namespace convolution
} // namespace runtime
} // namespace ltc_mlir

#endif // LTC_MLIR_RUNTIME_CONVOLUTION_OPERANDS_H
