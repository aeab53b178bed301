//===- Elementwise.cpp - elementwise torch ops -> linalg.generic ----------===//
//
// Every elementwise op becomes one parallel linalg.generic over the result
// shape. Tensor operands are broadcast ATen-style (right-aligned, size-1 dims
// broadcast); tensor elements and scalars (alpha, other, exponent...) are
// cast to the result element type first, which is how ATen computes once
// type promotion chose the result dtype: a 0-dim f64 tensor or a f64 scalar
// combined with a f32 tensor is computed in f32, and integer division
// computes in the (float) result type. Comparisons, where.self and clamp
// are in Comparison.cpp.
//
//===----------------------------------------------------------------------===//

#include "Elementwise.h"

#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/Matchers.h"

using namespace mlir;

namespace ltc_mlir::torch_to_linalg {

/// max/min of two values of the same int or float type. The float forms
/// propagate NaN, like torch.maximum/minimum and clamp.
Value createMax(OpBuilder &b, Location loc, Value lhs, Value rhs,
                bool isUnsigned) {
  if (isa<FloatType>(lhs.getType()))
    return arith::MaximumFOp::create(b, loc, lhs, rhs);
  if (isUnsigned)
    return arith::MaxUIOp::create(b, loc, lhs, rhs);
  return arith::MaxSIOp::create(b, loc, lhs, rhs);
}

Value createMin(OpBuilder &b, Location loc, Value lhs, Value rhs,
                bool isUnsigned) {
  if (isa<FloatType>(lhs.getType()))
    return arith::MinimumFOp::create(b, loc, lhs, rhs);
  if (isUnsigned)
    return arith::MinUIOp::create(b, loc, lhs, rhs);
  return arith::MinSIOp::create(b, loc, lhs, rhs);
}

/// Casts a torch scalar operand (!torch.int/!torch.float, `converted` is
/// its i64/f64 value) to `elemType` like ATen's Scalar::to<T>. Constant
/// scalars are materialized directly in the element type (so that e.g.
/// alpha == 1 is visible to the compute function).
Value castScalarOperand(OpBuilder &b, Location loc, Value original,
                        Value converted, Type elemType) {
  if (std::optional<int64_t> v = getConstantInt(original)) {
    if (isa<IntegerType>(elemType))
      return createIntConstant(b, loc, elemType, *v);
    if (std::abs(*v) < (int64_t(1) << 53)) // exact in a double
      return createScalarConstant(b, loc, elemType, double(*v));
  }
  if (std::optional<double> v = getConstantFloat(original))
    return castScalar(b, loc,
                      arith::ConstantOp::create(b, loc, b.getF64FloatAttr(*v)),
                      elemType);
  return castScalar(b, loc, converted, elemType);
}

namespace {

/// Result element types an op supports.
enum class DtypeClass {
  Float,   ///< f16, bf16, f32, f64
  Numeric, ///< floats and non-bool integers
};

/// Computes one result element from the operands (in op operand order),
/// all already cast to the result element type.
using ComputeFn = Value (*)(OpBuilder &b, Location loc, Type type,
                            bool isUnsigned, ArrayRef<Value> operands);
/// The same for a bool result: operands cast to i1 (x != 0), i1 result.
using BoolComputeFn = Value (*)(OpBuilder &b, Location loc,
                                ArrayRef<Value> operands);

// Bool results as ATen computes them: + is or (with alpha: a || (alpha &&
// b)), * and minimum are and, maximum is or, sgn is the identity.
Value boolAddAlpha(OpBuilder &b, Location loc, ArrayRef<Value> v) {
  return arith::OrIOp::create(b, loc, v[0],
                              arith::AndIOp::create(b, loc, v[2], v[1]));
}
Value boolAnd(OpBuilder &b, Location loc, ArrayRef<Value> v) {
  return arith::AndIOp::create(b, loc, v[0], v[1]);
}
Value boolOr(OpBuilder &b, Location loc, ArrayRef<Value> v) {
  return arith::OrIOp::create(b, loc, v[0], v[1]);
}
Value boolIdentity(OpBuilder &, Location, ArrayRef<Value> v) { return v[0]; }

bool isOne(Value v) {
  return matchPattern(v, m_One()) || matchPattern(v, m_OneFloat());
}

// self + alpha * other (ATen's add_kernel; sub is add with -alpha, which
// gives the same values as self - alpha * other).
template <bool IsSub>
Value computeAddSub(OpBuilder &b, Location loc, Type type, bool,
                    ArrayRef<Value> v) {
  Value other = isOne(v[2]) ? v[1] : createMul(b, loc, v[2], v[1]);
  if (isa<FloatType>(type))
    return IsSub ? arith::SubFOp::create(b, loc, v[0], other).getResult()
                 : arith::AddFOp::create(b, loc, v[0], other).getResult();
  return IsSub ? arith::SubIOp::create(b, loc, v[0], other).getResult()
               : arith::AddIOp::create(b, loc, v[0], other).getResult();
}

// self + value * t1 * t2, associated like ATen's addcmul kernel.
Value computeAddcmul(OpBuilder &b, Location loc, Type type, bool,
                     ArrayRef<Value> v) {
  Value product = createMul(b, loc, createMul(b, loc, v[3], v[1]), v[2]);
  return createAdd(b, loc, v[0], product);
}

// self + value * t1 / t2, associated like ATen's addcdiv kernel (floats only:
// ATen rejects integer addcdiv).
Value computeAddcdiv(OpBuilder &b, Location loc, Type, bool,
                     ArrayRef<Value> v) {
  Value scaled = createMul(b, loc, v[3], v[1]);
  Value quotient = arith::DivFOp::create(b, loc, scaled, v[2]);
  return arith::AddFOp::create(b, loc, v[0], quotient);
}

Value computeMul(OpBuilder &b, Location loc, Type, bool, ArrayRef<Value> v) {
  return createMul(b, loc, v[0], v[1]);
}

Value computeDiv(OpBuilder &b, Location loc, Type, bool, ArrayRef<Value> v) {
  return arith::DivFOp::create(b, loc, v[0], v[1]);
}

template <bool IsMax>
Value computeMaxMin(OpBuilder &b, Location loc, Type, bool isUnsigned,
                    ArrayRef<Value> v) {
  return IsMax ? createMax(b, loc, v[0], v[1], isUnsigned)
               : createMin(b, loc, v[0], v[1], isUnsigned);
}

/// Integer pow as ATen's powi: square-and-multiply with wrapping products
/// over the exponent's bits (unrolled: vectorizable, no loop); a negative
/// exponent gives 1 for base 1, +-1 for base -1 and 0 otherwise. (math.ipowi
/// has no lowering for the n-D vectors the vectorizer produces.)
Value computeIntPow(OpBuilder &b, Location loc, Type type, bool isUnsigned,
                    Value base, Value exponent) {
  unsigned width = type.getIntOrFloatBitWidth();
  Value zero = createIntConstant(b, loc, type, 0);
  Value one = createIntConstant(b, loc, type, 1);
  // The bits that can be set in a non-negative exponent.
  unsigned steps = isUnsigned ? width : width - 1;
  APInt constant;
  if (matchPattern(exponent, m_ConstantInt(&constant)) &&
      (isUnsigned || !constant.isNegative())) {
    // Known bits: only the multiplications they need.
    Value result, power = base;
    for (unsigned i = 0, e = constant.getActiveBits(); i < e; ++i) {
      if (constant[i])
        result = result ? arith::MulIOp::create(b, loc, result, power)
                              .getResult()
                        : power;
      if (i + 1 < e)
        power = arith::MulIOp::create(b, loc, power, power);
    }
    return result ? result : one;
  }
  Value result = one, power = base;
  for (unsigned i = 0; i < steps; ++i) {
    Value bit = arith::AndIOp::create(
        b, loc, arith::ShRUIOp::create(b, loc, exponent,
                                       createIntConstant(b, loc, type, i)),
        one);
    Value isSet =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, bit, zero);
    result = arith::SelectOp::create(
        b, loc, isSet, arith::MulIOp::create(b, loc, result, power), result);
    if (i + 1 < steps)
      power = arith::MulIOp::create(b, loc, power, power);
  }
  if (isUnsigned)
    return result;
  Value minusOne = createIntConstant(b, loc, type, -1);
  Value odd = arith::CmpIOp::create(
      b, loc, arith::CmpIPredicate::ne,
      arith::AndIOp::create(b, loc, exponent, one), zero);
  Value ofMinusOne = arith::SelectOp::create(b, loc, odd, minusOne, one);
  Value negativeResult = arith::SelectOp::create(
      b, loc,
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, base, one), one,
      arith::SelectOp::create(
          b, loc,
          arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, base,
                                minusOne),
          ofMinusOne, zero));
  Value negative =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, exponent, zero);
  return arith::SelectOp::create(b, loc, negative, negativeResult, result);
}

