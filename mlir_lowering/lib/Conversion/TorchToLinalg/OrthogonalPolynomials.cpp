//===- OrthogonalPolynomials.cpp - torch.special's *_polynomial_* ops -----===//
//
// torch.special.{chebyshev_polynomial_t,u,v,w, shifted_chebyshev_polynomial_
// t,u,v,w, hermite_polynomial_h,he, laguerre_polynomial_l,
// legendre_polynomial_p}(x, n): the degree-n polynomial at x, elementwise.
// Computed as ATen's CPU kernels do, in the op's computation type:
//  - n is truncated to an integer; a negative (or NaN) degree gives 0;
//  - the values at the interval's ends (and Laguerre's at 0) are exact;
//  - Chebyshev polynomials of high degree inside the interval use their
//    trigonometric form (cos(n acos x), ...);
//  - otherwise the three-term recurrence from P0 = 1 and P1, n - 1 steps in
//    an scf.for whose length is the element's degree.
// Each case is a select, in ATen's order of precedence; the loop runs no
// step for an element an earlier case answered.
//
//===----------------------------------------------------------------------===//

#include "Pointwise.h"

#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;

namespace ltc_mlir::torch_to_linalg {
namespace {

using namespace pointwise;
using P = arith::CmpFPredicate;

/// One element's degree and the integer helpers the cases need.
struct Degree {
  FloatBuilder &f;
  Value n;       ///< i64, 0 where the degree is invalid
  Value invalid; ///< static_cast<int64_t>(n) < 0 (x86 makes NaN negative)

