//===- ChannelNorm.cpp - shared pieces of batch and group norm ------------===//

#include "ltc_mlir/Conversion/TorchToLinalg/ChannelNorm.h"

#include "mlir/Dialect/Math/IR/Math.h"

using namespace mlir;

namespace ltc_mlir::torch_to_linalg {

NormLoops::NormLoops(MLIRContext *context, ArrayRef<int64_t> shape,
                     ArrayRef<int64_t> statDims, ArrayRef<int64_t> paramDims)
    : shape(shape), statDims(statDims), paramDims(paramDims), count(1) {
  for (int64_t d = 0, e = shape.size(); d < e; ++d)
    if (!llvm::is_contained(statDims, d)) {
      reducedDims.push_back(d);
      count *= shape[d];
    }
  full = AffineMap::getMultiDimIdentityMap(shape.size(), context);
  stat = dimsMap(statDims);
  param = dimsMap(paramDims);
}

AffineMap NormLoops::dimsMap(ArrayRef<int64_t> dims) const {
  MLIRContext *context = full.getContext();
  SmallVector<AffineExpr> exprs;
  for (int64_t d : dims)
    exprs.push_back(getAffineDimExpr(d, context));
  return AffineMap::get(shape.size(), 0, exprs, context);
}

static RankedTensorType getSubType(ArrayRef<int64_t> shape,
                                   ArrayRef<int64_t> dims, Type elementType) {
  SmallVector<int64_t> sizes;
  for (int64_t d : dims)
    sizes.push_back(shape[d]);
  return RankedTensorType::get(sizes, elementType);
}

RankedTensorType NormLoops::fullType(Type elementType) const {
  return RankedTensorType::get(shape, elementType);
}

RankedTensorType NormLoops::statType(Type elementType) const {
  return getSubType(shape, statDims, elementType);
}

RankedTensorType NormLoops::paramType(Type elementType) const {
  return getSubType(shape, paramDims, elementType);
}

SmallVector<Value> sumOverLoops(OpBuilder &b, Location loc,
                                ArrayRef<int64_t> shape,
                                ArrayRef<int64_t> reducedDims,
                                ValueRange inputs, ArrayRef<AffineMap> maps,
                                TypeRange accTypes, NormSumsFn terms) {
  return createSum(b, loc, shape, reducedDims, inputs, maps, accTypes,
                   [&](OpBuilder &nb, Location nloc, ValueRange args,
                       LoopIndexFn) { return terms(nb, nloc, args); });
}

std::pair<Value, Value> computeMeanAndVar(OpBuilder &b, Location loc,
                                          const NormLoops &loops, Value x,
                                          Type accType) {
  auto divideByCount = [&](Value sum) {
    return mapSame(b, loc, cast<RankedTensorType>(sum.getType()), sum,
                   [&](OpBuilder &nb, Location nloc, ValueRange a) -> Value {
                     Value n = createScalarConstant(nb, nloc, accType,
                                                    double(loops.count));
                     return arith::DivFOp::create(nb, nloc, a[0], n);
                   });
  };
  Value sum = sumOverLoops(
      b, loc, loops.shape, loops.reducedDims, x, loops.full, accType,
      [&](OpBuilder &nb, Location nloc, ValueRange a) -> SmallVector<Value> {
        return {castScalar(nb, nloc, a[0], accType)};
      })[0];
  Value mean = divideByCount(sum);
  Value squares = sumOverLoops(
      b, loc, loops.shape, loops.reducedDims, ValueRange{x, mean},
      {loops.full, loops.stat}, accType,
      [&](OpBuilder &nb, Location nloc, ValueRange a) -> SmallVector<Value> {
        Value d = arith::SubFOp::create(
            nb, nloc, castScalar(nb, nloc, a[0], accType), a[1]);
        return {arith::MulFOp::create(nb, nloc, d, d)};
      })[0];
  return {mean, divideByCount(squares)};
}

SmallVector<Value> mapFullMulti(OpBuilder &b, Location loc,
                                const NormLoops &loops, TypeRange resultTypes,
                                ValueRange inputs, ArrayRef<AffineMap> maps,
                                NormSumsFn body) {
  SmallVector<Type> types;
  SmallVector<Value> inits;
  for (Type t : resultTypes) {
    RankedTensorType type = loops.fullType(t);
    types.push_back(type);
    inits.push_back(createEmptyTensor(b, loc, type));
  }
  SmallVector<AffineMap> allMaps(maps);
  allMaps.append(types.size(), loops.full);
  SmallVector<utils::IteratorType> iterators(loops.shape.size(),
                                             utils::IteratorType::parallel);
  size_t numInputs = inputs.size();
  auto generic = linalg::GenericOp::create(
      b, loc, types, inputs, inits, allMaps, iterators,
      [&](OpBuilder &nb, Location nloc, ValueRange args) {
        linalg::YieldOp::create(nb, nloc,
                                body(nb, nloc, args.take_front(numInputs)));
      });
  return SmallVector<Value>(generic.getResults());
}

Value mapFull(OpBuilder &b, Location loc, const NormLoops &loops,
              Type elementType, ValueRange inputs, ArrayRef<AffineMap> maps,
              NormBodyFn body) {
  return mapFullMulti(
      b, loc, loops, elementType, inputs, maps,
      [&](OpBuilder &nb, Location nloc, ValueRange args) -> SmallVector<Value> {
        return {body(nb, nloc, args)};
      })[0];
}

Value mapSame(OpBuilder &b, Location loc, RankedTensorType resultType,
              ValueRange inputs, NormBodyFn body) {
  // Same shapes: the broadcast maps are identities and cannot fail.
  return *createElementwiseOp(b, loc, resultType, inputs, body);
}

SmallVector<Value> mapSameMulti(OpBuilder &b, Location loc,
                                TypeRange resultTypes, ValueRange inputs,
                                NormSumsFn body) {
  auto shapeType = cast<RankedTensorType>(inputs.front().getType());
  int64_t rank = shapeType.getRank();
  SmallVector<Type> types;
  SmallVector<Value> inits;
  for (Type t : resultTypes) {
    auto type = shapeType.clone(t);
    types.push_back(type);
    inits.push_back(createEmptyTensor(b, loc, type));
  }
  SmallVector<AffineMap> maps(inputs.size() + types.size(),
                              b.getMultiDimIdentityMap(rank));
  SmallVector<utils::IteratorType> iterators(rank,
                                             utils::IteratorType::parallel);
  size_t numInputs = inputs.size();
  auto generic = linalg::GenericOp::create(
      b, loc, types, inputs, inits, maps, iterators,
      [&](OpBuilder &nb, Location nloc, ValueRange args) {
        linalg::YieldOp::create(nb, nloc,
                                body(nb, nloc, args.take_front(numInputs)));
      });
  return SmallVector<Value>(generic.getResults());
}

Value createInvStdScalar(OpBuilder &b, Location loc, Value var, Value epsF64,
                         Type type) {
  Type f64 = b.getF64Type();
  Value v = castScalar(b, loc, var, f64);
  Value s =
      math::SqrtOp::create(b, loc, arith::AddFOp::create(b, loc, v, epsF64));
  Value r =
      arith::DivFOp::create(b, loc, createScalarConstant(b, loc, f64, 1), s);
  return castScalar(b, loc, r, type);
}

Value createInvStd(OpBuilder &b, Location loc, Value var, Value epsF64) {
  auto type = cast<RankedTensorType>(var.getType());
  return mapSame(b, loc, type, var,
                 [&](OpBuilder &nb, Location nloc, ValueRange a) {
                   return createInvStdScalar(nb, nloc, a[0], epsF64,
                                             type.getElementType());
                 });
}

Value getEpsF64(OpBuilder &b, Location loc, Value convertedEps) {
  if (std::optional<double> eps = getConstantFloat(convertedEps))
    return createScalarConstant(b, loc, b.getF64Type(), *eps);
  return castScalar(b, loc, convertedEps, b.getF64Type());
}

FailureOr<Value> getOptionalOperand(OpBuilder &b, Location loc, Value converted,
                                    RankedTensorType type) {
  if (isNone(converted))
    return Value();
  auto operandType = dyn_cast<RankedTensorType>(converted.getType());
  if (!operandType || !isa<FloatType>(operandType.getElementType()) ||
      operandType.getNumElements() != type.getNumElements())
    return failure();
  FailureOr<Value> reshaped = createReshape(
      b, loc, converted, type.clone(operandType.getElementType()));
  if (failed(reshaped))
    return failure();
  return castTensor(b, loc, *reshaped, type.getElementType());
}

FailureOr<Value> createResult(OpBuilder &b, Location loc, bool wanted,
                              RankedTensorType type,
                              function_ref<Value()> compute) {
  if (!wanted || type.getNumElements() == 0)
    return createZeroTensor(b, loc, type);
  Value value = compute();
  auto valueType = cast<RankedTensorType>(value.getType());
  if (valueType.getNumElements() != type.getNumElements())
    return failure();
  return createReshape(b, loc, castTensor(b, loc, value, type.getElementType()),
                       type);
}

} // namespace ltc_mlir::torch_to_linalg