Value computePow(OpBuilder &b, Location loc, Type type, bool isUnsigned,
                 ArrayRef<Value> v) {
  // An integral exponent in a float works for negative bases with powf
  // (C pow semantics), which is what ATen computes.
  if (isa<FloatType>(type))
    return math::PowFOp::create(b, loc, v[0], v[1]);
  return computeIntPow(b, loc, type, isUnsigned, v[0], v[1]);
}

Value computeNeg(OpBuilder &b, Location loc, Type type, bool,
                 ArrayRef<Value> v) {
  if (isa<FloatType>(type))
    return arith::NegFOp::create(b, loc, v[0]);
  Value zero = createScalarConstant(b, loc, type, 0);
  return arith::SubIOp::create(b, loc, zero, v[0]);
}

Value computeRelu(OpBuilder &b, Location loc, Type type, bool isUnsigned,
                  ArrayRef<Value> v) {
  // relu is clamp_min(x, 0): NaN stays NaN.
  if (isUnsigned)
    return v[0];
  Value zero = createScalarConstant(b, loc, type, 0);
  return createMax(b, loc, v[0], zero, /*isUnsigned=*/false);
}

template <typename MathOp>
Value computeUnaryMath(OpBuilder &b, Location loc, Type, bool,
                       ArrayRef<Value> v) {
  return MathOp::create(b, loc, v[0]);
}

