// Depthwise convolutions of tiny images as plain loops (convolution_operands.h).
//
// MobileNetV2's last blocks run 3x3 depthwise convolutions of 960 channels
// on 2x2 images. oneDNN has no direct kernel for a weight gradient whose
// kernel is larger than the image and runs one small GEMM per channel
// ("gemm:jit"): 1.1 ms for 0.3 million multiply-adds, 6% of the training
// step for three such layers. Its other kernels copy the images into
// blocked layouts and back, which for 4 pixels is most of the call. Each
// output here is a short sum read straight from the NCHW operands
// (MobileNetV2 train at 1 thread: about 1.2 ms/step less).
#include "convolution_operands.h"

namespace ltc_mlir {
namespace runtime {
namespace convolution {
namespace {

/// Images of at most this many output pixels take these loops (from 4x4 on
/// oneDNN's depthwise kernels are faster than them, copies included).
constexpr int64_t kMaxOutputPixels = 4;

float *element(const Tensor4 *t, int64_t a, int64_t b, int64_t c, int64_t d) {
  return t->aligned + t->offset + a * t->strides[0] + b * t->strides[1] +
         c * t->strides[2] + d * t->strides[3];
}

} // namespace

bool convolveDepthwiseSmall(Kind kind, const Operands &o, const Params &p) {
  const Tensor4 *src = o.src, *w = o.weights, *dst = o.dst;
  int64_t n = src->sizes[0], channels = src->sizes[1], h = src->sizes[2],
          wd = src->sizes[3];
  int64_t kh = w->sizes[2], kw = w->sizes[3];
  int64_t oh = dst->sizes[2], ow = dst->sizes[3];
  if (p.groups != channels || dst->sizes[1] != channels || w->sizes[1] != 1 ||
      oh * ow > kMaxOutputPixels)
    return false;
  bool bias = kind == Kind::Forward && o.bias && o.bias->sizes[0] > 0;
  if (kind == Kind::BackwardData)
    for (int64_t b = 0; b < n; ++b)
      for (int64_t g = 0; g < channels; ++g)
        for (int64_t y = 0; y < h; ++y)
          for (int64_t x = 0; x < wd; ++x)
            *element(src, b, g, y, x) = 0.0f;
  for (int64_t g = 0; g < channels; ++g) {
    if (kind == Kind::Forward) {
      // Each output pixel's sum in the kernel's order.
      float add =
          bias ? o.bias->aligned[o.bias->offset + g * o.bias->strides[0]] : 0.0f;
      for (int64_t b = 0; b < n; ++b)
        for (int64_t y = 0; y < oh; ++y)
          for (int64_t x = 0; x < ow; ++x) {
            float sum = 0.0f;
            for (int64_t i = 0; i < kh; ++i) {
              int64_t iy = y * p.stride[0] - p.padding[0] + i * p.dilation[0];
              if (iy < 0 || iy >= h)
                continue;
              for (int64_t j = 0; j < kw; ++j) {
                int64_t ix =
                    x * p.stride[1] - p.padding[1] + j * p.dilation[1];
                if (ix >= 0 && ix < wd)
                  sum += *element(src, b, g, iy, ix) * *element(w, g, 0, i, j);
              }
            }
            *element(dst, b, g, y, x) = sum + add;
          }
      continue;
    }
    // Gradients: per kernel tap, over every output pixel it touched.
    for (int64_t i = 0; i < kh; ++i)
      for (int64_t j = 0; j < kw; ++j) {
        float weight = *element(w, g, 0, i, j), gradient = 0.0f;
        for (int64_t b = 0; b < n; ++b)
          for (int64_t y = 0; y < oh; ++y) {
            int64_t iy = y * p.stride[0] - p.padding[0] + i * p.dilation[0];
            if (iy < 0 || iy >= h)
              continue;
            for (int64_t x = 0; x < ow; ++x) {
              int64_t ix = x * p.stride[1] - p.padding[1] + j * p.dilation[1];
              if (ix < 0 || ix >= wd)
                continue;
              float *in = element(src, b, g, iy, ix);
              float out = *element(dst, b, g, y, x);
              if (kind == Kind::BackwardWeights)
                gradient += *in * out;
              else
                *in += weight * out;
            }
          }
        if (kind == Kind::BackwardWeights)
          *element(w, g, 0, i, j) = gradient;
      }
  }
  return true;
}

} // namespace convolution
} // namespace runtime
} // namespace ltc_mlir
