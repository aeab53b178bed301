//===- Comparison.cpp - comparisons, where.self, clamp -> linalg.generic -===//
//
// gt/lt/ge/le/eq/ne (.Tensor and .Scalar) compare in the dtype ATen's type
// promotion gives their operands (result_type: dimensioned tensors over 0-d
// tensors over Python scalars, across categories bool < integer < float)
// and store a bool; where.self selects, clamp bounds, both in the result
// dtype. Operands broadcast like the other elementwise ops (Elementwise.cpp).
//
//===----------------------------------------------------------------------===//

#include "Elementwise.h"

using namespace mlir;

namespace ltc_mlir::torch_to_linalg {
namespace {

bool isFloatDtype(Type t) { return t && isa<FloatType>(t); }

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

void populateComparisonPatterns(TorchTypeConverter &typeConverter,
                                RewritePatternSet &patterns) {
  auto &tc = typeConverter;
  auto &p = patterns;
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
  p.add<ConvertWhereSelfOp, ConvertClampOp>(tc, p.getContext());
}

} // namespace ltc_mlir::torch_to_linalg