Value computeSigmoid(OpBuilder &b, Location loc, Type type, bool,
                     ArrayRef<Value> v) {
  // 1 / (1 + exp(-x)), as ATen's CPU kernel.
  Value one = createScalarConstant(b, loc, type, 1);
  Value e = math::ExpOp::create(b, loc, arith::NegFOp::create(b, loc, v[0]));
  return arith::DivFOp::create(b, loc, one,
                               arith::AddFOp::create(b, loc, one, e));
}

Value computeAbs(OpBuilder &b, Location loc, Type type, bool isUnsigned,
                 ArrayRef<Value> v) {
  if (isa<FloatType>(type))
    return math::AbsFOp::create(b, loc, v[0]);
  if (isUnsigned)
    return v[0];
  // x < 0 ? 0 - x : x (wraps for the minimum, as ATen). math.absi has no
  // lowering for the n-D vectors the vectorizer produces.
  Value zero = createScalarConstant(b, loc, type, 0);
  Value negative =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, v[0], zero);
  return arith::SelectOp::create(
      b, loc, negative, arith::SubIOp::create(b, loc, zero, v[0]), v[0]);
}

// sgn of a real number, as ATen's sign kernel (0 < a) - (a < 0): -1, 0 or 1,
// with 0 (not -0.0) for zeros and NaN.
Value computeSgn(OpBuilder &b, Location loc, Type type, bool isUnsigned,
                 ArrayRef<Value> v) {
  Value zero = createScalarConstant(b, loc, type, 0);
  Value one = createScalarConstant(b, loc, type, 1);
  Value positive, negative;
  if (isa<FloatType>(type)) {
    positive =
        arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OGT, v[0], zero);
    negative =
        arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OLT, v[0], zero);
  } else {
    positive = arith::CmpIOp::create(b, loc,
                                     isUnsigned ? arith::CmpIPredicate::ugt
                                                : arith::CmpIPredicate::sgt,
                                     v[0], zero);
    if (isUnsigned)
      return arith::SelectOp::create(b, loc, positive, one, zero);
    negative =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, v[0], zero);
  }
  Value minusOne = createScalarConstant(b, loc, type, -1);
  Value negOrZero = arith::SelectOp::create(b, loc, negative, minusOne, zero);
  return arith::SelectOp::create(b, loc, positive, one, negOrZero);
}

