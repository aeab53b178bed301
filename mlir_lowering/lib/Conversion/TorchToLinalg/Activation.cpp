//===- Activation.cpp - float activations computed in ATen's opmath -------===//
//
// gelu, hardsigmoid, hardswish, silu and their backward ops: one parallel
// linalg.generic each, computed like ATen's CPU kernels (constants and
// association), f16/bf16 in f32 (ATen's opmath type) and rounded once.
// hardtanh (ReLU6), which takes Scalar bounds, is in Elementwise.cpp.
//
//===----------------------------------------------------------------------===//

#include "ltc_mlir/Conversion/TorchToLinalg/Utils.h"

#include "mlir/Dialect/Math/IR/Math.h"

using namespace mlir;

namespace ltc_mlir::torch_to_linalg {
namespace {

/// The computation type of a float result: f32 for f16/bf16.
Type getOpmathType(FloatType elemType) {
  return elemType.getWidth() < 32
             ? Type(Float32Type::get(elemType.getContext()))
             : Type(elemType);
}

/// Tensor operands (converted) of `op` and whether each is unsigned.
template <typename OpTy, typename AdaptorTy>
void collectTensorOperands(OpTy op, AdaptorTy adaptor,
                           SmallVectorImpl<Value> &inputs,
                           SmallVectorImpl<bool> &unsignedInputs) {
  for (auto [original, converted] :
       llvm::zip_equal(op->getOperands(), adaptor.getOperands()))
    if (isa<RankedTensorType>(converted.getType())) {
      inputs.push_back(converted);
      unsignedInputs.push_back(isUnsignedDtype(getTorchDtype(original)));
    }
}

//===----------------------------------------------------------------------===//
// gelu / gelu_backward: ATen's CPU kernels (GeluKernelImpl,
// GeluBackwardKernelImpl) with their constants and association; f16/bf16
// compute in f32 like ATen's opmath.
//===----------------------------------------------------------------------===//

constexpr double kSqrt1_2 = 0.70710678118654752440;  // M_SQRT1_2
constexpr double kSqrt2 = 1.41421356237309504880;    // M_SQRT2
constexpr double k2SqrtPi = 1.12837916709551257390;  // M_2_SQRTPI
constexpr double kGeluKappa = 0.044715;

/// gelu(x): x * 0.5 * (1 + erf(x * M_SQRT1_2)), or with approximate="tanh"
/// 0.5 * x * (1 + tanh(beta * (x + kappa * x^3))).
Value computeGelu(OpBuilder &b, Location loc, Type t, bool tanh, Value x) {
  auto c = [&](double v) { return createScalarConstant(b, loc, t, v); };
  auto mul = [&](Value l, Value r) -> Value {
    return arith::MulFOp::create(b, loc, l, r);
  };
  auto add = [&](Value l, Value r) -> Value {
    return arith::AddFOp::create(b, loc, l, r);
  };
  if (!tanh) {
    Value e = math::ErfOp::create(b, loc, mul(x, c(kSqrt1_2)));
    return mul(mul(x, c(0.5)), add(c(1), e));
  }
  Value cube = mul(mul(x, x), x);
  Value inner = mul(c(kSqrt2 * k2SqrtPi * 0.5), add(x, mul(c(kGeluKappa), cube)));
  return mul(mul(c(0.5), x), add(c(1), math::TanhOp::create(b, loc, inner)));
}

Value computeGeluBackward(OpBuilder &b, Location loc, Type t, bool tanh,
                          Value dy, Value x) {
  auto c = [&](double v) { return createScalarConstant(b, loc, t, v); };
  auto mul = [&](Value l, Value r) -> Value {
    return arith::MulFOp::create(b, loc, l, r);
  };
  auto add = [&](Value l, Value r) -> Value {
    return arith::AddFOp::create(b, loc, l, r);
  };
  if (!tanh) {
    Value cdf = mul(c(0.5), add(c(1), math::ErfOp::create(
                                          b, loc, mul(x, c(kSqrt1_2)))));
    Value pdf = mul(c(k2SqrtPi * kSqrt1_2 * 0.5),
                    math::ExpOp::create(b, loc, mul(mul(x, x), c(-0.5))));
    return mul(dy, add(cdf, mul(x, pdf)));
  }
  Value beta = c(kSqrt2 * k2SqrtPi * 0.5);
  Value kappa = c(kGeluKappa);
  Value xSq = mul(x, x);
  Value xCube = mul(xSq, x);
  Value inner = mul(beta, add(x, mul(kappa, xCube)));
  Value tanhInner = math::TanhOp::create(b, loc, inner);
  Value left = mul(c(0.5), x);
  Value right = add(c(1), tanhInner);
  Value leftDerivative = mul(c(0.5), right);
  Value tanhDerivative =
      arith::SubFOp::create(b, loc, c(1), mul(tanhInner, tanhInner));
  Value innerDerivative = mul(beta, add(c(1), mul(mul(c(3), kappa), xSq)));
  Value rightDerivative = mul(mul(left, tanhDerivative), innerDerivative);
  return mul(dy, add(leftDerivative, rightDerivative));
}

template <typename OpTy, bool IsBackward>
class ConvertGeluOp : public TorchConversionPattern<OpTy> {
public:
  using OpAdaptor = typename OpTy::Adaptor;
  using TorchConversionPattern<OpTy>::TorchConversionPattern;

