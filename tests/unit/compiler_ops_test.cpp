//===- compiler_ops_test.cpp - numerics of the TorchToLinalg lowerings ----===//
//
// Small torch-dialect graphs compiled with ltc_mlir::compileTorchModule and
// run through the runtime; expected values are computed here by hand with
// ATen's semantics (broadcasting, alpha/beta, keepdim, nll_loss reductions and
// ignore_index, softmax backward formulas, view/permute element order).
//
//===----------------------------------------------------------------------===//

#include "compiler_test_utils.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

using namespace ltc_mlir;
using namespace ltc_mlir::test;

namespace {

runtime::Arg T(void *data) { return runtime::Arg::tensor(data); }

void expectNear(const std::vector<float> &actual,
                const std::vector<float> &expected, float tol = 1e-5f) {
  ASSERT_EQ(actual.size(), expected.size());
  for (size_t i = 0; i < actual.size(); ++i)
    EXPECT_NEAR(actual[i], expected[i],
                tol * std::max(1.0f, std::fabs(expected[i])))
        << "at index " << i;
}

std::vector<float> iota(size_t n, float start = 0.0f, float step = 1.0f) {
  std::vector<float> v(n);
  for (size_t i = 0; i < n; ++i)
    v[i] = start + step * static_cast<float>(i);
  return v;
}

} // namespace

TEST(CompilerOps, BroadcastAddWithAlphaAndScalarTensor) {
  // out0 = a + alpha * b (b broadcast over rows); out1 = out0 - s (0-dim
  // f64) * 2 (int alpha).
  auto f = compile(R"mlir(
func.func @forward(%a: !torch.vtensor<[2,3],f32>, %b: !torch.vtensor<[3],f32>, %alpha: !torch.float, %s: !torch.vtensor<[],f64>) -> (!torch.vtensor<[2,3],f32>, !torch.vtensor<[2,3],f32>) {
  %int2 = torch.constant.int 2
  %0 = torch.aten.add.Tensor %a, %b, %alpha : (!torch.vtensor<[2,3],f32>, !torch.vtensor<[3],f32>, !torch.float) -> !torch.vtensor<[2,3],f32>
  %1 = torch.aten.sub.Tensor %0, %s, %int2 : (!torch.vtensor<[2,3],f32>, !torch.vtensor<[],f64>, !torch.int) -> !torch.vtensor<[2,3],f32>
  return %0, %1 : !torch.vtensor<[2,3],f32>, !torch.vtensor<[2,3],f32>
}
)mlir");
  ASSERT_NE(f, nullptr);
  std::vector<float> a = iota(6, 1.0f), b = {10, 20, 30};
  double s = 0.25;
  std::vector<float> out0(6), out1(6);
  load(*f).run({T(a.data()), T(b.data()), runtime::Arg::floating(0.5),
                T(&s)},
               {T(out0.data()), T(out1.data())});
  std::vector<float> e0(6), e1(6);
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 3; ++j) {
      e0[i * 3 + j] = a[i * 3 + j] + 0.5f * b[j];
      e1[i * 3 + j] = e0[i * 3 + j] - 2.0f * 0.25f;
    }
  expectNear(out0, e0);
  expectNear(out1, e1);
}

TEST(CompilerOps, IntegerTrueDivisionAndUnaryOps) {
  auto f = compile(R"mlir(
func.func @forward(%a: !torch.vtensor<[4],si64>, %b: !torch.vtensor<[4],si64>, %x: !torch.vtensor<[4],f32>) -> (!torch.vtensor<[4],f32>, !torch.vtensor<[4],f32>, !torch.vtensor<[4],f32>) {
  %0 = torch.aten.div.Tensor %a, %b : (!torch.vtensor<[4],si64>, !torch.vtensor<[4],si64>) -> !torch.vtensor<[4],f32>
  %1 = torch.aten.sigmoid %x : (!torch.vtensor<[4],f32>) -> !torch.vtensor<[4],f32>
  %2 = torch.aten.relu %x : (!torch.vtensor<[4],f32>) -> !torch.vtensor<[4],f32>
  return %0, %1, %2 : !torch.vtensor<[4],f32>, !torch.vtensor<[4],f32>, !torch.vtensor<[4],f32>
}
)mlir");
  ASSERT_NE(f, nullptr);
  std::vector<int64_t> a = {7, -7, 1, 0}, b = {2, 2, 3, 5};
  std::vector<float> x = {-2.0f, -0.5f, 0.0f, 3.0f};
  std::vector<float> div(4), sig(4), relu(4);
  load(*f).run({T(a.data()), T(b.data()), T(x.data())},
               {T(div.data()), T(sig.data()), T(relu.data())});
  expectNear(div, {3.5f, -3.5f, 1.0f / 3.0f, 0.0f});
  std::vector<float> eSig(4), eRelu(4);
  for (int i = 0; i < 4; ++i) {
    eSig[i] = 1.0f / (1.0f + std::exp(-x[i]));
    eRelu[i] = std::max(x[i], 0.0f);
  }
  expectNear(sig, eSig);
  expectNear(relu, eRelu);
}

TEST(CompilerOps, ThresholdBackward) {
  auto f = compile(R"mlir(
func.func @forward(%g: !torch.vtensor<[5],f32>, %x: !torch.vtensor<[5],f32>) -> !torch.vtensor<[5],f32> {
  %int0 = torch.constant.int 0
  %0 = torch.aten.threshold_backward %g, %x, %int0 : (!torch.vtensor<[5],f32>, !torch.vtensor<[5],f32>, !torch.int) -> !torch.vtensor<[5],f32>
  return %0 : !torch.vtensor<[5],f32>
}
)mlir");
  ASSERT_NE(f, nullptr);
  std::vector<float> g = {1, 2, 3, 4, 5}, x = {-1, 0, 0.5f, 2, -0.0f};
  std::vector<float> out(5);
  load(*f).run({T(g.data()), T(x.data())}, {T(out.data())});
  // self <= threshold gives 0 (including self == 0 and -0).
  expectNear(out, {0, 0, 3, 4, 0});
}

