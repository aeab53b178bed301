//===- UnaryMath.cpp - unary float math and float classification ----------===//
//
// reciprocal, ceil/floor/trunc/frac, inverse and hyperbolic trigonometry,
// tan, log1p/log10/log2/exp2/expm1, erfc, sinc, sign, angle, logit (and
// its backward), nan_to_num: ATen's CPU formulas through the math dialect
// (libm for what has no LLVM intrinsic), integer inputs converted to the
// float result, f16/bf16 in f32 (Pointwise.h). ceil/floor/trunc/sign and
// nan_to_num of an integer tensor are copies (sign: -1/0/1), as in ATen.
//
// isnan, isinf, isposinf, isneginf, isfinite, signbit: bool results from
// any input dtype (integers are never NaN nor infinite; signbit of an
// integer is x < 0, and of a float its sign bit, so also -0.0 and -NaN).
//
//===----------------------------------------------------------------------===//

#include "Pointwise.h"

#include <cmath>
#include <limits>

using namespace mlir;

namespace ltc_mlir::torch_to_linalg {
namespace {

using namespace pointwise;

constexpr double kPi = 3.14159265358979323846;

template <typename MathOp>
Spec unaryMath() {
  return {Domain::Float,
          [](OpBuilder &b, Location loc, Type, bool, ArrayRef<Value> v) {
            return MathOp::create(b, loc, v[0]).getResult();
          }};
}

/// ceil/floor/trunc: the math op on floats, a copy of integers.
template <typename MathOp>
Spec rounding() {
  return {Domain::Numeric,
          [](OpBuilder &b, Location loc, Type t, bool, ArrayRef<Value> v) {
            if (!isa<FloatType>(t))
              return v[0];
            return MathOp::create(b, loc, v[0]).getResult();
          }};
}

Value reciprocal(OpBuilder &b, Location loc, Type t, bool, ArrayRef<Value> v) {
  FloatBuilder f{b, loc, t};
  return f.div(f.c(1), v[0]);
}

Value frac(OpBuilder &b, Location loc, Type t, bool, ArrayRef<Value> v) {
  FloatBuilder f{b, loc, t};
  return f.sub(v[0], f.trunc(v[0]));
}

// sinc(x) = x == 0 ? 1 : sin(pi x) / (pi x), with pi x in the opmath type.
Value sinc(OpBuilder &b, Location loc, Type t, bool, ArrayRef<Value> v) {
  FloatBuilder f{b, loc, t};
  Value product = f.mul(f.c(kPi), v[0]);
  Value r = f.div(math::SinOp::create(b, loc, product), product);
  return f.select(f.cmp(arith::CmpFPredicate::OEQ, v[0], f.c(0)), f.c(1), r);
}

// sign(x) = (0 < x) - (x < 0): 0 for zeros and NaN; bool: the identity.
Value sign(OpBuilder &b, Location loc, Type t, bool isUnsigned,
           ArrayRef<Value> v) {
  Value zero = createScalarConstant(b, loc, t, 0);
  Value one = createScalarConstant(b, loc, t, 1);
  Value positive, negative;
  if (isa<FloatType>(t)) {
    positive =
        arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OGT, v[0], zero);
    negative =
        arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OLT, v[0], zero);
  } else {
    positive = arith::CmpIOp::create(
        b, loc, isUnsigned ? arith::CmpIPredicate::ugt : arith::CmpIPredicate::sgt,
        v[0], zero);
    if (isUnsigned)
      return arith::SelectOp::create(b, loc, positive, one, zero);
    negative =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, v[0], zero);
  }
  Value minusOne = createScalarConstant(b, loc, t, -1);
  return arith::SelectOp::create(
      b, loc, positive, one,
      arith::SelectOp::create(b, loc, negative, minusOne, zero));
}

// angle of a real number: NaN stays, pi for negatives, 0 otherwise.
Value angle(OpBuilder &b, Location loc, Type t, bool, ArrayRef<Value> v) {
  FloatBuilder f{b, loc, t};
  Value r = f.select(f.cmp(arith::CmpFPredicate::OLT, v[0], f.c(0)), f.c(kPi),
                     f.c(0));
  return f.select(f.isNan(v[0]), v[0], r);
}

// logit(x, eps): log(z / (1 - z)) with z = x clamped to [eps, 1 - eps]
// (NaN passes) when eps is given, z = x otherwise.
Value logit(OpBuilder &b, Location loc, Type t, bool, ArrayRef<Value> v) {
  FloatBuilder f{b, loc, t};
  Value z = v[0];
  if (v[1]) {
    Value lo = v[1], hi = f.sub(f.c(1), v[1]);
    z = f.select(f.cmp(arith::CmpFPredicate::OLT, z, lo), lo,
                 f.select(f.cmp(arith::CmpFPredicate::OGT, z, hi), hi, z));
  }
  return f.log(f.div(z, f.sub(f.c(1), z)));
}

