//===- FloatMath.cpp - sin, erf, round, round.decimals ---------------------===//
//
// Unary float math with ATen's CPU semantics: integer inputs are converted
// to the (float) result dtype first; f16/bf16 compute in f32 (ATen's opmath
// type) and are rounded once. round is round-half-to-even (std::nearbyint
// in the default rounding mode); round of an integer tensor is a copy, as
// in ATen. round.decimals follows ATen's round_decimals_kernel, in the
// opmath type: p = 10^|decimals|, decimals >= 0: nearbyint(x * p) / p,
// else nearbyint(x / p) * p, rounded to the dtype once at the end.
//
//===----------------------------------------------------------------------===//

#include "ltc_mlir/Conversion/TorchToLinalg/Utils.h"

#include "mlir/Dialect/Math/IR/Math.h"

#include <cmath>

using namespace mlir;

namespace ltc_mlir::torch_to_linalg {
namespace {

enum class MathKind { Sin, Erf, Round };

template <typename OpTy, MathKind Kind>
class ConvertUnaryFloatMathOp : public TorchConversionPattern<OpTy> {
public:
  using OpAdaptor = typename OpTy::Adaptor;
  using TorchConversionPattern<OpTy>::TorchConversionPattern;

  LogicalResult
  matchAndRewrite(OpTy op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    RankedTensorType resultType = this->getTensorType(op.getType());
    if (!resultType)
      return this->fail(op, rewriter, "result type is not convertible");
    Type resultElem = resultType.getElementType();
    bool inputUnsigned = isUnsignedDtype(getTorchDtype(op.getSelf()));
    auto elemType = dyn_cast<FloatType>(resultElem);
    if (!elemType) {
      // round of an integer tensor is a copy (ATen's round_out).
      if (Kind != MathKind::Round)
        return this->fail(op, rewriter,
                          "needs a floating-point result dtype");
      return this->replaceOrFail(
          op, rewriter,
          createElementwiseOp(rewriter, op.getLoc(), resultType,
                              adaptor.getSelf(),
                              [&](OpBuilder &b, Location loc, ValueRange args) {
                                return castScalar(b, loc, args[0], resultElem,
                                                  inputUnsigned);
                              }),
          "operand shape does not match the result");
    }
    Type t = getOpmathType(elemType);
    FailureOr<Value> result = createElementwiseOp(
        rewriter, op.getLoc(), resultType, adaptor.getSelf(),
        [&](OpBuilder &b, Location loc, ValueRange args) {
          Value x = castScalar(b, loc, args[0], t, inputUnsigned);
          Value r;
          switch (Kind) {
          case MathKind::Sin:
            r = math::SinOp::create(b, loc, x);
            break;
          case MathKind::Erf:
            r = math::ErfOp::create(b, loc, x);
            break;
          case MathKind::Round:
            r = math::RoundEvenOp::create(b, loc, x);
            break;
          }
          return castScalar(b, loc, r, elemType);
        });
    return this->replaceOrFail(op, rewriter, result,
                               "operand shape does not match the result");
  }
};

class ConvertRoundDecimalsOp
    : public TorchConversionPattern<torch::AtenRoundDecimalsOp> {
public:
  using Base::Base;
  LogicalResult
  matchAndRewrite(torch::AtenRoundDecimalsOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    RankedTensorType resultType = getTensorType(op.getType());
    if (!resultType)
      return fail(op, rewriter, "result type is not convertible");
    auto elemType = dyn_cast<FloatType>(resultType.getElementType());
    if (!elemType)
      return fail(op, rewriter, "needs a floating-point result dtype");
    std::optional<int64_t> decimals = getConstantInt(op.getDecimals());
    if (!decimals)
      return fail(op, rewriter, "decimals must be a constant int");
    bool negative = *decimals < 0;
    int64_t digits = negative ? -*decimals : *decimals;
    Type t = getOpmathType(elemType);
    bool inputUnsigned = isUnsignedDtype(getTorchDtype(op.getSelf()));
    FailureOr<Value> result = createElementwiseOp(
        rewriter, op.getLoc(), resultType, adaptor.getSelf(),
        [&](OpBuilder &b, Location loc, ValueRange args) {
          // ten_pow_decimals = static_cast<opmath_t>(std::pow(10, digits)).
          Value p = castScalar(
              b, loc,
              arith::ConstantOp::create(
                  b, loc, b.getF64FloatAttr(std::pow(10.0, double(digits)))),
              t);
          Value x = castScalar(b, loc, args[0], elemType, inputUnsigned);
          x = castScalar(b, loc, x, t);
          Value scaled = negative ? Value(arith::DivFOp::create(b, loc, x, p))
                                  : Value(arith::MulFOp::create(b, loc, x, p));
          Value r = math::RoundEvenOp::create(b, loc, scaled);
          r = negative ? Value(arith::MulFOp::create(b, loc, r, p))
                       : Value(arith::DivFOp::create(b, loc, r, p));
          return castScalar(b, loc, r, elemType);
        });
    return replaceOrFail(op, rewriter, result,
                         "operand shape does not match the result");
  }
};

} // namespace

void populateFloatMathPatterns(TorchTypeConverter &typeConverter,
                               RewritePatternSet &patterns) {
  patterns.add<ConvertUnaryFloatMathOp<torch::AtenSinOp, MathKind::Sin>,
               ConvertUnaryFloatMathOp<torch::AtenErfOp, MathKind::Erf>,
               ConvertUnaryFloatMathOp<torch::AtenRoundOp, MathKind::Round>,
               ConvertRoundDecimalsOp>(typeConverter, patterns.getContext());
}

} // namespace ltc_mlir::torch_to_linalg
