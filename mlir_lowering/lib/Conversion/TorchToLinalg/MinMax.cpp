//===- MinMax.cpp - amax, amin, max, min, argmax, argmin, aminmax ---------===//
//
// Value reductions (amax/amin over a dim list, max()/min() over all dims,
// aminmax) are linalg.generic reductions with arith.maximumf/minimumf
// (NaN propagates, like ATen) or the signed/unsigned integer max/min.
// Index reductions (max.dim, min.dim, argmax, argmin) carry (value, index)
// accumulators combined by an order-independent rule: the extreme value
// wins, NaN counting as the most extreme, and among equal values (or NaNs)
// the lowest index. That is ATen's CPU result (the first occurrence; the
// first NaN) for any loop order the pipeline chooses. Reducing a dim of
// size 0 raises in eager (no identity): the pattern refuses, the fallback
// raises eager's error.
//
//===----------------------------------------------------------------------===//

#include "ReductionUtils.h"

#include <limits>

using namespace mlir;

namespace ltc_mlir::torch_to_linalg {
namespace {

/// The identity of max (`isMax`) or min over `type`: -inf/+inf, or the
/// smallest/largest integer.
Value createExtremeIdentity(OpBuilder &b, Location loc, Type type, bool isMax,
                            bool isUnsigned) {
  if (isa<FloatType>(type))
    return createScalarConstant(b, loc, type,
                                isMax ? -std::numeric_limits<double>::infinity()
                                      : std::numeric_limits<double>::infinity());
  unsigned width = type.getIntOrFloatBitWidth();
  APInt value = isUnsigned ? (isMax ? APInt::getMinValue(width)
                                    : APInt::getMaxValue(width))
                           : (isMax ? APInt::getSignedMinValue(width)
                                    : APInt::getSignedMaxValue(width));
  return arith::ConstantOp::create(b, loc, IntegerAttr::get(type, value));
}

/// max/min of two scalars, NaN propagating.
Value createExtreme(OpBuilder &b, Location loc, Value x, Value acc, bool isMax,
                    bool isUnsigned) {
  if (isa<FloatType>(x.getType()))
    return isMax ? arith::MaximumFOp::create(b, loc, x, acc).getResult()
                 : arith::MinimumFOp::create(b, loc, x, acc).getResult();
  if (isUnsigned)
    return isMax ? arith::MaxUIOp::create(b, loc, x, acc).getResult()
                 : arith::MinUIOp::create(b, loc, x, acc).getResult();
  return isMax ? arith::MaxSIOp::create(b, loc, x, acc).getResult()
               : arith::MinSIOp::create(b, loc, x, acc).getResult();
}

/// Reduces `input` over `dims` to its max or min (dims dropped).
Value createValueReduction(OpBuilder &b, Location loc, Value input,
                           ArrayRef<int64_t> dims, bool isMax,
                           bool isUnsigned) {
  Type elemType = cast<RankedTensorType>(input.getType()).getElementType();
  return createReduction(
      b, loc, input, dims,
      createExtremeIdentity(b, loc, elemType, isMax, isUnsigned),
      [&](OpBuilder &nb, Location nloc, Value x, Value acc) {
        return createExtreme(nb, nloc, x, acc, isMax, isUnsigned);
      });
}

/// (values, int64 indices) of the max or min of `input` along `dim` (dims
/// dropped), with the first index of the extreme value.
std::pair<Value, Value> createIndexReduction(OpBuilder &b, Location loc,
                                             Value input, int64_t dim,
                                             bool isMax, bool isUnsigned) {
  Type elemType = cast<RankedTensorType>(input.getType()).getElementType();
  Type i64 = b.getI64Type();
  Value initValue = createExtremeIdentity(b, loc, elemType, isMax, isUnsigned);
  Value initIndex =
      createIntConstant(b, loc, i64, std::numeric_limits<int64_t>::max());
  bool isFloat = isa<FloatType>(elemType);
  SmallVector<Value> results = createMultiReduction(
      b, loc, input, {dim}, {initValue, initIndex},
      [&](OpBuilder &nb, Location nloc, ValueRange elements,
          ValueRange accs) -> SmallVector<Value> {
        Value x = elements[0], acc = accs[0], accIndex = accs[1];
        Value index = arith::IndexCastOp::create(
            nb, nloc, i64, linalg::IndexOp::create(nb, nloc, dim));
        Value lower = arith::CmpIOp::create(nb, nloc, arith::CmpIPredicate::slt,
                                            index, accIndex);
        Value take;
        if (isFloat) {
          auto cmp = [&](arith::CmpFPredicate p, Value l, Value r) {
            return arith::CmpFOp::create(nb, nloc, p, l, r).getResult();
          };
          Value xNan = cmp(arith::CmpFPredicate::UNO, x, x);
          Value accNan = cmp(arith::CmpFPredicate::UNO, acc, acc);
          Value better = cmp(isMax ? arith::CmpFPredicate::OGT
                                   : arith::CmpFPredicate::OLT,
                             x, acc);
          Value equal = cmp(arith::CmpFPredicate::OEQ, x, acc);
          // x NaN: wins over a number, or over a later NaN.
          Value nanWins = arith::AndIOp::create(
              nb, nloc, xNan,
              arith::OrIOp::create(
                  nb, nloc,
                  arith::XOrIOp::create(
                      nb, nloc, accNan,
                      arith::ConstantOp::create(nb, nloc, nb.getBoolAttr(true))),
                  lower));
          // Both numbers: larger (smaller), or equal and earlier.
          Value numberWins = arith::OrIOp::create(
              nb, nloc, better, arith::AndIOp::create(nb, nloc, equal, lower));
          take = arith::OrIOp::create(nb, nloc, nanWins, numberWins);
        } else {
          arith::CmpIPredicate strict =
              isMax ? (isUnsigned ? arith::CmpIPredicate::ugt
                                  : arith::CmpIPredicate::sgt)
                    : (isUnsigned ? arith::CmpIPredicate::ult
                                  : arith::CmpIPredicate::slt);
          Value better = arith::CmpIOp::create(nb, nloc, strict, x, acc);
          Value equal =
              arith::CmpIOp::create(nb, nloc, arith::CmpIPredicate::eq, x, acc);
          take = arith::OrIOp::create(
              nb, nloc, better, arith::AndIOp::create(nb, nloc, equal, lower));
        }
        return {arith::SelectOp::create(nb, nloc, take, x, acc).getResult(),
                arith::SelectOp::create(nb, nloc, take, index, accIndex)
                    .getResult()};
      });
  return {results[0], results[1]};
}

bool isUnsignedInput(Value torchValue) {
  Type dtype = getTorchDtype(torchValue);
  return isUnsignedDtype(dtype) || isBoolDtype(dtype);
}

/// amax/amin (dim list, keepdim) and max()/min() (all dims).
template <typename OpTy, bool IsMax, bool HasDims>
class ConvertValueReductionOp : public TorchConversionPattern<OpTy> {
public:
  using OpAdaptor = typename OpTy::Adaptor;
  using TorchConversionPattern<OpTy>::TorchConversionPattern;

