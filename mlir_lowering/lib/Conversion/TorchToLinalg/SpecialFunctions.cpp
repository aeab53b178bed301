//===- SpecialFunctions.cpp - lgamma, digamma, polygamma, Bessel, ... -----===//
//
// Special functions without a math-dialect op, written as straight-line
// series and rational approximations (vectorizable selects instead of
// branches), all computed in f64 and rounded once to the result dtype:
//  - lgamma: Lanczos approximation (g = 7, 9 terms) for x >= 0.5, the
//    reflection formula below (with sin(pi * frac(x)) for accuracy);
//  - digamma: recurrence up to x >= 10, then the asymptotic series (Cephes'
//    coefficients, as ATen); reflection for x < 0, NaN at non-positive
//    integers except +-0 (-+inf);
//  - polygamma(n): n = 0 digamma, n = 1 trigamma (ATen's recurrence and
//    asymptotic series, in the opmath type as ATen), n >= 2 (-1)^(n+1) n! zeta(n + 1, x) with the
//    Hurwitz zeta of Cephes (a direct sum in an scf.for, whose length
//    depends on x, then Euler-Maclaurin terms);
//  - i0, i0e, i1, i1e: Cephes' Chebyshev expansions on [0, 8] and
//    (8, inf);
//  - erfinv: rational first guess and two Newton steps (as ATen);
//  - ndtri: Cephes' rational approximations in three ranges;
//  - erfcx: exp(x^2) erfc(x) with x^2 split exactly (fma) for x < 25, the
//    asymptotic series above; log_ndtr from erfc / erfcx as ATen;
//  - entr: -x log x, 0 at 0, -inf for negatives;
//  - igamma, igammac: calls of the runtime's double-precision series and
//    continued fraction (runtime/incomplete_gamma.h).
// The coefficient tables are the published constants of these methods
// (Cephes' for the Bessel functions, digamma and ndtri, see ATen's Math.h).
//
//===----------------------------------------------------------------------===//

#include "Pointwise.h"
#include "RuntimeCalls.h"
#include "Sorting.h"

#include "mlir/Dialect/SCF/IR/SCF.h"

#include <cmath>

using namespace mlir;