// threshold_backward(grad_output, self, threshold):
// self <= threshold ? 0 : grad_output (NaN in self compares false).
Value computeThresholdBackward(OpBuilder &b, Location loc, Type type,
                               bool isUnsigned, ArrayRef<Value> v) {
  Value cond;
  if (isa<FloatType>(type))
    cond = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OLE, v[1], v[2]);
  else
    cond = arith::CmpIOp::create(b, loc,
                                 isUnsigned ? arith::CmpIPredicate::ule
                                            : arith::CmpIPredicate::sle,
                                 v[1], v[2]);
  Value zero = createScalarConstant(b, loc, type, 0);
  return arith::SelectOp::create(b, loc, cond, zero, v[0]);
}

// tanh_backward(grad_output, output) = grad_output * (1 - output^2) and
// sigmoid_backward = grad_output * (1 - output) * output, in ATen's order.
Value computeTanhBackward(OpBuilder &b, Location loc, Type type, bool,
                          ArrayRef<Value> v) {
  Value one = createScalarConstant(b, loc, type, 1);
  Value sq = arith::MulFOp::create(b, loc, v[1], v[1]);
  return arith::MulFOp::create(b, loc, v[0],
                               arith::SubFOp::create(b, loc, one, sq));
}

Value computeSigmoidBackward(OpBuilder &b, Location loc, Type type, bool,
                             ArrayRef<Value> v) {
  Value one = createScalarConstant(b, loc, type, 1);
  Value oneMinus = arith::SubFOp::create(b, loc, one, v[1]);
  return arith::MulFOp::create(
      b, loc, arith::MulFOp::create(b, loc, v[0], oneMinus), v[1]);
}

// hardtanh(self, min_val, max_val) = min(max(self, min_val), max_val), as
// ATen's clamp (NaN propagates); ReLU6 is hardtanh(x, 0, 6).
Value computeHardtanh(OpBuilder &b, Location loc, Type, bool isUnsigned,
                      ArrayRef<Value> v) {
  return createMin(b, loc, createMax(b, loc, v[0], v[1], isUnsigned), v[2],
                   isUnsigned);
}

// hardtanh_backward(grad, self, min_val, max_val) =
// self <= min_val || self >= max_val ? 0 : grad (ATen's kernel: the gradient
// is 0 at both bounds; NaN self compares false and passes grad).
Value computeHardtanhBackward(OpBuilder &b, Location loc, Type type, bool,
                              ArrayRef<Value> v) {
  Value outside = arith::OrIOp::create(
      b, loc,
      arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OLE, v[1], v[2]),
      arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OGE, v[1], v[3]));
  return arith::SelectOp::create(b, loc, outside,
                                 createScalarConstant(b, loc, type, 0), v[0]);
}

// native_dropout_backward(grad, mask, scale) = grad * mask * scale (ATen's
// order; the bool mask is cast to 0/1 in the result type).
Value computeDropoutBackward(OpBuilder &b, Location loc, Type, bool,
                             ArrayRef<Value> v) {
  return arith::MulFOp::create(b, loc,
                               arith::MulFOp::create(b, loc, v[0], v[1]), v[2]);
}

std::string debugString(Type type) {
  std::string s;
  llvm::raw_string_ostream os(s);
  type.print(os);
  return s;
}

template <typename OpTy>
class ConvertElementwiseOp : public TorchConversionPattern<OpTy> {
public:
  using OpAdaptor = typename OpTy::Adaptor;

  ConvertElementwiseOp(const TorchTypeConverter &typeConverter,
                       MLIRContext *context, DtypeClass dtypes,
                       ComputeFn compute, BoolComputeFn boolCompute)
      : TorchConversionPattern<OpTy>(typeConverter, context), dtypes(dtypes),
        compute(compute), boolCompute(boolCompute) {}

