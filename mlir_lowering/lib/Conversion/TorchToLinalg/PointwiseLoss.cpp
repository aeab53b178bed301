//===- PointwiseLoss.cpp - smooth_l1, huber, soft_margin, BCE (+ backward) ===//
//
// Losses that are an elementwise function of (self, target), then reduced
// like ATen's apply_loss_reduction (0 none, 1 mean, 2 sum; sums through
// createSum, f16/bf16 accumulated in f32). Element formulas (ATen's CPU
// kernels, computed in the opmath type), with d = self - target:
//  - smooth_l1_loss(beta): |d| < beta ? 0.5 d^2 / beta : |d| - 0.5 beta;
//    backward norm * g * (d <= -beta ? -1 : d >= beta ? 1 : d / beta);
//  - huber_loss(delta): |d| < delta ? 0.5 d^2 : delta (|d| - 0.5 delta);
//    backward norm * g * (d <= -delta ? -delta : d >= delta ? delta : d);
//  - soft_margin_loss: log1p(exp(-target * self)); backward
//    -target * z / (1 + z) * norm * g with z = exp(-target * self);
//  - binary_cross_entropy(weight): -w (t max(log x, -100) + (1 - t)
//    max(log1p(-x), -100)); backward w g (x - t) / max((1 - x) x, 1e-12)
//    * norm. Inputs outside [0, 1] fail a runtime check (ATen raises).
// norm is 1 / numel for mean, else 1. Invalid constant parameters (beta < 0,
// delta <= 0; beta == 0 in the backward, where ATen switches to l1) fail to
// lower, so the graph falls back and eager raises.
//
//===----------------------------------------------------------------------===//

#include "ltc_mlir/Conversion/TorchToLinalg/Utils.h"
#include "PointwiseLoss.h"

#include "mlir/Dialect/Math/IR/Math.h"

using namespace mlir;

