// 1x1 convolutions as GEMMs (convolution_operands.h).
//
// A 1x1, stride-1, unpadded convolution multiplies each image's [C, H*W]
// matrix by the [F, C] weights. oneDNN's convolution primitives compute it
// in blocked layouts, and every call then copies the image and the weights
// into them and its result back, which cost MobileNetV2 more than the
// products themselves. sgemm reads the NCHW operands where they are.
#include "convolution_operands.h"

#include "ltc_mlir/runtime/gemm.h"

namespace ltc_mlir {
namespace runtime {
namespace convolution {
namespace {

/// A matrix of an operand: element (i, j) at data[i * strideI + j * strideJ].
struct Matrix {
  float *data;
  int64_t strideI, strideJ;
};

void gemm(int64_t m, int64_t n, int64_t k, Matrix a, Matrix b, Matrix c,
          bool accumulate) {
  ltc_mlir_rt_sgemm(m, n, k, reinterpret_cast<int64_t>(a.data), a.strideI,
                    a.strideJ, reinterpret_cast<int64_t>(b.data), b.strideI,
                    b.strideJ, reinterpret_cast<int64_t>(c.data), c.strideI,
                    c.strideJ, accumulate ? 1 : 0);
}

/// The stride of the flattened H*W dimension of `t`, or 0 when H and W are
/// not one dimension in memory.
int64_t spatialStride(const Tensor4 *t) {
  if (t->sizes[2] == 1)
    return t->strides[3];
  if (t->sizes[3] == 1)
    return t->strides[2];
  return t->strides[2] == t->sizes[3] * t->strides[3] ? t->strides[3] : 0;
}

float *image(const Tensor4 *t, int64_t n) {
  return t->aligned + t->offset + n * t->strides[0];
}

} // namespace

bool convolvePointwise(Kind kind, const Operands &o, const Params &p) {
  const Tensor4 *w = o.weights;
  if (p.groups != 1 || w->sizes[2] != 1 || w->sizes[3] != 1 ||
      p.stride[0] != 1 || p.stride[1] != 1 || p.padding[0] != 0 ||
      p.padding[1] != 0)
    return false;
  int64_t srcP = spatialStride(o.src), dstP = spatialStride(o.dst);
  if (srcP == 0 || dstP == 0)
    return false;
  int64_t n = o.src->sizes[0], c = o.src->sizes[1], f = o.dst->sizes[1];
  int64_t positions = o.src->sizes[2] * o.src->sizes[3];
  Matrix weights{w->aligned + w->offset, w->strides[0], w->strides[1]};
  auto src = [&](int64_t i) {
    return Matrix{image(o.src, i), o.src->strides[1], srcP};
  };
  auto dst = [&](int64_t i) {
    return Matrix{image(o.dst, i), o.dst->strides[1], dstP};
  };
  switch (kind) {
  case Kind::Forward:
    // dst[i] (F x P) = weights (F x C) * src[i] (C x P) (+ bias).
    for (int64_t i = 0; i < n; ++i) {
      Matrix out = dst(i);
      bool bias = o.bias && o.bias->sizes[0] > 0;
      if (bias)
        for (int64_t j = 0; j < f; ++j) {
          float value =
              o.bias->aligned[o.bias->offset + j * o.bias->strides[0]];
          for (int64_t q = 0; q < positions; ++q)
            out.data[j * out.strideI + q * out.strideJ] = value;
        }
      gemm(f, positions, c, weights, src(i), out, bias);
    }
    return true;
  case Kind::BackwardData: {
    // src[i] (C x P) = weights^T (C x F) * dst[i] (F x P).
    Matrix transposed{weights.data, weights.strideJ, weights.strideI};
    for (int64_t i = 0; i < n; ++i)
      gemm(c, positions, f, transposed, dst(i), src(i), false);
    return true;
  }
  case Kind::BackwardWeights:
    // weights (F x C) = sum over i of dst[i] (F x P) * src[i]^T (P x C).
    for (int64_t i = 0; i < n; ++i) {
      Matrix in = src(i);
      gemm(f, c, positions, dst(i), Matrix{in.data, in.strideJ, in.strideI},
           weights, i > 0);
    }
    return true;
  }
  return false;
}

} // namespace convolution
} // namespace runtime
} // namespace ltc_mlir
