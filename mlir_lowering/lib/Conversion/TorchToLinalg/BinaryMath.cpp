//===- BinaryMath.cpp - binary pointwise math, clamp bounds, lerp ---------===//
//
// atan2, hypot, copysign, logaddexp(2), xlogy, special_xlog1py, fmax/fmin,
// heaviside, lerp, clamp_min/clamp_max/clamp with tensor or scalar bounds,
// rsub, pow.Scalar: ATen's CPU formulas (NaN/inf handling included) in the
// result dtype's opmath type (Pointwise.h).
//
//===----------------------------------------------------------------------===//

#include "Pointwise.h"

using namespace mlir;

namespace ltc_mlir::torch_to_linalg {
namespace {

using namespace pointwise;
using P = arith::CmpFPredicate;

constexpr double kInvLn2 = 1.44269504088896340736; // 1 / ln(2)

Value atan2(OpBuilder &b, Location loc, Type, bool, ArrayRef<Value> v) {
  return math::Atan2Op::create(b, loc, v[0], v[1]);
}

// hypot(x, y): inf if either is infinite (even with a NaN), else
// sqrt(x^2 + y^2) without overflow: in f64 for f32, scaled for f64.
Value hypot(OpBuilder &b, Location loc, Type t, bool, ArrayRef<Value> v) {
  FloatBuilder f{b, loc, t};
  Value anyInf =
      arith::OrIOp::create(b, loc, f.isInf(v[0]), f.isInf(v[1]));
  Value r;
  if (!t.isF64()) {
    FloatBuilder d{b, loc, b.getF64Type()};
    Value x = castScalar(b, loc, v[0], d.t), y = castScalar(b, loc, v[1], d.t);
    r = castScalar(b, loc, d.sqrt(d.add(d.mul(x, x), d.mul(y, y))), t);
  } else {
    Value ax = f.abs(v[0]), ay = f.abs(v[1]);
    Value big = arith::MaximumFOp::create(b, loc, ax, ay);
    Value small = arith::MinimumFOp::create(b, loc, ax, ay);
    Value ratio = f.div(small, big);
    Value scaled = f.mul(big, f.sqrt(f.add(f.c(1), f.mul(ratio, ratio))));
    // big == 0: both zero (0/0 would be NaN).
    r = f.select(f.cmp(P::OEQ, big, f.c(0)), f.c(0), scaled);
  }
  return f.select(anyInf, f.inf(), r);
}

Value copysign(OpBuilder &b, Location loc, Type, bool, ArrayRef<Value> v) {
  return math::CopySignOp::create(b, loc, v[0], v[1]);
}

// logaddexp(a, b) = a if both are the same infinity, else
// m + log1p(exp(-|a - b|)) with m = max(a, b); logaddexp2 in base 2.
template <bool Base2>
Value logaddexp(OpBuilder &b, Location loc, Type t, bool, ArrayRef<Value> v) {
  FloatBuilder f{b, loc, t};
  Value sameInf = arith::AndIOp::create(b, loc, f.isInf(v[0]),
                                        f.cmp(P::OEQ, v[0], v[1]));
  Value m = arith::MaximumFOp::create(b, loc, v[0], v[1]);
  Value negDiff = f.neg(f.abs(f.sub(v[0], v[1])));
  Value r;
  if (Base2)
    r = f.add(m, f.mul(math::Log1pOp::create(
                           b, loc, math::Exp2Op::create(b, loc, negDiff)),
                       f.c(kInvLn2)));
  else
    r = f.add(m, math::Log1pOp::create(b, loc, f.exp(negDiff)));
  return f.select(sameInf, v[0], r);
}

// xlogy(x, y) = NaN if y is NaN, 0 if x == 0, else x * log(y); xlog1py
// with log1p(y).
template <bool Log1p>
Value xlogy(OpBuilder &b, Location loc, Type t, bool, ArrayRef<Value> v) {
  FloatBuilder f{b, loc, t};
  Value log = Log1p ? Value(math::Log1pOp::create(b, loc, v[1])) : f.log(v[1]);
  Value r = f.select(f.cmp(P::OEQ, v[0], f.c(0)), f.c(0), f.mul(v[0], log));
  return f.select(f.isNan(v[1]), v[1], r);
}

// fmax/fmin: the non-NaN operand when one is NaN.
template <bool IsMax>
Value fmaxmin(OpBuilder &b, Location loc, Type t, bool isUnsigned,
              ArrayRef<Value> v) {
  if (isa<FloatType>(t))
    return IsMax ? arith::MaxNumFOp::create(b, loc, v[0], v[1]).getResult()
                 : arith::MinNumFOp::create(b, loc, v[0], v[1]).getResult();
  if (IsMax)
    return isUnsigned ? arith::MaxUIOp::create(b, loc, v[0], v[1]).getResult()
                      : arith::MaxSIOp::create(b, loc, v[0], v[1]).getResult();
  return isUnsigned ? arith::MinUIOp::create(b, loc, v[0], v[1]).getResult()
                    : arith::MinSIOp::create(b, loc, v[0], v[1]).getResult();
}

// heaviside(x, values) = x == 0 ? values : (x > 0) (NaN gives 0).
Value heaviside(OpBuilder &b, Location loc, Type t, bool isUnsigned,
                ArrayRef<Value> v) {
  Value zero = createScalarConstant(b, loc, t, 0);
  Value isZero, positive;
  if (isa<FloatType>(t)) {
    isZero = arith::CmpFOp::create(b, loc, P::OEQ, v[0], zero);
    positive = arith::CmpFOp::create(b, loc, P::OGT, v[0], zero);
  } else {
    isZero = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, v[0], zero);
    positive = arith::CmpIOp::create(
        b, loc, isUnsigned ? arith::CmpIPredicate::ugt : arith::CmpIPredicate::sgt,
        v[0], zero);
  }
  Value step = castScalar(b, loc, positive, t, /*srcUnsigned=*/true);
  return arith::SelectOp::create(b, loc, isZero, v[1], step);
}

Value heavisideBool(OpBuilder &b, Location loc, Type, bool,
                    ArrayRef<Value> v) {
  return arith::OrIOp::create(b, loc, v[0], v[1]);
}

// lerp(self, end, weight): |weight| < 0.5 ? self + weight * (end - self)
//                                          : end - (end - self) * (1 - weight)
// (ATen tests |weight|: it shows with infinities and negative weights).
Value lerp(OpBuilder &b, Location loc, Type t, bool, ArrayRef<Value> v) {
  FloatBuilder f{b, loc, t};
  Value diff = f.sub(v[1], v[0]);
  Value small = f.cmp(P::OLT, math::AbsFOp::create(b, loc, v[2]), f.c(0.5));
  return f.select(small, f.add(v[0], f.mul(v[2], diff)),
                  f.sub(v[1], f.mul(diff, f.sub(f.c(1), v[2]))));
}

/// max/min as clamp computes them: NaN propagates for floats.
Value clampMax(OpBuilder &b, Location loc, Value x, Value bound,
               bool isUnsigned) {
  if (isa<FloatType>(x.getType()))
    return arith::MaximumFOp::create(b, loc, x, bound);
  return isUnsigned ? arith::MaxUIOp::create(b, loc, x, bound).getResult()
                    : arith::MaxSIOp::create(b, loc, x, bound).getResult();
}
Value clampMin(OpBuilder &b, Location loc, Value x, Value bound,
               bool isUnsigned) {
  if (isa<FloatType>(x.getType()))
    return arith::MinimumFOp::create(b, loc, x, bound);
  return isUnsigned ? arith::MinUIOp::create(b, loc, x, bound).getResult()
                    : arith::MinSIOp::create(b, loc, x, bound).getResult();
}

Value clampMinBody(OpBuilder &b, Location loc, Type, bool isUnsigned,
                   ArrayRef<Value> v) {
  return clampMax(b, loc, v[0], v[1], isUnsigned);
}
Value clampMaxBody(OpBuilder &b, Location loc, Type, bool isUnsigned,
                   ArrayRef<Value> v) {
  return clampMin(b, loc, v[0], v[1], isUnsigned);
}
// clamp(self, min?, max?) = min(max(self, min), max).
Value clampBody(OpBuilder &b, Location loc, Type, bool isUnsigned,
                ArrayRef<Value> v) {
  Value x = v[0];
  if (v[1])
    x = clampMax(b, loc, x, v[1], isUnsigned);
  if (v[2])
    x = clampMin(b, loc, x, v[2], isUnsigned);
  return x;
}

Body selectClampTensor(Operation *op, std::string &why) {
  if (isNone(op->getOperand(1)) && isNone(op->getOperand(2))) {
    why = "at least one of min and max must be given";
    return nullptr;
  }
  return clampBody;
}

// rsub(self, other, alpha) = other - alpha * self.
Value rsub(OpBuilder &b, Location loc, Type t, bool, ArrayRef<Value> v) {
  Value scaled = createMul(b, loc, v[2], v[0]);
  if (isa<FloatType>(t))
    return arith::SubFOp::create(b, loc, v[1], scaled);
  return arith::SubIOp::create(b, loc, v[1], scaled);
}

// pow.Scalar(self: Scalar, exponent: Tensor) = pow(self, exponent).
Value powScalar(OpBuilder &b, Location loc, Type, bool, ArrayRef<Value> v) {
  return math::PowFOp::create(b, loc, v[0], v[1]);
}

/// Bool results: max is or, min is and (fmax/fmin, clamp_min/clamp_max
/// with a bool bound tensor).
Value orBool(OpBuilder &b, Location loc, Type, bool, ArrayRef<Value> v) {
  return arith::OrIOp::create(b, loc, v[0], v[1]);
}
Value andBool(OpBuilder &b, Location loc, Type, bool, ArrayRef<Value> v) {
  return arith::AndIOp::create(b, loc, v[0], v[1]);
}

} // namespace

