//===- Loss.cpp - nll_loss_forward / nll_loss_backward, mse_loss ---------===//
//
// mse_loss(self, target, reduction) = (self - target)^2, reduced like
// ATen's apply_loss_reduction (sum/mean through createSum, f16/bf16
// accumulated in f32); mse_loss_backward = (self - target) * norm * grad,
// norm = 2 / numel for mean, else 2 (ATen's order of operations; f16/bf16
// round after each op like ATen's scalar_t arithmetic).
//
// Both ops iterate over self's shape ([N, C] or [C]) and select the target
// class with `c == target[n] && target[n] != ignore_index`, which needs no
// gather (and no out-of-bounds read for ignored targets) and keeps every map
// a projected permutation. Semantics follow ATen's CPU kernels:
//  - reduction none with a 2-D self: output[n] = -self[n, t] * w[t] (0 when
//    ignored), total_weight = 0;
//  - otherwise (sum, mean, or a 1-D self): output = -sum_n self[n, t] * w[t],
//    total_weight = sum_n w[t] over non-ignored targets (their count without
//    weight), and mean divides by total_weight (NaN when it is 0); both sums
//    are blocked (createSum), f16/bf16 accumulated in f32;
//  - backward: grad_input[n, t] = w[t] * -(mean ? g / total_weight : g), or
//    -w[t] * g[n] for reduction none with a 2-D self; 0 elsewhere.
// A target outside [0, C) that is not ignore_index selects no class (so the
// kernels stay memory-safe) and fails a runtime check: ATen raises "Target 12
// is out of bounds.", and so does the runtime.
//
//===----------------------------------------------------------------------===//

#include "ltc_mlir/Compiler/Compiler.h"
#include "ltc_mlir/Conversion/TorchToLinalg/Utils.h"

#include <limits>

using namespace mlir;

namespace ltc_mlir::torch_to_linalg {
namespace {

enum Reduction : int64_t { None = 0, Mean = 1, Sum = 2 };

/// Operands shared by forward and backward, checked against self's shape.
struct NllOperands {
  RankedTensorType selfType;
  bool batched = false; // self is [N, C]
  Value target;         // i64 elements (ui8 targets are widened in the body)
  bool targetUnsigned = false;
  Value weight; // null when None
  int64_t reduction = Mean;
  Value ignoreIndex; // i64
};

/// Base of the nll_loss patterns: reads the operands both ops share.
template <typename OpTy>
class ConvertNllLossOpBase : public TorchConversionPattern<OpTy> {
public:
  using OpAdaptor = typename OpTy::Adaptor;
  using TorchConversionPattern<OpTy>::TorchConversionPattern;

protected:
  FailureOr<NllOperands>
  getNllOperands(OpTy op, OpAdaptor adaptor,
                 ConversionPatternRewriter &rewriter) const {
    NllOperands r;
    r.selfType = cast<RankedTensorType>(adaptor.getSelf().getType());
    if (!isa<FloatType>(r.selfType.getElementType()))
      return this->fail(op, rewriter, "self must have a floating-point dtype");
    int64_t rank = r.selfType.getRank();
    if (rank != 1 && rank != 2)
      return this->fail(op, rewriter, "self must be [N, C] or [C]");
    r.batched = rank == 2;
    r.target = adaptor.getTarget();
    auto targetType = cast<RankedTensorType>(r.target.getType());
    r.targetUnsigned = isUnsignedDtype(getTorchDtype(op.getTarget()));
    if (!isa<IntegerType>(targetType.getElementType()) ||
        isBoolDtype(getTorchDtype(op.getTarget()))) // bools are i8
      return this->fail(op, rewriter, "target must have an integer dtype");
    SmallVector<int64_t> expectedTarget;
    if (r.batched)
      expectedTarget.push_back(r.selfType.getDimSize(0));
    if (targetType.getShape() != ArrayRef<int64_t>(expectedTarget))
      return this->fail(op, rewriter, "target shape does not match self");
    int64_t numClasses = r.selfType.getDimSize(rank - 1);
    if (!isNone(op.getWeight())) {
      r.weight = adaptor.getWeight();
      auto weightType = dyn_cast<RankedTensorType>(r.weight.getType());
      if (!weightType || weightType.getRank() != 1 ||
          weightType.getDimSize(0) != numClasses)
        return this->fail(op, rewriter, "weight must be None or [C]");
    }
    std::optional<int64_t> reduction = getConstantInt(op.getReduction());
    if (!reduction || *reduction < None || *reduction > Sum)
      return this->fail(op, rewriter, "reduction must be a constant 0, 1 or 2");
    r.reduction = *reduction;
    r.ignoreIndex = adaptor.getIgnoreIndex();
    return r;
  }
};

/// `c == target && target != ignore_index` in a body over self's shape,
/// where `classIndex` is the index of the class loop.
Value isSelectedClass(OpBuilder &b, Location loc, Value classIndex,
                      Value target, bool targetUnsigned, Value ignoreIndex) {
  Type i64 = b.getI64Type();
  Value t = castScalar(b, loc, target, i64, targetUnsigned);
  Value c = arith::IndexCastOp::create(b, loc, i64, classIndex);
  Value isTarget =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, c, t);
  Value notIgnored =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, t, ignoreIndex);
  return arith::AndIOp::create(b, loc, isTarget, notIgnored);
}