TEST(CompilerOps, AddmmWithScalars) {
  // out0 = 1 * bias + 1 * x @ w (as nn.Linear); out1 = 0.5 * bias + 2 * x @ w;
  // out2 = beta 0 with NaN in self: self is ignored.
  auto f = compile(R"mlir(
func.func @forward(%bias: !torch.vtensor<[3],f32>, %x: !torch.vtensor<[2,4],f32>, %w: !torch.vtensor<[4,3],f32>, %one: !torch.int, %beta: !torch.float, %alpha: !torch.float, %nan: !torch.vtensor<[2,3],f32>, %zero: !torch.float) -> (!torch.vtensor<[2,3],f32>, !torch.vtensor<[2,3],f32>, !torch.vtensor<[2,3],f32>) {
  %0 = torch.aten.addmm %bias, %x, %w, %one, %one : (!torch.vtensor<[3],f32>, !torch.vtensor<[2,4],f32>, !torch.vtensor<[4,3],f32>, !torch.int, !torch.int) -> !torch.vtensor<[2,3],f32>
  %1 = torch.aten.addmm %bias, %x, %w, %beta, %alpha : (!torch.vtensor<[3],f32>, !torch.vtensor<[2,4],f32>, !torch.vtensor<[4,3],f32>, !torch.float, !torch.float) -> !torch.vtensor<[2,3],f32>
  %2 = torch.aten.addmm %nan, %x, %w, %zero, %alpha : (!torch.vtensor<[2,3],f32>, !torch.vtensor<[2,4],f32>, !torch.vtensor<[4,3],f32>, !torch.float, !torch.float) -> !torch.vtensor<[2,3],f32>
  return %0, %1, %2 : !torch.vtensor<[2,3],f32>, !torch.vtensor<[2,3],f32>, !torch.vtensor<[2,3],f32>
}
)mlir");
  ASSERT_NE(f, nullptr);
  std::vector<float> bias = {0.5f, -1.0f, 2.0f};
  std::vector<float> x = iota(8, -1.0f, 0.5f), w = iota(12, 0.25f, -0.125f);
  std::vector<float> nan(6, std::numeric_limits<float>::quiet_NaN());
  std::vector<float> out0(6), out1(6), out2(6);
  load(*f).run({T(bias.data()), T(x.data()), T(w.data()),
                runtime::Arg::integer(1), runtime::Arg::floating(0.5),
                runtime::Arg::floating(2.0), T(nan.data()),
                runtime::Arg::floating(0.0)},
               {T(out0.data()), T(out1.data()), T(out2.data())});
  std::vector<float> e0(6), e1(6), e2(6);
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 3; ++j) {
      float p = 0;
      for (int k = 0; k < 4; ++k)
        p += x[i * 4 + k] * w[k * 3 + j];
      e0[i * 3 + j] = bias[j] + p;
      e1[i * 3 + j] = 0.5f * bias[j] + 2.0f * p;
      e2[i * 3 + j] = 2.0f * p;
    }
  expectNear(out0, e0);
  expectNear(out1, e1);
  expectNear(out2, e2);
}

TEST(CompilerOps, BmmAndTranspose) {
  auto f = compile(R"mlir(
func.func @forward(%a: !torch.vtensor<[2,2,3],f32>, %b: !torch.vtensor<[2,2,3],f32>) -> !torch.vtensor<[2,2,2],f32> {
  %int1 = torch.constant.int 1
  %intm1 = torch.constant.int -1
  %bt = torch.aten.transpose_copy.int %b, %int1, %intm1 : (!torch.vtensor<[2,2,3],f32>, !torch.int, !torch.int) -> !torch.vtensor<[2,3,2],f32>
  %0 = torch.aten.bmm %a, %bt : (!torch.vtensor<[2,2,3],f32>, !torch.vtensor<[2,3,2],f32>) -> !torch.vtensor<[2,2,2],f32>
  return %0 : !torch.vtensor<[2,2,2],f32>
}
)mlir");
  ASSERT_NE(f, nullptr);
  std::vector<float> a = iota(12, 1.0f), b = iota(12, -3.0f, 0.5f);
  std::vector<float> out(8), e(8);
  load(*f).run({T(a.data()), T(b.data())}, {T(out.data())});
  for (int n = 0; n < 2; ++n)
    for (int i = 0; i < 2; ++i)
      for (int j = 0; j < 2; ++j) {
        float s = 0;
        for (int k = 0; k < 3; ++k)
          s += a[n * 6 + i * 3 + k] * b[n * 6 + j * 3 + k];
        e[n * 4 + i * 2 + j] = s;
      }
  expectNear(out, e);
}

