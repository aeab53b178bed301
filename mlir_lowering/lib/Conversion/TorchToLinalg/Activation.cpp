//===- Activation.cpp - float activations computed in ATen's opmath -------===//
//
// gelu, hardsigmoid, hardswish, silu, mish, elu, leaky_relu, softplus and
// their backward ops: one parallel linalg.generic each, computed like ATen's
// CPU kernels (constants and association), f16/bf16 in f32 (ATen's opmath
// type) and rounded once. Scalar parameters (alpha, negative_slope, beta...)
// are graph inputs, converted to the opmath type like Scalar::to<opmath_t>.
// hardtanh (ReLU6), which takes Scalar bounds, is in Elementwise.cpp.
//
//===----------------------------------------------------------------------===//

#include "ltc_mlir/Conversion/TorchToLinalg/Utils.h"

#include "mlir/Dialect/Math/IR/Math.h"

using namespace mlir;

namespace ltc_mlir::torch_to_linalg {
namespace {

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

// hardswish_backward(grad, x) = x <= -3 ? 0 : x < 3 ? grad * (x / 3 + 0.5)
// : grad, as ATen's kernel (since torch 2.x its vectorized body and scalar
// tail agree); NaN x takes the last branch and gives grad.
Value computeHardswishBackward(OpBuilder &b, Location loc, Type t,
                               ArrayRef<Value> v) {
  Value below = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OLE, v[1],
                                      createScalarConstant(b, loc, t, -3));
  Value inside = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OLT, v[1],
                                       createScalarConstant(b, loc, t, 3));
  Value slope = arith::AddFOp::create(
      b, loc,
      arith::DivFOp::create(b, loc, v[1], createScalarConstant(b, loc, t, 3)),
      createScalarConstant(b, loc, t, 0.5));
  Value inner = arith::SelectOp::create(
      b, loc, inside, arith::MulFOp::create(b, loc, v[0], slope), v[0]);
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

//===----------------------------------------------------------------------===//
// mish, elu, leaky_relu, softplus (ATen's mish_kernel, elu_kernel,
// leaky_relu_kernel, softplus_kernel and their backward kernels; mish's
// backward is decomposed by autograd into sigmoid/softplus/tanh).
//===----------------------------------------------------------------------===//

/// Tensor operands `v`, Scalar operands `s` (in operand order, in the
/// opmath type `t`) and constant bool operands `flags`.
using ParamOpmathFn = Value (*)(OpBuilder &b, Location loc, Type t,
                                ArrayRef<Value> v, ArrayRef<Value> s,
                                ArrayRef<bool> flags);

Value cmpF(OpBuilder &b, Location loc, arith::CmpFPredicate p, Value l,
           Value r) {
  return arith::CmpFOp::create(b, loc, p, l, r);
}

// mish(x) = x * tanh(log1p(exp(x))).
Value computeMish(OpBuilder &b, Location loc, Type, ArrayRef<Value> v,
                  ArrayRef<Value>, ArrayRef<bool>) {
  Value sp = math::Log1pOp::create(b, loc, math::ExpOp::create(b, loc, v[0]));
  return arith::MulFOp::create(b, loc, v[0], math::TanhOp::create(b, loc, sp));
}

// elu(x, alpha, scale, input_scale) = x <= 0 ? (exp(x * input_scale) - 1) *
// (alpha * scale) : x * scale, computed as exp - 1 (torch 2.14's eager uses
// expm1: elu of -1e-8 is -1e-8 there in f32, 0 here).
Value computeElu(OpBuilder &b, Location loc, Type t, ArrayRef<Value> v,
                 ArrayRef<Value> s, ArrayRef<bool>) {
  Value negcoef = arith::MulFOp::create(b, loc, s[0], s[1]);
  Value e =
      math::ExpOp::create(b, loc, arith::MulFOp::create(b, loc, v[0], s[2]));
  Value neg = arith::MulFOp::create(
      b, loc,
      arith::SubFOp::create(b, loc, e, createScalarConstant(b, loc, t, 1)),
      negcoef);
  Value pos = arith::MulFOp::create(b, loc, v[0], s[1]);
  Value zero = createScalarConstant(b, loc, t, 0);
  return arith::SelectOp::create(
      b, loc, cmpF(b, loc, arith::CmpFPredicate::ULE, v[0], zero), neg, pos);
}

// elu_backward(grad, alpha, scale, input_scale, is_result, x_or_y):
//   is_result: y <= 0 ? grad * input_scale * (y + alpha * scale)
//                     : grad * scale
//   else:      x <= 0 ? grad * input_scale * alpha * scale *
//                       exp(x * input_scale) : grad * scale.
Value computeEluBackward(OpBuilder &b, Location loc, Type t,
                         ArrayRef<Value> v, ArrayRef<Value> s,
                         ArrayRef<bool> flags) {
  auto mul = [&](Value l, Value r) -> Value {
    return arith::MulFOp::create(b, loc, l, r);
  };
  Value negcoef = mul(s[0], s[1]);
  Value grad = v[0], xy = v[1];
  Value neg = flags[0]
                  ? mul(mul(grad, s[2]), arith::AddFOp::create(b, loc, xy,
                                                               negcoef))
                  : mul(mul(mul(grad, s[2]), negcoef),
                        math::ExpOp::create(b, loc, mul(xy, s[2])));
  Value pos = mul(grad, s[1]);
  Value zero = createScalarConstant(b, loc, t, 0);
  return arith::SelectOp::create(
      b, loc, cmpF(b, loc, arith::CmpFPredicate::ULE, xy, zero), neg, pos);
}

// leaky_relu(x, negative_slope) = x > 0 ? x : x * negative_slope.
Value computeLeakyRelu(OpBuilder &b, Location loc, Type t, ArrayRef<Value> v,
                       ArrayRef<Value> s, ArrayRef<bool>) {
  Value zero = createScalarConstant(b, loc, t, 0);
  return arith::SelectOp::create(
      b, loc, cmpF(b, loc, arith::CmpFPredicate::OGT, v[0], zero), v[0],
      arith::MulFOp::create(b, loc, v[0], s[0]));
}

// leaky_relu_backward(grad, x, negative_slope, self_is_result) =
// x > 0 ? grad : grad * negative_slope.
Value computeLeakyReluBackward(OpBuilder &b, Location loc, Type t,
                               ArrayRef<Value> v, ArrayRef<Value> s,
                               ArrayRef<bool>) {
  Value zero = createScalarConstant(b, loc, t, 0);
  return arith::SelectOp::create(
      b, loc, cmpF(b, loc, arith::CmpFPredicate::OGT, v[1], zero), v[0],
      arith::MulFOp::create(b, loc, v[0], s[0]));
}

// softplus(x, beta, threshold) = x * beta > threshold ? x
// : log1p(exp(x * beta)) / beta.
Value computeSoftplus(OpBuilder &b, Location loc, Type, ArrayRef<Value> v,
                      ArrayRef<Value> s, ArrayRef<bool>) {
  Value xb = arith::MulFOp::create(b, loc, v[0], s[0]);
  Value soft = arith::DivFOp::create(
      b, loc, math::Log1pOp::create(b, loc, math::ExpOp::create(b, loc, xb)),
      s[0]);
  return arith::SelectOp::create(
      b, loc, cmpF(b, loc, arith::CmpFPredicate::OGT, xb, s[1]), v[0], soft);
}

// softplus_backward(grad, x, beta, threshold): z = exp(x * beta);
// x * beta > threshold ? grad : grad * z / (z + 1).
Value computeSoftplusBackward(OpBuilder &b, Location loc, Type t,
                              ArrayRef<Value> v, ArrayRef<Value> s,
                              ArrayRef<bool>) {
  Value xb = arith::MulFOp::create(b, loc, v[1], s[0]);
  Value z = math::ExpOp::create(b, loc, xb);
  Value soft = arith::DivFOp::create(
      b, loc, arith::MulFOp::create(b, loc, v[0], z),
      arith::AddFOp::create(b, loc, z, createScalarConstant(b, loc, t, 1)));
  return arith::SelectOp::create(
      b, loc, cmpF(b, loc, arith::CmpFPredicate::OGT, xb, s[1]), v[0], soft);
}

/// A Scalar operand (converted: i64 or f64) in the opmath type `t`, like
/// Scalar::to<opmath_t>; constants are materialized in `t` directly.
Value castScalarParam(OpBuilder &b, Location loc, Value original,
                      Value converted, Type t) {
  if (std::optional<int64_t> v = getConstantInt(original))
    if (std::abs(*v) < (int64_t(1) << 53))
      return createScalarConstant(b, loc, t, double(*v));
  if (std::optional<double> v = getConstantFloat(original))
    return castScalar(
        b, loc, arith::ConstantOp::create(b, loc, b.getF64FloatAttr(*v)), t);
  return castScalar(b, loc, converted, t);
}

/// A float op with tensor operands (broadcast), Scalar parameters and
/// constant bool flags, each element computed by `compute` in the opmath
/// type.
template <typename OpTy>
class ConvertParamOpmathOp : public TorchConversionPattern<OpTy> {
public:
  using OpAdaptor = typename OpTy::Adaptor;