/// Runtime check: every target is ignore_index or in [0, C).
void emitTargetCheck(OpBuilder &b, Location loc, StringRef opName,
                     const NllOperands &o, Value torchIgnoreIndex) {
  int64_t numClasses = o.selfType.getDimSize(o.selfType.getRank() - 1);
  Value ok = createAllOf(
      b, loc, o.target, [&](OpBuilder &nb, Location l, Value element) {
        Type i64 = nb.getI64Type();
        Value t = castScalar(nb, l, element, i64, o.targetUnsigned);
        // Unsigned `t < C` also rejects negative targets.
        Value inRange = arith::CmpIOp::create(
            nb, l, arith::CmpIPredicate::ult, t,
            createIntConstant(nb, l, i64, numClasses));
        Value ignored = arith::CmpIOp::create(nb, l, arith::CmpIPredicate::eq,
                                              t, o.ignoreIndex);
        return arith::OrIOp::create(nb, l, inRange, ignored).getResult();
      });
  std::string ignore = "ignore_index";
  if (std::optional<int64_t> v = getConstantInt(torchIgnoreIndex))
    ignore += " (" + std::to_string(*v) + ")";
  emitRuntimeCheck(
      b, loc, ok,
      (kIndexErrorTag + opName +
       ": Target is out of bounds: every target must be a class "
                "index in [0, " +
       Twine(numClasses) + ") or equal to " + ignore +
       ". Check the labels passed to cross_entropy / nll_loss (and that "
       "the number of classes of the input matches them).")
          .str());
}

/// Map of a tensor holding a single element ([] or [1]) inside a loop nest
/// of `rank` dims.
AffineMap getSingleElementMap(RankedTensorType type, unsigned rank,
                              MLIRContext *context) {
  SmallVector<AffineExpr> exprs(type.getRank(),
                                getAffineConstantExpr(0, context));
  return AffineMap::get(rank, 0, exprs, context);
}