  LogicalResult
  matchAndRewrite(OpTy op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    RankedTensorType type = this->getTensorType(op.getType());
    Value self = adaptor.getSelf();
    auto selfType = cast<RankedTensorType>(self.getType());
    if (!type || type.getElementType() != selfType.getElementType())
      return this->fail(op, rewriter, "result type is not convertible");
    Value dimOperand;
    bool keepdim = false;
    if constexpr (HasDims) {
      dimOperand = op.getDim();
      std::optional<bool> k = getConstantBool(op.getKeepdim());
      if (!k)
        return this->fail(op, rewriter, "keepdim must be a constant");
      keepdim = *k;
    }
    std::string why;
    FailureOr<SmallVector<int64_t>> dims = getCheckedReductionDims(
        dimOperand, selfType.getShape(), keepdim, type.getShape(), why);
    if (failed(dims))
      return this->fail(op, rewriter, why);
    if (reducesEmptyDim(selfType.getShape(), *dims) ||
        (selfType.getNumElements() == 0 && !HasDims))
      return this->fail(op, rewriter,
                        "reducing an empty dim has no identity (eager raises)");
    Location loc = op.getLoc();
    Value result = createValueReduction(rewriter, loc, self, *dims, IsMax,
                                        isUnsignedInput(op.getSelf()));
    return this->replaceOrFail(op, rewriter,
                               createReshape(rewriter, loc, result, type),
                               "cannot reshape the result");
  }
};

/// aminmax(self, dim?, keepdim) -> (min, max).
class ConvertAminmaxOp : public TorchConversionPattern<torch::AtenAminmaxOp> {
public:
  using Base::Base;
  LogicalResult
  matchAndRewrite(torch::AtenAminmaxOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    RankedTensorType minType = getTensorType(op.getMin().getType());
    RankedTensorType maxType = getTensorType(op.getMax().getType());
    Value self = adaptor.getSelf();
    auto selfType = cast<RankedTensorType>(self.getType());
    if (!minType || minType != maxType ||
        minType.getElementType() != selfType.getElementType())
      return fail(op, rewriter, "result types are not convertible");
    std::optional<bool> keepdim = getConstantBool(op.getKeepdim());
    if (!keepdim)
      return fail(op, rewriter, "keepdim must be a constant");
    std::string why;
    FailureOr<SmallVector<int64_t>> dims =
        getCheckedReductionDims(op.getDim(), selfType.getShape(), *keepdim,
                                minType.getShape(), why);
    if (failed(dims))
      return fail(op, rewriter, why);
    if (reducesEmptyDim(selfType.getShape(), *dims) ||
        selfType.getNumElements() == 0)
      return fail(op, rewriter,
                  "reducing an empty dim has no identity (eager raises)");
    Location loc = op.getLoc();
    bool isUnsigned = isUnsignedInput(op.getSelf());
    FailureOr<Value> min = createReshape(
        rewriter, loc,
        createValueReduction(rewriter, loc, self, *dims, false, isUnsigned),
        minType);
    FailureOr<Value> max = createReshape(
        rewriter, loc,
        createValueReduction(rewriter, loc, self, *dims, true, isUnsigned),
        maxType);
    if (failed(min) || failed(max))
      return fail(op, rewriter, "cannot reshape the result");
    rewriter.replaceOp(op, {*min, *max});
    return success();
  }
};

/// max.dim/min.dim (values and indices) and argmax/argmin (indices; dim
/// None reduces the flattened tensor).
template <typename OpTy, bool IsMax, bool WithValues>
class ConvertIndexReductionOp : public TorchConversionPattern<OpTy> {
public:
  using OpAdaptor = typename OpTy::Adaptor;
  using TorchConversionPattern<OpTy>::TorchConversionPattern;

