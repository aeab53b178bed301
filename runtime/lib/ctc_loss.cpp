// The CTC loss and its gradient (runtime/ctc_loss.h). The extended target
// l' is the target with a blank before, between and after its labels
// (2 * S + 1 states); alpha_t(s) sums the probabilities of the paths through
// state s at time t from the start, beta_t(s) to the end, both including
// time t's emission. The loss is -log(alpha_{T-1}(2S) + alpha_{T-1}(2S-1));
// the gradient with respect to log_probs[t, c] is
//   exp(lp[t, c]) - exp(log sum_{s: l'_s = c} alpha_t(s) beta_t(s) + nll - lp[t, c]),
// times the incoming gradient. Everything stays in log space; a sum of
// log terms subtracts their maximum first (0 when all are -inf).
#include "ltc_mlir/runtime/ctc_loss.h"

#include "ltc_mlir/runtime/entry_points.h"
#include "ltc_mlir/runtime/memref.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>

namespace ltc_mlir {
namespace runtime {
namespace {

template <typename T> constexpr T kNegInf = -std::numeric_limits<T>::infinity();

/// log(exp(a) + exp(b) + exp(c)).
template <typename T> T logSumExp3(T a, T b, T c) {
  T m = std::max(a, std::max(b, c));
  if (m == kNegInf<T>)
    m = 0;
  return std::log(std::exp(a - m) + std::exp(b - m) + std::exp(c - m)) + m;
}

/// log(exp(a) + exp(b)).
template <typename T> T logSumExp2(T a, T b) {
  T m = std::max(a, b);
  if (m == kNegInf<T>)
    m = 0;
  return std::log(std::exp(a - m) + std::exp(b - m)) + m;
}

/// One batch element's view of the operands.
template <typename T> struct Sample {
  const MemRefDescriptor<T, 3> &lp; // [T, B, C]
  const MemRefDescriptor<int64_t, 2> &targets;
  int64_t b, inputLength, targetLength, targetStart, blank;

  T logProb(int64_t t, int64_t c) const {
    return lp.aligned[lp.offset + t * lp.strides[0] + b * lp.strides[1] +
                      c * lp.strides[2]];
  }
  /// l'_s: blank at even s, the (s / 2)-th label at odd s.
  int64_t label(int64_t s) const {
    if (s % 2 == 0)
      return blank;
    const int64_t row = targets.sizes[0] == 1 ? 0 : b;
    return targets.aligned[targets.offset + row * targets.strides[0] +
                           (targetStart + s / 2) * targets.strides[1]];
  }
};

template <typename T>
Sample<T> sample(const MemRefDescriptor<T, 3> &lp,
                 const MemRefDescriptor<int64_t, 2> &targets,
                 const MemRefDescriptor<int64_t, 1> &inputLengths,
                 const MemRefDescriptor<int64_t, 1> &targetLengths, int64_t b,
                 int64_t blank, bool concatenated) {
  auto at = [](const MemRefDescriptor<int64_t, 1> &d, int64_t i) {
    return d.aligned[d.offset + i * d.strides[0]];
  };
  int64_t start = 0;
  if (concatenated)
    for (int64_t i = 0; i < b; ++i)
      start += at(targetLengths, i);
  return Sample<T>{lp, targets, b, at(inputLengths, b), at(targetLengths, b), start, blank};
}

template <typename T> struct Grid { // [B, T, S'] of one batch element
  const MemRefDescriptor<T, 3> &d;
  int64_t b;
  T &operator()(int64_t t, int64_t s) const {
    return d.aligned[d.offset + b * d.strides[0] + t * d.strides[1] + s * d.strides[2]];
  }
};

template <typename T>
void forward(MemRefDescriptor<T, 3> *lp, MemRefDescriptor<int64_t, 2> *targets,
             MemRefDescriptor<int64_t, 1> *inputLengths,
             MemRefDescriptor<int64_t, 1> *targetLengths,
             MemRefDescriptor<T, 1> *nll, MemRefDescriptor<T, 3> *logAlpha,
             int64_t blank, int64_t concatenated) {
  const int64_t batch = lp->sizes[1];
  for (int64_t b = 0; b < batch; ++b) {
    Sample<T> x = sample(*lp, *targets, *inputLengths, *targetLengths, b, blank, concatenated);
    Grid<T> alpha{*logAlpha, b};
    for (int64_t t = 0; t < logAlpha->sizes[1]; ++t)
      for (int64_t s = 0; s < logAlpha->sizes[2]; ++s)
        alpha(t, s) = kNegInf<T>;
    const int64_t states = 2 * x.targetLength + 1;
    alpha(0, 0) = x.logProb(0, blank);
    if (x.targetLength > 0)
      alpha(0, 1) = x.logProb(0, x.label(1));
    for (int64_t t = 1; t < x.inputLength; ++t) {
      for (int64_t s = 0; s < states; ++s) {
        const int64_t c = x.label(s);
        T a1 = alpha(t - 1, s);
        T a2 = s > 0 ? alpha(t - 1, s - 1) : kNegInf<T>;
        T a3 = s > 1 && x.label(s - 2) != c ? alpha(t - 1, s - 2) : kNegInf<T>;
        alpha(t, s) = logSumExp3(a1, a2, a3) + x.logProb(t, c);
      }
    }
    const int64_t last = x.inputLength - 1;
    T loss = x.targetLength == 0
                 ? -alpha(last, 0)
                 : -logSumExp2(alpha(last, 2 * x.targetLength),
                               alpha(last, 2 * x.targetLength - 1));
    nll->aligned[nll->offset + b * nll->strides[0]] = loss;
  }
}

template <typename T>
void backward(MemRefDescriptor<T, 1> *gradOut, MemRefDescriptor<T, 3> *lp,
              MemRefDescriptor<int64_t, 2> *targets,
              MemRefDescriptor<int64_t, 1> *inputLengths,
              MemRefDescriptor<int64_t, 1> *targetLengths,
              MemRefDescriptor<T, 1> *nllIn, MemRefDescriptor<T, 3> *logAlpha,
              MemRefDescriptor<T, 3> *grad, MemRefDescriptor<T, 3> *logBeta,
              int64_t blank, int64_t zeroInfinity, int64_t concatenated) {
  const int64_t steps = lp->sizes[0], batch = lp->sizes[1], classes = lp->sizes[2];
  auto gradAt = [&](int64_t t, int64_t b, int64_t c) -> T & {
    return grad->aligned[grad->offset + t * grad->strides[0] + b * grad->strides[1] +
                         c * grad->strides[2]];
  };
  for (int64_t b = 0; b < batch; ++b) {
    Sample<T> x = sample(*lp, *targets, *inputLengths, *targetLengths, b, blank, concatenated);
    const T nll = nllIn->aligned[nllIn->offset + b * nllIn->strides[0]];
    const T incoming = gradOut->aligned[gradOut->offset + b * gradOut->strides[0]];
    if (zeroInfinity && nll == std::numeric_limits<T>::infinity()) {
      for (int64_t t = 0; t < steps; ++t)
        for (int64_t c = 0; c < classes; ++c)
          gradAt(t, b, c) = 0;
      continue;
    }
    Grid<T> alpha{*logAlpha, b}, beta{*logBeta, b};
    // gradAt first collects log sum alpha * beta per class.
    for (int64_t t = 0; t < steps; ++t)
      for (int64_t c = 0; c < classes; ++c)
        gradAt(t, b, c) = kNegInf<T>;
    const int64_t states = 2 * x.targetLength + 1, last = x.inputLength - 1;
    if (x.inputLength > 0) {
      for (int64_t s = 0; s < logBeta->sizes[2]; ++s)
        beta(last, s) = kNegInf<T>;
      beta(last, states - 1) = x.logProb(last, blank);
      gradAt(last, b, blank) = alpha(last, states - 1) + beta(last, states - 1);
      if (x.targetLength > 0) {
        const int64_t c = x.label(states - 2);
        beta(last, states - 2) = x.logProb(last, c);
        gradAt(last, b, c) = alpha(last, states - 2) + beta(last, states - 2);
      }
    }
    for (int64_t t = last - 1; t >= 0; --t) {
      for (int64_t s = states - 1; s >= 0; --s) {
        const int64_t c = x.label(s);
        T b1 = beta(t + 1, s);
        T b2 = s < states - 1 ? beta(t + 1, s + 1) : kNegInf<T>;
        T b3 = s < states - 2 && x.label(s + 2) != c ? beta(t + 1, s + 2) : kNegInf<T>;
        beta(t, s) = logSumExp3(b1, b2, b3) + x.logProb(t, c);
        T term = alpha(t, s) + beta(t, s);
        T &sum = gradAt(t, b, c);
        sum = sum == kNegInf<T> ? term : logSumExp2(sum, term);
      }
    }
    for (int64_t t = 0; t < steps; ++t) {
      for (int64_t c = 0; c < classes; ++c) {
        T &g = gradAt(t, b, c);
        if (t >= x.inputLength) {
          g = 0;
          continue;
        }
        const T lpv = x.logProb(t, c);
        g = (std::exp(lpv) - std::exp(g + nll - lpv)) * incoming;
      }
    }
  }
}

} // namespace
} // namespace runtime
} // namespace ltc_mlir

