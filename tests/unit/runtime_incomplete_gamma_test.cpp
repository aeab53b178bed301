// Runtime units: the regularized incomplete gamma functions
// (runtime/lib/incomplete_gamma.cpp) against closed forms: P(1, x) =
// 1 - e^-x, P(1/2, x) = erf(sqrt x), and for integer a, Q(n, x) =
// e^-x sum_{k<n} x^k / k!; P + Q = 1; ATen's boundary values.
#include "ltc_mlir/runtime/incomplete_gamma.h"

#include <gtest/gtest.h>

#include <cmath>

namespace {

double poissonTail(int n, double x) {  // Q(n, x) for integer n
  double term = std::exp(-x), sum = term;
  for (int k = 1; k < n; ++k) {
    term *= x / k;
    sum += term;
  }
  return sum;
}

TEST(RuntimeIncompleteGamma, ClosedForms) {
  for (double x : {1e-6, 0.01, 0.3, 1.0, 2.5, 7.0, 30.0, 90.0}) {
    EXPECT_NEAR(ltc_mlir_rt_igamma(1.0, x), -std::expm1(-x), 1e-14 * (1 - std::exp(-x)) + 1e-300);
    EXPECT_NEAR(ltc_mlir_rt_igamma(0.5, x), std::erf(std::sqrt(x)), 1e-14);
    for (int n : {2, 5, 20, 60}) {
      double q = poissonTail(n, x);
      EXPECT_NEAR(ltc_mlir_rt_igammac(n, x), q, 1e-12 * q + 1e-300) << n << " " << x;
      EXPECT_NEAR(ltc_mlir_rt_igamma(n, x) + ltc_mlir_rt_igammac(n, x), 1.0, 1e-14);
    }
  }
}

TEST(RuntimeIncompleteGamma, LargeParameters) {
  // Around a ~ x the median: P(a, a) -> 1/2 as a grows (1/2 + 1/(3 sqrt(2 pi a))).
  for (double a : {1e2, 1e4, 1e6}) {
    double p = ltc_mlir_rt_igamma(a, a);
    EXPECT_NEAR(p, 0.5 + 1.0 / (3.0 * std::sqrt(2.0 * M_PI * a)), 2e-3 / std::sqrt(a)) << a;
  }
}

TEST(RuntimeIncompleteGamma, BoundaryValuesAreATens) {
  EXPECT_TRUE(std::isnan(ltc_mlir_rt_igamma(-1.0, 1.0)));
  EXPECT_TRUE(std::isnan(ltc_mlir_rt_igamma(1.0, -1.0)));
  EXPECT_TRUE(std::isnan(ltc_mlir_rt_igamma(0.0, 0.0)));
  EXPECT_EQ(ltc_mlir_rt_igamma(0.0, 2.0), 1.0);
  EXPECT_EQ(ltc_mlir_rt_igammac(0.0, 2.0), 0.0);
  EXPECT_EQ(ltc_mlir_rt_igamma(3.0, 0.0), 0.0);
  EXPECT_EQ(ltc_mlir_rt_igammac(3.0, 0.0), 1.0);
  EXPECT_EQ(ltc_mlir_rt_igamma(INFINITY, 3.0), 0.0);
  EXPECT_TRUE(std::isnan(ltc_mlir_rt_igamma(INFINITY, INFINITY)));
  EXPECT_EQ(ltc_mlir_rt_igamma(3.0, INFINITY), 1.0);
  EXPECT_EQ(ltc_mlir_rt_igammac(3.0, INFINITY), 0.0);
  EXPECT_TRUE(std::isnan(ltc_mlir_rt_igammac(NAN, 1.0)));
}

} // namespace