namespace ltc_mlir::torch_to_linalg {
namespace {

enum Reduction : int64_t { None = 0, Mean = 1, Sum = 2 };
enum class LossKind { SmoothL1, Huber, SoftMargin, Bce };

/// Float helpers in one type.
struct F {
  OpBuilder &b;
  Location l;
  Type t;
  Value c(double v) const { return createScalarConstant(b, l, t, v); }
  Value add(Value x, Value y) const { return arith::AddFOp::create(b, l, x, y); }
  Value sub(Value x, Value y) const { return arith::SubFOp::create(b, l, x, y); }
  Value mul(Value x, Value y) const { return arith::MulFOp::create(b, l, x, y); }
  Value div(Value x, Value y) const { return arith::DivFOp::create(b, l, x, y); }
  Value max(Value x, Value y) const { return arith::MaximumFOp::create(b, l, x, y); }
  Value lt(Value x, Value y) const {
    return arith::CmpFOp::create(b, l, arith::CmpFPredicate::OLT, x, y);
  }
  Value le(Value x, Value y) const {
    return arith::CmpFOp::create(b, l, arith::CmpFPredicate::OLE, x, y);
  }
  Value ge(Value x, Value y) const {
    return arith::CmpFOp::create(b, l, arith::CmpFPredicate::OGE, x, y);
  }
  Value sel(Value c, Value x, Value y) const {
    return arith::SelectOp::create(b, l, c, x, y);
  }
};

/// The loss of one element.
Value lossElement(const F &f, LossKind kind, Value x, Value y, double param) {
  switch (kind) {
  case LossKind::SmoothL1: {
    Value z = math::AbsFOp::create(f.b, f.l, f.sub(x, y));
    Value quad = f.div(f.mul(f.mul(f.c(0.5), z), z), f.c(param));
    return f.sel(f.lt(z, f.c(param)), quad, f.sub(z, f.c(0.5 * param)));
  }
  case LossKind::Huber: {
    Value z = math::AbsFOp::create(f.b, f.l, f.sub(x, y));
    Value quad = f.mul(f.mul(f.c(0.5), z), z);
    return f.sel(f.lt(z, f.c(param)), quad,
                 f.mul(f.c(param), f.sub(z, f.c(0.5 * param))));
  }
  case LossKind::SoftMargin: {
    Value e = math::ExpOp::create(
        f.b, f.l, f.mul(arith::NegFOp::create(f.b, f.l, x), y));
    return math::Log1pOp::create(f.b, f.l, e);
  }
  case LossKind::Bce: {
    Value logX = f.max(math::LogOp::create(f.b, f.l, x), f.c(-100));
    Value log1mX = f.max(
        math::Log1pOp::create(f.b, f.l, arith::NegFOp::create(f.b, f.l, x)),
        f.c(-100));
    return f.sub(f.mul(f.sub(y, f.c(1)), log1mX), f.mul(y, logX));
  }
  }
  return {};
}

/// d loss / d self of one element, times g.
Value lossGrad(const F &f, LossKind kind, Value x, Value y, Value g,
               double param) {
  switch (kind) {
  case LossKind::SmoothL1:
  case LossKind::Huber: {
    Value d = f.sub(x, y);
    Value lo = f.c(-param), hi = f.c(param);
    Value inner = kind == LossKind::SmoothL1 ? f.div(d, f.c(param)) : d;
    Value edge = kind == LossKind::SmoothL1 ? f.c(1) : f.c(param);
    Value s = f.sel(f.le(d, lo), arith::NegFOp::create(f.b, f.l, edge),
                    f.sel(f.ge(d, hi), edge, inner));
    return f.mul(s, g);
  }
  case LossKind::SoftMargin: {
    Value z = math::ExpOp::create(
        f.b, f.l, f.mul(arith::NegFOp::create(f.b, f.l, y), x));
    Value r = f.div(f.mul(arith::NegFOp::create(f.b, f.l, y), z),
                    f.add(f.c(1), z));
    return f.mul(r, g);
  }
  case LossKind::Bce:
    return f.div(f.mul(g, f.sub(x, y)),
                 f.max(f.mul(f.sub(f.c(1), x), x), f.c(1e-12)));
  }
  return {};
}

template <typename OpTy, LossKind Kind>
LogicalResult getLossParam(OpTy op, double &param, bool backward,
                           std::string &why) {
  if constexpr (Kind == LossKind::SmoothL1) {
    std::optional<double> beta = getConstantFloat(op.getBeta());
    if (!beta || *beta < 0 || (backward && *beta == 0)) {
      why = "beta must be a float constant > 0 (>= 0 in the forward)";
      return failure();
    }
    param = *beta;
  } else if constexpr (Kind == LossKind::Huber) {
    std::optional<double> delta = getConstantFloat(op.getDelta());
    if (!delta || *delta <= 0) {
      why = "delta must be a float constant > 0";
      return failure();
    }
    param = *delta;
  }
  return success();
}

/// The optional weight of binary_cross_entropy (null otherwise).
template <typename OpTy, LossKind Kind>
Value getLossWeight(OpTy op, typename OpTy::Adaptor adaptor) {
  if constexpr (Kind == LossKind::Bce) {
    if (!isNone(op.getWeight()))
      return adaptor.getWeight();
  }
  return {};
}

/// Runtime check of binary_cross_entropy: every input in [0, 1].
void emitBceInputCheck(OpBuilder &b, Location loc, Value input) {
  Value ok = createAllOf(b, loc, input, [](OpBuilder &nb, Location l, Value x) {
    F f{nb, l, x.getType()};
    return arith::AndIOp::create(nb, l, f.ge(x, f.c(0)), f.le(x, f.c(1)))
        .getResult();
  });
  emitRuntimeCheck(b, loc, ok,
                   "binary_cross_entropy: all elements of input should be "
                   "between 0 and 1 (apply a sigmoid first, or use "
                   "binary_cross_entropy_with_logits)");
}

/// What the forward and backward patterns read alike.
template <typename OpTy, LossKind Kind>
class PointwiseLossPatternBase : public TorchConversionPattern<OpTy> {
public:
  using TorchConversionPattern<OpTy>::TorchConversionPattern;
  using OpAdaptor = typename OpTy::Adaptor;

protected:
  struct Result {
    RankedTensorType type;
    FloatType elemType;
    int64_t reduction;
  };
  /// The float result type and the constant reduction mode, or failure
  /// (reported).
  FailureOr<Result> matchResult(OpTy op,
                                ConversionPatternRewriter &rewriter) const {
    RankedTensorType type = this->getTensorType(op.getType());
    if (!type)
      return this->fail(op, rewriter, "result type is not convertible");
    auto elemType = dyn_cast<FloatType>(type.getElementType());
    if (!elemType)
      return this->fail(op, rewriter, "needs a floating-point result dtype");
    std::optional<int64_t> reduction = getConstantInt(op.getReduction());
    if (!reduction || *reduction < None || *reduction > Sum)
      return this->fail(op, rewriter, "reduction must be a constant 0, 1 or 2");
    return Result{type, elemType, *reduction};
  }