  Value i(int64_t v) const {
    return arith::ConstantIntOp::create(f.b, f.loc, f.b.getI64Type(), v);
  }
  Value add(Value a, Value b) const {
    return arith::AddIOp::create(f.b, f.loc, a, b);
  }
  Value gt(int64_t v) const {
    return arith::CmpIOp::create(f.b, f.loc, arith::CmpIPredicate::sgt, n, i(v));
  }
  Value eq(int64_t v) const {
    return arith::CmpIOp::create(f.b, f.loc, arith::CmpIPredicate::eq, n, i(v));
  }
  Value even() const {
    Value low = arith::AndIOp::create(f.b, f.loc, n, i(1));
    return arith::CmpIOp::create(f.b, f.loc, arith::CmpIPredicate::eq, low, i(0));
  }
  /// The integer `v` converted to the computation type.
  Value real(Value v) const {
    return arith::SIToFPOp::create(f.b, f.loc, f.t, v);
  }
  /// n + offset, as a value of the computation type (ATen's int64 arithmetic
  /// then conversion).
  Value plus(int64_t offset) const { return real(add(n, i(offset))); }
  /// 2n + 1
  Value twoNPlusOne() const { return real(add(add(n, n), i(1))); }
  /// even ? a : -a
  Value byParity(Value a) const { return f.select(even(), a, f.neg(a)); }
};

Degree makeDegree(FloatBuilder &f, Value nReal) {
  Value inRange = arith::AndIOp::create(
      f.b, f.loc, f.cmp(P::OGT, nReal, f.c(-1)),
      f.cmp(P::OLT, nReal, f.c(9223372036854775808.0)));
  Value safe = f.select(inRange, nReal, f.c(0));
  Value n = arith::FPToSIOp::create(f.b, f.loc, f.b.getI64Type(), safe);
  Value invalid = arith::XOrIOp::create(
      f.b, f.loc, inRange, arith::ConstantIntOp::create(f.b, f.loc, 1, 1));
  return Degree{f, n, invalid};
}

/// A case answered before the recurrence: where `when`, the value `value`.
struct Case {
  Value when;
  Value value;
};

/// The step P(k+1) from (P(k-1), P(k)) for the loop's i = 1 .. n-1.
using Step = std::function<Value(FloatBuilder &f, Value i, Value p, Value q)>;

/// n == 0: 1; n == 1: q0; otherwise n - 1 steps from (1, q0). `cases` take
/// precedence in order (the first true one answers), after the invalid
/// degree's 0.
Value polynomial(FloatBuilder &f, const Degree &d, Value q0,
                 ArrayRef<Case> cases, const Step &step) {
  Value answered = d.invalid;
  for (const Case &c : cases)
    answered = arith::OrIOp::create(f.b, f.loc, answered, c.when);
  // Loop i = 1 .. n - 1 (none where answered).
  Value ub = arith::SelectOp::create(f.b, f.loc, answered, d.i(1), d.n);
  auto loop = scf::ForOp::create(
      f.b, f.loc, d.i(1), ub, d.i(1), ValueRange{f.c(1), q0},
      [&](OpBuilder &nb, Location l, Value iv, ValueRange it) {
        FloatBuilder g{nb, l, f.t};
        Value r = step(g, iv, it[0], it[1]);
        scf::YieldOp::create(nb, l, ValueRange{it[1], r});
      });
  Value r = loop.getResult(1);
  r = f.select(d.eq(0), f.c(1), r);
  for (const Case &c : llvm::reverse(cases))
    r = f.select(c.when, c.value, r);
  return f.select(d.invalid, f.c(0), r);
}

Value acos(FloatBuilder &f, Value x) {
  return math::AcosOp::create(f.b, f.loc, x);
}
Value cos(FloatBuilder &f, Value x) { return math::CosOp::create(f.b, f.loc, x); }
Value sin(FloatBuilder &f, Value x) { return math::SinOp::create(f.b, f.loc, x); }

/// The Chebyshev step for argument y: (y + y) q - p.
Step chebyshevStep(Value y) {
  return [y](FloatBuilder &f, Value, Value p, Value q) {
    return f.sub(f.mul(f.add(y, y), q), p);
  };
}

/// The four kinds share their recurrence; they differ in P1 and in their
/// values at the ends and in trigonometric form. `y` is the argument of the
/// recurrence (x, or 2x - 1 for the shifted ones); `yIsOne`/`yIsMinusOne`
/// select the values at the ends; `trigDegree` the degree above which
/// |y| < 1 uses the trigonometric form.
enum class Kind { T, U, V, W };

Value chebyshev(FloatBuilder &f, const Degree &d, Kind kind, bool shifted,
                Value y, Value yIsOne, Value yIsMinusOne, int64_t trigDegree) {
  Value two = f.c(2);
  Value one = f.c(1);
  Value q0;
  Value atOne, atMinusOne, trig;
  Value theta = acos(f, y);
  Value inside = f.cmp(P::OLT, f.abs(y), one);
  switch (kind) {
  case Kind::T:
    q0 = y;
    atOne = one;
    atMinusOne = d.byParity(one);
    trig = cos(f, f.mul(d.real(d.n), theta));
    break;
  case Kind::U: {
    q0 = f.add(y, y);
    atOne = d.plus(1);
    atMinusOne = d.byParity(d.plus(1));
    Value s = sin(f, theta);
    Value general = f.div(sin(f, f.mul(d.plus(1), theta)), s);
    Value degenerate =
        f.div(f.mul(d.plus(1), cos(f, f.mul(d.plus(1), theta))), y);
    trig = f.select(f.cmp(P::UNE, s, f.c(0)), general, degenerate);
    break;
  }
  case Kind::V: {
    q0 = f.sub(f.add(y, y), one);
    atOne = one;
    atMinusOne = d.byParity(d.twoNPlusOne());
    Value general = f.div(cos(f, f.mul(f.add(d.real(d.n), f.c(0.5)), theta)),
                          cos(f, f.div(theta, two)));
    trig = f.select(f.cmp(P::UNE, sin(f, f.div(theta, two)), one), general,
                    d.byParity(d.twoNPlusOne()));
    break;
  }
  case Kind::W: {
    q0 = f.add(f.add(y, y), one);
    atOne = d.twoNPlusOne();
    atMinusOne = d.byParity(one);
    Value general = f.div(sin(f, f.mul(f.add(d.real(d.n), f.c(0.5)), theta)),
                          sin(f, f.div(theta, two)));
    // cos(theta / 2) rounds to 1 only for y just below 1; ATen's value
    // there differs between the two families.
    Value fallback = d.byParity(one);
    if (!shifted)
      fallback = f.select(f.cmp(P::OGT, y, f.c(0)), d.twoNPlusOne(), fallback);
    trig = f.select(f.cmp(P::UNE, cos(f, f.div(theta, two)), one), general,
                    fallback);
    break;
  }
  }
  Value useTrig = arith::AndIOp::create(f.b, f.loc, d.gt(trigDegree), inside);
  Case cases[] = {{yIsOne, atOne}, {yIsMinusOne, atMinusOne}, {useTrig, trig}};
  return polynomial(f, d, q0, cases, chebyshevStep(y));
}

template <Kind K, int64_t TrigDegree>
Value chebyshevBody(OpBuilder &b, Location loc, Type t, bool,
                    ArrayRef<Value> v) {
  FloatBuilder f{b, loc, t};
  Degree d = makeDegree(f, v[1]);
  Value x = v[0];
  // ATen tests |x| == 1 once: x > 0 picks the value at 1.
  Value absOne = f.cmp(P::OEQ, f.abs(x), f.c(1));
  Value positive = f.cmp(P::OGT, x, f.c(0));
  Value atOne = arith::AndIOp::create(b, loc, absOne, positive);
  Value atMinusOne = arith::AndIOp::create(
      b, loc, absOne,
      arith::XOrIOp::create(b, loc, positive,
                            arith::ConstantIntOp::create(b, loc, 1, 1)));
  return chebyshev(f, d, K, /*shifted=*/false, x, atOne, atMinusOne,
                   TrigDegree);
}

/// Shifted: the polynomial at y = 2x - 1; ATen tests x == 1 and x == 0
/// (y = 1 and y = -1) exactly.
template <Kind K, int64_t TrigDegree>
Value shiftedChebyshevBody(OpBuilder &b, Location loc, Type t, bool,
                           ArrayRef<Value> v) {
  FloatBuilder f{b, loc, t};
  Degree d = makeDegree(f, v[1]);
  Value x = v[0];
  Value y = f.sub(f.add(x, x), f.c(1));
  return chebyshev(f, d, K, /*shifted=*/true, y, f.cmp(P::OEQ, x, f.c(1)),
                   f.cmp(P::OEQ, x, f.c(0)), TrigDegree);
}

Value hermiteH(OpBuilder &b, Location loc, Type t, bool, ArrayRef<Value> v) {
  FloatBuilder f{b, loc, t};
  Degree d = makeDegree(f, v[1]);
  Value x = v[0];
  // k = 2, 4, ..., 2n - 2: (x + x) q - k p.
  return polynomial(f, d, f.add(x, x), {},
                    [&](FloatBuilder &g, Value i, Value p, Value q) {
                      Value k = d.real(arith::AddIOp::create(g.b, g.loc, i, i));
                      return g.sub(g.mul(g.add(x, x), q), g.mul(k, p));
                    });
}

Value hermiteHe(OpBuilder &b, Location loc, Type t, bool, ArrayRef<Value> v) {
  FloatBuilder f{b, loc, t};
  Degree d = makeDegree(f, v[1]);
  Value x = v[0];
  return polynomial(f, d, x, {}, [&](FloatBuilder &g, Value k, Value p, Value q) {
    return g.sub(g.mul(x, q), g.mul(d.real(k), p));
  });
}

Value laguerreL(OpBuilder &b, Location loc, Type t, bool, ArrayRef<Value> v) {
  FloatBuilder f{b, loc, t};
  Degree d = makeDegree(f, v[1]);
  Value x = v[0];
  Value oneMinusX = f.sub(f.c(1), x);
  Case atZero{f.cmp(P::OEQ, x, f.c(0)), f.c(1)};
  return polynomial(
      f, d, oneMinusX, atZero, [&](FloatBuilder &g, Value k, Value p, Value q) {
        Value twoK = d.real(arith::AddIOp::create(g.b, g.loc, k, k));
        Value kPlusOne = d.real(arith::AddIOp::create(g.b, g.loc, k, d.i(1)));
        Value num = g.sub(g.mul(g.add(twoK, oneMinusX), q), g.mul(d.real(k), p));
        return g.div(num, kPlusOne);
      });
}

Value legendreP(OpBuilder &b, Location loc, Type t, bool, ArrayRef<Value> v) {
  FloatBuilder f{b, loc, t};
  Degree d = makeDegree(f, v[1]);
  Value x = v[0];
  Value absOne = f.cmp(P::OEQ, f.abs(x), f.c(1));
  Value positive = f.cmp(P::OGT, x, f.c(0));
  Value one = f.c(1);
  Case atEnds{absOne, f.select(positive, one, d.byParity(one))};
  return polynomial(f, d, x, atEnds, [&](FloatBuilder &g, Value k, Value p, Value q) {
    Value twoK = arith::AddIOp::create(g.b, g.loc, k, k);
    Value twoKPlusOne = d.real(arith::AddIOp::create(g.b, g.loc, twoK, d.i(1)));
    Value kPlusOne = d.real(arith::AddIOp::create(g.b, g.loc, k, d.i(1)));
    Value num = g.sub(g.mul(g.mul(twoKPlusOne, x), q), g.mul(d.real(k), p));
    return g.div(num, kPlusOne);
  });
}

} // namespace

void populateOrthogonalPolynomialPatterns(TorchTypeConverter &tc,
                                          RewritePatternSet &p) {
  using namespace torch;
  using pointwise::Domain;
  pointwise::add<AtenSpecialChebyshevPolynomialTOp>(
      tc, p, {Domain::Float, chebyshevBody<Kind::T, 6>});
  pointwise::add<AtenSpecialChebyshevPolynomialUOp>(
      tc, p, {Domain::Float, chebyshevBody<Kind::U, 8>});
  pointwise::add<AtenSpecialChebyshevPolynomialVOp>(
      tc, p, {Domain::Float, chebyshevBody<Kind::V, 8>});
  pointwise::add<AtenSpecialChebyshevPolynomialWOp>(
      tc, p, {Domain::Float, chebyshevBody<Kind::W, 8>});
  pointwise::add<AtenSpecialShiftedChebyshevPolynomialTOp>(
      tc, p, {Domain::Float, shiftedChebyshevBody<Kind::T, 6>});
  pointwise::add<AtenSpecialShiftedChebyshevPolynomialUOp>(
      tc, p, {Domain::Float, shiftedChebyshevBody<Kind::U, 6>});
  pointwise::add<AtenSpecialShiftedChebyshevPolynomialVOp>(
      tc, p, {Domain::Float, shiftedChebyshevBody<Kind::V, 6>});
  pointwise::add<AtenSpecialShiftedChebyshevPolynomialWOp>(
      tc, p, {Domain::Float, shiftedChebyshevBody<Kind::W, 4>});
  pointwise::add<AtenSpecialHermitePolynomialHOp>(tc, p,
                                                  {Domain::Float, hermiteH});
  pointwise::add<AtenSpecialHermitePolynomialHeOp>(tc, p,
                                                   {Domain::Float, hermiteHe});
  pointwise::add<AtenSpecialLaguerrePolynomialLOp>(tc, p,
                                                   {Domain::Float, laguerreL});
  pointwise::add<AtenSpecialLegendrePolynomialPOp>(tc, p,
                                                   {Domain::Float, legendreP});
}

} // namespace ltc_mlir::torch_to_linalg