  LogicalResult
  matchAndRewrite(OpTy op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    RankedTensorType valuesType, indicesType;
    if constexpr (WithValues) {
      valuesType = this->getTensorType(op.getValues().getType());
      indicesType = this->getTensorType(op.getIndices().getType());
    } else {
      indicesType = this->getTensorType(op.getType());
    }
    Value self = adaptor.getSelf();
    auto selfType = cast<RankedTensorType>(self.getType());
    if (!indicesType || !indicesType.getElementType().isInteger(64) ||
        (WithValues && (!valuesType || valuesType.getElementType() !=
                                           selfType.getElementType())))
      return this->fail(op, rewriter, "result types are not convertible");
    std::optional<bool> keepdim = getConstantBool(op.getKeepdim());
    if (!keepdim)
      return this->fail(op, rewriter, "keepdim must be a constant");
    Location loc = op.getLoc();
    Value input = self;
    int64_t dim = 0;
    SmallVector<int64_t> expected;
    if (isNone(op.getDim())) {
      // argmax(dim=None): the index into the flattened tensor.
      int64_t n = selfType.getNumElements();
      FailureOr<Value> flat = createReshape(
          rewriter, loc, self,
          RankedTensorType::get({n}, selfType.getElementType()));
      if (failed(flat))
        return this->fail(op, rewriter, "cannot flatten self");
      input = *flat;
      if (*keepdim)
        expected.assign(selfType.getRank(), 1);
    } else {
      std::optional<int64_t> d = getConstantInt(op.getDim());
      if (!d)
        return this->fail(op, rewriter, "dim must be a constant");
      std::optional<int64_t> nd = normalizeDim(*d, selfType.getRank());
      if (!nd)
        return this->fail(op, rewriter, "dim out of range");
      if (selfType.getRank() == 0) {
        FailureOr<Value> one = createReshape(
            rewriter, loc, self,
            RankedTensorType::get({1}, selfType.getElementType()));
        if (failed(one))
          return this->fail(op, rewriter, "cannot reshape self");
        input = *one;
      } else {
        dim = *nd;
        expected = getReducedShape(selfType.getShape(), {dim}, *keepdim);
      }
    }
    auto inputType = cast<RankedTensorType>(input.getType());
    if (!llvm::equal(expected, indicesType.getShape()))
      return this->fail(op, rewriter, "result shape does not match the dim");
    if (inputType.getDimSize(dim) == 0)
      return this->fail(op, rewriter,
                        "reducing an empty dim has no identity (eager raises)");
    auto [values, indices] = createIndexReduction(
        rewriter, loc, input, dim, IsMax, isUnsignedInput(op.getSelf()));
    LogicalResult replaced =
        WithValues ? replaceWithReshaped(op, rewriter, {values, indices},
                                         {valuesType, indicesType})
                   : replaceWithReshaped(op, rewriter, indices, indicesType);
    if (failed(replaced))
      return this->fail(op, rewriter, "cannot reshape the result");
    return success();
  }
};

} // namespace

void populateMinMaxPatterns(TorchTypeConverter &typeConverter,
                            RewritePatternSet &patterns) {
  patterns.add<ConvertValueReductionOp<torch::AtenAmaxOp, true, true>,
               ConvertValueReductionOp<torch::AtenAminOp, false, true>,
               ConvertValueReductionOp<torch::AtenMaxOp, true, false>,
               ConvertValueReductionOp<torch::AtenMinOp, false, false>,
               ConvertAminmaxOp,
               ConvertIndexReductionOp<torch::AtenMaxDimOp, true, true>,
               ConvertIndexReductionOp<torch::AtenMinDimOp, false, true>,
               ConvertIndexReductionOp<torch::AtenArgmaxOp, true, false>,
               ConvertIndexReductionOp<torch::AtenArgminOp, false, false>>(
      typeConverter, patterns.getContext());
}

} // namespace ltc_mlir::torch_to_linalg
