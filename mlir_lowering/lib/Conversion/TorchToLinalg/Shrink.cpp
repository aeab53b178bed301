//===- Shrink.cpp - threshold, soft/hardshrink, log_sigmoid ---------------===//
//
// threshold(x, th, value) = x <= th ? value : x; softshrink and hardshrink
// with their backward ops (ATen's shrink kernels: NaN passes through the
// comparisons of both); log_sigmoid_forward and
// log_sigmoid_backward as ATen's CPU kernels: output min(x, 0) -
// log1p(exp(-|x|)), buffer exp(-|x|), and the gradient from the buffer.
//
//===----------------------------------------------------------------------===//

#include "Pointwise.h"

using namespace mlir;

namespace ltc_mlir::torch_to_linalg {
namespace {

using namespace pointwise;
using P = arith::CmpFPredicate;

Value threshold(OpBuilder &b, Location loc, Type t, bool isUnsigned,
                ArrayRef<Value> v) {
  Value le;
  if (isa<FloatType>(t))
    le = arith::CmpFOp::create(b, loc, P::OLE, v[0], v[1]);
  else
    le = arith::CmpIOp::create(
        b, loc, isUnsigned ? arith::CmpIPredicate::ule : arith::CmpIPredicate::sle,
        v[0], v[1]);
  return arith::SelectOp::create(b, loc, le, v[2], v[0]);
}

// softshrink(x, l) = x > l ? x - l : (x < -l ? x + l : x * 0), as ATen: the
// middle keeps x's sign (-0.0) and NaN stays NaN.
Value softshrink(OpBuilder &b, Location loc, Type t, bool, ArrayRef<Value> v) {
  FloatBuilder f{b, loc, t};
  Value x = v[0], l = v[1];
  Value inner = f.select(f.cmp(P::OLT, x, f.neg(l)), f.add(x, l),
                         f.mul(x, f.c(0)));
  return f.select(f.cmp(P::OGT, x, l), f.sub(x, l), inner);
}

/// -l <= x <= l (false for NaN)
Value withinLambda(FloatBuilder &f, Value x, Value l) {
  return arith::AndIOp::create(f.b, f.loc, f.cmp(P::OGE, x, f.neg(l)),
                               f.cmp(P::OLE, x, l));
}

// hardshrink(x, l) = -l <= x <= l ? 0 : x
Value hardshrink(OpBuilder &b, Location loc, Type t, bool, ArrayRef<Value> v) {
  FloatBuilder f{b, loc, t};
  return f.select(withinLambda(f, v[0], v[1]), f.c(0), v[0]);
}

// soft/hardshrink_backward(grad, x, l) = -l <= x <= l ? 0 : grad
Value shrinkBackward(OpBuilder &b, Location loc, Type t, bool,
                     ArrayRef<Value> v) {
  FloatBuilder f{b, loc, t};
  return f.select(withinLambda(f, v[1], v[2]), f.c(0), v[0]);
}

// log_sigmoid_backward(grad, x, buffer) =
//   (x < 0 ? 1 : 0) - (x < 0 ? 1 : -1) * buffer / (1 + buffer), times grad.
Value logSigmoidBackward(OpBuilder &b, Location loc, Type t, bool,
                         ArrayRef<Value> v) {
  FloatBuilder f{b, loc, t};
  Value negative = f.cmp(P::OLT, v[1], f.c(0));
  Value maxDeriv = f.select(negative, f.c(1), f.c(0));
  Value sign = f.select(negative, f.c(1), f.c(-1));
  Value z = v[2];
  return f.mul(f.sub(maxDeriv, f.mul(sign, f.div(z, f.add(f.c(1), z)))), v[0]);
}

/// log_sigmoid_forward(x) -> (output, buffer).
class ConvertLogSigmoidForwardOp
    : public TorchConversionPattern<torch::AtenLogSigmoidForwardOp> {
public:
  using Base::Base;
  LogicalResult
  matchAndRewrite(torch::AtenLogSigmoidForwardOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    RankedTensorType outType = getTensorType(op.getOutput().getType());
    RankedTensorType bufType = getTensorType(op.getBuffer().getType());
    if (!outType || !bufType)
      return fail(op, rewriter, "result types are not convertible");
    auto elemType = dyn_cast<FloatType>(outType.getElementType());
    if (!elemType || bufType.getElementType() != elemType ||
        bufType.getShape() != outType.getShape())
      return fail(op, rewriter,
                  "needs floating-point output and buffer of one shape");
    Type t = getOpmathType(elemType);
    bool inUnsigned = isUnsignedDtype(getTorchDtype(op.getSelf()));
    Location loc = op.getLoc();
    auto build = [&](bool output) {
      return createElementwiseOp(
          rewriter, loc, outType, adaptor.getSelf(),
          [&](OpBuilder &b, Location l, ValueRange args) {
            FloatBuilder f{b, l, t};
            Value x = castScalar(b, l, args[0], t, inUnsigned);
            Value z = f.exp(f.neg(f.abs(x)));
            Value r = z;
            if (output)
              r = f.sub(arith::MinimumFOp::create(b, l, x, f.c(0)),
                        math::Log1pOp::create(b, l, z));
            return castScalar(b, l, r, elemType);
          });
    };
    FailureOr<Value> out = build(true), buffer = build(false);
    if (failed(out) || failed(buffer))
      return fail(op, rewriter, "operand shape does not match the result");
    rewriter.replaceOp(op, {*out, *buffer});
    return success();
  }
};

} // namespace

void populateShrinkPatterns(TorchTypeConverter &tc, RewritePatternSet &p) {
  using namespace torch;
  pointwise::add<AtenThresholdOp>(tc, p, {Domain::Numeric, threshold});
  pointwise::add<AtenSoftshrinkOp>(tc, p, {Domain::Float, softshrink});
  pointwise::add<AtenHardshrinkOp>(tc, p, {Domain::Float, hardshrink});
  pointwise::add<AtenSoftshrinkBackwardOp>(tc, p,
                                           {Domain::Float, shrinkBackward});
  pointwise::add<AtenHardshrinkBackwardOp>(tc, p,
                                           {Domain::Float, shrinkBackward});
  pointwise::add<AtenLogSigmoidBackwardOp>(
      tc, p, {Domain::Float, logSigmoidBackward});
  p.add<ConvertLogSigmoidForwardOp>(tc, p.getContext());
}

} // namespace ltc_mlir::torch_to_linalg