TEST(CompilerOps, SumKeepdimNegativeDimsAndMean) {
  auto f = compile(R"mlir(
func.func @forward(%a: !torch.vtensor<[2,3,4],f32>) -> (!torch.vtensor<[1,3,1],f32>, !torch.vtensor<[2,4],f32>, !torch.vtensor<[],f32>) {
  %int0 = torch.constant.int 0
  %int1 = torch.constant.int 1
  %intm1 = torch.constant.int -1
  %true = torch.constant.bool true
  %false = torch.constant.bool false
  %none = torch.constant.none
  %dims = torch.prim.ListConstruct %intm1, %int0 : (!torch.int, !torch.int) -> !torch.list<int>
  %0 = torch.aten.sum.dim_IntList %a, %dims, %true, %none : (!torch.vtensor<[2,3,4],f32>, !torch.list<int>, !torch.bool, !torch.none) -> !torch.vtensor<[1,3,1],f32>
  %d1 = torch.prim.ListConstruct %int1 : (!torch.int) -> !torch.list<int>
  %1 = torch.aten.mean.dim %a, %d1, %false, %none : (!torch.vtensor<[2,3,4],f32>, !torch.list<int>, !torch.bool, !torch.none) -> !torch.vtensor<[2,4],f32>
  %2 = torch.aten.mean %a, %none : (!torch.vtensor<[2,3,4],f32>, !torch.none) -> !torch.vtensor<[],f32>
  return %0, %1, %2 : !torch.vtensor<[1,3,1],f32>, !torch.vtensor<[2,4],f32>, !torch.vtensor<[],f32>
}
)mlir");
  ASSERT_NE(f, nullptr);
  std::vector<float> a = iota(24, -5.0f, 0.75f);
  std::vector<float> sum(3), mean1(8), mean(1);
  load(*f).run({T(a.data())}, {T(sum.data()), T(mean1.data()), T(mean.data())});
  auto at = [&](int i, int j, int k) { return a[i * 12 + j * 4 + k]; };
  std::vector<float> eSum(3, 0.0f), eMean1(8, 0.0f);
  float total = 0;
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 3; ++j)
      for (int k = 0; k < 4; ++k) {
        eSum[j] += at(i, j, k);
        eMean1[i * 4 + k] += at(i, j, k) / 3.0f;
        total += at(i, j, k);
      }
  expectNear(sum, eSum);
  expectNear(mean1, eMean1);
  expectNear(mean, {total / 24.0f});
}

TEST(CompilerOps, LogSoftmaxIsStableAndBackward) {
  auto f = compile(R"mlir(
func.func @forward(%x: !torch.vtensor<[2,3],f32>, %g: !torch.vtensor<[2,3],f32>) -> (!torch.vtensor<[2,3],f32>, !torch.vtensor<[2,3],f32>, !torch.vtensor<[2,3],f32>, !torch.vtensor<[2,3],f32>) {
  %int1 = torch.constant.int 1
  %int6 = torch.constant.int 6
  %false = torch.constant.bool false
  %0 = torch.aten._log_softmax %x, %int1, %false : (!torch.vtensor<[2,3],f32>, !torch.int, !torch.bool) -> !torch.vtensor<[2,3],f32>
  %1 = torch.aten._log_softmax_backward_data %g, %0, %int1, %int6 : (!torch.vtensor<[2,3],f32>, !torch.vtensor<[2,3],f32>, !torch.int, !torch.int) -> !torch.vtensor<[2,3],f32>
  %2 = torch.aten._softmax %x, %int1, %false : (!torch.vtensor<[2,3],f32>, !torch.int, !torch.bool) -> !torch.vtensor<[2,3],f32>
  %3 = torch.aten._softmax_backward_data %g, %2, %int1, %int6 : (!torch.vtensor<[2,3],f32>, !torch.vtensor<[2,3],f32>, !torch.int, !torch.int) -> !torch.vtensor<[2,3],f32>
  return %0, %1, %2, %3 : !torch.vtensor<[2,3],f32>, !torch.vtensor<[2,3],f32>, !torch.vtensor<[2,3],f32>, !torch.vtensor<[2,3],f32>
}
)mlir");
  ASSERT_NE(f, nullptr);
  // The second row would overflow exp() without the max subtraction.
  std::vector<float> x = {0.5f, -1.0f, 2.0f, 1000.0f, 1001.0f, 1002.0f};
  std::vector<float> g = {0.1f, -0.2f, 0.3f, 1.0f, 0.0f, -1.0f};
  std::vector<float> lsm(6), lsmGrad(6), sm(6), smGrad(6);
  load(*f).run({T(x.data()), T(g.data())},
               {T(lsm.data()), T(lsmGrad.data()), T(sm.data()),
                T(smGrad.data())});
  std::vector<float> eLsm(6), eLsmGrad(6), eSm(6), eSmGrad(6);
  for (int i = 0; i < 2; ++i) {
    double m = std::max({x[i * 3], x[i * 3 + 1], x[i * 3 + 2]});
    double s = 0, gs = 0, gy = 0;
    for (int j = 0; j < 3; ++j)
      s += std::exp(x[i * 3 + j] - m);
    for (int j = 0; j < 3; ++j) {
      eLsm[i * 3 + j] = float(x[i * 3 + j] - m - std::log(s));
      eSm[i * 3 + j] = float(std::exp(x[i * 3 + j] - m) / s);
      gs += g[i * 3 + j];
      gy += g[i * 3 + j] * eSm[i * 3 + j];
    }
    for (int j = 0; j < 3; ++j) {
      eLsmGrad[i * 3 + j] =
          float(g[i * 3 + j] - std::exp(eLsm[i * 3 + j]) * gs);
      eSmGrad[i * 3 + j] = float(eSm[i * 3 + j] * (g[i * 3 + j] - gy));
    }
  }
  expectNear(lsm, eLsm);
  expectNear(lsmGrad, eLsmGrad);
  expectNear(sm, eSm);
  expectNear(smGrad, eSmGrad);
}

