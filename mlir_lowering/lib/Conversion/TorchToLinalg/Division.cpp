//===- Division.cpp - rounded division, remainder, fmod, bitwise ops ------===//
//
// div with rounding_mode (None, "trunc", "floor"), floor_divide, remainder
// (result has the divisor's sign) and fmod (the dividend's sign), in
// floats as ATen's CPU kernels compute them (div_floor_floating's
// correction of (a - fmod(a, b)) / b; IEEE results for a zero divisor) and
// in integers with C semantics plus the floor/sign corrections. An integer
// divisor of 0 is a run-time error (eager: "ZeroDivisionError"); the code
// divides by 1 instead, and INT_MIN / -1 wraps (x86's idiv would trap).
//
// bitwise_and/or/xor (.Tensor and .Scalar) of integers and bools.
//
//===----------------------------------------------------------------------===//

#include "Pointwise.h"

using namespace mlir;

namespace ltc_mlir::torch_to_linalg {
namespace {

using namespace pointwise;
using P = arith::CmpFPredicate;
using IP = arith::CmpIPredicate;

enum class Rounding { True, Trunc, Floor };

struct IntBuilder {
  OpBuilder &b;
  Location loc;
  Type t;
  Value c(int64_t v) const { return createIntConstant(b, loc, t, v); }
  Value cmp(IP p, Value x, Value y) const {
    return arith::CmpIOp::create(b, loc, p, x, y);
  }
  Value select(Value cond, Value x, Value y) const {
    return arith::SelectOp::create(b, loc, cond, x, y);
  }
};

/// Integer quotient and remainder of a / d with C semantics (truncation),
/// safe for d == 0 (divides by 1; the run-time check reports it) and for
/// d == -1 (-a and 0, wrapping like two's complement).
std::pair<Value, Value> intDivRem(OpBuilder &b, Location loc, Type t,
                                  bool isUnsigned, Value a, Value d) {
  IntBuilder i{b, loc, t};
  if (isUnsigned) {
    Value safe = i.select(i.cmp(IP::eq, d, i.c(0)), i.c(1), d);
    return {arith::DivUIOp::create(b, loc, a, safe),
            arith::RemUIOp::create(b, loc, a, safe)};
  }
  Value minusOne = i.cmp(IP::eq, d, i.c(-1));
  Value unsafe = arith::OrIOp::create(b, loc, minusOne, i.cmp(IP::eq, d, i.c(0)));
  Value safe = i.select(unsafe, i.c(1), d);
  Value q = arith::DivSIOp::create(b, loc, a, safe);
  Value r = arith::RemSIOp::create(b, loc, a, safe);
  Value negA = arith::SubIOp::create(b, loc, i.c(0), a);
  return {i.select(minusOne, negA, q), i.select(minusOne, i.c(0), r)};
}

/// r != 0 && (r < 0) != (d < 0): the C remainder has the wrong sign for a
/// floor division.
Value intNeedsFloorFix(IntBuilder &i, Value r, Value d) {
  Value nonZero = i.cmp(IP::ne, r, i.c(0));
  Value signsDiffer = arith::XOrIOp::create(i.b, i.loc, i.cmp(IP::slt, r, i.c(0)),
                                            i.cmp(IP::slt, d, i.c(0)));
  return arith::AndIOp::create(i.b, i.loc, nonZero, signsDiffer);
}

template <Rounding Mode>
Value divide(OpBuilder &b, Location loc, Type t, bool isUnsigned,
             ArrayRef<Value> v) {
  Value a = v[0], d = v[1];
  if (auto floatType = dyn_cast<FloatType>(t)) {
    FloatBuilder f{b, loc, t};
    if (Mode == Rounding::True)
      return f.div(a, d);
    if (Mode == Rounding::Trunc)
      return f.trunc(f.div(a, d));
    // ATen's div_floor_floating.
    Value mod = arith::RemFOp::create(b, loc, a, d);
    Value q = f.div(f.sub(a, mod), d);
    Value fix = arith::AndIOp::create(
        b, loc, f.cmp(P::UNE, mod, f.c(0)),
        arith::XOrIOp::create(b, loc, f.cmp(P::OLT, d, f.c(0)),
                              f.cmp(P::OLT, mod, f.c(0))));
    q = f.select(fix, f.sub(q, f.c(1)), q);
    Value fl = f.floor(q);
    fl = f.select(f.cmp(P::OGT, f.sub(q, fl), f.c(0.5)), f.add(fl, f.c(1)), fl);
    Value zeroResult =
        math::CopySignOp::create(b, loc, f.c(0), f.div(a, d));
    Value r = f.select(f.cmp(P::UNE, q, f.c(0)), fl, zeroResult);
    return f.select(f.cmp(P::OEQ, d, f.c(0)), f.div(a, d), r);
  }
  auto [q, r] = intDivRem(b, loc, t, isUnsigned, a, d);
  if (Mode != Rounding::Floor || isUnsigned)
    return q;
  IntBuilder i{b, loc, t};
  return i.select(intNeedsFloorFix(i, r, d),
                  arith::SubIOp::create(b, loc, q, i.c(1)), q);
}

Body selectDivMode(Operation *op, std::string &why) {
  Value mode = op->getOperand(2);
  if (isNone(mode))
    return divide<Rounding::True>;
  std::optional<std::string> s = getConstantStr(mode);
  if (s && *s == "trunc")
    return divide<Rounding::Trunc>;
  if (s && *s == "floor")
    return divide<Rounding::Floor>;
  why = "rounding_mode must be a constant None, \"trunc\" or \"floor\"";
  return nullptr;
}

// remainder: fmod corrected to the divisor's sign; fmod: C fmod / %.
template <bool IsRemainder>
Value remainder(OpBuilder &b, Location loc, Type t, bool isUnsigned,
                ArrayRef<Value> v) {
  Value a = v[0], d = v[1];
  if (isa<FloatType>(t)) {
    FloatBuilder f{b, loc, t};
    Value mod = arith::RemFOp::create(b, loc, a, d);
    if (!IsRemainder)
      return mod;
    Value fix = arith::AndIOp::create(
        b, loc, f.cmp(P::UNE, mod, f.c(0)),
        arith::XOrIOp::create(b, loc, f.cmp(P::OLT, d, f.c(0)),
                              f.cmp(P::OLT, mod, f.c(0))));
    return f.select(fix, f.add(mod, d), mod);
  }
  Value r = intDivRem(b, loc, t, isUnsigned, a, d).second;
  if (!IsRemainder || isUnsigned)
    return r;
  IntBuilder i{b, loc, t};
  return i.select(intNeedsFloorFix(i, r, d),
                  arith::AddIOp::create(b, loc, r, d), r);
}

Spec division(Body body) {
  Spec s{Domain::Numeric, std::move(body)};
  s.divisor = 1;
  return s;
}

enum class BitOp { And, Or, Xor };

template <BitOp Kind>
Value bitwise(OpBuilder &b, Location loc, Type, bool, ArrayRef<Value> v) {
  switch (Kind) {
  case BitOp::And:
    return arith::AndIOp::create(b, loc, v[0], v[1]);
  case BitOp::Or:
    return arith::OrIOp::create(b, loc, v[0], v[1]);
  case BitOp::Xor:
    return arith::XOrIOp::create(b, loc, v[0], v[1]);
  }
  llvm_unreachable("unknown bitwise op");
}

template <BitOp Kind>
Spec bitwiseSpec() {
  return {Domain::Integral, bitwise<Kind>, bitwise<Kind>};
}

} // namespace

void populateDivisionPatterns(TorchTypeConverter &tc, RewritePatternSet &p) {
  using namespace torch;
  Spec divMode = division(nullptr);
  divMode.select = selectDivMode;
  pointwise::add<AtenDivTensorModeOp>(tc, p, divMode);
  pointwise::add<AtenDivScalarModeOp>(tc, p, divMode);
  pointwise::add<AtenFloorDivideOp>(tc, p, division(divide<Rounding::Floor>));
  pointwise::add<AtenFloorDivideScalarOp>(tc, p,
                                          division(divide<Rounding::Floor>));
  pointwise::add<AtenRemainderTensorOp>(tc, p, division(remainder<true>));
  pointwise::add<AtenRemainderScalarOp>(tc, p, division(remainder<true>));
  pointwise::add<AtenFmodTensorOp>(tc, p, division(remainder<false>));
  pointwise::add<AtenFmodScalarOp>(tc, p, division(remainder<false>));

  pointwise::add<AtenBitwiseAndTensorOp>(tc, p, bitwiseSpec<BitOp::And>());
  pointwise::add<AtenBitwiseAndScalarOp>(tc, p, bitwiseSpec<BitOp::And>());
  pointwise::add<AtenBitwiseOrTensorOp>(tc, p, bitwiseSpec<BitOp::Or>());
  pointwise::add<AtenBitwiseOrScalarOp>(tc, p, bitwiseSpec<BitOp::Or>());
  pointwise::add<AtenBitwiseXorTensorOp>(tc, p, bitwiseSpec<BitOp::Xor>());
  pointwise::add<AtenBitwiseXorScalarOp>(tc, p, bitwiseSpec<BitOp::Xor>());
}

} // namespace ltc_mlir::torch_to_linalg