class ConvertNllLossForwardOp
    : public ConvertNllLossOpBase<torch::AtenNllLossForwardOp> {
public:
  using ConvertNllLossOpBase::ConvertNllLossOpBase;

  LogicalResult
  matchAndRewrite(torch::AtenNllLossForwardOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    RankedTensorType outputType = getTensorType(op.getOutput().getType());
    RankedTensorType totalWeightType =
        getTensorType(op.getTotalWeight().getType());
    if (!outputType || !totalWeightType)
      return fail(op, rewriter, "result types are not convertible");
    FailureOr<NllOperands> operands = getNllOperands(op, adaptor, rewriter);
    if (failed(operands))
      return failure();
    NllOperands &o = *operands;
    Type elemType = o.selfType.getElementType();
    if (outputType.getElementType() != elemType ||
        totalWeightType.getElementType() != elemType ||
        totalWeightType.getRank() != 0)
      return fail(op, rewriter, "unexpected result types");
    bool perSample = o.reduction == None && o.batched;
    SmallVector<int64_t> expectedOutput;
    if (perSample)
      expectedOutput.push_back(o.selfType.getDimSize(0));
    if (outputType.getShape() != ArrayRef<int64_t>(expectedOutput))
      return fail(op, rewriter, "unexpected output shape");

    Location loc = op.getLoc();
    emitTargetCheck(rewriter, loc, "nll_loss_forward", o, op.getIgnoreIndex());
    MLIRContext *context = op.getContext();
    unsigned rank = o.selfType.getRank();
    unsigned cDim = rank - 1;
    Value zero = createScalarConstant(rewriter, loc, elemType, 0);
    Value one = createScalarConstant(rewriter, loc, elemType, 1);

    SmallVector<Value> inputs = {adaptor.getSelf(), o.target};
    SmallVector<AffineMap> maps = {rewriter.getMultiDimIdentityMap(rank),
                                   getDropDimsMap(rank, {cDim}, context)};
    if (o.weight) {
      inputs.push_back(o.weight);
      maps.push_back(AffineMap::get(
          rank, 0, {rewriter.getAffineDimExpr(cDim)}, context));
    }
    SmallVector<utils::IteratorType> iterators(rank,
                                               utils::IteratorType::reduction);
    if (perSample)
      iterators[0] = utils::IteratorType::parallel;

    // Body: (self, target[, weight], outputs...) -> selected contributions.
    auto selected = [&](OpBuilder &b, Location l, ValueRange args,
                        Value classIndex, Value &lossTerm, Value *weightTerm) {
      Value sel = isSelectedClass(b, l, classIndex, args[1], o.targetUnsigned,
                                  o.ignoreIndex);
      Value w = o.weight ? args[2] : one;
      Value xw = o.weight ? arith::MulFOp::create(b, l, args[0], w).getResult()
                          : args[0];
      lossTerm = arith::SelectOp::create(b, l, sel, xw, zero);
      if (weightTerm)
        *weightTerm = arith::SelectOp::create(b, l, sel, w, zero);
    };
    size_t numInputs = inputs.size();

    if (perSample) {
      Value init = createZeroTensor(rewriter, loc, outputType);
      maps.push_back(AffineMap::get(rank, 0, {rewriter.getAffineDimExpr(0)},
                                    context));
      auto generic = linalg::GenericOp::create(
          rewriter, loc, TypeRange{outputType}, inputs, ValueRange{init},
          maps, iterators, [&](OpBuilder &b, Location l, ValueRange args) {
            Value lossTerm;
            selected(b, l, args, linalg::IndexOp::create(b, l, cDim),
                     lossTerm, nullptr);
            linalg::YieldOp::create(
                b, l, arith::SubFOp::create(b, l, args[numInputs], lossTerm)
                          .getResult());
          });
      rewriter.replaceOp(op, {generic.getResult(0),
                              createZeroTensor(rewriter, loc,
                                               totalWeightType)});
      return success();
    }

    // Both sums in one pass, blocked (createSum); f16/bf16 accumulate in
    // f32. ATen accumulates `loss -= x * w` and `total += w`: the loss is
    // 0 - sum, +0 when every target is ignored.
    Type accType = getSumAccumulatorType(elemType);
    SmallVector<int64_t> allDims = llvm::to_vector(llvm::seq<int64_t>(0, rank));
    SmallVector<Value> sums = createSum(
        rewriter, loc, o.selfType.getShape(), allDims, inputs, maps,
        {accType, accType},
        [&](OpBuilder &b, Location l, ValueRange args,
            LoopIndexFn index) -> SmallVector<Value> {
          Value lossTerm, weightTerm;
          selected(b, l, args, index(b, l, cDim), lossTerm, &weightTerm);
          return {castScalar(b, l, lossTerm, accType),
                  castScalar(b, l, weightTerm, accType)};
        });
    Value zeroAcc = createScalarConstant(rewriter, loc, accType, 0);
    // The sums are 0-d; output and total_weight are 0-d too (checked above).
    Value sumLoss = sums[0], totalAcc = sums[1];
    Value loss = *createElementwiseOp(
        rewriter, loc, outputType.clone(accType),
        ValueRange{sumLoss, totalAcc},
        [&](OpBuilder &b, Location l, ValueRange args) -> Value {
          Value negated = arith::SubFOp::create(b, l, zeroAcc, args[0]);
          if (o.reduction != Mean)
            return negated;
          return arith::DivFOp::create(b, l, negated, args[1]);
        });
    loss = castTensor(rewriter, loc, loss, elemType);
    Value totalWeight = castTensor(rewriter, loc, totalAcc, elemType);
    rewriter.replaceOp(op, {loss, totalWeight});
    return success();
  }
};

