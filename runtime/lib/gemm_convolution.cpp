// Weight-heavy convolutions as one GEMM over the batch (convolution_operands.h).
//
// oneDNN's convolution primitives compute in blocked layouts, so each call
// copies its operands into them and its result back. When the weights are
// bigger than the activations (late ResNet layers: 512x512x3x3 weights on
// 2x2 images), those copies of the weights, two reads and a write of every
// parameter per training step, cost more than the products. Here the
// weights stay where they are, an operand of sgemm, and the copies are of
// the (small) activations instead:
//   col [C*KH*KW, N*OH*OW]    the input's patches (im2col)
//   forward:          out [F, N*OH*OW] = weights [F, C*KH*KW] * col
//   input gradient:   colGrad = weights^T * grad_output [F, N*OH*OW], summed
//                     back into the input's positions (col2im)
//   weight gradient:  weights = grad_output [F, N*OH*OW] * col^T
#include "convolution_operands.h"

#include "ltc_mlir/runtime/gemm.h"
#include "pooled.h"

#include <algorithm>
#include <utility>
#include <vector>

namespace ltc_mlir {
namespace runtime {
namespace convolution {
namespace {

float &at(const Tensor4 *t, int64_t a, int64_t b, int64_t c, int64_t d) {
  return t->aligned[t->offset + a * t->strides[0] + b * t->strides[1] +
                    c * t->strides[2] + d * t->strides[3]];
}

struct Geometry {
  int64_t n, c, h, w, f, kh, kw, oh, ow;
  int64_t patch() const { return c * kh * kw; }  // rows of col
  int64_t columns() const { return n * oh * ow; } // columns of col
};

Geometry geometryOf(const Operands &o) {
  return {o.src->sizes[0],     o.src->sizes[1],     o.src->sizes[2],
          o.src->sizes[3],     o.dst->sizes[1],     o.weights->sizes[2],
          o.weights->sizes[3], o.dst->sizes[2],     o.dst->sizes[3]};
}

/// The output columns x in [begin, end) whose input column
/// x * stride - padding + offset is inside [0, width).
std::pair<int64_t, int64_t> validColumns(int64_t outWidth, int64_t width,
                                         int64_t stride, int64_t shift) {
  // x * stride + shift >= 0 and x * stride + shift < width
  int64_t begin = shift >= 0 ? 0 : (-shift + stride - 1) / stride;
  int64_t end = width - shift <= 0 ? 0 : (width - shift + stride - 1) / stride;
  begin = std::min(begin, outWidth);
  end = std::max(begin, std::min(end, outWidth));
  return {begin, end};
}

/// Calls row(c, i, j, rowIndex) then, for each image b and output row y,
/// span(rowIndex, column of (b, y, 0), input row pointer or null (padding),
/// [begin, end) of the valid output columns, input column of x = begin,
/// input column step): the strided runs im2col copies and col2im adds.
template <typename Span>
void forEachPatchSpan(const Operands &o, const Params &p, const Geometry &g,
                      Span span) {
  const Tensor4 *src = o.src;
  for (int64_t c = 0; c < g.c; ++c)
    for (int64_t i = 0; i < g.kh; ++i)
      for (int64_t j = 0; j < g.kw; ++j) {
        int64_t row = (c * g.kh + i) * g.kw + j;
        int64_t shift = j * p.dilation[1] - p.padding[1];
        auto [begin, end] = validColumns(g.ow, g.w, p.stride[1], shift);
        for (int64_t b = 0; b < g.n; ++b)
          for (int64_t y = 0; y < g.oh; ++y) {
            int64_t iy = y * p.stride[0] - p.padding[0] + i * p.dilation[0];
            float *input = nullptr;
            if (iy >= 0 && iy < g.h)
              input = src->aligned + src->offset + b * src->strides[0] +
                      c * src->strides[1] + iy * src->strides[2] +
                      (begin * p.stride[1] + shift) * src->strides[3];
            span(row, (b * g.oh + y) * g.ow, input, begin, end,
                 p.stride[1] * src->strides[3]);
          }
      }
}

/// col [C*KH*KW, N*OH*OW] of the input (zeros where a patch reads padding).
void im2col(const Operands &o, const Params &p, const Geometry &g, float *col) {
  int64_t columns = g.columns();
  forEachPatchSpan(o, p, g, [&](int64_t row, int64_t column, const float *input,
                                int64_t begin, int64_t end, int64_t step) {
    float *out = col + row * columns + column;
    if (!input) {
      std::fill(out, out + g.ow, 0.0f);
      return;
    }
    std::fill(out, out + begin, 0.0f);
    for (int64_t x = begin; x < end; ++x, input += step)
      out[x] = *input;
    std::fill(out + end, out + g.ow, 0.0f);
  });
}

/// The input += each element of col at the position it was read from.
void col2imAdd(const Operands &o, const Params &p, const Geometry &g,
               const float *col) {
  int64_t columns = g.columns();
  forEachPatchSpan(o, p, g, [&](int64_t row, int64_t column, float *input,
                                int64_t begin, int64_t end, int64_t step) {
    if (!input)
      return;
    const float *in = col + row * columns + column;
    for (int64_t x = begin; x < end; ++x, input += step)
      *input += in[x];
  });
}

/// The output-shaped operand (dst or grad_output) as [F, N*OH*OW] and back.
void gatherOutput(const Tensor4 *dst, const Geometry &g, float *matrix) {
  for (int64_t f = 0; f < g.f; ++f)
    for (int64_t b = 0; b < g.n; ++b)
      for (int64_t y = 0; y < g.oh; ++y)
        for (int64_t x = 0; x < g.ow; ++x)
          matrix[f * g.columns() + (b * g.oh + y) * g.ow + x] = at(dst, b, f, y, x);
}

/// Every element of both is written before it is read.
struct Scratch {
  std::vector<float> col, output;
};

void gemm(int64_t m, int64_t n, int64_t k, const float *a, int64_t aStrideM,
          int64_t aStrideK, const float *b, int64_t bStrideK, int64_t bStrideN,
          float *c, int64_t cStrideM, int64_t cStrideN) {
  ltc_mlir_rt_sgemm(m, n, k, reinterpret_cast<int64_t>(a), aStrideM, aStrideK,
                    reinterpret_cast<int64_t>(b), bStrideK, bStrideN,
                    reinterpret_cast<int64_t>(c), cStrideM, cStrideN, 0);
}

} // namespace

bool convolveWithGemm(Kind kind, const Operands &o, const Params &p) {
  const Tensor4 *w = o.weights;
  Geometry g = geometryOf(o);
  // The weights as a [F, C*KH*KW] matrix: their last three dimensions must
  // be one in memory.
  bool weightsMatrix = w->strides[3] == 1 && w->strides[2] == g.kw &&
                       w->strides[1] == g.kh * g.kw;
  if (p.groups != 1 || !weightsMatrix || g.f < g.columns())
    return false;
  const float *weights = w->aligned + w->offset;
  int64_t patch = g.patch(), columns = g.columns();
  Pooled<Scratch> scratch;
  scratch->col.resize(static_cast<size_t>(patch * columns));
  scratch->output.resize(static_cast<size_t>(g.f * columns));
  float *col = scratch->col.data(), *output = scratch->output.data();
  switch (kind) {
  case Kind::Forward: {
    im2col(o, p, g, col);
    gemm(g.f, columns, patch, weights, w->strides[0], 1, col, columns, 1,
         output, columns, 1);
    bool bias = o.bias && o.bias->sizes[0] > 0;
    for (int64_t f = 0; f < g.f; ++f) {
      float add = bias ? o.bias->aligned[o.bias->offset + f * o.bias->strides[0]]
                       : 0.0f;
      for (int64_t b = 0; b < g.n; ++b)
        for (int64_t y = 0; y < g.oh; ++y)
          for (int64_t x = 0; x < g.ow; ++x)
            at(o.dst, b, f, y, x) =
                output[f * columns + (b * g.oh + y) * g.ow + x] + add;
    }
    return true;
  }
  case Kind::BackwardData: {
    gatherOutput(o.dst, g, output);
    // colGrad [C*KH*KW, N*OH*OW] = weights^T * grad_output.
    gemm(patch, columns, g.f, weights, 1, w->strides[0], output, columns, 1,
         col, columns, 1);
    for (int64_t b = 0; b < g.n; ++b)
      for (int64_t c = 0; c < g.c; ++c)
        for (int64_t y = 0; y < g.h; ++y)
          for (int64_t x = 0; x < g.w; ++x)
            at(o.src, b, c, y, x) = 0.0f;
    col2imAdd(o, p, g, col);
    return true;
  }
  case Kind::BackwardWeights:
    im2col(o, p, g, col);
    gatherOutput(o.dst, g, output);
    // weights [F, C*KH*KW] = grad_output * col^T.
    gemm(g.f, patch, columns, output, columns, 1, col, 1, columns,
         w->aligned + w->offset, w->strides[0], 1);
    return true;
  }
  return false;
}

} // namespace convolution
} // namespace runtime
} // namespace ltc_mlir