  LogicalResult
  matchAndRewrite(OpTy op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    RankedTensorType resultType = this->getTensorType(op.getType());
    if (!resultType)
      return this->fail(op, rewriter, "result type is not convertible");
    Type elemType = resultType.getElementType();
    bool resultUnsigned = isUnsignedDtype(getTorchDtype(op.getResult()));
    // Bool tensors are stored as i8 (see TorchTypeConverter): computed on
    // i1 and zero-extended.
    bool resultBool = isBoolDtype(getTorchDtype(op.getResult()));
    if (resultBool && !boolCompute)
      return this->fail(op, rewriter, "bool result dtype is not supported");
    Type storageType = elemType;
    if (resultBool)
      elemType = rewriter.getI1Type();
    if (dtypes == DtypeClass::Float && !isa<FloatType>(elemType))
      return this->fail(op, rewriter,
                        "needs a floating-point result dtype, got " +
                            llvm::Twine(debugString(elemType)));

    // Check broadcasting before creating any IR.
    for (Value operand : adaptor.getOperands())
      if (auto type = dyn_cast<RankedTensorType>(operand.getType()))
        if (failed(getBroadcastMap(type.getShape(), resultType.getShape(),
                                   op.getContext())))
          return this->fail(op, rewriter,
                            "operand shapes do not broadcast to the result");

    // Operand i is tensorInputs[slot[i]] or scalars[slot[i]].
    Location loc = op.getLoc();
    SmallVector<Value> tensorInputs, scalars;
    SmallVector<bool> tensorUnsigned, isTensor;
    SmallVector<size_t> slot;
    for (auto [original, converted] :
         llvm::zip_equal(op->getOperands(), adaptor.getOperands())) {
      if (isa<RankedTensorType>(converted.getType())) {
        isTensor.push_back(true);
        slot.push_back(tensorInputs.size());
        tensorInputs.push_back(converted);
        tensorUnsigned.push_back(isUnsignedDtype(getTorchDtype(original)));
        continue;
      }
      isTensor.push_back(false);
      slot.push_back(scalars.size());
      scalars.push_back(castScalarOperand(rewriter, loc, original, converted,
                                          elemType));
    }

    FailureOr<Value> result = createElementwiseOp(
        rewriter, loc, resultType, tensorInputs,
        [&](OpBuilder &b, Location nloc, ValueRange args) {
          SmallVector<Value> operands;
          for (size_t i = 0; i < slot.size(); ++i)
            operands.push_back(
                isTensor[i] ? castScalar(b, nloc, args[slot[i]], elemType,
                                         tensorUnsigned[slot[i]])
                            : scalars[slot[i]]);
          if (resultBool)
            return castScalar(b, nloc, boolCompute(b, nloc, operands),
                              storageType, /*srcUnsigned=*/true);
          return compute(b, nloc, elemType, resultUnsigned, operands);
        });
    return this->replaceOrFail(op, rewriter, result,
                               "operand shapes do not broadcast to the result");
  }

private:
  DtypeClass dtypes;
  ComputeFn compute;
  BoolComputeFn boolCompute;
};

template <typename OpTy>
void add(TorchTypeConverter &typeConverter, RewritePatternSet &patterns,
         DtypeClass dtypes, ComputeFn compute,
         BoolComputeFn boolCompute = nullptr) {
  patterns.add<ConvertElementwiseOp<OpTy>>(typeConverter,
                                           patterns.getContext(), dtypes,
                                           compute, boolCompute);
}

/// _to_copy(self, dtype, ...) = self converted like a C++ static_cast in
/// ATen's copy kernel (float->int truncates, x->bool is x != 0).
class ConvertToCopyOp : public TorchConversionPattern<torch::AtenToCopyOp> {
public:
  using Base::Base;
  LogicalResult
  matchAndRewrite(torch::AtenToCopyOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    RankedTensorType resultType = getTensorType(op.getType());
    if (!resultType)
      return fail(op, rewriter, "result type is not convertible");
    if (!isNone(op.getLayout()) && getConstantInt(op.getLayout()) != 0)
      return fail(op, rewriter, "only the strided layout is supported");
    // Values do not depend on the memory format (contiguous, preserve,
    // channels_last, channels_last_3d): only as_strided sees the layout, and
    // ltc_backend applies it to a copy in eager's storage order.
    if (!isNone(op.getMemoryFormat())) {
      std::optional<int64_t> format = getConstantInt(op.getMemoryFormat());
      if (!format || *format < 0 || *format > 3)
        return fail(op, rewriter, "unknown memory format");
    }
    bool srcUnsigned = isUnsignedDtype(getTorchDtype(op.getSelf()));
    bool toBool = isBoolDtype(getTorchDtype(op.getResult()));
    Type elemType = resultType.getElementType();
    FailureOr<Value> result = createElementwiseOp(
        rewriter, op.getLoc(), resultType, ValueRange{adaptor.getSelf()},
        [&](OpBuilder &b, Location loc, ValueRange args) {
          if (!toBool)
            return castScalar(b, loc, args[0], elemType, srcUnsigned);
          // Bools are stored as one byte holding 0/1.
          Value bit = castScalar(b, loc, args[0], b.getI1Type(), srcUnsigned);
          return castScalar(b, loc, bit, elemType, /*srcUnsigned=*/true);
        });
    return replaceOrFail(op, rewriter, result,
                         "operand shape does not match the result");
  }
};

} // namespace