  LogicalResult
  matchAndRewrite(OpTy op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    RankedTensorType resultType = this->getTensorType(op.getType());
    if (!resultType)
      return this->fail(op, rewriter, "result type is not convertible");
    auto elemType = dyn_cast<FloatType>(resultType.getElementType());
    if (!elemType)
      return this->fail(op, rewriter, "needs a floating-point result dtype");
    std::optional<std::string> approximate =
        getConstantStr(op.getApproximate());
    if (!approximate || (*approximate != "none" && *approximate != "tanh"))
      return this->fail(op, rewriter,
                        "approximate must be a constant \"none\" or \"tanh\"");
    bool tanh = *approximate == "tanh";
    Type computeType = getOpmathType(elemType);
    SmallVector<Value> inputs;
    SmallVector<bool> unsignedInputs;
    collectTensorOperands(op, adaptor, inputs, unsignedInputs);
    FailureOr<Value> result = createElementwiseOp(
        rewriter, op.getLoc(), resultType, inputs,
        [&](OpBuilder &b, Location loc, ValueRange args) {
          SmallVector<Value> v;
          for (auto [arg, isUnsigned] : llvm::zip_equal(args, unsignedInputs))
            v.push_back(castScalar(b, loc, arg, computeType, isUnsigned));
          Value r = IsBackward
                        ? computeGeluBackward(b, loc, computeType, tanh, v[0],
                                              v[1])
                        : computeGelu(b, loc, computeType, tanh, v[0]);
          return castScalar(b, loc, r, elemType);
        });
    return this->replaceOrFail(op, rewriter, result,
                               "operand shapes do not broadcast to the result");
  }
};

//===----------------------------------------------------------------------===//
// hardsigmoid, hardswish, silu (ATen's hardsigmoid_kernel,
// hardswish_kernel, silu_kernel and their backward kernels).
//===----------------------------------------------------------------------===//

/// Computes one result element from the tensor operands (in operand order),
/// cast to the computation type `t`.
using OpmathFn = Value (*)(OpBuilder &b, Location loc, Type t,
                           ArrayRef<Value> v);

/// min(max(x + 3, 0), 6): the clamp both hard activations share (NaN
/// propagates, as std::min/max in ATen's vectorized kernels do for NaN x).
Value hardClamp(OpBuilder &b, Location loc, Type t, Value x) {
  Value sum = arith::AddFOp::create(b, loc, x, createScalarConstant(b, loc, t, 3));
  Value low =
      arith::MaximumFOp::create(b, loc, sum, createScalarConstant(b, loc, t, 0));
  return arith::MinimumFOp::create(b, loc, low,
                                   createScalarConstant(b, loc, t, 6));
}

// hardsigmoid(x) = min(max(x + 3, 0), 6) / 6.
Value computeHardsigmoid(OpBuilder &b, Location loc, Type t,
                         ArrayRef<Value> v) {
  return arith::DivFOp::create(b, loc, hardClamp(b, loc, t, v[0]),
                               createScalarConstant(b, loc, t, 6));
}

// hardsigmoid_backward(grad, x) = -3 < x < 3 ? grad * (1/6) : 0, with
// ATen's 1/6 rounded to f32 (1.0f / 6.0f) whatever the dtype.
Value computeHardsigmoidBackward(OpBuilder &b, Location loc, Type t,
                                 ArrayRef<Value> v) {
  Value inside = arith::AndIOp::create(
      b, loc,
      arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OGT, v[1],
                            createScalarConstant(b, loc, t, -3)),
      arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OLT, v[1],
                            createScalarConstant(b, loc, t, 3)));
  Value scaled = arith::MulFOp::create(
      b, loc, v[0], createScalarConstant(b, loc, t, double(1.0f / 6.0f)));
  return arith::SelectOp::create(b, loc, inside, scaled,
                                 createScalarConstant(b, loc, t, 0));
}

// hardswish(x) = x * min(max(x + 3, 0), 6) / 6, associated as ATen.
Value computeHardswish(OpBuilder &b, Location loc, Type t, ArrayRef<Value> v) {
  Value product = arith::MulFOp::create(b, loc, v[0], hardClamp(b, loc, t, v[0]));
  return arith::DivFOp::create(b, loc, product,
                               createScalarConstant(b, loc, t, 6));
}