  struct Operands {
    double param = 0;
    Value weight;
    /// `leading`, then the weight if any.
    SmallVector<Value> inputs;
  };
  /// Reads the loss parameter and the optional weight, then emits BCE's
  /// runtime input check; failure (reported) for a bad parameter.
  FailureOr<Operands> prepareOperands(OpTy op, OpAdaptor adaptor,
                                      ValueRange leading, bool backward,
                                      ConversionPatternRewriter &rewriter) const {
    Operands o;
    std::string why;
    if (failed(getLossParam<OpTy, Kind>(op, o.param, backward, why)))
      return this->fail(op, rewriter, why);
    o.weight = getLossWeight<OpTy, Kind>(op, adaptor);
    o.inputs.assign(leading.begin(), leading.end());
    if (o.weight)
      o.inputs.push_back(o.weight);
    if constexpr (Kind == LossKind::Bce)
      emitBceInputCheck(rewriter, op.getLoc(), adaptor.getSelf());
    return o;
  }
};

template <typename OpTy, LossKind Kind>
class ConvertPointwiseLossOp : public PointwiseLossPatternBase<OpTy, Kind> {
public:
  using PointwiseLossPatternBase<OpTy, Kind>::PointwiseLossPatternBase;
  using OpAdaptor = typename OpTy::Adaptor;

