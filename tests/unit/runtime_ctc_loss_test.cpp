// Runtime units: the CTC entry points (runtime/lib/ctc_loss.cpp) against the
// definition. For a few time steps and labels every alignment path can be
// enumerated: the loss is -log of the summed path probabilities (a path
// collapses to the target after merging repeats and dropping blanks). The
// gradient with respect to log_probs is checked by central differences of
// that definition, in double. Padded [B, S] and concatenated [1, N] targets,
// unequal lengths. These tests also run under scripts/test_sanitize.sh.
#include "ltc_mlir/runtime/ctc_loss.h"
#include "ltc_mlir/runtime/memref.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

using namespace ltc_mlir::runtime;

namespace {

template <typename T, int R>
MemRefDescriptor<T, R> Describe(std::vector<T> &v, const int64_t (&sizes)[R]) {
  MemRefDescriptor<T, R> d{v.data(), v.data(), 0, {}, {}};
  int64_t stride = 1;
  for (int i = R - 1; i >= 0; --i) {
    d.sizes[i] = sizes[i];
    d.strides[i] = stride;
    stride *= sizes[i];
  }
  return d;
}

using Forward = void (*)(void *, void *, void *, void *, void *, void *, int64_t, int64_t);
using Backward = void (*)(void *, void *, void *, void *, void *, void *, void *, void *,
                          void *, int64_t, int64_t, int64_t);

/// -log sum over the paths of length `steps` that collapse to `target`.
double BruteForceLoss(const std::vector<double> &lp, int64_t batch, int64_t classes,
                      int64_t b, int64_t steps, const std::vector<int64_t> &target,
                      int64_t blank) {
  double total = 0;
  std::vector<int64_t> path(steps, 0);
  for (;;) {
    std::vector<int64_t> collapsed;
    for (int64_t t = 0; t < steps; ++t)
      if (path[t] != blank && (t == 0 || path[t] != path[t - 1]))
        collapsed.push_back(path[t]);
    if (collapsed == target) {
      double logp = 0;
      for (int64_t t = 0; t < steps; ++t) logp += lp[(t * batch + b) * classes + path[t]];
      total += std::exp(logp);
    }
    int64_t t = 0;
    while (t < steps && ++path[t] == classes) path[t++] = 0;
    if (t == steps) break;
  }
  return -std::log(total);
}

struct Case {
  int64_t steps = 5, batch = 2, classes = 3, blank = 0;
  std::vector<int64_t> inputLengths = {5, 4}, targetLengths = {2, 1};
  std::vector<std::vector<int64_t>> targets = {{1, 2}, {2}};
};

void Check(bool concatenated) {
  Case c;
  std::mt19937 gen(7);
  std::normal_distribution<double> normal;
  std::vector<double> lp(c.steps * c.batch * c.classes);
  for (int64_t t = 0; t < c.steps; ++t)
    for (int64_t b = 0; b < c.batch; ++b) {  // log_softmax of random logits
      double *row = &lp[(t * c.batch + b) * c.classes];
      double sum = 0;
      for (int64_t k = 0; k < c.classes; ++k) sum += std::exp(row[k] = normal(gen));
      for (int64_t k = 0; k < c.classes; ++k) row[k] -= std::log(sum);
    }
  const int64_t maxLength = 2, states = 2 * maxLength + 1;
  std::vector<int64_t> targets;
  if (concatenated) {
    for (auto &t : c.targets) targets.insert(targets.end(), t.begin(), t.end());
  } else {
    for (auto &t : c.targets) {
      targets.insert(targets.end(), t.begin(), t.end());
      targets.resize(targets.size() + maxLength - t.size(), 1);  // padding, never read
    }
  }
  const int64_t tgSizes[2] = {concatenated ? 1 : c.batch,
                              concatenated ? static_cast<int64_t>(targets.size()) : maxLength};
  std::vector<double> nll(c.batch), alpha(c.batch * c.steps * states), beta(alpha.size()),
      grad(lp.size()), gradOut(c.batch, 1.0);
  auto dLp = Describe<double, 3>(lp, {c.steps, c.batch, c.classes});
  auto dTg = Describe<int64_t, 2>(targets, tgSizes);
  auto dIl = Describe<int64_t, 1>(c.inputLengths, {c.batch});
  auto dTl = Describe<int64_t, 1>(c.targetLengths, {c.batch});
  auto dNll = Describe<double, 1>(nll, {c.batch});
  auto dAlpha = Describe<double, 3>(alpha, {c.batch, c.steps, states});
  auto dBeta = Describe<double, 3>(beta, {c.batch, c.steps, states});
  auto dGrad = Describe<double, 3>(grad, {c.steps, c.batch, c.classes});
  auto dGradOut = Describe<double, 1>(gradOut, {c.batch});
  auto forward = reinterpret_cast<Forward>(
      resolveCtcLossSymbol("_mlir_ciface_ltc_mlir_rt_ctc_loss_f64"));
  auto backward = reinterpret_cast<Backward>(
      resolveCtcLossSymbol("_mlir_ciface_ltc_mlir_rt_ctc_loss_backward_f64"));
  ASSERT_NE(forward, nullptr);
  ASSERT_NE(backward, nullptr);
  forward(&dLp, &dTg, &dIl, &dTl, &dNll, &dAlpha, c.blank, concatenated);
  backward(&dGradOut, &dLp, &dTg, &dIl, &dTl, &dNll, &dAlpha, &dGrad, &dBeta, c.blank,
           /*zeroInfinity=*/0, concatenated);
  for (int64_t b = 0; b < c.batch; ++b) {
    EXPECT_NEAR(nll[b], BruteForceLoss(lp, c.batch, c.classes, b, c.inputLengths[b],
                                       c.targets[b], c.blank), 1e-12);
    for (int64_t t = 0; t < c.steps; ++t)
      for (int64_t k = 0; k < c.classes; ++k) {
        double &x = lp[(t * c.batch + b) * c.classes + k];
        const double saved = x, h = 1e-6;
        x = saved + h;
        double up = BruteForceLoss(lp, c.batch, c.classes, b, c.inputLengths[b], c.targets[b], c.blank);
        x = saved - h;
        double down = BruteForceLoss(lp, c.batch, c.classes, b, c.inputLengths[b], c.targets[b], c.blank);
        x = saved;
        // The loss as a function of unnormalised log-probs: ATen's gradient
        // is that of log_softmax's input, d/dlp + exp(lp) * sum(-d/dlp)...
        // here the plain derivative plus exp(lp) (the softmax term ATen adds).
        double expected = (up - down) / (2 * h) + std::exp(saved);
        EXPECT_NEAR(grad[(t * c.batch + b) * c.classes + k], t < c.inputLengths[b] ? expected : 0.0,
                    1e-6)
            << "b " << b << " t " << t << " class " << k;
      }
  }
}

TEST(RuntimeCtcLoss, PaddedTargetsMatchTheDefinition) { Check(false); }
TEST(RuntimeCtcLoss, ConcatenatedTargetsMatchTheDefinition) { Check(true); }

}  // namespace