// logit_backward(grad, x, eps): grad / (x (1 - x)) inside the domain;
// outside it NaN without eps ([0, 1]) and 0 with eps ([eps, 1 - eps]).
Value logitBackward(OpBuilder &b, Location loc, Type t, bool,
                    ArrayRef<Value> v) {
  FloatBuilder f{b, loc, t};
  Value x = v[1];
  Value lo = v[2] ? v[2] : f.c(0);
  Value hi = v[2] ? f.sub(f.c(1), v[2]) : f.c(1);
  Value outside = arith::OrIOp::create(b, loc,
                                       f.cmp(arith::CmpFPredicate::OLT, x, lo),
                                       f.cmp(arith::CmpFPredicate::OGT, x, hi));
  Value inside = f.div(v[0], f.mul(x, f.sub(f.c(1), x)));
  return f.select(outside, v[2] ? f.c(0) : f.nan(), inside);
}

// nan_to_num(x, nan, posinf, neginf): defaults 0, the dtype's largest and
// lowest finite values. Integers are copied.
Body selectNanToNum(Operation *op, std::string &) {
  Type dtype = getTorchDtype(op->getResult(0));
  double big = std::numeric_limits<double>::max();
  if (dtype.isF32())
    big = std::numeric_limits<float>::max();
  else if (dtype.isF16())
    big = 65504.0;
  else if (dtype.isBF16())
    big = 3.38953138925153547590e38;
  return [big](OpBuilder &b, Location loc, Type t, bool, ArrayRef<Value> v) {
    if (!isa<FloatType>(t))
      return v[0];
    FloatBuilder f{b, loc, t};
    Value nan = v[1] ? v[1] : f.c(0);
    Value pos = v[2] ? v[2] : f.c(big);
    Value neg = v[3] ? v[3] : f.c(-big);
    Value x = v[0];
    Value r = f.select(f.cmp(arith::CmpFPredicate::OEQ, x, f.inf()), pos, x);
    r = f.select(f.cmp(arith::CmpFPredicate::OEQ, x, f.neg(f.inf())), neg, r);
    return f.select(f.isNan(x), nan, r);
  };
}

//===----------------------------------------------------------------------===//
// Classification: bool result, computed on the input's own dtype.
//===----------------------------------------------------------------------===//

enum class Classify { IsNan, IsInf, IsPosInf, IsNegInf, IsFinite, SignBit };

template <typename OpTy>
class ConvertClassifyOp : public TorchConversionPattern<OpTy> {
public:
  using OpAdaptor = typename OpTy::Adaptor;
  ConvertClassifyOp(const TorchTypeConverter &tc, MLIRContext *ctx,
                    Classify kind)
      : TorchConversionPattern<OpTy>(tc, ctx), kind(kind) {}

  LogicalResult
  matchAndRewrite(OpTy op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    RankedTensorType resultType = this->getTensorType(op.getType());
    if (!resultType || !isBoolDtype(getTorchDtype(op.getResult())))
      return this->fail(op, rewriter, "expects a bool result");
    Type storage = resultType.getElementType();
    Type inDtype = getTorchDtype(op.getSelf());
    bool inUnsigned = isUnsignedDtype(inDtype) || isBoolDtype(inDtype);
    FailureOr<Value> result = createElementwiseOp(
        rewriter, op.getLoc(), resultType, adaptor.getSelf(),
        [&](OpBuilder &b, Location loc, ValueRange args) {
          Value r = classify(b, loc, args[0], inUnsigned);
          return castScalar(b, loc, r, storage, /*srcUnsigned=*/true);
        });
    return this->replaceOrFail(op, rewriter, result,
                               "operand shape does not match the result");
  }

private:
  Value classify(OpBuilder &b, Location loc, Value x, bool inUnsigned) const {
    auto boolConst = [&](bool v) -> Value {
      return arith::ConstantIntOp::create(b, loc, v ? 1 : 0, 1);
    };
    auto intType = dyn_cast<IntegerType>(x.getType());
    if (intType) {
      if (kind == Classify::IsFinite)
        return boolConst(true);
      if (kind != Classify::SignBit || inUnsigned)
        return boolConst(false);
      return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, x,
                                   createIntConstant(b, loc, intType, 0));
    }
    FloatBuilder f{b, loc, x.getType()};
    using P = arith::CmpFPredicate;
    switch (kind) {
    case Classify::IsNan:
      return f.isNan(x);
    case Classify::IsInf:
      return f.isInf(x);
    case Classify::IsPosInf:
      return f.cmp(P::OEQ, x, f.inf());
    case Classify::IsNegInf:
      return f.cmp(P::OEQ, x, f.neg(f.inf()));
    case Classify::IsFinite:
      return f.cmp(P::OLT, f.abs(x), f.inf());
    case Classify::SignBit: {
      unsigned width = x.getType().getIntOrFloatBitWidth();
      Type bits = b.getIntegerType(width);
      Value asInt = arith::BitcastOp::create(b, loc, bits, x);
      return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, asInt,
                                   createIntConstant(b, loc, bits, 0));
    }
    }
    llvm_unreachable("unknown classification");
  }

  Classify kind;
};

