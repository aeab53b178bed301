//===- Elementwise.cpp - elementwise torch ops -> linalg.generic ----------===//
//
// Every elementwise op becomes one parallel linalg.generic over the result
// shape. Tensor operands are broadcast ATen-style (right-aligned, size-1 dims
// broadcast); tensor elements and scalars (alpha, other, exponent...) are
// cast to the result element type first, which is how ATen computes once
// type promotion chose the result dtype: a 0-dim f64 tensor or a f64 scalar
// combined with a f32 tensor is computed in f32, and integer division
// computes in the (float) result type.
//
//===----------------------------------------------------------------------===//

#include "ltc_mlir/Conversion/TorchToLinalg/Utils.h"

#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/Matchers.h"

using namespace mlir;

namespace ltc_mlir::torch_to_linalg {
namespace {

bool isFloatDtype(Type t) { return t && isa<FloatType>(t); }

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

//===----------------------------------------------------------------------===//
// ATen type promotion (c10::promoteTypes and at::native::result_type) on
// torch dtypes (si64, ui8, i1, f32...), for ops whose result dtype is not the
// computation dtype (comparisons).
//===----------------------------------------------------------------------===//

/// c10::promoteTypes; a null type is "undefined" and yields the other.
Type promoteDtypes(Type a, Type b) {
  if (!a)
    return b;
  if (!b || a == b)
    return a;
  if (isBoolDtype(a))
    return b;
  if (isBoolDtype(b))
    return a;
  MLIRContext *ctx = a.getContext();
  if (isFloatDtype(a) && isFloatDtype(b)) {
    if (a.isF64() || b.isF64())
      return Float64Type::get(ctx);
    return Float32Type::get(ctx); // f32 with a half type, or f16 with bf16
  }
  if (isFloatDtype(a))
    return a;
  if (isFloatDtype(b))
    return b;
  // Two integer types, at least one signed: the wider signed type, and
  // ui8 with si8 gives si16.
  auto ia = cast<IntegerType>(a), ib = cast<IntegerType>(b);
  unsigned width = std::max(ia.getWidth(), ib.getWidth());
  if (ia.isUnsigned() != ib.isUnsigned() && width == 8)
    width = 16;
  return IntegerType::get(ctx, width, IntegerType::Signed);
}

/// at::native::combine_categories: `higher` wins unless `lower` is of a
/// higher category (or `higher` is bool), then they are promoted.
Type combineCategories(Type higher, Type lower) {
  if (isFloatDtype(higher))
    return higher;
  if (isBoolDtype(higher) || isFloatDtype(lower))
    return promoteDtypes(higher, lower);
  return higher ? higher : lower;
}

/// ATen's result_type over tensors and scalars: dimensioned tensors take
/// precedence over 0-dim tensors, which take precedence over Python scalars
/// ("wrapped numbers": an int is si64, a float the default dtype f32),
/// except across categories (bool < integer < float).
class ResultTypeState {
public:
  void addTensor(Value torchTensor) {
    auto type = cast<torch::ValueTensorType>(torchTensor.getType());
    Type &slot = type.getRank() == 0 ? zeroDim : dimensioned;
    slot = promoteDtypes(slot, type.getDtype());
  }
  void addScalar(Value torchScalar) {
    MLIRContext *ctx = torchScalar.getContext();
    Type type = isa<torch::FloatType>(torchScalar.getType())
                    ? Type(Float32Type::get(ctx))
                    : Type(IntegerType::get(ctx, 64, IntegerType::Signed));
    wrapped = promoteDtypes(wrapped, type);
  }
  Type get() const {
    return combineCategories(dimensioned, combineCategories(zeroDim, wrapped));
  }

private:
  Type dimensioned, zeroDim, wrapped;
};

//===----------------------------------------------------------------------===//
// Comparisons, where, clamp
//===----------------------------------------------------------------------===//

enum class CmpKind { Gt, Lt, Ge, Le, Eq, Ne };

/// `lhs <kind> rhs` for two values of the same (computation) type. Float
/// comparisons are ordered (false with NaN) except != (true with NaN).
Value createCompare(OpBuilder &b, Location loc, CmpKind kind, Value lhs,
                    Value rhs, bool isUnsigned) {
  if (isa<FloatType>(lhs.getType())) {
    arith::CmpFPredicate pred;
    switch (kind) {
    case CmpKind::Gt:
      pred = arith::CmpFPredicate::OGT;
      break;
    case CmpKind::Lt:
      pred = arith::CmpFPredicate::OLT;
      break;
    case CmpKind::Ge:
      pred = arith::CmpFPredicate::OGE;
      break;
    case CmpKind::Le:
      pred = arith::CmpFPredicate::OLE;
      break;
    case CmpKind::Eq:
      pred = arith::CmpFPredicate::OEQ;
      break;
    case CmpKind::Ne:
      pred = arith::CmpFPredicate::UNE;
      break;
    }
    return arith::CmpFOp::create(b, loc, pred, lhs, rhs);
  }
  using P = arith::CmpIPredicate;
  P pred;
  switch (kind) {
  case CmpKind::Gt:
    pred = isUnsigned ? P::ugt : P::sgt;
    break;
  case CmpKind::Lt:
    pred = isUnsigned ? P::ult : P::slt;
    break;
  case CmpKind::Ge:
    pred = isUnsigned ? P::uge : P::sge;
    break;
  case CmpKind::Le:
    pred = isUnsigned ? P::ule : P::sle;
    break;
  case CmpKind::Eq:
    pred = P::eq;
    break;
  case CmpKind::Ne:
    pred = P::ne;
    break;
  }
  return arith::CmpIOp::create(b, loc, pred, lhs, rhs);
}

/// gt/lt/ge/le/eq/ne, .Tensor and .Scalar: both operands are cast to their
/// promoted dtype (e.g. si64 > 0.5 compares in f32, like ATen) and compared.
template <typename OpTy>
class ConvertComparisonOp : public TorchConversionPattern<OpTy> {
public:
  using OpAdaptor = typename OpTy::Adaptor;