class ConvertNllLossBackwardOp
    : public ConvertNllLossOpBase<torch::AtenNllLossBackwardOp> {
public:
  using ConvertNllLossOpBase::ConvertNllLossOpBase;

  LogicalResult
  matchAndRewrite(torch::AtenNllLossBackwardOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    RankedTensorType type = getTensorType(op.getType());
    if (!type)
      return fail(op, rewriter, "result type is not convertible");
    FailureOr<NllOperands> operands = getNllOperands(op, adaptor, rewriter);
    if (failed(operands))
      return failure();
    NllOperands &o = *operands;
    Type elemType = type.getElementType();
    if (type != o.selfType)
      return fail(op, rewriter, "result type differs from self's type");
    bool perSample = o.reduction == None && o.batched;
    unsigned rank = type.getRank();
    unsigned cDim = rank - 1;
    MLIRContext *context = op.getContext();

    auto gradType = cast<RankedTensorType>(adaptor.getGradOutput().getType());
    auto totalWeightType =
        cast<RankedTensorType>(adaptor.getTotalWeight().getType());
    AffineMap gradMap;
    if (perSample) {
      if (gradType.getShape() != ArrayRef<int64_t>{type.getDimSize(0)})
        return fail(op, rewriter, "grad_output must be [N]");
      gradMap = getDropDimsMap(rank, {cDim}, context);
    } else {
      if (gradType.getRank() > 1 || gradType.getNumElements() != 1)
        return fail(op, rewriter, "grad_output must have one element");
      gradMap = getSingleElementMap(gradType, rank, context);
    }
    if (totalWeightType.getRank() > 1 || totalWeightType.getNumElements() != 1)
      return fail(op, rewriter, "total_weight must have one element");
    if (gradType.getElementType() != elemType ||
        totalWeightType.getElementType() != elemType)
      return fail(op, rewriter, "grad_output and total_weight dtypes differ");

    Location loc = op.getLoc();
    emitTargetCheck(rewriter, loc, "nll_loss_backward", o,
                    op.getIgnoreIndex());
    SmallVector<Value> inputs = {o.target, adaptor.getGradOutput(),
                                 adaptor.getTotalWeight()};
    SmallVector<AffineMap> maps = {
        getDropDimsMap(rank, {cDim}, context), gradMap,
        getSingleElementMap(totalWeightType, rank, context)};
    if (o.weight) {
      inputs.push_back(o.weight);
      maps.push_back(AffineMap::get(
          rank, 0, {getAffineDimExpr(cDim, context)}, context));
    }
    maps.push_back(rewriter.getMultiDimIdentityMap(rank));
    SmallVector<utils::IteratorType> iterators(rank,
                                               utils::IteratorType::parallel);
    Value init = createEmptyTensor(rewriter, loc, type);
    auto generic = linalg::GenericOp::create(
        rewriter, loc, TypeRange{type}, inputs, ValueRange{init}, maps,
        iterators, [&](OpBuilder &b, Location l, ValueRange args) {
          Value sel = isSelectedClass(b, l, linalg::IndexOp::create(b, l, cDim),
                                      args[0], o.targetUnsigned, o.ignoreIndex);
          Value grad = args[1];
          Value value;
          if (perSample) {
            // -w * g[n]
            value = o.weight ? arith::MulFOp::create(
                                   b, l, arith::NegFOp::create(b, l, args[3]),
                                   grad)
                                   .getResult()
                             : arith::NegFOp::create(b, l, grad).getResult();
          } else {
            if (o.reduction == Mean)
              grad = arith::DivFOp::create(b, l, grad, args[2]);
            value = arith::NegFOp::create(b, l, grad);
            if (o.weight)
              value = arith::MulFOp::create(b, l, args[3], value);
          }
          Value zero = createScalarConstant(b, l, elemType, 0);
          linalg::YieldOp::create(
              b, l, arith::SelectOp::create(b, l, sel, value, zero).getResult());
        });
    rewriter.replaceOp(op, generic.getResult(0));
    return success();
  }
};

