//===- BesselFunctions.cpp - torch.special's Bessel and Airy functions ----===//
//
// bessel_j0/j1/y0/y1, modified_bessel_k0/k1 (and scaled), spherical_bessel_j0
// and airy_ai, elementwise in f64, rounded once to the result dtype:
//  - J and Y of orders 0 and 1 call the C library's j0/j1/y0/y1 (glibc's
//    are accurate to a few ulp; the JIT resolves them in the process), NaN
//    at +-inf as ATen. ATen's own rational approximations are off by up to
//    7e-7 just above x = 5 (its QQ table is evaluated without Cephes'
//    leading 1): ours are the exact values there;
//  - K0, K1 for x <= 2 from their power series around 0 (the logarithmic
//    term times I0/I1's series); for x > 2, e^x K_nu(x) as the integral
//    int_0^inf exp(-x (cosh t - 1)) cosh(nu t) dt, which the substitution
//    s = sqrt(2x) sinh(t / 2) turns into int exp(-s^2) g(s) ds with g
//    smooth: the trapezoidal rule with step 1/4 and 27 nodes is exact to
//    rounding (g's singularities are at |Im s| = sqrt(2x) >= 2);
//  - Ai(x): for x >= 2 the same integral with nu = 1/3, as
//    Ai(x) = sqrt(x/3) / pi K_{1/3}(2/3 x^{3/2}); on [-8, 2) the Maclaurin
//    series Ai(0) f(x) + Ai'(0) g(x); below -8 the oscillatory asymptotic
//    expansion (its smallest term there is below 1e-13).
// Measured against ATen's Cephes in f64: K0, K1 relative errors below
// 2e-15; Ai too except near x = -8 (4e-11, the series' cancellation) and on
// (-4, -2.09), where ATen's asymptotic expansion starts too early and is off
// by up to 3e-6 (ours agrees with the Maclaurin series there).
//
//===----------------------------------------------------------------------===//

#include "Pointwise.h"
#include "RuntimeCalls.h"

#include <cmath>

using namespace mlir;

