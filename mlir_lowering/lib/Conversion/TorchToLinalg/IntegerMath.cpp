//===- IntegerMath.cpp - shifts, gcd, lcm; nextafter ----------------------===//
//
// Integer ops as ATen's CPU kernels compute them, in the result's integer
// type:
//  - bitwise_left_shift / bitwise_right_shift (and the << >> operators):
//    ATen's defined results for the counts C leaves undefined (negative,
//    or at least the width): 0, or the sign fill of a right shift;
//  - gcd: Euclid's algorithm on |a|, |b| (an scf.while per element);
//    lcm: |a / gcd * b|, 0 when gcd is 0.
// nextafter(x, y): the next representable value of x's float type towards
// y, computed on the bits of the result dtype (bf16 and f16 included, whose
// elements the shared pattern hands over widened to f32).
//
//===----------------------------------------------------------------------===//

#include "Pointwise.h"

#include "mlir/Dialect/SCF/IR/SCF.h"


using namespace mlir;

namespace ltc_mlir::torch_to_linalg {
namespace {

using namespace pointwise;
using IP = arith::CmpIPredicate;

Value intConst(OpBuilder &b, Location loc, Type t, int64_t v) {
  return createIntConstant(b, loc, t, v);
}

/// a << b or a >> b as ATen's CPU kernels compute it (torch 2.x defines
/// the counts C leaves undefined): a left shift by a negative count or by
/// at least the width is 0; a signed right shift by a negative count or by
/// at least width - 1 fills with the sign (a >> (width - 1)); an unsigned
/// one by at least the width is 0. The count is clamped before the shift,
/// whose result MLIR leaves undefined for such counts.
template <bool Left>
Value shift(OpBuilder &b, Location loc, Type t, bool isUnsigned,
            ArrayRef<Value> v) {
  int64_t bits = t.getIntOrFloatBitWidth();
  Value a = v[0], count = v[1];
  Value zero = intConst(b, loc, t, 0);
  // Unsigned comparison: a negative signed count compares as huge.
  int64_t limit = (Left || isUnsigned) ? bits : bits - 1;
  Value inRange =
      arith::CmpIOp::create(b, loc, IP::ult, count, intConst(b, loc, t, limit));
  if (!Left && !isUnsigned) {
    Value clamped = arith::SelectOp::create(b, loc, inRange, count,
                                            intConst(b, loc, t, bits - 1));
    return arith::ShRSIOp::create(b, loc, a, clamped);
  }
  Value safeCount = arith::SelectOp::create(b, loc, inRange, count, zero);
  Value r = Left ? arith::ShLIOp::create(b, loc, a, safeCount).getResult()
                 : arith::ShRUIOp::create(b, loc, a, safeCount).getResult();
  return arith::SelectOp::create(b, loc, inRange, r, zero);
}

Value absInt(OpBuilder &b, Location loc, Type t, bool isUnsigned, Value x) {
  if (isUnsigned)
    return x;
  Value negative =
      arith::CmpIOp::create(b, loc, IP::slt, x, intConst(b, loc, t, 0));
  Value negated = arith::SubIOp::create(b, loc, intConst(b, loc, t, 0), x);
  return arith::SelectOp::create(b, loc, negative, negated, x);
}

/// gcd(|a|, |b|): while a != 0: (a, b) = (b % a, a). The remainder is
/// unsigned on the absolute values (|INT_MIN| wraps to INT_MIN, whose
/// unsigned value is right).
Value gcdOf(OpBuilder &b, Location loc, Type t, bool isUnsigned, Value x,
            Value y) {
  Value a0 = absInt(b, loc, t, isUnsigned, x);
  Value b0 = absInt(b, loc, t, isUnsigned, y);
  auto loop = scf::WhileOp::create(
      b, loc, TypeRange{t, t}, ValueRange{a0, b0},
      [&](OpBuilder &nb, Location l, ValueRange args) {
        Value nonzero = arith::CmpIOp::create(nb, l, IP::ne, args[0],
                                              intConst(nb, l, t, 0));
        scf::ConditionOp::create(nb, l, nonzero, args);
      },
      [&](OpBuilder &nb, Location l, ValueRange args) {
        Value rem = arith::RemUIOp::create(nb, l, args[1], args[0]);
        scf::YieldOp::create(nb, l, ValueRange{rem, args[0]});
      });
  return loop.getResult(1);
}

Value gcd(OpBuilder &b, Location loc, Type t, bool isUnsigned,
          ArrayRef<Value> v) {
  return gcdOf(b, loc, t, isUnsigned, v[0], v[1]);
}

Value lcm(OpBuilder &b, Location loc, Type t, bool isUnsigned,
          ArrayRef<Value> v) {
  Value g = gcdOf(b, loc, t, isUnsigned, v[0], v[1]);
  Value zero = arith::CmpIOp::create(b, loc, IP::eq, g, intConst(b, loc, t, 0));
  Value safe = arith::SelectOp::create(b, loc, zero, intConst(b, loc, t, 1), g);
  Value quotient = isUnsigned ? arith::DivUIOp::create(b, loc, v[0], safe).getResult()
                              : arith::DivSIOp::create(b, loc, v[0], safe).getResult();
  Value product = arith::MulIOp::create(b, loc, quotient, v[1]);
  return arith::SelectOp::create(b, loc, zero, intConst(b, loc, t, 0),
                                 absInt(b, loc, t, isUnsigned, product));
}

/// nextafter on the bits of `storage` (the result's float type); x and y
/// arrive in the computation type `t`, in which storage values are exact.
Body nextafterIn(FloatType storage) {
  return [storage](OpBuilder &b, Location loc, Type t, bool,
                   ArrayRef<Value> v) mutable -> Value {
    unsigned width = storage.getWidth();
    Type bits = b.getIntegerType(width);
    FloatBuilder f{b, loc, t};
    Value x = v[0], y = v[1];
    Value xs = castScalar(b, loc, x, storage);
    Value ix = arith::BitcastOp::create(b, loc, bits, xs);
    // Away from zero (the bits + 1: floats are sign-magnitude) when y lies
    // beyond x on x's side of zero, else towards it (the bits - 1).
    Value away = arith::XOrIOp::create(
        b, loc, f.cmp(arith::CmpFPredicate::OGT, y, x),
        f.cmp(arith::CmpFPredicate::OLE, x, f.c(0)));
    Value step = arith::SelectOp::create(b, loc, away, intConst(b, loc, bits, 1),
                                         intConst(b, loc, bits, -1));
    Value next = arith::AddIOp::create(b, loc, ix, step);
    Value r = castScalar(b, loc, arith::BitcastOp::create(b, loc, storage, next), t);
    // From zero: the smallest subnormal with y's sign.
    Value tiny = castScalar(
        b, loc, arith::BitcastOp::create(b, loc, storage, intConst(b, loc, bits, 1)),
        t);
    Value fromZero = math::CopySignOp::create(b, loc, tiny, y);
    r = f.select(f.cmp(arith::CmpFPredicate::OEQ, x, f.c(0)), fromZero, r);
    r = f.select(f.cmp(arith::CmpFPredicate::OEQ, x, y), y, r);
    Value nan = arith::OrIOp::create(b, loc, f.isNan(x), f.isNan(y));
    return f.select(nan, f.add(x, y), r);
  };
}

Body selectNextafter(Operation *op, std::string &why) {
  auto storage = dyn_cast_or_null<FloatType>(getTorchDtype(op->getResult(0)));
  if (!storage) {
    why = "nextafter needs a float result dtype";
    return nullptr;
  }
  return nextafterIn(storage);
}

} // namespace

void populateIntegerMathPatterns(TorchTypeConverter &tc, RewritePatternSet &p) {
  using namespace torch;
  using pointwise::Domain;
  pointwise::add<AtenBitwiseLeftShiftTensorOp>(tc, p, {Domain::Integral, shift<true>});
  pointwise::add<AtenBitwiseLeftShiftTensorScalarOp>(tc, p,
                                                     {Domain::Integral, shift<true>});
  pointwise::add<AtenLshiftTensorOp>(tc, p, {Domain::Integral, shift<true>});
  pointwise::add<AtenLshiftScalarOp>(tc, p, {Domain::Integral, shift<true>});
  pointwise::add<AtenBitwiseRightShiftTensorOp>(tc, p, {Domain::Integral, shift<false>});
  pointwise::add<AtenBitwiseRightShiftTensorScalarOp>(tc, p,
                                                      {Domain::Integral, shift<false>});
  pointwise::add<AtenRshiftTensorOp>(tc, p, {Domain::Integral, shift<false>});
  pointwise::add<AtenRshiftScalarOp>(tc, p, {Domain::Integral, shift<false>});
  pointwise::add<AtenGcdOp>(tc, p, {Domain::Integral, gcd});
  pointwise::add<AtenLcmOp>(tc, p, {Domain::Integral, lcm});
  Spec nextafter{Domain::Float, nullptr};
  nextafter.select = selectNextafter;
  pointwise::add<AtenNextafterOp>(tc, p, nextafter);
}

} // namespace ltc_mlir::torch_to_linalg