/// x rounded to `elemType` and back to the opmath type `t` (no-op when they
/// are equal): ATen's per-op rounding of scalar_t arithmetic.
Value roundToDtype(OpBuilder &b, Location loc, Value x, Type elemType,
                   Type t) {
  if (elemType == t)
    return x;
  return castScalar(b, loc, castScalar(b, loc, x, elemType), t);
}

class ConvertMseLossOp : public TorchConversionPattern<torch::AtenMseLossOp> {
public:
  using Base::Base;
  LogicalResult
  matchAndRewrite(torch::AtenMseLossOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    RankedTensorType type = getTensorType(op.getType());
    if (!type)
      return fail(op, rewriter, "result type is not convertible");
    auto elemType = dyn_cast<FloatType>(type.getElementType());
    if (!elemType)
      return fail(op, rewriter, "needs a floating-point result dtype");
    std::optional<int64_t> reduction = getConstantInt(op.getReduction());
    if (!reduction || *reduction < None || *reduction > Sum)
      return fail(op, rewriter, "reduction must be a constant 0, 1 or 2");
    auto selfType = cast<RankedTensorType>(adaptor.getSelf().getType());
    auto targetType = cast<RankedTensorType>(adaptor.getTarget().getType());
    if (selfType.getShape() != targetType.getShape())
      return fail(op, rewriter, "self and target must have the same shape");
    if (*reduction == None ? type.getShape() != selfType.getShape()
                           : type.getRank() != 0)
      return fail(op, rewriter, "result shape does not match the reduction");
    Location loc = op.getLoc();
    Type t = getOpmathType(elemType);
    bool selfUnsigned = isUnsignedDtype(getTorchDtype(op.getSelf()));
    bool targetUnsigned = isUnsignedDtype(getTorchDtype(op.getTarget()));
    Value loss = *createElementwiseOp(
        rewriter, loc, selfType.clone(elemType),
        ValueRange{adaptor.getSelf(), adaptor.getTarget()},
        [&](OpBuilder &b, Location l, ValueRange args) {
          Value x = castScalar(b, l, args[0], t, selfUnsigned);
          Value y = castScalar(b, l, args[1], t, targetUnsigned);
          Value d = roundToDtype(
              b, l, arith::SubFOp::create(b, l, x, y), elemType, t);
          return castScalar(b, l, arith::MulFOp::create(b, l, d, d),
                            elemType);
        });
    if (*reduction == None) {
      rewriter.replaceOp(op, loss);
      return success();
    }
    Type accType = getSumAccumulatorType(elemType);
    SmallVector<int64_t> dims =
        llvm::to_vector(llvm::seq<int64_t>(0, selfType.getRank()));
    Value sum = castTensor(rewriter, loc,
                           createSum(rewriter, loc, loss, dims, accType),
                           elemType);
    if (*reduction == Mean) {
      Value count = createScalarConstant(rewriter, loc, elemType,
                                         double(selfType.getNumElements()));
      sum = *createElementwiseOp(
          rewriter, loc, cast<RankedTensorType>(sum.getType()), sum,
          [&](OpBuilder &b, Location l, ValueRange args) -> Value {
            return arith::DivFOp::create(b, l, args[0], count);
          });
    }
    return replaceOrFail(op, rewriter, createReshape(rewriter, loc, sum, type),
                         "cannot reshape the result");
  }
};

