//===- compiler_group_norm_test.cpp - native_group_norm numerics ----------===//
//
// The group norm lowering (GroupNorm reaches lazy graphs as
// native_group_norm, which torch 2.14's LTC has a Lazy kernel for; tested
// end to end against eager in tests/e2e/test_normalization.py) is checked
// here against a double-precision reference written from the definition:
// y = (x - mean) / sqrt(var + eps) * w + b per (n, group), and the textbook
// gradient dx = rstd * (g - mean(g) - xhat * mean(g * xhat)), g = dy * w.
//
//===----------------------------------------------------------------------===//

#include "compiler_test_utils.h"

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

using namespace ltc_mlir;
using namespace ltc_mlir::test;

namespace {

runtime::Arg T(void *data) { return runtime::Arg::tensor(data); }

/// Deterministic values in about [-2, 3).
std::vector<float> pseudoRandom(size_t n, uint32_t seed) {
  std::vector<float> v(n);
  for (size_t i = 0; i < n; ++i) {
    seed = seed * 1664525u + 1013904223u;
    v[i] = float(seed >> 8) / float(1u << 24) * 5.0f - 2.0f;
  }
  return v;
}

void expectClose(const std::vector<float> &actual,
                 const std::vector<double> &expected, double rtol,
                 double atol) {
  ASSERT_EQ(actual.size(), expected.size());
  for (size_t i = 0; i < actual.size(); ++i)
    EXPECT_NEAR(actual[i], expected[i], atol + rtol * std::fabs(expected[i]))
        << "at index " << i;
}

/// Reference group norm over x [n, c, s] in `groups` groups.
struct GroupNormReference {
  int64_t n, c, s, groups;
  double eps;
  std::vector<double> y, mean, rstd, dx, dw, db;

  void run(const std::vector<float> &x, const std::vector<float> *w,
           const std::vector<float> *b, const std::vector<float> &dy) {
    int64_t d = c / groups, count = d * s;
    y.assign(n * c * s, 0);
    dx.assign(n * c * s, 0);
    mean.assign(n * groups, 0);
    rstd.assign(n * groups, 0);
    dw.assign(c, 0);
    db.assign(c, 0);
    auto at = [&](int64_t i, int64_t ch, int64_t k) {
      return (i * c + ch) * s + k;
    };
    for (int64_t i = 0; i < n; ++i)
      for (int64_t g = 0; g < groups; ++g) {
        double m = 0, v = 0;
        for (int64_t ch = g * d; ch < (g + 1) * d; ++ch)
          for (int64_t k = 0; k < s; ++k)
            m += x[at(i, ch, k)];
        m /= double(count);
        for (int64_t ch = g * d; ch < (g + 1) * d; ++ch)
          for (int64_t k = 0; k < s; ++k)
            v += (x[at(i, ch, k)] - m) * (x[at(i, ch, k)] - m);
        v /= double(count);
        double r = 1.0 / std::sqrt(v + eps);
        mean[i * groups + g] = m;
        rstd[i * groups + g] = r;
        double meanG = 0, meanGX = 0;
        for (int64_t ch = g * d; ch < (g + 1) * d; ++ch)
          for (int64_t k = 0; k < s; ++k) {
            int64_t e = at(i, ch, k);
            double xhat = (x[e] - m) * r;
            double wc = w ? (*w)[ch] : 1.0;
            y[e] = xhat * wc + (b ? (*b)[ch] : 0.0);
            meanG += dy[e] * wc;
            meanGX += dy[e] * wc * xhat;
            dw[ch] += dy[e] * xhat;
            db[ch] += dy[e];
          }
        meanG /= double(count);
        meanGX /= double(count);
        for (int64_t ch = g * d; ch < (g + 1) * d; ++ch)
          for (int64_t k = 0; k < s; ++k) {
            int64_t e = at(i, ch, k);
            double xhat = (x[e] - m) * r;
            double gv = dy[e] * (w ? (*w)[ch] : 1.0);
            dx[e] = r * (gv - meanG - xhat * meanGX);
          }
      }
  }
};

} // namespace

