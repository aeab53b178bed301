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

/// Result element types an op supports.
enum class DtypeClass {
  Float,   ///< f16, bf16, f32, f64
  Numeric, ///< floats and non-bool integers
};

/// Computes one result element from the operands (in op operand order),
/// all already cast to the result element type.
using ComputeFn = Value (*)(OpBuilder &b, Location loc, Type type,
                            bool isUnsigned, ArrayRef<Value> operands);

bool isOne(Value v) {
  return matchPattern(v, m_One()) || matchPattern(v, m_OneFloat());
}

Value createMul(OpBuilder &b, Location loc, Value lhs, Value rhs) {
  if (isa<FloatType>(lhs.getType()))
    return arith::MulFOp::create(b, loc, lhs, rhs);
  return arith::MulIOp::create(b, loc, lhs, rhs);
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

Value computeMul(OpBuilder &b, Location loc, Type, bool, ArrayRef<Value> v) {
  return createMul(b, loc, v[0], v[1]);
}

Value computeDiv(OpBuilder &b, Location loc, Type, bool, ArrayRef<Value> v) {
  return arith::DivFOp::create(b, loc, v[0], v[1]);
}

template <bool IsMax>
Value computeMaxMin(OpBuilder &b, Location loc, Type type, bool isUnsigned,
                    ArrayRef<Value> v) {
  // torch.maximum/minimum propagate NaN, like arith.maximumf/minimumf.
  if (isa<FloatType>(type))
    return IsMax ? arith::MaximumFOp::create(b, loc, v[0], v[1]).getResult()
                 : arith::MinimumFOp::create(b, loc, v[0], v[1]).getResult();
  if (isUnsigned)
    return IsMax ? arith::MaxUIOp::create(b, loc, v[0], v[1]).getResult()
                 : arith::MinUIOp::create(b, loc, v[0], v[1]).getResult();
  return IsMax ? arith::MaxSIOp::create(b, loc, v[0], v[1]).getResult()
               : arith::MinSIOp::create(b, loc, v[0], v[1]).getResult();
}

Value computePow(OpBuilder &b, Location loc, Type type, bool,
                 ArrayRef<Value> v) {
  // An integral exponent in a float works for negative bases with powf
  // (C pow semantics), which is what ATen computes.
  if (isa<FloatType>(type))
    return math::PowFOp::create(b, loc, v[0], v[1]);
  return math::IPowIOp::create(b, loc, v[0], v[1]);
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
  if (isa<FloatType>(type))
    return arith::MaximumFOp::create(b, loc, v[0], zero);
  return arith::MaxSIOp::create(b, loc, v[0], zero);
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
  return math::AbsIOp::create(b, loc, v[0]);
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

template <typename OpTy>
class ConvertElementwiseOp : public TorchConversionPattern<OpTy> {
public:
  using OpAdaptor = typename OpTy::Adaptor;

  ConvertElementwiseOp(const TorchTypeConverter &typeConverter,
                       MLIRContext *context, DtypeClass dtypes,
                       ComputeFn compute)
      : TorchConversionPattern<OpTy>(typeConverter, context), dtypes(dtypes),
        compute(compute) {}

  LogicalResult
  matchAndRewrite(OpTy op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    RankedTensorType resultType = this->getTensorType(op.getType());
    if (!resultType)
      return this->fail(op, rewriter, "result type is not convertible");
    Type elemType = resultType.getElementType();
    bool resultUnsigned = isUnsignedDtype(getTorchDtype(op.getResult()));
    if (elemType.isInteger(1))
      return this->fail(op, rewriter, "bool result dtype is not supported");
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
          return compute(b, nloc, elemType, resultUnsigned, operands);
        });
    if (failed(result))
      return this->fail(op, rewriter,
                        "operand shapes do not broadcast to the result");
    rewriter.replaceOp(op, *result);
    return success();
  }

private:
  static std::string debugString(Type type) {
    std::string s;
    llvm::raw_string_ostream os(s);
    type.print(os);
    return s;
  }

  /// Constant scalars are materialized directly in the element type (so
  /// that e.g. alpha == 1 is visible to the compute function).
  static Value castScalarOperand(OpBuilder &b, Location loc, Value original,
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

  DtypeClass dtypes;
  ComputeFn compute;
};

template <typename OpTy>
void add(TorchTypeConverter &typeConverter, RewritePatternSet &patterns,
         DtypeClass dtypes, ComputeFn compute) {
  patterns.add<ConvertElementwiseOp<OpTy>>(typeConverter,
                                           patterns.getContext(), dtypes,
                                           compute);
}

} // namespace

void populateElementwisePatterns(TorchTypeConverter &typeConverter,
                                 RewritePatternSet &patterns) {
  using DC = DtypeClass;
  auto &tc = typeConverter;
  auto &p = patterns;
  add<torch::AtenAddTensorOp>(tc, p, DC::Numeric, computeAddSub<false>);
  add<torch::AtenSubTensorOp>(tc, p, DC::Numeric, computeAddSub<true>);
  add<torch::AtenAddScalarOp>(tc, p, DC::Numeric, computeAddSub<false>);
  add<torch::AtenSubScalarOp>(tc, p, DC::Numeric, computeAddSub<true>);
  add<torch::AtenMulTensorOp>(tc, p, DC::Numeric, computeMul);
  add<torch::AtenMulScalarOp>(tc, p, DC::Numeric, computeMul);
  add<torch::AtenDivTensorOp>(tc, p, DC::Float, computeDiv);
  add<torch::AtenDivScalarOp>(tc, p, DC::Float, computeDiv);
  add<torch::AtenMaximumOp>(tc, p, DC::Numeric, computeMaxMin<true>);
  add<torch::AtenMinimumOp>(tc, p, DC::Numeric, computeMaxMin<false>);
  add<torch::AtenPowTensorScalarOp>(tc, p, DC::Numeric, computePow);
  add<torch::AtenPowTensorTensorOp>(tc, p, DC::Numeric, computePow);
  add<torch::AtenNegOp>(tc, p, DC::Numeric, computeNeg);
  add<torch::AtenReluOp>(tc, p, DC::Numeric, computeRelu);
  add<torch::AtenExpOp>(tc, p, DC::Float, computeUnaryMath<math::ExpOp>);
  add<torch::AtenLogOp>(tc, p, DC::Float, computeUnaryMath<math::LogOp>);
  add<torch::AtenTanhOp>(tc, p, DC::Float, computeUnaryMath<math::TanhOp>);
  add<torch::AtenSqrtOp>(tc, p, DC::Float, computeUnaryMath<math::SqrtOp>);
  add<torch::AtenRsqrtOp>(tc, p, DC::Float, computeUnaryMath<math::RsqrtOp>);
  add<torch::AtenSigmoidOp>(tc, p, DC::Float, computeSigmoid);
  add<torch::AtenAbsOp>(tc, p, DC::Numeric, computeAbs);
  add<torch::AtenThresholdBackwardOp>(tc, p, DC::Numeric,
                                      computeThresholdBackward);
}

} // namespace ltc_mlir::torch_to_linalg