template <typename OpTy>
void addClassify(TorchTypeConverter &tc, RewritePatternSet &p, Classify kind) {
  p.add<ConvertClassifyOp<OpTy>>(tc, p.getContext(), kind);
}

} // namespace

void populateUnaryMathPatterns(TorchTypeConverter &tc,
                               RewritePatternSet &p) {
  using namespace torch;
  pointwise::add<AtenReciprocalOp>(tc, p, {Domain::Float, reciprocal});
  pointwise::add<AtenCeilOp>(tc, p, rounding<math::CeilOp>());
  pointwise::add<AtenFloorOp>(tc, p, rounding<math::FloorOp>());
  pointwise::add<AtenTruncOp>(tc, p, rounding<math::TruncOp>());
  pointwise::add<AtenFracOp>(tc, p, {Domain::Float, frac});
  pointwise::add<AtenAcosOp>(tc, p, unaryMath<math::AcosOp>());
  pointwise::add<AtenAsinOp>(tc, p, unaryMath<math::AsinOp>());
  pointwise::add<AtenAtanOp>(tc, p, unaryMath<math::AtanOp>());
  pointwise::add<AtenAcoshOp>(tc, p, unaryMath<math::AcoshOp>());
  pointwise::add<AtenAsinhOp>(tc, p, unaryMath<math::AsinhOp>());
  pointwise::add<AtenAtanhOp>(tc, p, unaryMath<math::AtanhOp>());
  pointwise::add<AtenTanOp>(tc, p, unaryMath<math::TanOp>());
  pointwise::add<AtenSinhOp>(tc, p, unaryMath<math::SinhOp>());
  pointwise::add<AtenCoshOp>(tc, p, unaryMath<math::CoshOp>());
  pointwise::add<AtenLog1pOp>(tc, p, unaryMath<math::Log1pOp>());
  pointwise::add<AtenLog10Op>(tc, p, unaryMath<math::Log10Op>());
  pointwise::add<AtenLog2Op>(tc, p, unaryMath<math::Log2Op>());
  pointwise::add<AtenExp2Op>(tc, p, unaryMath<math::Exp2Op>());
  pointwise::add<AtenExpm1Op>(tc, p, unaryMath<math::ExpM1Op>());
  pointwise::add<AtenErfcOp>(tc, p, unaryMath<math::ErfcOp>());
  pointwise::add<AtenSincOp>(tc, p, {Domain::Float, sinc});
  pointwise::add<AtenSignOp>(
      tc, p,
      {Domain::Numeric, sign,
       [](OpBuilder &, Location, Type, bool, ArrayRef<Value> v) {
         return v[0];
       }});
  pointwise::add<AtenAngleOp>(tc, p, {Domain::Float, angle});
  pointwise::add<AtenLogitOp>(tc, p, {Domain::Float, logit});
  pointwise::add<AtenLogitBackwardOp>(tc, p, {Domain::Float, logitBackward});
  Spec nanToNum{Domain::Numeric, nullptr};
  nanToNum.select = selectNanToNum;
  nanToNum.boolBody = [](OpBuilder &, Location, Type, bool, ArrayRef<Value> v) {
    return v[0]; // a bool has no NaN or infinity
  };
  pointwise::add<AtenNanToNumOp>(tc, p, nanToNum);

  addClassify<AtenIsnanOp>(tc, p, Classify::IsNan);
  addClassify<AtenIsinfOp>(tc, p, Classify::IsInf);
  addClassify<AtenIsposinfOp>(tc, p, Classify::IsPosInf);
  addClassify<AtenIsneginfOp>(tc, p, Classify::IsNegInf);
  addClassify<AtenIsfiniteOp>(tc, p, Classify::IsFinite);
  addClassify<AtenSignbitOp>(tc, p, Classify::SignBit);
}

} // namespace ltc_mlir::torch_to_linalg