  LogicalResult
  matchAndRewrite(OpTy op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto matched = this->matchResult(op, rewriter);
    if (failed(matched))
      return failure();
    RankedTensorType type = matched->type;
    FloatType elemType = matched->elemType;
    int64_t reduction = matched->reduction;
    auto selfType = cast<RankedTensorType>(adaptor.getSelf().getType());
    auto targetType = cast<RankedTensorType>(adaptor.getTarget().getType());
    // Mixed floating dtypes compute in the promoted one, cast to the result
    // (huber_loss: input's dtype, as eager's empty_like(input) output).
    auto selfElem = dyn_cast<FloatType>(selfType.getElementType());
    auto targetElem = dyn_cast<FloatType>(targetType.getElementType());
    if (selfType.getShape() != targetType.getShape() || !selfElem ||
        !targetElem)
      return this->fail(op, rewriter,
                        "self and target must be floating and of one shape");
    if (reduction == None ? type.getShape() != selfType.getShape()
                           : type.getRank() != 0)
      return this->fail(op, rewriter, "result shape does not match the reduction");
    auto operands = this->prepareOperands(
        op, adaptor, {adaptor.getSelf(), adaptor.getTarget()},
        /*backward=*/false, rewriter);
    if (failed(operands))
      return failure();
    double param = operands->param;
    Value weight = operands->weight;
    SmallVector<Value> inputs = operands->inputs;
    Location loc = op.getLoc();
    Type t = getOpmathType(elemType);
    for (FloatType operand : {selfElem, targetElem})
      if (operand.getWidth() > cast<FloatType>(t).getWidth())
        t = operand;
    FailureOr<Value> loss = createElementwiseOp(
        rewriter, loc, selfType.clone(elemType), inputs,
        [&](OpBuilder &b, Location l, ValueRange args) {
          F f{b, l, t};
          Value x = castScalar(b, l, args[0], t);
          Value y = castScalar(b, l, args[1], t);
          Value v = lossElement(f, Kind, x, y, param);
          if (weight)
            v = f.mul(v, castScalar(b, l, args[2], t));
          return castScalar(b, l, v, elemType);
        });
    if (failed(loss))
      return this->fail(op, rewriter, "weight does not broadcast to self");
    if (reduction == None) {
      rewriter.replaceOp(op, *loss);
      return success();
    }
    SmallVector<int64_t> dims =
        llvm::to_vector(llvm::seq<int64_t>(0, selfType.getRank()));
    Value sum = castTensor(
        rewriter, loc,
        createSum(rewriter, loc, *loss, dims, getSumAccumulatorType(elemType)),
        elemType);
    if (reduction == Mean) {
      Value count = createScalarConstant(rewriter, loc, elemType,
                                         double(selfType.getNumElements()));
      sum = *createElementwiseOp(
          rewriter, loc, cast<RankedTensorType>(sum.getType()), sum,
          [&](OpBuilder &b, Location l, ValueRange args) -> Value {
            return arith::DivFOp::create(b, l, args[0], count);
          });
    }
    return this->replaceOrFail(op, rewriter,
                               createReshape(rewriter, loc, sum, type),
                               "cannot reshape the result");
  }
};

template <typename OpTy, LossKind Kind>
class ConvertPointwiseLossBackwardOp
    : public PointwiseLossPatternBase<OpTy, Kind> {
public:
  using PointwiseLossPatternBase<OpTy, Kind>::PointwiseLossPatternBase;
  using OpAdaptor = typename OpTy::Adaptor;

  LogicalResult
  matchAndRewrite(OpTy op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto matched = this->matchResult(op, rewriter);
    if (failed(matched))
      return failure();
    RankedTensorType type = matched->type;
    FloatType elemType = matched->elemType;
    int64_t reduction = matched->reduction;
    auto selfType = cast<RankedTensorType>(adaptor.getSelf().getType());
    auto targetType = cast<RankedTensorType>(adaptor.getTarget().getType());
    auto gradType = cast<RankedTensorType>(adaptor.getGradOutput().getType());
    if (type.getShape() != selfType.getShape() ||
        targetType.getShape() != selfType.getShape() ||
        selfType.getElementType() != elemType ||
        targetType.getElementType() != elemType ||
        gradType.getElementType() != elemType)
      return this->fail(op, rewriter,
                        "grad_output, self, target and the result must have "
                        "one dtype, self and target the result's shape");
    auto operands = this->prepareOperands(
        op, adaptor,
        {adaptor.getGradOutput(), adaptor.getSelf(), adaptor.getTarget()},
        /*backward=*/true, rewriter);
    if (failed(operands))
      return failure();
    double param = operands->param;
    Value weight = operands->weight;
    SmallVector<Value> inputs = operands->inputs;
    Location loc = op.getLoc();
    Type t = getOpmathType(elemType);
    double norm = reduction == Mean
                      ? 1.0 / double(std::max<int64_t>(selfType.getNumElements(), 1))
                      : 1.0;
    FailureOr<Value> result = createElementwiseOp(
        rewriter, loc, type, inputs,
        [&](OpBuilder &b, Location l, ValueRange args) {
          F f{b, l, t};
          Value g = castScalar(b, l, args[0], t);
          Value x = castScalar(b, l, args[1], t);
          Value y = castScalar(b, l, args[2], t);
          Value v = lossGrad(f, Kind, x, y, g, param);
          if (weight)
            v = f.mul(v, castScalar(b, l, args[3], t));
          if (norm != 1.0)
            v = f.mul(v, f.c(norm));
          return castScalar(b, l, v, elemType);
        });
    return this->replaceOrFail(op, rewriter, result,
                               "operand shapes do not broadcast to self's shape");
  }
};

} // namespace

void populatePointwiseLossPatterns(TorchTypeConverter &typeConverter,
                                   RewritePatternSet &patterns) {
  using namespace torch;
  using K = LossKind;
  patterns.add<ConvertPointwiseLossOp<AtenSmoothL1LossOp, K::SmoothL1>,
               ConvertPointwiseLossOp<AtenHuberLossOp, K::Huber>,
               ConvertPointwiseLossOp<AtenSoftMarginLossOp, K::SoftMargin>,
               ConvertPointwiseLossOp<AtenBinaryCrossEntropyOp, K::Bce>,
               ConvertPointwiseLossBackwardOp<AtenSmoothL1LossBackwardOp, K::SmoothL1>,
               ConvertPointwiseLossBackwardOp<AtenHuberLossBackwardOp, K::Huber>,
               ConvertPointwiseLossBackwardOp<AtenSoftMarginLossBackwardOp, K::SoftMargin>,
               ConvertPointwiseLossBackwardOp<AtenBinaryCrossEntropyBackwardOp, K::Bce>>(
      typeConverter, patterns.getContext());
}

} // namespace ltc_mlir::torch_to_linalg