namespace {
const char *kNllLoss = R"mlir(
func.func @forward(%x: !torch.vtensor<[4,3],f32>, %t: !torch.vtensor<[4],si64>, %w: !torch.vtensor<[3],f32>, %g: !torch.vtensor<[],f32>) -> (!torch.vtensor<[],f32>, !torch.vtensor<[],f32>, !torch.vtensor<[4,3],f32>, !torch.vtensor<[],f32>, !torch.vtensor<[],f32>, !torch.vtensor<[4],f32>, !torch.vtensor<[4,3],f32>) {
  %none = torch.constant.none
  %int0 = torch.constant.int 0
  %int1 = torch.constant.int 1
  %int2 = torch.constant.int 2
  %intm100 = torch.constant.int -100
  %0, %1 = torch.aten.nll_loss_forward %x, %t, %none, %int1, %intm100 : (!torch.vtensor<[4,3],f32>, !torch.vtensor<[4],si64>, !torch.none, !torch.int, !torch.int) -> (!torch.vtensor<[],f32>, !torch.vtensor<[],f32>)
  %2 = torch.aten.nll_loss_backward %g, %x, %t, %none, %int1, %intm100, %1 : (!torch.vtensor<[],f32>, !torch.vtensor<[4,3],f32>, !torch.vtensor<[4],si64>, !torch.none, !torch.int, !torch.int, !torch.vtensor<[],f32>) -> !torch.vtensor<[4,3],f32>
  %3, %4 = torch.aten.nll_loss_forward %x, %t, %w, %int2, %intm100 : (!torch.vtensor<[4,3],f32>, !torch.vtensor<[4],si64>, !torch.vtensor<[3],f32>, !torch.int, !torch.int) -> (!torch.vtensor<[],f32>, !torch.vtensor<[],f32>)
  %5, %6 = torch.aten.nll_loss_forward %x, %t, %w, %int0, %intm100 : (!torch.vtensor<[4,3],f32>, !torch.vtensor<[4],si64>, !torch.vtensor<[3],f32>, !torch.int, !torch.int) -> (!torch.vtensor<[4],f32>, !torch.vtensor<[],f32>)
  %7 = torch.aten.nll_loss_backward %g, %x, %t, %w, %int1, %intm100, %4 : (!torch.vtensor<[],f32>, !torch.vtensor<[4,3],f32>, !torch.vtensor<[4],si64>, !torch.vtensor<[3],f32>, !torch.int, !torch.int, !torch.vtensor<[],f32>) -> !torch.vtensor<[4,3],f32>
  return %0, %1, %2, %3, %4, %5, %7 : !torch.vtensor<[],f32>, !torch.vtensor<[],f32>, !torch.vtensor<[4,3],f32>, !torch.vtensor<[],f32>, !torch.vtensor<[],f32>, !torch.vtensor<[4],f32>, !torch.vtensor<[4,3],f32>
}
)mlir";
} // namespace

TEST(CompilerOps, NllLossReductionsWithIgnoreIndex) {
  auto f = compile(kNllLoss);
  ASSERT_NE(f, nullptr);
  runtime::Executable exe = load(*f);
  std::vector<float> x = iota(12, -2.0f, -0.25f);
  std::vector<float> w = {0.5f, 2.0f, 1.5f};
  float g = 3.0f;
  auto run = [&](std::vector<int64_t> t, float &mean, float &meanTw,
                 std::vector<float> &meanGrad, float &sum, float &sumTw,
                 std::vector<float> &none, std::vector<float> &wGrad) {
    exe.run({T(x.data()), T(t.data()), T(w.data()), T(&g)},
            {T(&mean), T(&meanTw), T(meanGrad.data()), T(&sum), T(&sumTw),
             T(none.data()), T(wGrad.data())});
  };

  std::vector<int64_t> t = {0, 2, -100, 1};
  float mean, meanTw, sum, sumTw;
  std::vector<float> meanGrad(12), none(4), wGrad(12);
  run(t, mean, meanTw, meanGrad, sum, sumTw, none, wGrad);

  // Mean without weight: over the 3 non-ignored samples.
  float picked = x[0 * 3 + 0] + x[1 * 3 + 2] + x[3 * 3 + 1];
  EXPECT_NEAR(meanTw, 3.0f, 1e-6f);
  EXPECT_NEAR(mean, -picked / 3.0f, 1e-5f);
  std::vector<float> eMeanGrad(12, 0.0f);
  for (int n : {0, 1, 3})
    eMeanGrad[n * 3 + t[n]] = -g / 3.0f;
  expectNear(meanGrad, eMeanGrad);

  // Sum with weight: total_weight sums the weights of non-ignored targets.
  float wsum = w[0] + w[2] + w[1];
  float wloss = -(x[0] * w[0] + x[5] * w[2] + x[10] * w[1]);
  EXPECT_NEAR(sumTw, wsum, 1e-6f);
  EXPECT_NEAR(sum, wloss, 1e-5f);
  // None: per-sample weighted loss, 0 for the ignored one.
  expectNear(none, {-x[0] * w[0], -x[5] * w[2], 0.0f, -x[10] * w[1]});
  // Backward with weight and mean: w[t] * -(g / total_weight).
  std::vector<float> eWGrad(12, 0.0f);
  for (int n : {0, 1, 3})
    eWGrad[n * 3 + t[n]] = w[t[n]] * -(g / wsum);
  expectNear(wGrad, eWGrad);

  // All targets ignored: mean is 0 / 0 = NaN, total_weight 0, sum 0.
  run({-100, -100, -100, -100}, mean, meanTw, meanGrad, sum, sumTw, none,
      wGrad);
  EXPECT_TRUE(std::isnan(mean));
  EXPECT_EQ(meanTw, 0.0f);
  EXPECT_EQ(sum, 0.0f);
  EXPECT_EQ(sumTw, 0.0f);
  expectNear(none, {0, 0, 0, 0});
  expectNear(meanGrad, std::vector<float>(12, 0.0f));
}