  ConvertComparisonOp(const TorchTypeConverter &typeConverter,
                      MLIRContext *context, CmpKind kind)
      : TorchConversionPattern<OpTy>(typeConverter, context), kind(kind) {}

  LogicalResult
  matchAndRewrite(OpTy op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    RankedTensorType resultType = this->getTensorType(op.getType());
    if (!resultType || !isBoolDtype(getTorchDtype(op.getResult())))
      return this->fail(op, rewriter, "expects a bool result");
    Type storageType = resultType.getElementType(); // i8

    ResultTypeState state;
    state.addTensor(op.getSelf());
    Value other = op.getOther();
    bool otherIsTensor = isa<torch::ValueTensorType>(other.getType());
    if (otherIsTensor)
      state.addTensor(other);
    else
      state.addScalar(other);
    Type computeDtype = state.get();
    // The builtin (signless) element type of the torch dtype.
    Type computeType = computeDtype;
    if (auto intType = dyn_cast<IntegerType>(computeDtype))
      computeType = IntegerType::get(op.getContext(), intType.getWidth());
    bool computeUnsigned = isUnsignedDtype(computeDtype);
    bool selfUnsigned = isUnsignedDtype(getTorchDtype(op.getSelf()));
    bool otherUnsigned = otherIsTensor && isUnsignedDtype(getTorchDtype(other));

    Location loc = op.getLoc();
    SmallVector<Value> inputs = {adaptor.getSelf()};
    Value scalar;
    if (otherIsTensor)
      inputs.push_back(adaptor.getOther());
    else
      scalar = castScalarOperand(rewriter, loc, other, adaptor.getOther(),
                                 computeType);
    FailureOr<Value> result = createElementwiseOp(
        rewriter, loc, resultType, inputs,
        [&](OpBuilder &b, Location nloc, ValueRange args) {
          Value lhs = castScalar(b, nloc, args[0], computeType, selfUnsigned);
          Value rhs = otherIsTensor ? castScalar(b, nloc, args[1], computeType,
                                                 otherUnsigned)
                                    : scalar;
          Value cmp = createCompare(b, nloc, kind, lhs, rhs, computeUnsigned);
          return castScalar(b, nloc, cmp, storageType, /*srcUnsigned=*/true);
        });
    return this->replaceOrFail(op, rewriter, result,
                               "operand shapes do not broadcast to the result");
  }

private:
  CmpKind kind;
};

/// where.self(condition, self, other): condition != 0 ? self : other, with
/// self and other cast to the result dtype.
class ConvertWhereSelfOp
    : public TorchConversionPattern<torch::AtenWhereSelfOp> {
public:
  using Base::Base;
  LogicalResult
  matchAndRewrite(torch::AtenWhereSelfOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    RankedTensorType resultType = getTensorType(op.getType());
    if (!resultType)
      return fail(op, rewriter, "result type is not convertible");
    Type condDtype = getTorchDtype(op.getCondition());
    if (!isBoolDtype(condDtype) && !condDtype.isUnsignedInteger(8))
      return fail(op, rewriter, "condition must be bool or ui8");
    Type elemType = resultType.getElementType();
    bool selfUnsigned = isUnsignedDtype(getTorchDtype(op.getSelf()));
    bool otherUnsigned = isUnsignedDtype(getTorchDtype(op.getOther()));
    FailureOr<Value> result = createElementwiseOp(
        rewriter, op.getLoc(), resultType,
        ValueRange{adaptor.getCondition(), adaptor.getSelf(),
                   adaptor.getOther()},
        [&](OpBuilder &b, Location loc, ValueRange args) {
          Value cond = castScalar(b, loc, args[0], b.getI1Type(), true);
          Value lhs = castScalar(b, loc, args[1], elemType, selfUnsigned);
          Value rhs = castScalar(b, loc, args[2], elemType, otherUnsigned);
          return arith::SelectOp::create(b, loc, cond, lhs, rhs).getResult();
        });
    return replaceOrFail(op, rewriter, result,
                         "operand shapes do not broadcast to the result");
  }
};

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

/// clamp(self, min, max) = min(max(self, min), max) in the result dtype
/// (ATen's clamp kernels; NaN in self propagates, and min > max gives max).
class ConvertClampOp : public TorchConversionPattern<torch::AtenClampOp> {
public:
  using Base::Base;
  LogicalResult
  matchAndRewrite(torch::AtenClampOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    RankedTensorType resultType = getTensorType(op.getType());
    if (!resultType)
      return fail(op, rewriter, "result type is not convertible");
    Type elemType = resultType.getElementType();
    if (isBoolDtype(getTorchDtype(op.getResult())))
      return fail(op, rewriter, "bool result dtype is not supported");
    bool hasMin = !isNone(op.getMin()), hasMax = !isNone(op.getMax());
    if (!hasMin && !hasMax)
      return fail(op, rewriter, "at least one of min and max must be given");
    Location loc = op.getLoc();
    Value min = hasMin ? castScalarOperand(rewriter, loc, op.getMin(),
                                           adaptor.getMin(), elemType)
                       : Value();
    Value max = hasMax ? castScalarOperand(rewriter, loc, op.getMax(),
                                           adaptor.getMax(), elemType)
                       : Value();
    bool selfUnsigned = isUnsignedDtype(getTorchDtype(op.getSelf()));
    bool resultUnsigned = isUnsignedDtype(getTorchDtype(op.getResult()));
    FailureOr<Value> result = createElementwiseOp(
        rewriter, loc, resultType, adaptor.getSelf(),
        [&](OpBuilder &b, Location nloc, ValueRange args) {
          Value x = castScalar(b, nloc, args[0], elemType, selfUnsigned);
          if (min)
            x = createMax(b, nloc, x, min, resultUnsigned);
          if (max)
            x = createMin(b, nloc, x, max, resultUnsigned);
          return x;
        });
    return replaceOrFail(op, rewriter, result,
                         "self does not broadcast to the result");
  }
};

template <typename OpTy>
void addComparison(TorchTypeConverter &typeConverter,
                   RewritePatternSet &patterns, CmpKind kind) {
  patterns.add<ConvertComparisonOp<OpTy>>(typeConverter, patterns.getContext(),
                                          kind);
}

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