// hardswish_backward(grad, x) = x < -3 ? 0 : x < 3 ? grad * (x / 3 + 0.5)
// : grad, as ATen's vectorized kernel (which most elements take; its scalar
// tail uses x <= 3); NaN x gives grad * NaN.
Value computeHardswishBackward(OpBuilder &b, Location loc, Type t,
                               ArrayRef<Value> v) {
  Value below = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OLT, v[1],
                                      createScalarConstant(b, loc, t, -3));
  Value above = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OGE, v[1],
                                      createScalarConstant(b, loc, t, 3));
  Value slope = arith::AddFOp::create(
      b, loc,
      arith::DivFOp::create(b, loc, v[1], createScalarConstant(b, loc, t, 3)),
      createScalarConstant(b, loc, t, 0.5));
  Value inner = arith::SelectOp::create(
      b, loc, above, v[0], arith::MulFOp::create(b, loc, v[0], slope));
  return arith::SelectOp::create(b, loc, below,
                                 createScalarConstant(b, loc, t, 0), inner);
}

/// 1 / (1 + exp(-x)).
Value sigmoidOf(OpBuilder &b, Location loc, Type t, Value x) {
  Value one = createScalarConstant(b, loc, t, 1);
  Value e = math::ExpOp::create(b, loc, arith::NegFOp::create(b, loc, x));
  return arith::DivFOp::create(b, loc, one,
                               arith::AddFOp::create(b, loc, one, e));
}

// silu(x) = x / (1 + exp(-x)).
Value computeSilu(OpBuilder &b, Location loc, Type t, ArrayRef<Value> v) {
  Value one = createScalarConstant(b, loc, t, 1);
  Value e = math::ExpOp::create(b, loc, arith::NegFOp::create(b, loc, v[0]));
  return arith::DivFOp::create(b, loc, v[0],
                               arith::AddFOp::create(b, loc, one, e));
}

// silu_backward(grad, x) = grad * s * (1 + x * (1 - s)), s = sigmoid(x).
Value computeSiluBackward(OpBuilder &b, Location loc, Type t,
                          ArrayRef<Value> v) {
  Value one = createScalarConstant(b, loc, t, 1);
  Value s = sigmoidOf(b, loc, t, v[1]);
  Value inner = arith::AddFOp::create(
      b, loc, one,
      arith::MulFOp::create(b, loc, v[1], arith::SubFOp::create(b, loc, one, s)));
  return arith::MulFOp::create(b, loc, arith::MulFOp::create(b, loc, v[0], s),
                               inner);
}

/// A float op whose tensor operands (broadcast) give each element through
/// `compute`, in the opmath type.
template <typename OpTy>
class ConvertOpmathOp : public TorchConversionPattern<OpTy> {
public:
  using OpAdaptor = typename OpTy::Adaptor;

  ConvertOpmathOp(const TorchTypeConverter &typeConverter,
                  MLIRContext *context, OpmathFn compute)
      : TorchConversionPattern<OpTy>(typeConverter, context),
        compute(compute) {}

  LogicalResult
  matchAndRewrite(OpTy op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    RankedTensorType resultType = this->getTensorType(op.getType());
    if (!resultType)
      return this->fail(op, rewriter, "result type is not convertible");
    auto elemType = dyn_cast<FloatType>(resultType.getElementType());
    if (!elemType)
      return this->fail(op, rewriter, "needs a floating-point result dtype");
    Type computeType = getOpmathType(elemType);
    SmallVector<Value> inputs;
    SmallVector<bool> unsignedInputs;
    collectTensorOperands(op, adaptor, inputs, unsignedInputs);
    FailureOr<Value> result = createElementwiseOp(
        rewriter, op.getLoc(), resultType, inputs,
        [&](OpBuilder &b, Location loc, ValueRange args) {
          SmallVector<Value> v;
          for (auto [arg, isUnsigned] : llvm::zip_equal(args, unsignedInputs))
            v.push_back(castScalar(b, loc, arg, computeType, isUnsigned));
          return castScalar(b, loc, compute(b, loc, computeType, v), elemType);
        });
    return this->replaceOrFail(op, rewriter, result,
                               "operand shapes do not broadcast to the result");
  }

private:
  OpmathFn compute;
};

template <typename OpTy>
void addOpmath(TorchTypeConverter &typeConverter, RewritePatternSet &patterns,
               OpmathFn compute) {
  patterns.add<ConvertOpmathOp<OpTy>>(typeConverter, patterns.getContext(),
                                      compute);
}

} // namespace

void populateActivationPatterns(TorchTypeConverter &typeConverter,
                                RewritePatternSet &patterns) {
  patterns.add<ConvertGeluOp<torch::AtenGeluOp, /*IsBackward=*/false>,
               ConvertGeluOp<torch::AtenGeluBackwardOp, true>>(
      typeConverter, patterns.getContext());
  auto &tc = typeConverter;
  auto &p = patterns;
  addOpmath<torch::AtenHardsigmoidOp>(tc, p, computeHardsigmoid);
  addOpmath<torch::AtenHardsigmoidBackwardOp>(tc, p,
                                              computeHardsigmoidBackward);
  addOpmath<torch::AtenHardswishOp>(tc, p, computeHardswish);
  addOpmath<torch::AtenHardswishBackwardOp>(tc, p, computeHardswishBackward);
  addOpmath<torch::AtenSiluOp>(tc, p, computeSilu);
  addOpmath<torch::AtenSiluBackwardOp>(tc, p, computeSiluBackward);
}

} // namespace ltc_mlir::torch_to_linalg