TEST(CompilerOps, ViewPermuteExpandUnsqueeze) {
  auto f = compile(R"mlir(
func.func @forward(%a: !torch.vtensor<[2,3,4],f32>, %b: !torch.vtensor<[2,3],f32>, %c: !torch.vtensor<[3],f32>) -> (!torch.vtensor<[4,6],f32>, !torch.vtensor<[3,2],f32>, !torch.vtensor<[2,3,2],f32>) {
  %int0 = torch.constant.int 0
  %int1 = torch.constant.int 1
  %int2 = torch.constant.int 2
  %int3 = torch.constant.int 3
  %int4 = torch.constant.int 4
  %intm1 = torch.constant.int -1
  %false = torch.constant.bool false
  %vs = torch.prim.ListConstruct %intm1, %int4 : (!torch.int, !torch.int) -> !torch.list<int>
  %v = torch.aten.view_copy %a, %vs : (!torch.vtensor<[2,3,4],f32>, !torch.list<int>) -> !torch.vtensor<[6,4],f32>
  %ps = torch.prim.ListConstruct %intm1, %int0 : (!torch.int, !torch.int) -> !torch.list<int>
  %0 = torch.aten.permute_copy %v, %ps : (!torch.vtensor<[6,4],f32>, !torch.list<int>) -> !torch.vtensor<[4,6],f32>
  %s1 = torch.prim.ListConstruct %int3, %intm1 : (!torch.int, !torch.int) -> !torch.list<int>
  %1 = torch.aten.view_copy %b, %s1 : (!torch.vtensor<[2,3],f32>, !torch.list<int>) -> !torch.vtensor<[3,2],f32>
  %u = torch.aten.unsqueeze_copy %c, %intm1 : (!torch.vtensor<[3],f32>, !torch.int) -> !torch.vtensor<[3,1],f32>
  %es = torch.prim.ListConstruct %int2, %intm1, %int2 : (!torch.int, !torch.int, !torch.int) -> !torch.list<int>
  %2 = torch.aten.expand_copy %u, %es, %false : (!torch.vtensor<[3,1],f32>, !torch.list<int>, !torch.bool) -> !torch.vtensor<[2,3,2],f32>
  return %0, %1, %2 : !torch.vtensor<[4,6],f32>, !torch.vtensor<[3,2],f32>, !torch.vtensor<[2,3,2],f32>
}
)mlir");
  ASSERT_NE(f, nullptr);
  std::vector<float> a = iota(24), b = iota(6, 10.0f), c = {7, 8, 9};
  std::vector<float> perm(24), view(6), expanded(12);
  load(*f).run({T(a.data()), T(b.data()), T(c.data())},
               {T(perm.data()), T(view.data()), T(expanded.data())});
  // view [2,3,4] -> [6,4] keeps the row-major order; permute transposes.
  std::vector<float> ePerm(24);
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 6; ++j)
      ePerm[i * 6 + j] = a[j * 4 + i];
  expectNear(perm, ePerm);
  expectNear(view, b);
  std::vector<float> eExpanded(12);
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 3; ++j)
      for (int k = 0; k < 2; ++k)
        eExpanded[i * 6 + j * 2 + k] = c[j];
  expectNear(expanded, eExpanded);
}

TEST(CompilerOps, ZeroFillAndPow) {
  auto f = compile(R"mlir(
func.func @forward(%a: !torch.vtensor<[3],f32>, %v: !torch.float, %e: !torch.int) -> (!torch.vtensor<[3],f32>, !torch.vtensor<[3],f32>, !torch.vtensor<[3],f32>) {
  %0 = torch.aten.zero %a : (!torch.vtensor<[3],f32>) -> !torch.vtensor<[3],f32>
  %1 = torch.aten.fill.Scalar %a, %v : (!torch.vtensor<[3],f32>, !torch.float) -> !torch.vtensor<[3],f32>
  %2 = torch.aten.pow.Tensor_Scalar %a, %e : (!torch.vtensor<[3],f32>, !torch.int) -> !torch.vtensor<[3],f32>
  return %0, %1, %2 : !torch.vtensor<[3],f32>, !torch.vtensor<[3],f32>, !torch.vtensor<[3],f32>
}
)mlir");
  ASSERT_NE(f, nullptr);
  std::vector<float> a = {-2.0f, 0.5f, 3.0f};
  std::vector<float> zero(3, 1.0f), fill(3), pow(3);
  load(*f).run({T(a.data()), runtime::Arg::floating(1.25),
                runtime::Arg::integer(3)},
               {T(zero.data()), T(fill.data()), T(pow.data())});
  expectNear(zero, {0, 0, 0});
  expectNear(fill, {1.25f, 1.25f, 1.25f});
  // Negative bases with an integral exponent, as torch.pow.
  expectNear(pow, {-8.0f, 0.125f, 27.0f});
}

TEST(CompilerOps, UnsupportedOpIsReportedByName) {
  CompileOptions options;
  CompileResult r = compileTorchModule(R"mlir(
func.func @forward(%x: !torch.vtensor<[4,3],f32>, %d: !torch.int) -> !torch.vtensor<[3,4],f32> {
  %int0 = torch.constant.int 0
  %0 = torch.aten.transpose_copy.int %x, %int0, %d : (!torch.vtensor<[4,3],f32>, !torch.int, !torch.int) -> !torch.vtensor<[3,4],f32>
  return %0 : !torch.vtensor<[3,4],f32>
}
)mlir",
                                       options);
  EXPECT_EQ(r.function, nullptr);
  EXPECT_EQ(r.unsupportedOps,
            (std::vector<std::string>{"torch.aten.transpose_copy.int"}));
  EXPECT_NE(r.error.find("dim0 and dim1 must be constants"), std::string::npos)
      << r.error;
}