// [2, 6, 2, 3] in 3 groups with weight and bias: forward, then the backward
// of its own statistics with every gradient wanted.
TEST(CompilerGroupNorm, AffineForwardAndBackward) {
  auto f = compile(R"mlir(
func.func @forward(%x: !torch.vtensor<[2,6,2,3],f32>, %w: !torch.vtensor<[6],f32>, %b: !torch.vtensor<[6],f32>, %dy: !torch.vtensor<[2,6,2,3],f32>) -> (!torch.vtensor<[2,6,2,3],f32>, !torch.vtensor<[2,3],f32>, !torch.vtensor<[2,3],f32>, !torch.vtensor<[2,6,2,3],f32>, !torch.vtensor<[6],f32>, !torch.vtensor<[6],f32>) {
  %int2 = torch.constant.int 2
  %int6 = torch.constant.int 6
  %int3 = torch.constant.int 3
  %true = torch.constant.bool true
  %eps = torch.constant.float 1.000000e-05
  %0:3 = torch.aten.native_group_norm %x, %w, %b, %int2, %int6, %int6, %int3, %eps : (!torch.vtensor<[2,6,2,3],f32>, !torch.vtensor<[6],f32>, !torch.vtensor<[6],f32>, !torch.int, !torch.int, !torch.int, !torch.int, !torch.float) -> (!torch.vtensor<[2,6,2,3],f32>, !torch.vtensor<[2,3],f32>, !torch.vtensor<[2,3],f32>)
  %mask = torch.prim.ListConstruct %true, %true, %true : (!torch.bool, !torch.bool, !torch.bool) -> !torch.list<bool>
  %1:3 = torch.aten.native_group_norm_backward %dy, %x, %0#1, %0#2, %w, %int2, %int6, %int6, %int3, %mask : (!torch.vtensor<[2,6,2,3],f32>, !torch.vtensor<[2,6,2,3],f32>, !torch.vtensor<[2,3],f32>, !torch.vtensor<[2,3],f32>, !torch.vtensor<[6],f32>, !torch.int, !torch.int, !torch.int, !torch.int, !torch.list<bool>) -> (!torch.vtensor<[2,6,2,3],f32>, !torch.vtensor<[6],f32>, !torch.vtensor<[6],f32>)
  return %0#0, %0#1, %0#2, %1#0, %1#1, %1#2 : !torch.vtensor<[2,6,2,3],f32>, !torch.vtensor<[2,3],f32>, !torch.vtensor<[2,3],f32>, !torch.vtensor<[2,6,2,3],f32>, !torch.vtensor<[6],f32>, !torch.vtensor<[6],f32>
}
)mlir");
  ASSERT_NE(f, nullptr);
  std::vector<float> x = pseudoRandom(72, 1), w = pseudoRandom(6, 2),
                     b = pseudoRandom(6, 3), dy = pseudoRandom(72, 4);
  for (float &v : x)
    v = v * 1.5f + 0.75f;
  std::vector<float> y(72), mean(6), rstd(6), dx(72), dw(6), db(6);
  load(*f).run({T(x.data()), T(w.data()), T(b.data()), T(dy.data())},
               {T(y.data()), T(mean.data()), T(rstd.data()), T(dx.data()),
                T(dw.data()), T(db.data())});
  GroupNormReference ref{2, 6, 6, 3, 1e-5};
  ref.run(x, &w, &b, dy);
  expectClose(y, ref.y, 1e-5, 1e-6);
  expectClose(mean, ref.mean, 1e-5, 1e-6);
  expectClose(rstd, ref.rstd, 1e-5, 1e-6);
  expectClose(dx, ref.dx, 1e-4, 1e-5);
  expectClose(dw, ref.dw, 1e-4, 1e-5);
  expectClose(db, ref.db, 1e-4, 1e-5);
}

// Rank 3, no weight and bias, 2 groups; the backward wants only grad_weight
// (as when the input needs no gradient): the others are zeros.
TEST(CompilerGroupNorm, PlainForwardAndMaskedBackward) {
  auto f = compile(R"mlir(
func.func @forward(%x: !torch.vtensor<[3,4,5],f32>, %w: !torch.vtensor<[4],f32>, %dy: !torch.vtensor<[3,4,5],f32>) -> (!torch.vtensor<[3,4,5],f32>, !torch.vtensor<[3,4,5],f32>, !torch.vtensor<[4],f32>, !torch.vtensor<[4],f32>) {
  %none = torch.constant.none
  %int3 = torch.constant.int 3
  %int4 = torch.constant.int 4
  %int5 = torch.constant.int 5
  %int2 = torch.constant.int 2
  %true = torch.constant.bool true
  %false = torch.constant.bool false
  %eps = torch.constant.float 1.000000e-03
  %0:3 = torch.aten.native_group_norm %x, %none, %none, %int3, %int4, %int5, %int2, %eps : (!torch.vtensor<[3,4,5],f32>, !torch.none, !torch.none, !torch.int, !torch.int, !torch.int, !torch.int, !torch.float) -> (!torch.vtensor<[3,4,5],f32>, !torch.vtensor<[3,2],f32>, !torch.vtensor<[3,2],f32>)
  %mask = torch.prim.ListConstruct %false, %true, %false : (!torch.bool, !torch.bool, !torch.bool) -> !torch.list<bool>
  %1:3 = torch.aten.native_group_norm_backward %dy, %x, %0#1, %0#2, %w, %int3, %int4, %int5, %int2, %mask : (!torch.vtensor<[3,4,5],f32>, !torch.vtensor<[3,4,5],f32>, !torch.vtensor<[3,2],f32>, !torch.vtensor<[3,2],f32>, !torch.vtensor<[4],f32>, !torch.int, !torch.int, !torch.int, !torch.int, !torch.list<bool>) -> (!torch.vtensor<[3,4,5],f32>, !torch.vtensor<[4],f32>, !torch.vtensor<[4],f32>)
  return %0#0, %1#0, %1#1, %1#2 : !torch.vtensor<[3,4,5],f32>, !torch.vtensor<[3,4,5],f32>, !torch.vtensor<[4],f32>, !torch.vtensor<[4],f32>
}
)mlir");
  ASSERT_NE(f, nullptr);
  std::vector<float> x = pseudoRandom(60, 5), w = pseudoRandom(4, 6),
                     dy = pseudoRandom(60, 7);
  std::vector<float> y(60), dx(60, -1.0f), dw(4), db(4, -1.0f);
  load(*f).run({T(x.data()), T(w.data()), T(dy.data())},
               {T(y.data()), T(dx.data()), T(dw.data()), T(db.data())});
  GroupNormReference ref{3, 4, 5, 2, 1e-3};
  ref.run(x, nullptr, nullptr, dy);
  expectClose(y, ref.y, 1e-5, 1e-6);
  expectClose(dw, ref.dw, 1e-4, 1e-5);
  expectClose(dx, std::vector<double>(60, 0.0), 0, 0);
  expectClose(db, std::vector<double>(4, 0.0), 0, 0);
}