  ConvertParamOpmathOp(const TorchTypeConverter &typeConverter,
                       MLIRContext *context, ParamOpmathFn compute)
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
    Location loc = op.getLoc();
    SmallVector<Value> inputs, scalars;
    SmallVector<bool> unsignedInputs, flags;
    for (auto [original, converted] :
         llvm::zip_equal(op->getOperands(), adaptor.getOperands())) {
      Type type = original.getType();
      if (isa<torch::ValueTensorType>(type)) {
        inputs.push_back(converted);
        unsignedInputs.push_back(isUnsignedDtype(getTorchDtype(original)));
      } else if (isa<torch::IntType, torch::FloatType>(type)) {
        scalars.push_back(
            castScalarParam(rewriter, loc, original, converted, computeType));
      } else if (isa<torch::BoolType>(type)) {
        std::optional<bool> flag = getConstantBool(original);
        if (!flag)
          return this->fail(op, rewriter, "bool operands must be constants");
        flags.push_back(*flag);
      } else {
        return this->fail(op, rewriter, "unexpected operand type");
      }
    }
    FailureOr<Value> result = createElementwiseOp(
        rewriter, loc, resultType, inputs,
        [&](OpBuilder &b, Location nloc, ValueRange args) {
          SmallVector<Value> v;
          for (auto [arg, isUnsigned] : llvm::zip_equal(args, unsignedInputs))
            v.push_back(castScalar(b, nloc, arg, computeType, isUnsigned));
          return castScalar(
              b, nloc, compute(b, nloc, computeType, v, scalars, flags),
              elemType);
        });
    return this->replaceOrFail(op, rewriter, result,
                               "operand shapes do not broadcast to the result");
  }

private:
  ParamOpmathFn compute;
};

template <typename OpTy>
void addParamOpmath(TorchTypeConverter &typeConverter,
                    RewritePatternSet &patterns, ParamOpmathFn compute) {
  patterns.add<ConvertParamOpmathOp<OpTy>>(typeConverter,
                                           patterns.getContext(), compute);
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
  addParamOpmath<torch::AtenMishOp>(tc, p, computeMish);
  addParamOpmath<torch::AtenEluOp>(tc, p, computeElu);
  addParamOpmath<torch::AtenEluBackwardOp>(tc, p, computeEluBackward);
  addParamOpmath<torch::AtenLeakyReluOp>(tc, p, computeLeakyRelu);
  addParamOpmath<torch::AtenLeakyReluBackwardOp>(tc, p,
                                                 computeLeakyReluBackward);
  addParamOpmath<torch::AtenSoftplusOp>(tc, p, computeSoftplus);
  addParamOpmath<torch::AtenSoftplusBackwardOp>(tc, p,
                                                computeSoftplusBackward);
}

} // namespace ltc_mlir::torch_to_linalg