TEST(CompilerOps, ComparisonsPromoteAndStoreBoolBytes) {
  // 37 elements: vectorized main part plus a remainder. Bool results are one
  // byte (0/1) per element, PyTorch's layout.
  auto f = compile(R"mlir(
func.func @forward(%a: !torch.vtensor<[37],f32>, %b: !torch.vtensor<[37],f32>, %s: !torch.float, %i: !torch.vtensor<[3],si64>, %d: !torch.vtensor<[],f64>) -> (!torch.vtensor<[37],i1>, !torch.vtensor<[37],i1>, !torch.vtensor<[3],i1>, !torch.vtensor<[3],i1>, !torch.vtensor<[37],i1>) {
  %0 = torch.aten.gt.Scalar %a, %s : (!torch.vtensor<[37],f32>, !torch.float) -> !torch.vtensor<[37],i1>
  %1 = torch.aten.ne.Tensor %a, %b : (!torch.vtensor<[37],f32>, !torch.vtensor<[37],f32>) -> !torch.vtensor<[37],i1>
  %2 = torch.aten.gt.Scalar %i, %s : (!torch.vtensor<[3],si64>, !torch.float) -> !torch.vtensor<[3],i1>
  %3 = torch.aten.gt.Tensor %i, %d : (!torch.vtensor<[3],si64>, !torch.vtensor<[],f64>) -> !torch.vtensor<[3],i1>
  %4 = torch.aten.le.Tensor %0, %1 : (!torch.vtensor<[37],i1>, !torch.vtensor<[37],i1>) -> !torch.vtensor<[37],i1>
  return %0, %1, %2, %3, %4 : !torch.vtensor<[37],i1>, !torch.vtensor<[37],i1>, !torch.vtensor<[3],i1>, !torch.vtensor<[3],i1>, !torch.vtensor<[37],i1>
}
)mlir");
  ASSERT_NE(f, nullptr);
  const float nan = std::numeric_limits<float>::quiet_NaN();
  std::vector<float> a = iota(37, -9.0f, 0.5f), b = a;
  a[3] = nan;
  b[5] = nan;
  b[7] = 1.0f;
  // si64 vs a float scalar compares in f32, where 16777217 rounds to
  // 16777216 == float(16777216.5); against a 0-dim f64 tensor it is f64.
  std::vector<int64_t> i = {16777217, 16777218, -3};
  double s = 16777216.5, d = 16777216.5;
  std::vector<uint8_t> gt(37, 7), ne(37, 7), gtInt(3, 7), gtIntF64(3, 7),
      le(37, 7);
  load(*f).run({T(a.data()), T(b.data()), runtime::Arg::floating(0.75),
                T(i.data()), T(&d)},
               {T(gt.data()), T(ne.data()), T(gtInt.data()), T(gtIntF64.data()),
                T(le.data())});
  for (int k = 0; k < 37; ++k) {
    // NaN > x is false; NaN != x is true.
    EXPECT_EQ(gt[k], (!std::isnan(a[k]) && a[k] > 0.75f) ? 1 : 0) << k;
    EXPECT_EQ(ne[k], (std::isnan(a[k]) || std::isnan(b[k]) || a[k] != b[k]))
        << k;
    EXPECT_EQ(le[k], gt[k] <= ne[k] ? 1 : 0) << k;
  }
  // The same scalar with the f32 rule: the runtime value is cast once.
  load(*f).run(
      {T(a.data()), T(b.data()), runtime::Arg::floating(s), T(i.data()), T(&d)},
      {T(gt.data()), T(ne.data()), T(gtInt.data()), T(gtIntF64.data()),
       T(le.data())});
  EXPECT_EQ(gtInt, (std::vector<uint8_t>{0, 1, 0}));
  EXPECT_EQ(gtIntF64, (std::vector<uint8_t>{1, 1, 0}));
}