void populateElementwisePatterns(TorchTypeConverter &typeConverter,
                                 RewritePatternSet &patterns) {
  using DC = DtypeClass;
  auto &tc = typeConverter;
  auto &p = patterns;
  add<torch::AtenAddTensorOp>(tc, p, DC::Numeric, computeAddSub<false>,
                              boolAddAlpha);
  add<torch::AtenSubTensorOp>(tc, p, DC::Numeric, computeAddSub<true>);
  add<torch::AtenAddScalarOp>(tc, p, DC::Numeric, computeAddSub<false>,
                              boolAddAlpha);
  add<torch::AtenSubScalarOp>(tc, p, DC::Numeric, computeAddSub<true>);
  add<torch::AtenMulTensorOp>(tc, p, DC::Numeric, computeMul, boolAnd);
  add<torch::AtenMulScalarOp>(tc, p, DC::Numeric, computeMul, boolAnd);
  add<torch::AtenDivTensorOp>(tc, p, DC::Float, computeDiv);
  add<torch::AtenDivScalarOp>(tc, p, DC::Float, computeDiv);
  add<torch::AtenMaximumOp>(tc, p, DC::Numeric, computeMaxMin<true>, boolOr);
  add<torch::AtenMinimumOp>(tc, p, DC::Numeric, computeMaxMin<false>,
                            boolAnd);
  add<torch::AtenPowTensorScalarOp>(tc, p, DC::Numeric, computePow);
  add<torch::AtenPowTensorTensorOp>(tc, p, DC::Numeric, computePow);
  add<torch::AtenAddcmulOp>(tc, p, DC::Numeric, computeAddcmul);
  add<torch::AtenAddcdivOp>(tc, p, DC::Float, computeAddcdiv);
  add<torch::AtenNegOp>(tc, p, DC::Numeric, computeNeg);
  add<torch::AtenReluOp>(tc, p, DC::Numeric, computeRelu);
  add<torch::AtenExpOp>(tc, p, DC::Float, computeUnaryMath<math::ExpOp>);
  add<torch::AtenLogOp>(tc, p, DC::Float, computeUnaryMath<math::LogOp>);
  add<torch::AtenTanhOp>(tc, p, DC::Float, computeUnaryMath<math::TanhOp>);
  add<torch::AtenSqrtOp>(tc, p, DC::Float, computeUnaryMath<math::SqrtOp>);
  add<torch::AtenRsqrtOp>(tc, p, DC::Float, computeUnaryMath<math::RsqrtOp>);
  add<torch::AtenSigmoidOp>(tc, p, DC::Float, computeSigmoid);
  add<torch::AtenAbsOp>(tc, p, DC::Numeric, computeAbs);
  add<torch::AtenSgnOp>(tc, p, DC::Numeric, computeSgn, boolIdentity);
  add<torch::AtenThresholdBackwardOp>(tc, p, DC::Numeric,
                                      computeThresholdBackward);
  add<torch::AtenCosOp>(tc, p, DC::Float, computeUnaryMath<math::CosOp>);
  add<torch::AtenTanhBackwardOp>(tc, p, DC::Float, computeTanhBackward);
  add<torch::AtenSigmoidBackwardOp>(tc, p, DC::Float, computeSigmoidBackward);
  add<torch::AtenHardtanhOp>(tc, p, DC::Numeric, computeHardtanh);
  add<torch::AtenHardtanhBackwardOp>(tc, p, DC::Float,
                                     computeHardtanhBackward);
  add<torch::AtenNativeDropoutBackwardOp>(tc, p, DC::Float,
                                          computeDropoutBackward);
  p.add<ConvertToCopyOp>(tc, p.getContext());
}

} // namespace ltc_mlir::torch_to_linalg