namespace ltc_mlir::torch_to_linalg {
namespace {

using namespace pointwise;
using P = arith::CmpFPredicate;

constexpr double kPi = 3.14159265358979323846;
constexpr double kEulerGamma = 0.57721566490153286061;

/// A Spec computing the C library's `double name(double)`, declared in the
/// module before the body calls it.
template <const char *Name> Spec libmSpec() {
  Spec spec{Domain::Float,
            [](OpBuilder &b, Location loc, Type t, bool, ArrayRef<Value> v) {
              return inF64(b, loc, t, v[0], [](FloatBuilder &f, Value x) {
                Value r = func::CallOp::create(f.b, f.loc, Name, TypeRange{f.t},
                                               ValueRange{x})
                              .getResult(0);
                // ATen's asymptotic forms give NaN at +-inf (cos(inf)).
                return f.select(f.isInf(x), f.nan(), r);
              });
            }};
  spec.prepare = [](OpBuilder &b, Operation *op) {
    Type f64 = b.getF64Type();
    getOrDeclareFunction(b, op, Name, b.getFunctionType({f64}, {f64}),
                         /*cInterface=*/false);
  };
  return spec;
}
constexpr char kJ0[] = "j0", kJ1[] = "j1", kY0[] = "y0", kY1[] = "y1";

//===----------------------------------------------------------------------===//
// Modified Bessel functions of the second kind
//===----------------------------------------------------------------------===//

/// e^x K_nu(x) for x > 2 by the trapezoidal rule (see the file comment):
/// sum_k w_k cosh(nu t_k) * 2 / sqrt(2x + s_k^2), t_k = 2 asinh(s_k /
/// sqrt(2x)). `coshNuT(s2)` gives cosh(nu t) from s^2 (null: nu = 0).
template <typename CoshNuT>
Value scaledKIntegral(FloatBuilder &f, Value x, CoshNuT coshNuT) {
  constexpr double h = 0.25;
  Value twoX = f.add(x, x);
  Value sum = f.c(0);
  for (int k = 0; k < 27; ++k) {
    double s = k * h;
    double w = h * (k == 0 ? 0.5 : 1.0) * 2 * std::exp(-s * s);
    Value term = f.div(f.c(w), f.sqrt(f.add(twoX, f.c(s * s))));
    if (Value c = coshNuT(s))
      term = f.mul(term, c);
    sum = f.add(sum, term);
  }
  return sum;
}

/// Power series of K0 (order 0) or K1 (order 1) around 0, for 0 < x <= 2
/// (z = x^2 / 4 <= 1; 16 terms reach the rounding):
///   K0 = sum a_k z^k (H_k - log(x/2) - gamma),              a_k = 1/k!^2
///   K1 = 1/x + x/2 (log(x/2) C(z) - D(z)/2),       c_k = 1/(k! (k+1)!)
///   C = sum c_k z^k, D = sum c_k (H_k + H_{k+1} - 2 gamma) z^k.
Value seriesK(FloatBuilder &f, int order, Value x) {
  SmallVector<double> a, aH, c, cH; // highest power first for polyval
  double factorial = 1, harmonic = 0;
  for (int k = 0; k < 16; ++k) {
    if (k > 0) {
      factorial *= k;
      harmonic += 1.0 / k;
    }
    double ak = 1 / (factorial * factorial);
    double ck = ak / (k + 1);
    a.insert(a.begin(), ak);
    aH.insert(aH.begin(), ak * harmonic);
    c.insert(c.begin(), ck);
    cH.insert(cH.begin(), ck * (2 * harmonic + 1.0 / (k + 1) - 2 * kEulerGamma));
  }
  Value z = f.div(f.mul(x, x), f.c(4));
  Value logHalfX = f.log(f.div(x, f.c(2)));
  if (order == 0)
    return f.sub(f.polyval(z, aH),
                 f.mul(f.add(logHalfX, f.c(kEulerGamma)), f.polyval(z, a)));
  Value inner = f.sub(f.mul(logHalfX, f.polyval(z, c)),
                      f.mul(f.c(0.5), f.polyval(z, cH)));
  return f.add(f.div(f.c(1), x), f.mul(f.div(x, f.c(2)), inner));
}

template <int Order, bool Scaled>
Value besselK(OpBuilder &b, Location loc, Type t, bool, ArrayRef<Value> v) {
  return inF64(b, loc, t, v[0], [](FloatBuilder &f, Value x) -> Value {
    Value small = seriesK(f, Order, x);
    // cosh(t) = 1 + s^2 / x for nu = 1.
    Value large = scaledKIntegral(f, x, [&](double s) -> Value {
      if (Order == 0)
        return nullptr;
      return f.add(f.c(1), f.div(f.c(s * s), x));
    });
    if (Scaled)
      small = f.mul(f.exp(x), small);
    else
      large = f.mul(f.exp(f.neg(x)), large);
    Value r = f.select(f.cmp(P::OGT, x, f.c(2)), large, small);
    r = f.select(f.cmp(P::OEQ, x, f.c(0)), f.inf(), r);
    return f.select(f.cmp(P::OLT, x, f.c(0)), f.nan(), r);
  });
}

//===----------------------------------------------------------------------===//
// Spherical Bessel j0 and the Airy function Ai
//===----------------------------------------------------------------------===//

Value sphericalJ0(OpBuilder &b, Location loc, Type t, bool, ArrayRef<Value> v) {
  return inF64(b, loc, t, v[0], [](FloatBuilder &f, Value x) -> Value {
    // Taylor series of sin(x)/x below 1/2 (ATen's cut-off), 7 terms.
    SmallVector<double> coeffs;
    double factorial = 1;
    for (int k = 0; k < 7; ++k) {
      if (k > 0)
        factorial *= (2 * k) * (2 * k + 1);
      coeffs.insert(coeffs.begin(), (k % 2 ? -1.0 : 1.0) / factorial);
    }
    Value series = f.polyval(f.mul(x, x), coeffs);
    Value direct = f.div(math::SinOp::create(f.b, f.loc, x), x);
    Value r = f.select(f.cmp(P::OLT, f.abs(x), f.c(0.5)), series, direct);
    return f.select(f.isInf(x), f.c(0), r);
  });
}

Value airyAi(OpBuilder &b, Location loc, Type t, bool, ArrayRef<Value> v) {
  return inF64(b, loc, t, v[0], [](FloatBuilder &f, Value x) -> Value {
    // x >= 2: sqrt(x/3)/pi e^-zeta (e^zeta K_{1/3}(zeta)), zeta = 2/3 x^1.5.
    Value xPos = arith::MaximumFOp::create(f.b, f.loc, x, f.c(2));
    Value zeta = f.mul(f.c(2.0 / 3), f.mul(xPos, f.sqrt(xPos)));
    Value invSqrt2Zeta = f.div(f.c(1), f.sqrt(f.add(zeta, zeta)));
    Value scaledK = scaledKIntegral(f, zeta, [&](double s) -> Value {
      // cosh(t / 3), t = 2 asinh(s / sqrt(2 zeta)).
      Value tt = math::AsinhOp::create(f.b, f.loc, f.mul(f.c(s), invSqrt2Zeta));
      return math::CoshOp::create(f.b, f.loc, f.mul(f.c(2.0 / 3), tt));
    });
    Value positive = f.mul(f.mul(f.div(f.sqrt(f.div(xPos, f.c(3))), f.c(kPi)),
                                 f.exp(f.neg(zeta))),
                           scaledK);
    // [-8, 2): Ai(0) f(x) + Ai'(0) g(x), f = sum a_k, g = sum b_k with
    // a_{k+1} = a_k x^3 / ((3k+2)(3k+3)), b_{k+1} = b_k x^3 / ((3k+3)(3k+4)).
    Value xs = arith::MaximumFOp::create(
        f.b, f.loc, arith::MinimumFOp::create(f.b, f.loc, x, f.c(2)), f.c(-8));
    Value x3 = f.mul(f.mul(xs, xs), xs);
    Value ak = f.c(1), bk = xs, fs = ak, gs = bk;
    for (int k = 0; k < 50; ++k) {
      ak = f.mul(ak, f.div(x3, f.c((3.0 * k + 2) * (3 * k + 3))));
      bk = f.mul(bk, f.div(x3, f.c((3.0 * k + 3) * (3 * k + 4))));
      fs = f.add(fs, ak);
      gs = f.add(gs, bk);
    }
    Value middle = f.sub(f.mul(f.c(0.355028053887817239), fs),
                         f.mul(f.c(0.258819403792806798), gs));
    // x < -8: pi^-1/2 y^-1/4 (sin(zeta + pi/4) P - cos(zeta + pi/4) Q),
    // y = -x, P and Q the even and odd terms of sum (-1)^floor(k/2) u_k
    // zeta^-k.
    Value y = arith::MaximumFOp::create(f.b, f.loc, f.neg(x), f.c(8));
    Value zetaN = f.mul(f.c(2.0 / 3), f.mul(y, f.sqrt(y)));
    Value invZeta = f.div(f.c(1), zetaN);
    Value pSum = f.c(0), qSum = f.c(0), power = f.c(1);
    double u = 1;
    for (int k = 0; k < 28; ++k) {
      double sign = (k / 2) % 2 ? -1.0 : 1.0;
      Value term = f.mul(f.c(sign * u), power);
      if (k % 2 == 0)
        pSum = f.add(pSum, term);
      else
        qSum = f.add(qSum, term);
      power = f.mul(power, invZeta);
      u *= (6.0 * k + 1) * (6 * k + 3) * (6 * k + 5) / (216.0 * (k + 1) * (2 * k + 1));
    }
    Value phase = f.add(zetaN, f.c(kPi / 4));
    Value oscill = f.sub(f.mul(math::SinOp::create(f.b, f.loc, phase), pSum),
                         f.mul(math::CosOp::create(f.b, f.loc, phase), qSum));
    Value quarter = f.sqrt(f.sqrt(y));
    Value negative = f.div(oscill, f.mul(f.c(std::sqrt(kPi)), quarter));
    Value r = f.select(f.cmp(P::OGE, x, f.c(2)), positive, middle);
    r = f.select(f.cmp(P::OLT, x, f.c(-8)), negative, r);
    return f.select(f.isNan(x), x, r);
  });
}

/// modified_bessel_i0/i1 are i0 and special_i1 (SpecialFunctions.cpp)
/// under other names; the patterns there take them.

} // namespace

void populateBesselFunctionPatterns(TorchTypeConverter &tc,
                                    RewritePatternSet &p) {
  using namespace torch;
  using pointwise::Domain;
  pointwise::add<AtenSpecialBesselJ0Op>(tc, p, libmSpec<kJ0>());
  pointwise::add<AtenSpecialBesselJ1Op>(tc, p, libmSpec<kJ1>());
  pointwise::add<AtenSpecialBesselY0Op>(tc, p, libmSpec<kY0>());
  pointwise::add<AtenSpecialBesselY1Op>(tc, p, libmSpec<kY1>());
  pointwise::add<AtenSpecialModifiedBesselK0Op>(tc, p,
                                                {Domain::Float, besselK<0, false>});
  pointwise::add<AtenSpecialModifiedBesselK1Op>(tc, p,
                                                {Domain::Float, besselK<1, false>});
  pointwise::add<AtenSpecialScaledModifiedBesselK0Op>(
      tc, p, {Domain::Float, besselK<0, true>});
  pointwise::add<AtenSpecialScaledModifiedBesselK1Op>(
      tc, p, {Domain::Float, besselK<1, true>});
  pointwise::add<AtenSpecialSphericalBesselJ0Op>(tc, p,
                                                 {Domain::Float, sphericalJ0});
  pointwise::add<AtenSpecialAiryAiOp>(tc, p, {Domain::Float, airyAi});
}

} // namespace ltc_mlir::torch_to_linalg