TEST(CompilerOps, WhereClampAndActivationBackward) {
  auto f = compile(R"mlir(
func.func @forward(%c: !torch.vtensor<[4,1],i1>, %a: !torch.vtensor<[4,9],f32>, %b: !torch.vtensor<[9],si64>, %hi: !torch.float) -> (!torch.vtensor<[4,9],f32>, !torch.vtensor<[4,9],f32>, !torch.vtensor<[4,9],f32>, !torch.vtensor<[4,9],f32>, !torch.vtensor<[4,9],f32>) {
  %none = torch.constant.none
  %intm1 = torch.constant.int -1
  %0 = torch.aten.where.self %c, %a, %b : (!torch.vtensor<[4,1],i1>, !torch.vtensor<[4,9],f32>, !torch.vtensor<[9],si64>) -> !torch.vtensor<[4,9],f32>
  %1 = torch.aten.clamp %a, %intm1, %hi : (!torch.vtensor<[4,9],f32>, !torch.int, !torch.float) -> !torch.vtensor<[4,9],f32>
  %2 = torch.aten.clamp %a, %none, %hi : (!torch.vtensor<[4,9],f32>, !torch.none, !torch.float) -> !torch.vtensor<[4,9],f32>
  %3 = torch.aten.tanh_backward %a, %1 : (!torch.vtensor<[4,9],f32>, !torch.vtensor<[4,9],f32>) -> !torch.vtensor<[4,9],f32>
  %4 = torch.aten.sigmoid_backward %a, %1 : (!torch.vtensor<[4,9],f32>, !torch.vtensor<[4,9],f32>) -> !torch.vtensor<[4,9],f32>
  return %0, %1, %2, %3, %4 : !torch.vtensor<[4,9],f32>, !torch.vtensor<[4,9],f32>, !torch.vtensor<[4,9],f32>, !torch.vtensor<[4,9],f32>, !torch.vtensor<[4,9],f32>
}
)mlir");
  ASSERT_NE(f, nullptr);
  std::vector<uint8_t> c = {1, 0, 0, 1};
  std::vector<float> a = iota(36, -2.0f, 0.125f);
  a[5] = std::numeric_limits<float>::quiet_NaN();
  std::vector<int64_t> b;
  for (int j = 0; j < 9; ++j)
    b.push_back(100 + j);
  std::vector<float> where(36), clamp(36), clampMax(36), tanhB(36), sigB(36);
  load(*f).run(
      {T(c.data()), T(a.data()), T(b.data()), runtime::Arg::floating(1.5)},
      {T(where.data()), T(clamp.data()), T(clampMax.data()), T(tanhB.data()),
       T(sigB.data())});
  for (int r = 0; r < 4; ++r)
    for (int j = 0; j < 9; ++j) {
      int k = r * 9 + j;
      float x = a[k];
      if (c[r])
        EXPECT_TRUE(std::isnan(x) ? std::isnan(where[k]) : where[k] == x) << k;
      else
        EXPECT_EQ(where[k], static_cast<float>(b[j])) << k;
      if (std::isnan(x)) { // NaN propagates through clamp and the backwards
        EXPECT_TRUE(std::isnan(clamp[k]) && std::isnan(clampMax[k]) &&
                    std::isnan(tanhB[k]) && std::isnan(sigB[k]))
            << k;
        continue;
      }
      float y = std::min(std::max(x, -1.0f), 1.5f);
      EXPECT_EQ(clamp[k], y) << k;
      EXPECT_EQ(clampMax[k], std::min(x, 1.5f)) << k;
      EXPECT_EQ(tanhB[k], x * (1.0f - y * y)) << k;
      EXPECT_EQ(sigB[k], x * (1.0f - y) * y) << k;
    }
}

TEST(CompilerOps, AsStridedSqueezeAndIntImplicit) {
  // as_strided with a run-time storage offset (IntImplicit of a 0-dim si64
  // input), an overlapping (0-stride) gather with a literal offset, and a
  // squeeze of the result.
  auto f = compile(R"mlir(
func.func @forward(%a: !torch.vtensor<[4,5],f32>, %t: !torch.vtensor<[],si64>) -> (!torch.vtensor<[2,3],f32>, !torch.vtensor<[3,2],f32>) {
  %offset = torch.aten.IntImplicit %t : (!torch.vtensor<[],si64>) -> !torch.int
  %lit = torch.vtensor.literal(dense<4> : tensor<i64>) : !torch.vtensor<[],si64>
  %four = torch.aten.IntImplicit %lit : (!torch.vtensor<[],si64>) -> !torch.int
  %int0 = torch.constant.int 0
  %int1 = torch.constant.int 1
  %int2 = torch.constant.int 2
  %int3 = torch.constant.int 3
  %int5 = torch.constant.int 5
  %size = torch.prim.ListConstruct %int2, %int3 : (!torch.int, !torch.int) -> !torch.list<int>
  %stride = torch.prim.ListConstruct %int1, %int5 : (!torch.int, !torch.int) -> !torch.list<int>
  %0 = torch.aten.as_strided_copy %a, %size, %stride, %offset : (!torch.vtensor<[4,5],f32>, !torch.list<int>, !torch.list<int>, !torch.int) -> !torch.vtensor<[2,3],f32>
  %size1 = torch.prim.ListConstruct %int3, %int1, %int2 : (!torch.int, !torch.int, !torch.int) -> !torch.list<int>
  %stride1 = torch.prim.ListConstruct %int5, %int3, %int0 : (!torch.int, !torch.int, !torch.int) -> !torch.list<int>
  %1 = torch.aten.as_strided_copy %a, %size1, %stride1, %four : (!torch.vtensor<[4,5],f32>, !torch.list<int>, !torch.list<int>, !torch.int) -> !torch.vtensor<[3,1,2],f32>
  %2 = torch.aten.squeeze_copy.dim %1, %int1 : (!torch.vtensor<[3,1,2],f32>, !torch.int) -> !torch.vtensor<[3,2],f32>
  return %0, %2 : !torch.vtensor<[2,3],f32>, !torch.vtensor<[3,2],f32>
}
)mlir");
  ASSERT_NE(f, nullptr);
  std::vector<float> a = iota(20);
  int64_t t = 3;
  std::vector<float> strided(6), squeezed(6);
  load(*f).run({T(a.data()), T(&t)}, {T(strided.data()), T(squeezed.data())});
  // result[i][j] = flat[3 + i + 5 j]
  expectNear(strided, {3, 8, 13, 4, 9, 14});
  // result[i][0][j] = flat[4 + 5 i + 0 j]
  expectNear(squeezed, {4, 4, 9, 9, 14, 14});
}