  addComparison<torch::AtenGtTensorOp>(tc, p, CmpKind::Gt);
  addComparison<torch::AtenLtTensorOp>(tc, p, CmpKind::Lt);
  addComparison<torch::AtenGeTensorOp>(tc, p, CmpKind::Ge);
  addComparison<torch::AtenLeTensorOp>(tc, p, CmpKind::Le);
  addComparison<torch::AtenEqTensorOp>(tc, p, CmpKind::Eq);
  addComparison<torch::AtenNeTensorOp>(tc, p, CmpKind::Ne);
  addComparison<torch::AtenGtScalarOp>(tc, p, CmpKind::Gt);
  addComparison<torch::AtenLtScalarOp>(tc, p, CmpKind::Lt);
  addComparison<torch::AtenGeScalarOp>(tc, p, CmpKind::Ge);
  addComparison<torch::AtenLeScalarOp>(tc, p, CmpKind::Le);
  addComparison<torch::AtenEqScalarOp>(tc, p, CmpKind::Eq);
  addComparison<torch::AtenNeScalarOp>(tc, p, CmpKind::Ne);
  p.add<ConvertWhereSelfOp, ConvertClampOp, ConvertToCopyOp>(tc,
                                                             p.getContext());
}

} // namespace ltc_mlir::torch_to_linalg