class ConvertMseLossBackwardOp
    : public TorchConversionPattern<torch::AtenMseLossBackwardOp> {
public:
  using Base::Base;
  LogicalResult
  matchAndRewrite(torch::AtenMseLossBackwardOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    RankedTensorType type = getTensorType(op.getType());
    if (!type)
      return fail(op, rewriter, "result type is not convertible");
    auto elemType = dyn_cast<FloatType>(type.getElementType());
    if (!elemType)
      return fail(op, rewriter, "needs a floating-point result dtype");
    std::optional<int64_t> reduction = getConstantInt(op.getReduction());
    if (!reduction || *reduction < None || *reduction > Sum)
      return fail(op, rewriter, "reduction must be a constant 0, 1 or 2");
    auto selfType = cast<RankedTensorType>(adaptor.getSelf().getType());
    if (type.getShape() != selfType.getShape())
      return fail(op, rewriter, "result must have self's shape");
    Location loc = op.getLoc();
    Type t = getOpmathType(elemType);
    double normValue =
        *reduction == Mean
            ? 2.0 / double(std::max<int64_t>(selfType.getNumElements(), 1))
            : 2.0;
    if (*reduction == Mean && selfType.getNumElements() == 0)
      normValue = std::numeric_limits<double>::infinity(); // 2. / 0
    Value norm = castScalar(
        rewriter, loc,
        arith::ConstantOp::create(rewriter, loc,
                                  rewriter.getF64FloatAttr(normValue)),
        t);
    bool gradUnsigned = isUnsignedDtype(getTorchDtype(op.getGradOutput()));
    bool selfUnsigned = isUnsignedDtype(getTorchDtype(op.getSelf()));
    bool targetUnsigned = isUnsignedDtype(getTorchDtype(op.getTarget()));
    FailureOr<Value> result = createElementwiseOp(
        rewriter, loc, type,
        ValueRange{adaptor.getGradOutput(), adaptor.getSelf(),
                   adaptor.getTarget()},
        [&](OpBuilder &b, Location l, ValueRange args) {
          Value g = castScalar(b, l, args[0], t, gradUnsigned);
          Value x = castScalar(b, l, args[1], t, selfUnsigned);
          Value y = castScalar(b, l, args[2], t, targetUnsigned);
          Value d =
              roundToDtype(b, l, arith::SubFOp::create(b, l, x, y), elemType, t);
          Value dn = roundToDtype(b, l, arith::MulFOp::create(b, l, d, norm),
                                  elemType, t);
          return castScalar(b, l, arith::MulFOp::create(b, l, dn, g),
                            elemType);
        });
    return replaceOrFail(op, rewriter, result,
                         "operand shapes do not broadcast to self's shape");
  }
};

} // namespace

void populateLossPatterns(TorchTypeConverter &typeConverter,
                          RewritePatternSet &patterns) {
  patterns.add<ConvertNllLossForwardOp, ConvertNllLossBackwardOp,
               ConvertMseLossOp, ConvertMseLossBackwardOp>(
      typeConverter, patterns.getContext());
}

} // namespace ltc_mlir::torch_to_linalg
