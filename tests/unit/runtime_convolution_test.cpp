// Runtime units: the oneDNN convolution entry points (runtime/lib/
// convolution.cpp) against the definition summed in double: forward with
// and without bias, input and weight gradients; strides, padding, dilation,
// groups (depthwise too), rectangular kernels; on 1 thread and cut into
// slices on 2 (batch, channel and group slices); strided (non-contiguous)
// operands; empty batches; 1x1 and weight-heavy convolutions (GEMMs);
// depthwise ones on tiny images. (The
// 2-thread cases are above the size below which a call stays on one
// thread.) Asserts the plain-loop fallback is not used. These tests also
// run under scripts/test_sanitize.sh.
#include "ltc_mlir/runtime/convolution.h"
#include "ltc_mlir/runtime/memref.h"
#include "ltc_mlir/runtime/openmp.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

using namespace ltc_mlir::runtime;

namespace {

using Tensor4 = MemRefDescriptor<float, 4>;
using Tensor1 = MemRefDescriptor<float, 1>;
using ForwardFn = void (*)(Tensor4 *, Tensor4 *, Tensor1 *, Tensor4 *, int64_t,
                           int64_t, int64_t, int64_t, int64_t, int64_t, int64_t);
using BackwardFn = void (*)(Tensor4 *, Tensor4 *, Tensor4 *, int64_t, int64_t,
                            int64_t, int64_t, int64_t, int64_t, int64_t);

struct Case {
  int64_t n, c, h, w, f, kh, kw, sh, sw, ph, pw, dh, dw, g;
  bool bias;
};

int64_t OutSize(int64_t in, int64_t k, int64_t s, int64_t p, int64_t d) {
  return (in + 2 * p - d * (k - 1) - 1) / s + 1;
}

/// A tensor of `sizes` whose storage is `spread` times larger along dim 1
/// when `strided` (a channel slice of a bigger tensor), filled with noise.
struct Buffer {
  std::vector<float> data;
  Tensor4 desc;
  Buffer(const int64_t (&sizes)[4], bool strided, std::mt19937 &rng) {
    int64_t spread = strided ? 2 : 1;
    int64_t strides[4];
    strides[3] = 1;
    strides[2] = sizes[3];
    strides[1] = sizes[2] * sizes[3];
    strides[0] = sizes[1] * spread * strides[1];
    data.assign(std::max<int64_t>(1, sizes[0] * strides[0]), 0.0f);
    std::normal_distribution<float> noise;
    for (float &x : data)
      x = noise(rng);
    desc = Tensor4{data.data(), data.data(), 0, {}, {}};
    for (int i = 0; i < 4; ++i) {
      desc.sizes[i] = sizes[i];
      desc.strides[i] = strides[i];
    }
  }
  float &at(int64_t a, int64_t b, int64_t c, int64_t d) {
    return data[a * desc.strides[0] + b * desc.strides[1] + c * desc.strides[2] +
                d * desc.strides[3]];
  }
};

/// The largest |got - want| over max |want| (1 for an all-zero want).
template <typename Got, typename Want>
double RelativeError(const int64_t (&sizes)[4], Got got, Want want) {
  double worst = 0, scale = 0;
  for (int64_t a = 0; a < sizes[0]; ++a)
    for (int64_t b = 0; b < sizes[1]; ++b)
      for (int64_t c = 0; c < sizes[2]; ++c)
        for (int64_t d = 0; d < sizes[3]; ++d) {
          worst = std::max(worst, std::abs(got(a, b, c, d) - want(a, b, c, d)));
          scale = std::max(scale, std::abs(want(a, b, c, d)));
        }
  return worst / std::max(scale, 1.0);
}

void RunCase(const Case &k, int threads, bool strided) {
  SCOPED_TRACE(::testing::Message()
               << "n" << k.n << " c" << k.c << " " << k.h << "x" << k.w << " f"
               << k.f << " k" << k.kh << "x" << k.kw << " s" << k.sh << k.sw
               << " p" << k.ph << k.pw << " d" << k.dh << k.dw << " g" << k.g
               << " threads " << threads << (strided ? " strided" : ""));
  std::mt19937 rng(7);
  int64_t oh = OutSize(k.h, k.kh, k.sh, k.ph, k.dh);
  int64_t ow = OutSize(k.w, k.kw, k.sw, k.pw, k.dw);
  int64_t cg = k.c / k.g, fg = k.f / k.g;
  const int64_t xs[4] = {k.n, k.c, k.h, k.w}, ws[4] = {k.f, cg, k.kh, k.kw},
                ys[4] = {k.n, k.f, oh, ow};
  Buffer x(xs, strided, rng), wt(ws, false, rng), gy(ys, strided, rng);
  Buffer y(ys, false, rng), gx(xs, false, rng), gw(ws, false, rng);
  std::vector<float> biasData(k.bias ? k.f : 0);
  for (float &b : biasData)
    b = std::normal_distribution<float>()(rng);
  Tensor1 bias{biasData.data(), biasData.data(), 0, {k.bias ? k.f : 0}, {1}};

  // The definition, in double.
  std::vector<double> ry(k.n * k.f * oh * ow, 0.0), rgx(k.n * k.c * k.h * k.w, 0.0),
      rgw(k.f * cg * k.kh * k.kw, 0.0);
  for (int64_t n = 0; n < k.n; ++n)
    for (int64_t f = 0; f < k.f; ++f)
      for (int64_t i = 0; i < oh; ++i)
        for (int64_t j = 0; j < ow; ++j) {
          double sum = k.bias ? biasData[f] : 0.0;
          for (int64_t c = 0; c < cg; ++c)
            for (int64_t a = 0; a < k.kh; ++a)
              for (int64_t b = 0; b < k.kw; ++b) {
                int64_t yi = i * k.sh - k.ph + a * k.dh, xj = j * k.sw - k.pw + b * k.dw;
                if (yi < 0 || yi >= k.h || xj < 0 || xj >= k.w)
                  continue;
                int64_t ci = (f / fg) * cg + c;
                sum += double(x.at(n, ci, yi, xj)) * wt.at(f, c, a, b);
                rgx[((n * k.c + ci) * k.h + yi) * k.w + xj] +=
                    double(gy.at(n, f, i, j)) * wt.at(f, c, a, b);
                rgw[((f * cg + c) * k.kh + a) * k.kw + b] +=
                    double(gy.at(n, f, i, j)) * x.at(n, ci, yi, xj);
              }
          ry[((n * k.f + f) * oh + i) * ow + j] = sum;
        }

  auto forward = reinterpret_cast<ForwardFn>(
      resolveConvolutionSymbol("_mlir_ciface_ltc_mlir_rt_conv2d_forward_f32"));
  auto backwardData = reinterpret_cast<BackwardFn>(resolveConvolutionSymbol(
      "_mlir_ciface_ltc_mlir_rt_conv2d_backward_data_f32"));
  auto backwardWeights = reinterpret_cast<BackwardFn>(resolveConvolutionSymbol(
      "_mlir_ciface_ltc_mlir_rt_conv2d_backward_weights_f32"));
  ASSERT_TRUE(forward && backwardData && backwardWeights);
  setNumThreads(threads);
  applyThreadSettings();
  ConvolutionStats before = convolutionStats();
  forward(&x.desc, &wt.desc, &bias, &y.desc, k.sh, k.sw, k.ph, k.pw, k.dh, k.dw, k.g);
  backwardData(&gy.desc, &wt.desc, &gx.desc, k.sh, k.sw, k.ph, k.pw, k.dh, k.dw, k.g);
  backwardWeights(&x.desc, &gy.desc, &gw.desc, k.sh, k.sw, k.ph, k.pw, k.dh, k.dw,
                  k.g);
  ConvolutionStats after = convolutionStats();
  setNumThreads(1);
  applyThreadSettings();
  EXPECT_EQ(after.fallbackCalls, before.fallbackCalls);

  // Sums of up to C/G * KH * KW products of unit normals, in f32.
  constexpr double kTolerance = 2e-5;
  EXPECT_LT(RelativeError(
                ys, [&](int64_t a, int64_t b, int64_t c, int64_t d) { return double(y.at(a, b, c, d)); },
                [&](int64_t a, int64_t b, int64_t c, int64_t d) { return ry[((a * k.f + b) * oh + c) * ow + d]; }),
            kTolerance);
  EXPECT_LT(RelativeError(
                xs, [&](int64_t a, int64_t b, int64_t c, int64_t d) { return double(gx.at(a, b, c, d)); },
                [&](int64_t a, int64_t b, int64_t c, int64_t d) { return rgx[((a * k.c + b) * k.h + c) * k.w + d]; }),
            kTolerance);
  EXPECT_LT(RelativeError(
                ws, [&](int64_t a, int64_t b, int64_t c, int64_t d) { return double(gw.at(a, b, c, d)); },
                [&](int64_t a, int64_t b, int64_t c, int64_t d) { return rgw[((a * cg + b) * k.kh + c) * k.kw + d]; }),
            kTolerance);
}

const Case kCases[] = {
    // n  c   h   w   f  kh kw sh sw ph pw dh dw  g  bias
    {4, 32, 12, 12, 48, 3, 3, 1, 1, 1, 1, 1, 1, 1, true},   // batch slices
    {1, 48, 17, 16, 64, 3, 3, 2, 2, 1, 1, 1, 1, 1, false},  // channel slices
    {2, 3, 17, 15, 16, 7, 7, 2, 2, 3, 3, 1, 1, 1, true},    // a stem
    {1, 64, 48, 48, 64, 3, 3, 1, 1, 1, 1, 1, 1, 64, true},  // depthwise, group slices
    {3, 16, 9, 11, 32, 2, 3, 1, 2, 0, 1, 2, 1, 4, false},   // groups, dilation
    {2, 40, 6, 6, 36, 1, 1, 2, 2, 0, 0, 1, 1, 1, false},    // 1x1 stride 2
    {2, 8, 1, 20, 12, 1, 5, 1, 2, 0, 2, 1, 3, 2, true},     // a 1-D convolution
    {3, 40, 7, 9, 36, 1, 1, 1, 1, 0, 0, 1, 1, 1, true},     // 1x1: GEMMs
    {2, 24, 1, 13, 40, 1, 1, 1, 1, 0, 0, 2, 2, 1, false},   // 1x1 1-D: GEMMs
    {2, 64, 4, 4, 160, 3, 3, 1, 1, 1, 1, 1, 1, 1, true},    // F >= N*OH*OW: GEMM
    {2, 16, 5, 6, 48, 3, 2, 2, 1, 1, 0, 1, 2, 1, false},    // the same, strided
    {8, 96, 2, 2, 96, 3, 3, 1, 1, 1, 1, 1, 1, 96, true},    // depthwise on 2x2
    {3, 40, 3, 4, 40, 3, 3, 2, 2, 1, 2, 2, 1, 40, false},   // the same, strided
    {4, 72, 5, 7, 72, 3, 3, 1, 1, 1, 1, 1, 1, 72, true},    // small depthwise: group slices
};
constexpr int kPointwiseCase = 7;

TEST(RuntimeConvolution, MatchesTheDefinitionOnOneThread) {
  for (const Case &k : kCases)
    RunCase(k, 1, false);
}

TEST(RuntimeConvolution, MatchesTheDefinitionCutIntoSlicesOnTwoThreads) {
  for (const Case &k : kCases)
    RunCase(k, 2, false);
}

TEST(RuntimeConvolution, StridedOperands) {
  RunCase(kCases[0], 1, true);
  RunCase(kCases[1], 2, true);
  RunCase(kCases[kPointwiseCase], 1, true);
  RunCase(kCases[kPointwiseCase], 2, true);
  RunCase(kCases[kPointwiseCase + 2], 1, true);
  RunCase(kCases[kPointwiseCase + 2], 2, true);
  RunCase(kCases[kPointwiseCase + 4], 1, true);
  RunCase(kCases[kPointwiseCase + 4], 2, true);
}

TEST(RuntimeConvolution, EmptyBatchWritesZeroWeightGradients) {
  std::vector<float> x(1), w(2 * 3 * 3 * 3, 5.0f), gy(1);
  Tensor4 xd{x.data(), x.data(), 0, {0, 3, 4, 4}, {48, 16, 4, 1}};
  Tensor4 wd{w.data(), w.data(), 0, {2, 3, 3, 3}, {27, 9, 3, 1}};
  Tensor4 gyd{gy.data(), gy.data(), 0, {0, 2, 2, 2}, {8, 4, 2, 1}};
  auto backwardWeights = reinterpret_cast<BackwardFn>(resolveConvolutionSymbol(
      "_mlir_ciface_ltc_mlir_rt_conv2d_backward_weights_f32"));
  backwardWeights(&xd, &gyd, &wd, 1, 1, 0, 0, 1, 1, 1);
  for (float v : w)
    EXPECT_EQ(v, 0.0f);
}

} // namespace