using ltc_mlir::runtime::MemRefDescriptor;

#define LTC_MLIR_CTC_ENTRY_POINTS(T, SUFFIX)                                    \
  void _mlir_ciface_ltc_mlir_rt_ctc_loss_##SUFFIX(                              \
      MemRefDescriptor<T, 3> *lp, MemRefDescriptor<int64_t, 2> *targets,        \
      MemRefDescriptor<int64_t, 1> *inputLengths,                               \
      MemRefDescriptor<int64_t, 1> *targetLengths, MemRefDescriptor<T, 1> *nll, \
      MemRefDescriptor<T, 3> *logAlpha, int64_t blank, int64_t concatenated) {  \
    ltc_mlir::runtime::forward(lp, targets, inputLengths, targetLengths, nll,   \
                               logAlpha, blank, concatenated);                  \
  }                                                                             \
  void _mlir_ciface_ltc_mlir_rt_ctc_loss_backward_##SUFFIX(                     \
      MemRefDescriptor<T, 1> *gradOut, MemRefDescriptor<T, 3> *lp,              \
      MemRefDescriptor<int64_t, 2> *targets,                                    \
      MemRefDescriptor<int64_t, 1> *inputLengths,                               \
      MemRefDescriptor<int64_t, 1> *targetLengths, MemRefDescriptor<T, 1> *nll, \
      MemRefDescriptor<T, 3> *logAlpha, MemRefDescriptor<T, 3> *grad,           \
      MemRefDescriptor<T, 3> *logBeta, int64_t blank, int64_t zeroInfinity,     \
      int64_t concatenated) {                                                   \
    ltc_mlir::runtime::backward(gradOut, lp, targets, inputLengths,             \
                                targetLengths, nll, logAlpha, grad, logBeta,    \
                                blank, zeroInfinity, concatenated);             \
  }

extern "C" {
LTC_MLIR_CTC_ENTRY_POINTS(float, f32)
LTC_MLIR_CTC_ENTRY_POINTS(double, f64)
}
#undef LTC_MLIR_CTC_ENTRY_POINTS

namespace ltc_mlir {
namespace runtime {

void *resolveCtcLossSymbol(const std::string &name) {
  static const EntryPoint entries[] = {
      LTC_MLIR_CIFACE_ENTRY_POINT(ctc_loss, f32),
      LTC_MLIR_CIFACE_ENTRY_POINT(ctc_loss, f64),
      LTC_MLIR_CIFACE_ENTRY_POINT(ctc_loss_backward, f32),
      LTC_MLIR_CIFACE_ENTRY_POINT(ctc_loss_backward, f64),
  };
  return findEntryPoint(entries, name.c_str());
}

} // namespace runtime
} // namespace ltc_mlir