namespace ltc_mlir::torch_to_linalg {
namespace {

using namespace pointwise;
using P = arith::CmpFPredicate;

constexpr double kPi = 3.14159265358979323846;

Value andI(FloatBuilder &f, Value a, Value c) {
  return arith::AndIOp::create(f.b, f.loc, a, c);
}
Value orI(FloatBuilder &f, Value a, Value c) {
  return arith::OrIOp::create(f.b, f.loc, a, c);
}

//===----------------------------------------------------------------------===//
// Gamma family
//===----------------------------------------------------------------------===//

Value lgamma(FloatBuilder &f, Value x) {
  static const double kLanczos[] = {
      0.99999999999980993,     676.5203681218851,     -1259.1392167224028,
      771.32342877765313,      -176.61502916214059,   12.507343278686905,
      -0.13857109526572012,    9.9843695780195716e-6, 1.5056327351493116e-7};
  Value reflect = f.cmp(P::OLT, x, f.c(0.5));
  Value z = f.select(reflect, f.sub(f.c(1), x), x); // z >= 0.5
  Value zm1 = f.sub(z, f.c(1));
  Value sum = f.c(kLanczos[0]);
  for (int i = 1; i < 9; ++i)
    sum = f.add(sum, f.div(f.c(kLanczos[i]), f.add(zm1, f.c(i))));
  Value tt = f.add(zm1, f.c(7.5));
  Value lg = f.add(f.sub(f.mul(f.add(zm1, f.c(0.5)), f.log(tt)), tt),
                   f.add(f.c(0.5 * std::log(2 * kPi)), f.log(sum)));
  // Reflection: lgamma(x) = log(pi / |sin(pi x)|) - lgamma(1 - x).
  Value frac = f.sub(x, f.floor(x));
  Value s = f.abs(math::SinOp::create(f.b, f.loc, f.mul(f.c(kPi), frac)));
  Value reflected = f.sub(f.log(f.div(f.c(kPi), s)), lg);
  Value r = f.select(reflect, reflected, lg);
  // +-inf -> +inf; non-positive integers -> +inf (through s == 0).
  return f.select(f.isInf(x), f.inf(), r);
}

Value digamma(FloatBuilder &f, Value x) {
  static const double kAsym[] = {
      8.33333333333333333333E-2, -2.10927960927960927961E-2,
      7.57575757575757575758E-3, -4.16666666666666666667E-3,
      3.96825396825396825397E-3, -8.33333333333333333333E-3,
      8.33333333333333333333E-2};
  Value negative = f.cmp(P::OLT, x, f.c(0));
  Value y = f.select(negative, f.sub(f.c(1), x), x);
  Value acc = f.c(0);
  for (int i = 0; i < 10; ++i) { // y < 10 needs at most 10 steps for y > 0
    Value below = f.cmp(P::OLT, y, f.c(10));
    acc = f.select(below, f.sub(acc, f.div(f.c(1), y)), acc);
    y = f.select(below, f.add(y, f.c(1)), y);
  }
  Value z = f.div(f.c(1), f.mul(y, y));
  Value series = f.mul(z, f.polyval(z, kAsym));
  Value r = f.sub(f.sub(f.add(acc, f.log(y)), f.div(f.c(0.5), y)), series);
  r = f.select(f.cmp(P::OEQ, y, f.c(10)), f.add(acc, f.c(2.25175258906672110764)),
               r);
  // Reflection with the fractional part: - pi / tan(pi * frac(x)).
  Value frac = f.sub(x, f.trunc(x));
  Value cot = f.div(f.c(kPi),
                    math::TanOp::create(f.b, f.loc, f.mul(f.c(kPi), frac)));
  r = f.select(negative, f.sub(r, cot), r);
  Value negInteger = andI(f, negative, f.cmp(P::OEQ, x, f.trunc(x)));
  r = f.select(negInteger, f.nan(), r);
  Value zero = f.cmp(P::OEQ, x, f.c(0));
  return f.select(zero, math::CopySignOp::create(f.b, f.loc, f.inf(), f.neg(x)),
                  r);
}

Value trigamma(FloatBuilder &f, Value x) {
  Value reflect = f.cmp(P::OLT, x, f.c(0.5));
  Value s = math::SinOp::create(f.b, f.loc, f.mul(f.c(kPi), x));
  Value acc = f.select(reflect, f.neg(f.div(f.c(kPi * kPi), f.mul(s, s))),
                       f.c(0));
  Value y = f.select(reflect, f.sub(f.c(1), x), x);
  for (int i = 0; i < 6; ++i) {
    acc = f.add(acc, f.div(f.c(1), f.mul(y, y)));
    y = f.add(y, f.c(1));
  }
  Value ixx = f.div(f.c(1), f.mul(y, y));
  Value inner = f.sub(f.c(1.0 / 30), f.mul(ixx, f.c(1.0 / 42)));
  inner = f.sub(f.c(1.0 / 6), f.mul(ixx, inner));
  Value tail = f.add(f.add(f.c(1), f.div(f.c(1), f.mul(f.c(2), y))),
                     f.mul(ixx, inner));
  acc = f.add(acc, f.div(tail, y));
  return f.select(reflect, f.neg(acc), acc);
}

/// Hurwitz zeta(s, q) (Cephes' method, as ATen): s == 1 gives inf, s < 1
/// NaN; q a non-positive integer inf, other q <= 0 NaN unless s is an
/// integer.
Value zeta(FloatBuilder &f, Value s, Value q) {
  static const double kEulerMaclaurin[] = {
      12.0, -720.0, 30240.0, -1209600.0, 47900160.0,
      -1.8924375803183791606e9, 7.47242496e10, -2.950130727918164224e12,
      1.1646782814350067249e14, -4.5979787224074726105e15,
      1.8152105401943546773e17, -7.1661652561756670113e18};
  const double machep = 1.11022302462515654042E-16;
  OpBuilder &b = f.b;
  Location loc = f.loc;
  Value negS = f.neg(s);
  auto pow = [&](Value base) -> Value {
    return math::PowFOp::create(b, loc, base, negS);
  };
  // Direct sum s = sum_{k=0..N} (q + k)^-s, N = max(9, floor(9 - q) + 1)
  // (the first N >= 9 with q + N > 9), stopped once terms are negligible.
  Value n = arith::MaximumFOp::create(
      b, loc, f.c(9), f.add(f.floor(f.sub(f.c(9), q)), f.c(1)));
  n = f.select(f.isNan(n), f.c(9), arith::MinimumFOp::create(b, loc, n,
                                                            f.c(1 << 24)));
  Value ub = arith::IndexCastOp::create(
      b, loc, b.getIndexType(),
      arith::FPToSIOp::create(b, loc, b.getI64Type(), n));
  Value zeroIdx = arith::ConstantIndexOp::create(b, loc, 0);
  Value oneIdx = arith::ConstantIndexOp::create(b, loc, 1);
  Value falseV = arith::ConstantIntOp::create(b, loc, 0, 1);
  auto loop = scf::ForOp::create(
      b, loc, zeroIdx, ub, oneIdx,
      ValueRange{q, f.c(0), pow(q), falseV},
      [&](OpBuilder &nb, Location l, Value, ValueRange it) {
        FloatBuilder g{nb, l, f.t};
        Value a = g.add(it[0], g.c(1));
        Value term = math::PowFOp::create(nb, l, a, negS);
        Value sum = g.add(it[2], term);
        Value small = andI(g, g.cmp(P::OLT, g.mul(g.c(-machep), sum), term),
                           g.cmp(P::OLT, term, g.mul(g.c(machep), sum)));
        Value done = it[3];
        scf::YieldOp::create(
            nb, l,
            ValueRange{g.select(done, it[0], a), g.select(done, it[1], term),
                       g.select(done, it[2], sum), orI(g, done, small)});
      });
  Value a = loop.getResult(0), term = loop.getResult(1),
        sum = loop.getResult(2), direct = loop.getResult(3);
  // Euler-Maclaurin tail.
  Value w = a;
  Value acc = f.add(sum, f.div(f.mul(term, w), f.sub(s, f.c(1))));
  acc = f.sub(acc, f.mul(f.c(0.5), term));
  Value fac = f.c(1), bb = term, done = falseV;
  double k = 0;
  for (double coeff : kEulerMaclaurin) {
    fac = f.mul(fac, f.add(s, f.c(k)));
    bb = f.div(bb, w);
    Value t = f.div(f.mul(fac, bb), f.c(coeff));
    Value next = f.add(acc, t);
    acc = f.select(done, acc, next);
    done = orI(f, done, f.cmp(P::OLT, f.abs(f.div(t, next)), f.c(machep)));
    k += 1;
    fac = f.mul(fac, f.add(s, f.c(k)));
    bb = f.div(bb, w);
    k += 1;
  }
  Value r = f.select(direct, sum, acc);
  Value qNonPositive = f.cmp(P::OLE, q, f.c(0));
  Value poleQ = andI(f, qNonPositive, f.cmp(P::OEQ, q, f.floor(q)));
  Value nanQ = andI(f, qNonPositive, f.cmp(P::UNE, s, f.floor(s)));
  r = f.select(nanQ, f.nan(), r);
  r = f.select(poleQ, f.inf(), r);
  r = f.select(f.cmp(P::OLT, s, f.c(1)), f.nan(), r);
  return f.select(f.cmp(P::OEQ, s, f.c(1)), f.inf(), r);
}

Value hurwitzZeta(OpBuilder &b, Location loc, Type t, bool,
                  ArrayRef<Value> v) {
  FloatBuilder f{b, loc, b.getF64Type()};
  Value s = castScalar(b, loc, v[0], f.t);
  Value q = castScalar(b, loc, v[1], f.t);
  return castScalar(b, loc, zeta(f, s, q), t);
}

Body selectPolygamma(Operation *op, std::string &why) {
  std::optional<int64_t> n = getConstantInt(op->getOperand(0));
  if (!n || *n < 0 || *n > 100) {
    why = "n must be a constant in [0, 100]";
    return nullptr;
  }
  int64_t order = *n;
  return [order](OpBuilder &b, Location loc, Type t, bool,
                 ArrayRef<Value> v) {
    // trigamma in the opmath type, as ATen (its values at the poles come
    // from sin(pi x) rounded in that type).
    if (order == 1) {
      FloatBuilder f{b, loc, t};
      return trigamma(f, v[1]);
    }
    return inF64(b, loc, t, v[1], [&](FloatBuilder &f, Value x) -> Value {
      if (order == 0)
        return digamma(f, x);
      double factorial = std::exp(std::lgamma(double(order) + 1));
      double sign = order % 2 ? 1.0 : -1.0;
      return f.mul(f.c(sign * factorial), zeta(f, f.c(order + 1), x));
    });
  };
}

//===----------------------------------------------------------------------===//
// Modified Bessel functions of the first kind (Cephes' Chebyshev series)
//===----------------------------------------------------------------------===//

const double kI0A[] = {
    -4.41534164647933937950E-18, 3.33079451882223809783E-17,
    -2.43127984654795469359E-16, 1.71539128555513303061E-15,
    -1.16853328779934516808E-14, 7.67618549860493561688E-14,
    -4.85644678311192946090E-13, 2.95505266312963983461E-12,
    -1.72682629144155570723E-11, 9.67580903537323691224E-11,
    -5.18979560163526290666E-10, 2.65982372468238665035E-9,
    -1.30002500998624804212E-8,  6.04699502254191894932E-8,
    -2.67079385394061173391E-7,  1.11738753912010371815E-6,
    -4.41673835845875056359E-6,  1.64484480707288970893E-5,
    -5.75419501008210370398E-5,  1.88502885095841655729E-4,
    -5.76375574538582365885E-4,  1.63947561694133579842E-3,
    -4.32430999505057594430E-3,  1.05464603945949983183E-2,
    -2.37374148058994688156E-2,  4.93052842396707084878E-2,
    -9.49010970480476444210E-2,  1.71620901522208775349E-1,
    -3.04682672343198398683E-1,  6.76795274409476084995E-1};
const double kI0B[] = {
    -7.23318048787475395456E-18, -4.83050448594418207126E-18,
    4.46562142029675999901E-17,  3.46122286769746109310E-17,
    -2.82762398051658348494E-16, -3.42548561967721913462E-16,
    1.77256013305652638360E-15,  3.81168066935262242075E-15,
    -9.55484669882830764870E-15, -4.15056934728722208663E-14,
    1.54008621752140982691E-14,  3.85277838274214270114E-13,
    7.18012445138366623367E-13,  -1.79417853150680611778E-12,
    -1.32158118404477131188E-11, -3.14991652796324136454E-11,
    1.18891471078464383424E-11,  4.94060238822496958910E-10,
    3.39623202570838634515E-9,   2.26666899049817806459E-8,
    2.04891858946906374183E-7,   2.89137052083475648297E-6,
    6.88975834691682398426E-5,   3.36911647825569408990E-3,
    8.04490411014108831608E-1};
const double kI1A[] = {
    2.77791411276104639959E-18, -2.11142121435816608115E-17,
    1.55363195773620046921E-16, -1.10559694773538630805E-15,
    7.60068429473540693410E-15, -5.04218550472791168711E-14,
    3.22379336594557470981E-13, -1.98397439776494371520E-12,
    1.17361862988909016308E-11, -6.66348972350202774223E-11,
    3.62559028155211703701E-10, -1.88724975172282928790E-9,
    9.38153738649577178388E-9,  -4.44505912879632808065E-8,
    2.00329475355213526229E-7,  -8.56872026469545474066E-7,
    3.47025130813767847674E-6,  -1.32731636560394358279E-5,
    4.78156510755005422638E-5,  -1.61760815825896745588E-4,
    5.12285956168575772895E-4,  -1.51357245063125314899E-3,
    4.15642294431288815669E-3,  -1.05640848946261981558E-2,
    2.47264490306265168283E-2,  -5.29459812080949914269E-2,
    1.02643658689847095384E-1,  -1.76416518357834055153E-1,
    2.52587186443633654823E-1};
const double kI1B[] = {
    7.51729631084210481353E-18,  4.41434832307170791151E-18,
    -4.65030536848935832153E-17, -3.20952592199342395980E-17,
    2.96262899764595013876E-16,  3.30820231092092828324E-16,
    -1.88035477551078244854E-15, -3.81440307243700780478E-15,
    1.04202769841288027642E-14,  4.27244001671195135429E-14,
    -2.10154184277266431302E-14, -4.08355111109219731823E-13,
    -7.19855177624590851209E-13, 2.03562854414708950722E-12,
    1.41258074366137813316E-11,  3.25260358301548823856E-11,
    -1.89749581235054123450E-11, -5.58974346219658380687E-10,
    -3.83538038596423702205E-9,  -2.63146884688951950684E-8,
    -2.51223623787020892529E-7,  -3.88256480887769039346E-6,
    -1.10588938762623716291E-4,  -9.76109749136146840777E-3,
    7.78576235018280120474E-1};

/// Clenshaw evaluation of a Chebyshev series (Cephes' chbevl convention:
/// half of the last difference).
Value chebyshev(FloatBuilder &f, Value y, ArrayRef<double> coeffs) {
  Value b0 = f.c(coeffs[0]), b1 = f.c(0), b2 = f.c(0);
  for (double c : coeffs.drop_front()) {
    b2 = b1;
    b1 = b0;
    b0 = f.add(f.sub(f.mul(y, b1), b2), f.c(c));
  }
  return f.mul(f.c(0.5), f.sub(b0, b2));
}

/// exp(-|x|) I_order(|x|) (for order 1 also divided by |x| on [0, 8]).
template <int Order>
Value scaledBessel(FloatBuilder &f, Value ax) {
  ArrayRef<double> a = Order == 0 ? ArrayRef<double>(kI0A) : ArrayRef<double>(kI1A);
  ArrayRef<double> bCoeffs =
      Order == 0 ? ArrayRef<double>(kI0B) : ArrayRef<double>(kI1B);
  Value small = f.cmp(P::OLE, ax, f.c(8));
  Value near = chebyshev(f, f.sub(f.div(ax, f.c(2)), f.c(2)), a);
  if (Order == 1)
    near = f.mul(near, ax);
  // 32 / x - 2 stays in range for x <= 8 (the value is then unused).
  Value far = f.div(chebyshev(f, f.sub(f.div(f.c(32), ax), f.c(2)), bCoeffs),
                    f.sqrt(ax));
  return f.select(small, near, far);
}

template <int Order, bool Scaled>
Value bessel(OpBuilder &b, Location loc, Type t, bool, ArrayRef<Value> v) {
  return inF64(b, loc, t, v[0], [](FloatBuilder &f, Value x) -> Value {
    Value ax = f.abs(x);
    Value r = scaledBessel<Order>(f, ax);
    if (!Scaled)
      r = f.mul(f.exp(ax), r);
    if (Order == 1)
      r = f.select(f.cmp(P::OLT, x, f.c(0)), f.neg(r), r);
    return r;
  });
}

//===----------------------------------------------------------------------===//
// Error-function family
//===----------------------------------------------------------------------===//

Value erfinv(OpBuilder &b, Location loc, Type t, bool, ArrayRef<Value> v) {
  return inF64(b, loc, t, v[0], [](FloatBuilder &f, Value y) -> Value {
    Value ay = f.abs(y);
    // Central range |y| <= 0.7: y * A(y^2) / B(y^2).
    Value z = f.mul(y, y);
    Value num = f.polyval(z, {-0.140543331, 0.914624893, -1.645349621,
                              0.886226899});
    Value den = f.polyval(z, {0.012229801, -0.329097515, 1.442710462,
                              -2.118377725, 1.0});
    Value central = f.div(f.mul(y, num), den);
    // Tails: rational function of sqrt(-log((1 - |y|) / 2)).
    Value w = f.sqrt(f.neg(f.log(f.div(f.sub(f.c(1), ay), f.c(2)))));
    Value tnum = f.polyval(w, {1.641345311, 3.429567803, -1.624906493,
                               -1.970840454});
    Value tden = f.polyval(w, {1.637067800, 3.543889200, 1.0});
    Value tail = f.div(math::CopySignOp::create(f.b, f.loc, tnum, y), tden);
    Value x = f.select(f.cmp(P::OLE, ay, f.c(0.7)), central, tail);
    // Two Newton steps on erf(x) = y.
    for (int i = 0; i < 2; ++i) {
      Value deriv = f.mul(f.c(2 / std::sqrt(kPi)), f.exp(f.neg(f.mul(x, x))));
      x = f.sub(x, f.div(f.sub(math::ErfOp::create(f.b, f.loc, x), y), deriv));
    }
    x = f.select(f.cmp(P::OEQ, ay, f.c(1)),
                 math::CopySignOp::create(f.b, f.loc, f.inf(), y), x);
    return f.select(f.cmp(P::OGT, ay, f.c(1)), f.nan(), x);
  });
}

Value ndtri(OpBuilder &b, Location loc, Type t, bool, ArrayRef<Value> v) {
  static const double kP0[] = {-5.99633501014107895267E1, 9.80010754185999661536E1,
                               -5.66762857469070293439E1, 1.39312609387279679503E1,
                               -1.23916583867381258016E0};
  static const double kQ0[] = {1.0,
                               1.95448858338141759834E0,  4.67627912898881538453E0,
                               8.63602421390890590575E1,  -2.25462687854119370527E2,
                               2.00260212380060660359E2,  -8.20372256168333339912E1,
                               1.59056225126211695515E1,  -1.18331621121330003142E0};
  static const double kP1[] = {4.05544892305962419923E0,  3.15251094599893866154E1,
                               5.71628192246421288162E1,  4.40805073893200834700E1,
                               1.46849561928858024014E1,  2.18663306850790267539E0,
                               -1.40256079171354495875E-1, -3.50424626827848203418E-2,
                               -8.57456785154685413611E-4};
  static const double kQ1[] = {1.0,
                               1.57799883256466749731E1,  4.53907635128879210584E1,
                               4.13172038254672030440E1,  1.50425385692907503408E1,
                               2.50464946208309415979E0,  -1.42182922854787788574E-1,
                               -3.80806407691578277194E-2, -9.33259480895457427372E-4};
  static const double kP2[] = {3.23774891776946035970E0,  6.91522889068984211695E0,
                               3.93881025292474443415E0,  1.33303460815807542389E0,
                               2.01485389549179081538E-1, 1.23716634817820021358E-2,
                               3.01581553508235416007E-4, 2.65806974686737550832E-6,
                               6.23974539184983293730E-9};
  static const double kQ2[] = {1.0,
                               6.02427039364742014255E0,  3.67983563856160859403E0,
                               1.37702099489081330271E0,  2.16236993594496635890E-1,
                               1.34204006088543189037E-2, 3.28014464682127739104E-4,
                               2.89247864745380683936E-6, 6.79019408009981274425E-9};
  const double expm2 = 0.13533528323661269189; // exp(-2)
  return inF64(b, loc, t, v[0], [&](FloatBuilder &f, Value y0) -> Value {
    Value upper = f.cmp(P::OGT, y0, f.c(1 - expm2));
    Value y = f.select(upper, f.sub(f.c(1), y0), y0);
    // Middle: |y - 0.5| <= 3/8.
    Value ym = f.sub(y, f.c(0.5));
    Value y2 = f.mul(ym, ym);
    Value middle = f.mul(
        f.add(ym, f.mul(ym, f.div(f.mul(y2, f.polyval(y2, kP0)),
                                  f.polyval(y2, kQ0)))),
        f.c(2.50662827463100050242));
    // Tails in z = sqrt(-2 log y).
    Value x = f.sqrt(f.mul(f.c(-2), f.log(y)));
    Value x0 = f.sub(x, f.div(f.log(x), x));
    Value z = f.div(f.c(1), x);
    Value near = f.div(f.mul(z, f.polyval(z, kP1)), f.polyval(z, kQ1));
    Value far = f.div(f.mul(z, f.polyval(z, kP2)), f.polyval(z, kQ2));
    Value tail = f.sub(x0, f.select(f.cmp(P::OLT, x, f.c(8)), near, far));
    tail = f.select(upper, tail, f.neg(tail));
    Value r = f.select(f.cmp(P::OGT, y, f.c(expm2)), middle, tail);
    r = f.select(f.cmp(P::OEQ, y0, f.c(0)), f.neg(f.inf()), r);
    r = f.select(f.cmp(P::OEQ, y0, f.c(1)), f.inf(), r);
    Value outside = orI(f, f.cmp(P::OLT, y0, f.c(0)), f.cmp(P::OGT, y0, f.c(1)));
    return f.select(outside, f.nan(), r);
  });
}

Value erfcxF64(FloatBuilder &f, Value x) {
  // exp(x^2) with x^2 = hi + lo exactly: exp(hi) * (1 + lo).
  Value hi = f.mul(x, x);
  Value lo = f.fma(x, x, f.neg(hi));
  Value direct = f.mul(f.mul(f.exp(hi), f.add(f.c(1), lo)),
                       math::ErfcOp::create(f.b, f.loc, x));
  // Large x: 1 / (x sqrt(pi)) * sum_k (-1)^k (2k - 1)!! / (2 x^2)^k.
  Value inv2x2 = f.div(f.c(1), f.mul(f.c(2), hi));
  Value series = f.c(1), term = f.c(1);
  for (int k = 1; k <= 12; ++k) {
    term = f.mul(term, f.mul(f.c(-(2.0 * k - 1)), inv2x2));
    series = f.add(series, term);
  }
  Value asym = f.div(series, f.mul(x, f.c(std::sqrt(kPi))));
  Value r = f.select(f.cmp(P::OLT, x, f.c(25)), direct, asym);
  r = f.select(f.cmp(P::OEQ, x, f.neg(f.inf())), f.inf(), r);
  return f.select(f.cmp(P::OEQ, x, f.inf()), f.c(0), r);
}

Value erfcx(OpBuilder &b, Location loc, Type t, bool, ArrayRef<Value> v) {
  return inF64(b, loc, t, v[0], erfcxF64);
}

// log_ndtr(x) = log(erfcx(-x/sqrt2) / 2) - x^2/2 for x < -1, else
// log1p(-erfc(x/sqrt2) / 2).
Value logNdtr(OpBuilder &b, Location loc, Type t, bool, ArrayRef<Value> v) {
  return inF64(b, loc, t, v[0], [](FloatBuilder &f, Value x) -> Value {
    Value s = f.mul(x, f.c(0.70710678118654752440));
    Value low = f.sub(f.log(f.div(erfcxF64(f, f.neg(s)), f.c(2))), f.mul(s, s));
    Value high = math::Log1pOp::create(
        f.b, f.loc,
        f.neg(f.div(math::ErfcOp::create(f.b, f.loc, s), f.c(2))));
    return f.select(f.cmp(P::OLT, x, f.c(-1)), low, high);
  });
}

Value entr(OpBuilder &b, Location loc, Type t, bool, ArrayRef<Value> v) {
  FloatBuilder f{b, loc, t};
  Value x = v[0];
  Value r = f.select(f.cmp(P::OGT, x, f.c(0)), f.neg(f.mul(x, f.log(x))),
                     f.select(f.cmp(P::OEQ, x, f.c(0)), f.c(0), f.neg(f.inf())));
  return f.select(f.isNan(x), x, r);
}

template <Value (*Fn)(FloatBuilder &, Value)>
Value viaF64(OpBuilder &b, Location loc, Type t, bool, ArrayRef<Value> v) {
  return inF64(b, loc, t, v[0], Fn);
}

/// igamma / igammac: the runtime's `double Name(double a, double x)`
/// (runtime/incomplete_gamma.h), in f64, rounded once to the result type.
template <const char *Name> Spec incompleteGamma() {
  Spec spec{Domain::Float,
            [](OpBuilder &b, Location loc, Type t, bool, ArrayRef<Value> v) {
              Type f64 = b.getF64Type();
              Value a = castScalar(b, loc, v[0], f64);
              Value x = castScalar(b, loc, v[1], f64);
              Value r = func::CallOp::create(b, loc, Name, TypeRange{f64},
                                             ValueRange{a, x})
                            .getResult(0);
              return castScalar(b, loc, r, t);
            }};
  spec.prepare = [](OpBuilder &b, Operation *op) {
    Type f64 = b.getF64Type();
    getOrDeclareFunction(b, op, Name, b.getFunctionType({f64, f64}, {f64}),
                         /*cInterface=*/false);
  };
  return spec;
}
constexpr char kIgamma[] = "ltc_mlir_rt_igamma", kIgammac[] = "ltc_mlir_rt_igammac";

/// A pointwise op matched by name (igamma/igammac have no op class in the
/// generated dialect's C++ subset).
class NamedPointwise : public NamedTorchPattern {
public:
  NamedPointwise(llvm::StringRef name, const TorchTypeConverter &tc,
                 MLIRContext *ctx, Spec spec)
      : NamedTorchPattern(name, tc, ctx), spec(std::move(spec)) {}
  LogicalResult
  matchAndRewrite(Operation *op, ArrayRef<Value> operands,
                  ConversionPatternRewriter &rewriter) const override {
    RankedTensorType resultType = getTensorType(op->getResult(0).getType());
    if (!resultType || op->getNumResults() != 1)
      return fail(op, rewriter, "result type is not convertible");
    std::string why;
    FailureOr<Value> result =
        lowerPointwise(op, operands, resultType, spec, rewriter, why);
    if (failed(result))
      return fail(op, rewriter, why);
    rewriter.replaceOp(op, *result);
    return success();
  }

private:
  Spec spec;
};

} // namespace

void populateSpecialFunctionPatterns(TorchTypeConverter &tc,
                                     RewritePatternSet &p) {
  using namespace torch;
  pointwise::add<AtenLgammaOp>(tc, p, {Domain::Float, viaF64<lgamma>});
  pointwise::add<AtenDigammaOp>(tc, p, {Domain::Float, viaF64<digamma>});
  Spec polygamma{Domain::Float, nullptr};
  polygamma.select = selectPolygamma;
  pointwise::add<AtenPolygammaOp>(tc, p, polygamma);
  pointwise::add<AtenI0Op>(tc, p, {Domain::Float, bessel<0, false>});
  pointwise::add<AtenSpecialI0eOp>(tc, p, {Domain::Float, bessel<0, true>});
  pointwise::add<AtenSpecialI1Op>(tc, p, {Domain::Float, bessel<1, false>});
  pointwise::add<AtenSpecialI1eOp>(tc, p, {Domain::Float, bessel<1, true>});
  pointwise::add<AtenSpecialModifiedBesselI0Op>(tc, p,
                                                {Domain::Float, bessel<0, false>});
  pointwise::add<AtenSpecialModifiedBesselI1Op>(tc, p,
                                                {Domain::Float, bessel<1, false>});
  pointwise::add<AtenSpecialZetaOp>(tc, p, {Domain::Float, hurwitzZeta});
  p.add<NamedPointwise>("torch.aten.igamma", tc, p.getContext(),
                        incompleteGamma<kIgamma>());
  p.add<NamedPointwise>("torch.aten.igammac", tc, p.getContext(),
                        incompleteGamma<kIgammac>());
  pointwise::add<AtenErfinvOp>(tc, p, {Domain::Float, erfinv});
  pointwise::add<AtenSpecialNdtriOp>(tc, p, {Domain::Float, ndtri});
  pointwise::add<AtenSpecialErfcxOp>(tc, p, {Domain::Float, erfcx});
  pointwise::add<AtenSpecialLogNdtrOp>(tc, p, {Domain::Float, logNdtr});
  pointwise::add<AtenSpecialEntrOp>(tc, p, {Domain::Float, entr});
}

} // namespace ltc_mlir::torch_to_linalg