namespace {
const char *kCrossEntropyStep = R"mlir(
func.func @forward(%x: !torch.vtensor<[4,3],f32>, %t: !torch.vtensor<[4],si64>, %g: !torch.vtensor<[],f32>) -> (!torch.vtensor<[],f32>, !torch.vtensor<[4,3],f32>) {
  %none = torch.constant.none
  %int1 = torch.constant.int 1
  %ignore = torch.constant.int -100
  %0, %1 = torch.aten.nll_loss_forward %x, %t, %none, %int1, %ignore : (!torch.vtensor<[4,3],f32>, !torch.vtensor<[4],si64>, !torch.none, !torch.int, !torch.int) -> (!torch.vtensor<[],f32>, !torch.vtensor<[],f32>)
  %2 = torch.aten.nll_loss_backward %g, %x, %t, %none, %int1, %ignore, %1 : (!torch.vtensor<[],f32>, !torch.vtensor<[4,3],f32>, !torch.vtensor<[4],si64>, !torch.none, !torch.int, !torch.int, !torch.vtensor<[],f32>) -> !torch.vtensor<[4,3],f32>
  return %0, %2 : !torch.vtensor<[],f32>, !torch.vtensor<[4,3],f32>
}
)mlir";
} // namespace

TEST(CompilerOps, NllLossTargetOutOfBoundsFailsARuntimeCheck) {
  auto f = compile(kCrossEntropyStep);
  ASSERT_NE(f, nullptr);
  ASSERT_EQ(f->checkMessages.size(), 2u);
  EXPECT_NE(f->checkMessages[0].find("nll_loss_forward: Target is out of "
                                     "bounds"),
            std::string::npos)
      << f->checkMessages[0];
  EXPECT_NE(f->checkMessages[0].find("[0, 3)"), std::string::npos);
  EXPECT_NE(f->checkMessages[0].find("ignore_index (-100)"),
            std::string::npos);
  EXPECT_NE(f->checkMessages[1].find("nll_loss_backward"), std::string::npos);

  runtime::Executable exe = load(*f);
  std::vector<float> x = iota(12, -1.0f, 0.25f);
  float g = 1.0f, loss = 0;
  std::vector<float> grad(12);
  auto run = [&](std::vector<int64_t> t) {
    exe.run({T(x.data()), T(t.data()), T(&g)}, {T(&loss), T(grad.data())});
  };
  // ignore_index and every class are fine.
  EXPECT_NO_THROW(run({0, 2, -100, 1}));
  EXPECT_NEAR(loss, -(x[0] + x[5] + x[10]) / 3.0f, 1e-5f);
  // Too large, negative (not ignore_index), and == C all fail, with the
  // forward's message (the first check that runs).
  for (int64_t bad : {int64_t(3), int64_t(12), int64_t(-1), int64_t(-101)})
    EXPECT_EQ(runtimeErrorOf([&] { run({0, bad, 1, 2}); }),
              "ltc_mlir: " + f->checkMessages[0])
        << "target " << bad;
  // The executable keeps working after a failure.
  EXPECT_NO_THROW(run({1, 1, 1, 1}));
  EXPECT_NEAR(loss, -(x[1] + x[4] + x[7] + x[10]) / 4.0f, 1e-5f);
}

TEST(CompilerOps, AsStridedRuntimeOffsetOutOfBoundsFailsARuntimeCheck) {
  // sizes [2, 3], strides [1, 5] over 20 elements: the last element read is
  // offset + 11, so offsets 0..8 are valid.
  auto f = compile(R"mlir(
func.func @forward(%a: !torch.vtensor<[4,5],f32>, %t: !torch.vtensor<[],si64>) -> !torch.vtensor<[2,3],f32> {
  %offset = torch.aten.IntImplicit %t : (!torch.vtensor<[],si64>) -> !torch.int
  %int1 = torch.constant.int 1
  %int2 = torch.constant.int 2
  %int3 = torch.constant.int 3
  %int5 = torch.constant.int 5
  %size = torch.prim.ListConstruct %int2, %int3 : (!torch.int, !torch.int) -> !torch.list<int>
  %stride = torch.prim.ListConstruct %int1, %int5 : (!torch.int, !torch.int) -> !torch.list<int>
  %0 = torch.aten.as_strided_copy %a, %size, %stride, %offset : (!torch.vtensor<[4,5],f32>, !torch.list<int>, !torch.list<int>, !torch.int) -> !torch.vtensor<[2,3],f32>
  return %0 : !torch.vtensor<[2,3],f32>
}
)mlir");
  ASSERT_NE(f, nullptr);
  ASSERT_EQ(f->checkMessages.size(), 1u);
  runtime::Executable exe = load(*f);
  std::vector<float> a = iota(20), out(6);
  for (int64_t offset : {int64_t(0), int64_t(8)}) {
    EXPECT_NO_THROW(exe.run({T(a.data()), T(&offset)}, {T(out.data())}));
    EXPECT_EQ(out[0], static_cast<float>(offset));
  }
  for (int64_t offset : {int64_t(9), int64_t(-1)}) {
    std::string error = runtimeErrorOf(
        [&] { exe.run({T(a.data()), T(&offset)}, {T(out.data())}); });
    EXPECT_NE(error.find("as_strided_copy: storage offset is out of bounds for "
                         "storage of size 20: sizes [2, 3] and strides [1, 5] "
                         "need a storage offset in [0, 8]"),
              std::string::npos)
        << "offset " << offset << ": " << error;
  }
}

TEST(CompilerOps, GraphWithoutChecksHasNoMessages) {
  auto f = compile(R"mlir(
func.func @forward(%a: !torch.vtensor<[3],f32>) -> !torch.vtensor<[3],f32> {
  %0 = torch.aten.relu %a : (!torch.vtensor<[3],f32>) -> !torch.vtensor<[3],f32>
  return %0 : !torch.vtensor<[3],f32>
}
)mlir");
  ASSERT_NE(f, nullptr);
  EXPECT_TRUE(f->checkMessages.empty());
}