void populateBinaryMathPatterns(TorchTypeConverter &tc,
                                RewritePatternSet &p) {
  using namespace torch;
  pointwise::add<AtenAtan2Op>(tc, p, {Domain::Float, atan2});
  pointwise::add<AtenHypotOp>(tc, p, {Domain::Float, hypot});
  pointwise::add<AtenCopysignTensorOp>(tc, p, {Domain::Float, copysign});
  pointwise::add<AtenCopysignScalarOp>(tc, p, {Domain::Float, copysign});
  pointwise::add<AtenLogaddexpOp>(tc, p, {Domain::Float, logaddexp<false>});
  pointwise::add<AtenLogaddexp2Op>(tc, p, {Domain::Float, logaddexp<true>});
  pointwise::add<AtenXlogyTensorOp>(tc, p, {Domain::Float, xlogy<false>});
  pointwise::add<AtenXlogyScalarSelfOp>(tc, p, {Domain::Float, xlogy<false>});
  pointwise::add<AtenXlogyScalarOtherOp>(tc, p, {Domain::Float, xlogy<false>});
  pointwise::add<AtenSpecialXlog1pyOp>(tc, p, {Domain::Float, xlogy<true>});
  pointwise::add<AtenSpecialXlog1pySelfScalarOp>(tc, p,
                                                 {Domain::Float, xlogy<true>});
  pointwise::add<AtenSpecialXlog1pyOtherScalarOp>(
      tc, p, {Domain::Float, xlogy<true>});
  pointwise::add<AtenFmaxOp>(tc, p, {Domain::Numeric, fmaxmin<true>, orBool});
  pointwise::add<AtenFminOp>(tc, p, {Domain::Numeric, fmaxmin<false>, andBool});
  pointwise::add<AtenHeavisideOp>(tc, p,
                                  {Domain::Numeric, heaviside, heavisideBool});
  pointwise::add<AtenLerpScalarOp>(tc, p, {Domain::Float, lerp});
  pointwise::add<AtenLerpTensorOp>(tc, p, {Domain::Float, lerp});
  pointwise::add<AtenClampMinOp>(tc, p, {Domain::Numeric, clampMinBody});
  pointwise::add<AtenClampMinTensorOp>(tc, p,
                                       {Domain::Numeric, clampMinBody, orBool});
  pointwise::add<AtenClampMaxOp>(tc, p, {Domain::Numeric, clampMaxBody});
  pointwise::add<AtenClampMaxTensorOp>(tc, p,
                                       {Domain::Numeric, clampMaxBody, andBool});
  Spec clampTensor{Domain::Numeric, nullptr};
  clampTensor.select = selectClampTensor;
  pointwise::add<AtenClampTensorOp>(tc, p, clampTensor);
  pointwise::add<AtenRsubTensorOp>(tc, p, {Domain::Numeric, rsub});
  pointwise::add<AtenRsubScalarOp>(tc, p, {Domain::Numeric, rsub});
  pointwise::add<AtenPowScalarOp>(tc, p, {Domain::Float, powScalar});
}

} // namespace ltc_mlir::torch_to_linalg
