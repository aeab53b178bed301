//===- Normalization.cpp - softmax, log_softmax, layer_norm, backwards ----===//
//
// Each op is a short chain of linalg.generic ops over the input shape: row
// reductions along `dim` (results drop that dim) and elementwise ops that
// read the reduced values through a map without `dim`. Forward ops subtract
// the row max before exp, as ATen does, so large inputs do not overflow.
//
//===----------------------------------------------------------------------===//

#include "ltc_mlir/Conversion/TorchToLinalg/Utils.h"

#include "mlir/Dialect/Math/IR/Math.h"

#include <limits>

using namespace mlir;

namespace ltc_mlir::torch_to_linalg {
namespace {

/// Builds generics over a tensor of `type` where `dims` (empty or one dim)
/// is the softmax dim. "Full" operands have `type`'s shape; "row" operands
/// lack `dims`.
class RowwiseBuilder {
public:
  RowwiseBuilder(OpBuilder &b, Location loc, RankedTensorType type,
                 ArrayRef<int64_t> dims)
      : b(b), loc(loc), type(type), dims(dims) {}

  using Body = function_ref<Value(OpBuilder &, Location, ValueRange full,
                                  ValueRange row)>;

  RankedTensorType getRowType() const {
    SmallVector<int64_t> shape;
    for (int64_t d = 0; d < type.getRank(); ++d)
      if (!llvm::is_contained(dims, d))
        shape.push_back(type.getDimSize(d));
    return RankedTensorType::get(shape, type.getElementType());
  }

  /// Reduces body(full, row) along dims, combining with `combine` from
  /// `init` in one linalg.generic (for order-independent reductions such as
  /// max; sums go through `sum`).
  Value reduce(ValueRange full, ValueRange row, Value init, Body body,
               function_ref<Value(OpBuilder &, Location, Value, Value)>
                   combine) {
    RankedTensorType rowType = getRowType();
    Value acc = createFilledTensor(b, loc, rowType, init);
    SmallVector<utils::IteratorType> iterators;
    for (int64_t d = 0; d < type.getRank(); ++d)
      iterators.push_back(llvm::is_contained(dims, d)
                              ? utils::IteratorType::reduction
                              : utils::IteratorType::parallel);
    return build(rowType, full, row, acc, getRowMap(), iterators,
                 [&](OpBuilder &nb, Location nloc, ValueRange f, ValueRange r,
                     Value accValue) {
                   return combine(nb, nloc, body(nb, nloc, f, r), accValue);
                 });
  }

  /// Sums body(full, row) along dims, in blocks (createSum).
  Value sum(ValueRange full, ValueRange row, Body body) {
    SmallVector<Value> inputs(full);
    inputs.append(row.begin(), row.end());
    SmallVector<AffineMap> maps(full.size(),
                                b.getMultiDimIdentityMap(type.getRank()));
    maps.append(row.size(), getRowMap());
    size_t numFull = full.size();
    return createSum(b, loc, type.getShape(), dims, inputs, maps,
                     type.getElementType(),
                     [&](OpBuilder &nb, Location nloc, ValueRange args,
                         LoopIndexFn) -> SmallVector<Value> {
                       return {body(nb, nloc, args.take_front(numFull),
                                    args.drop_front(numFull))};
                     })
        .front();
  }

  /// Elementwise over the full shape.
  Value map(ValueRange full, ValueRange row, Body body) {
    SmallVector<utils::IteratorType> iterators(type.getRank(),
                                               utils::IteratorType::parallel);
    return build(type, full, row, createEmptyTensor(b, loc, type),
                 b.getMultiDimIdentityMap(type.getRank()), iterators,
                 [&](OpBuilder &nb, Location nloc, ValueRange f, ValueRange r,
                     Value) { return body(nb, nloc, f, r); });
  }

private:
  AffineMap getRowMap() const {
    return getDropDimsMap(type.getRank(), dims, b.getContext());
  }

  Value build(RankedTensorType resultType, ValueRange full, ValueRange row,
              Value init, AffineMap outputMap,
              ArrayRef<utils::IteratorType> iterators,
              function_ref<Value(OpBuilder &, Location, ValueRange, ValueRange,
                                 Value)>
                  body) {
    SmallVector<Value> inputs(full);
    inputs.append(row.begin(), row.end());
    SmallVector<AffineMap> maps(full.size(),
                                b.getMultiDimIdentityMap(type.getRank()));
    maps.append(row.size(), getRowMap());
    maps.push_back(outputMap);
    size_t numFull = full.size(), numRow = row.size();
    auto generic = linalg::GenericOp::create(
        b, loc, TypeRange{resultType}, inputs, ValueRange{init}, maps,
        iterators, [&](OpBuilder &nb, Location nloc, ValueRange args) {
          Value result = body(nb, nloc, args.take_front(numFull),
                              args.slice(numFull, numRow), args.back());
          linalg::YieldOp::create(nb, nloc, result);
        });
    return generic.getResult(0);
  }

  OpBuilder &b;
  Location loc;
  RankedTensorType type;
  ArrayRef<int64_t> dims;
};

/// Base of the softmax patterns. Checks a float result of the input's shape
/// and a constant dim, then calls `rewrite` with the result type and the
/// softmax dims (see RowwiseBuilder).
template <typename OpTy>
class ConvertSoftmaxOpBase : public TorchConversionPattern<OpTy> {
public:
  using OpAdaptor = typename OpTy::Adaptor;
  using TorchConversionPattern<OpTy>::TorchConversionPattern;

  LogicalResult
  matchAndRewrite(OpTy op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const final {
    RankedTensorType type = this->getTensorType(op.getType());
    if (!type)
      return this->fail(op, rewriter, "result type is not convertible");
    if (!isa<FloatType>(type.getElementType()))
      return this->fail(op, rewriter, "needs a floating-point result dtype");
    auto sourceType = cast<RankedTensorType>(getShapeSource(adaptor).getType());
    if (sourceType.getShape() != type.getShape())
      return this->fail(op, rewriter,
                        "result shape differs from the input shape");
    std::optional<int64_t> dim = getConstantInt(op.getDim());
    if (!dim)
      return this->fail(op, rewriter, "dim must be a constant");
    std::optional<int64_t> d = normalizeDim(*dim, type.getRank());
    if (!d)
      return this->fail(op, rewriter, "dim out of range");
    SmallVector<int64_t> dims;
    if (type.getRank() > 0) // a 0-d tensor is its own row
      dims.push_back(*d);
    return rewrite(op, adaptor, type, dims, rewriter);
  }

protected:
  /// The operand whose shape the result has.
  virtual Value getShapeSource(OpAdaptor adaptor) const = 0;
  virtual LogicalResult rewrite(OpTy op, OpAdaptor adaptor,
                                RankedTensorType type, ArrayRef<int64_t> dims,
                                ConversionPatternRewriter &rewriter) const = 0;
};

/// _softmax / _log_softmax(self, dim, half_to_float).
template <typename OpTy, bool IsLog>
class ConvertSoftmaxOp : public ConvertSoftmaxOpBase<OpTy> {
public:
  using OpAdaptor = typename OpTy::Adaptor;
  using ConvertSoftmaxOpBase<OpTy>::ConvertSoftmaxOpBase;

protected:
  Value getShapeSource(OpAdaptor adaptor) const override {
    return adaptor.getSelf();
  }

  LogicalResult rewrite(OpTy op, OpAdaptor adaptor, RankedTensorType type,
                        ArrayRef<int64_t> dims,
                        ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    // half_to_float is reflected in the result dtype. f16/bf16 rows are
    // computed in f32 and rounded once, like ATen's kernels.
    Type elemType = getSumAccumulatorType(type.getElementType());
    RankedTensorType computeType = type.clone(elemType);
    Value x = castTensor(rewriter, loc, adaptor.getSelf(), elemType,
                         isUnsignedDtype(getTorchDtype(op.getSelf())));
    RowwiseBuilder rows(rewriter, loc, computeType, dims);

    Value negInf = createScalarConstant(
        rewriter, loc, elemType, -std::numeric_limits<double>::infinity());
    Value max = rows.reduce(
        x, {}, negInf,
        [](OpBuilder &, Location, ValueRange f, ValueRange) { return f[0]; },
        [](OpBuilder &b, Location l, Value v, Value acc) -> Value {
          return arith::MaximumFOp::create(b, l, v, acc);
        });
    auto expShifted = [](OpBuilder &b, Location l, ValueRange f,
                         ValueRange r) -> Value {
      return math::ExpOp::create(b, l,
                                 arith::SubFOp::create(b, l, f[0], r[0]));
    };
    Value sum = rows.sum(x, max, expShifted);

    Value result;
    if (IsLog) {
      // (x - max) - log(sum): ATen keeps this order, since max + log(sum)
      // would lose the small log term next to a large max.
      Value logSum = *createElementwiseOp(
          rewriter, loc, rows.getRowType(), sum,
          [](OpBuilder &b, Location l, ValueRange args) -> Value {
            return math::LogOp::create(b, l, args[0]);
          });
      result = rows.map(x, ValueRange{max, logSum},
                        [](OpBuilder &b, Location l, ValueRange f,
                           ValueRange r) -> Value {
                          Value shifted =
                              arith::SubFOp::create(b, l, f[0], r[0]);
                          return arith::SubFOp::create(b, l, shifted, r[1]);
                        });
    } else {
      result = rows.map(x, ValueRange{max, sum},
                        [&](OpBuilder &b, Location l, ValueRange f,
                            ValueRange r) -> Value {
                          return arith::DivFOp::create(
                              b, l, expShifted(b, l, f, r.take_front()), r[1]);
                        });
    }
    rewriter.replaceOp(op, castTensor(rewriter, loc, result,
                                      type.getElementType()));
    return success();
  }
};

/// _log_softmax_backward_data: grad - exp(output) * sum(grad, dim).
/// _softmax_backward_data:     output * (grad - sum(grad * output, dim)).
template <typename OpTy, bool IsLog>
class ConvertSoftmaxBackwardOp : public ConvertSoftmaxOpBase<OpTy> {
public:
  using OpAdaptor = typename OpTy::Adaptor;
  using ConvertSoftmaxOpBase<OpTy>::ConvertSoftmaxOpBase;

protected:
  Value getShapeSource(OpAdaptor adaptor) const override {
    return adaptor.getGradOutput();
  }

  LogicalResult rewrite(OpTy op, OpAdaptor adaptor, RankedTensorType type,
                        ArrayRef<int64_t> dims,
                        ConversionPatternRewriter &rewriter) const override {
    auto outputType = cast<RankedTensorType>(adaptor.getOutput().getType());
    if (outputType.getShape() != type.getShape())
      return this->fail(op, rewriter, "output and grad_output shapes differ");
    Location loc = op.getLoc();
    Type elemType = getSumAccumulatorType(type.getElementType());
    Value grad = castTensor(rewriter, loc, adaptor.getGradOutput(), elemType);
    Value output = castTensor(rewriter, loc, adaptor.getOutput(), elemType);
    RowwiseBuilder rows(rewriter, loc, type.clone(elemType), dims);

    Value result;
    if (IsLog) {
      Value sum = rows.sum(
          grad, {},
          [](OpBuilder &, Location, ValueRange f, ValueRange) { return f[0]; });
      result = rows.map(
          ValueRange{grad, output}, sum,
          [](OpBuilder &b, Location l, ValueRange f, ValueRange r) -> Value {
            Value e = math::ExpOp::create(b, l, f[1]);
            return arith::SubFOp::create(b, l, f[0],
                                         arith::MulFOp::create(b, l, e, r[0]));
          });
    } else {
      Value sum = rows.sum(
          ValueRange{grad, output}, {},
          [](OpBuilder &b, Location l, ValueRange f, ValueRange) -> Value {
            return arith::MulFOp::create(b, l, f[0], f[1]);
          });
      result = rows.map(
          ValueRange{grad, output}, sum,
          [](OpBuilder &b, Location l, ValueRange f, ValueRange r) -> Value {
            return arith::MulFOp::create(
                b, l, f[1], arith::SubFOp::create(b, l, f[0], r[0]));
          });
    }
    rewriter.replaceOp(op, castTensor(rewriter, loc, result,
                                      type.getElementType()));
    return success();
  }
};

//===----------------------------------------------------------------------===//
// native_layer_norm and its backward: the input is viewed as [M, N] (N the
// product of normalized_shape), statistics are [M], weight/bias [N]. Sums are
// accumulated in f64 (ATen accumulates float rows with a cascaded Welford,
// which is as accurate as f64 sums rounded once) through createSum, the
// per-element formulas follow ATen's CPU kernels (layer_norm_kernel.cpp) in
// T_ACC: the input dtype for f32/f64, f32 for f16/bf16 (rounded once).
//===----------------------------------------------------------------------===//

/// One linalg.generic over the 2-D iteration space (d0 = row, d1 = column).
/// `inputMaps` pick full/row/column views; here a map writing a full tensor
/// (sums go through sum2D).
Value build2D(OpBuilder &b, Location loc, RankedTensorType resultType,
              ValueRange inputs, ArrayRef<AffineMap> inputMaps, AffineMap outMap,
              Value init, ArrayRef<utils::IteratorType> iterators,
              function_ref<Value(OpBuilder &, Location, ValueRange)> body) {
  SmallVector<AffineMap> maps(inputMaps);
  maps.push_back(outMap);
  auto generic = linalg::GenericOp::create(
      b, loc, TypeRange{resultType}, inputs, ValueRange{init}, maps, iterators,
      [&](OpBuilder &nb, Location nloc, ValueRange args) {
        linalg::YieldOp::create(nb, nloc, body(nb, nloc, args));
      });
  return generic.getResult(0);
}

struct Maps2D {
  explicit Maps2D(MLIRContext *ctx)
      : full(AffineMap::getMultiDimIdentityMap(2, ctx)),
        row(AffineMap::get(2, 0, getAffineDimExpr(0, ctx))),
        col(AffineMap::get(2, 0, getAffineDimExpr(1, ctx))) {}
  AffineMap full, row, col;
};

Value extF64(OpBuilder &b, Location loc, Value v) {
  return castScalar(b, loc, v, b.getF64Type());
}

/// f64 sum over `dim` (0: per column, 1: per row) of body(inputs) on the
/// [M, N] loop nest (createSum: blocked).
Value sum2D(OpBuilder &b, Location loc, ArrayRef<int64_t> shape, int64_t dim,
            ValueRange inputs, ArrayRef<AffineMap> inputMaps,
            function_ref<Value(OpBuilder &, Location, ValueRange)> body) {
  return createSum(b, loc, shape, {dim}, inputs, inputMaps, b.getF64Type(),
                   [&](OpBuilder &nb, Location nloc, ValueRange args,
                       LoopIndexFn) -> SmallVector<Value> {
                     return {body(nb, nloc, args)};
                   })
      .front();
}

/// Checks normalized_shape against `inputType` and returns N (and M).
FailureOr<std::pair<int64_t, int64_t>>
getLayerNormSizes(Value normalizedShape, RankedTensorType inputType) {
  std::optional<SmallVector<int64_t>> shape =
      getConstantIntList(normalizedShape);
  if (!shape || shape->empty() ||
      int64_t(shape->size()) > inputType.getRank() ||
      inputType.getShape().take_back(shape->size()) !=
          ArrayRef<int64_t>(*shape))
    return failure();
  int64_t n = 1, m = 1;
  for (int64_t s : *shape)
    n *= s;
  for (int64_t s : inputType.getShape().drop_back(shape->size()))
    m *= s;
  return std::make_pair(m, n);
}

/// An optional [normalized_shape] operand as [N], or null for None.
FailureOr<Value> getParam(OpBuilder &b, Location loc, Value converted,
                          int64_t n, Type elemType) {
  if (isNone(converted))
    return Value();
  auto type = dyn_cast<RankedTensorType>(converted.getType());
  if (!type || type.getNumElements() != n)
    return failure();
  FailureOr<Value> flat = createReshape(
      b, loc, converted, RankedTensorType::get({n}, type.getElementType()));
  if (failed(flat))
    return failure();
  return castTensor(b, loc, *flat, elemType);
}

class ConvertNativeLayerNormOp
    : public TorchConversionPattern<torch::AtenNativeLayerNormOp> {
public:
  using Base::Base;
  LogicalResult
  matchAndRewrite(torch::AtenNativeLayerNormOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    RankedTensorType outType = getTensorType(op.getOut().getType());
    RankedTensorType meanType = getTensorType(op.getMean().getType());
    RankedTensorType rstdType = getTensorType(op.getRstd().getType());
    if (!outType || !meanType || !rstdType)
      return fail(op, rewriter, "result type is not convertible");
    Type elemType = outType.getElementType();
    if (!isa<FloatType>(elemType))
      return fail(op, rewriter, "needs a floating-point input");
    // ATen's T_ACC: per-element formulas in f32 for f16/bf16 inputs.
    Type computeType = getSumAccumulatorType(elemType);
    if (!isa<FloatType>(meanType.getElementType()) ||
        !isa<FloatType>(rstdType.getElementType()))
      return fail(op, rewriter, "mean/rstd must be floating point");
    auto inputType = cast<RankedTensorType>(adaptor.getInput().getType());
    if (inputType != outType)
      return fail(op, rewriter, "result type differs from the input type");
    FailureOr<std::pair<int64_t, int64_t>> sizes =
        getLayerNormSizes(op.getNormalizedShape(), inputType);
    if (failed(sizes))
      return fail(op, rewriter,
                  "normalized_shape must be a constant suffix of the input "
                  "shape");
    auto [m, n] = *sizes;
    if (meanType.getNumElements() != m || rstdType.getNumElements() != m)
      return fail(op, rewriter, "mean/rstd do not have one element per row");
    std::optional<double> eps = getConstantFloat(op.getEps());
    Location loc = op.getLoc();
    if (outType.getNumElements() == 0)
      return fail(op, rewriter, "empty inputs are not supported");
    FailureOr<Value> weight =
        getParam(rewriter, loc, adaptor.getWeight(), n, computeType);
    FailureOr<Value> bias =
        getParam(rewriter, loc, adaptor.getBias(), n, computeType);
    if (failed(weight) || failed(bias))
      return fail(op, rewriter, "weight/bias do not match normalized_shape");
    FailureOr<Value> x = createReshape(
        rewriter, loc, adaptor.getInput(),
        RankedTensorType::get({m, n}, elemType));
    if (failed(x))
      return fail(op, rewriter, "cannot view the input as rows");

    MLIRContext *ctx = op.getContext();
    Maps2D maps(ctx);
    Type f64 = rewriter.getF64Type();
    auto rowF64 = RankedTensorType::get({m}, f64);
    using IT = utils::IteratorType;
    SmallVector<IT> parallel = {IT::parallel, IT::parallel};
    Value sum = sum2D(rewriter, loc, {m, n}, /*dim=*/1, *x, {maps.full},
                      [](OpBuilder &b, Location l, ValueRange a) {
                        return extF64(b, l, a[0]);
                      });
    auto scaleRows = [&](Value t) {
      return *createElementwiseOp(
          rewriter, loc, rowF64, t,
          [&](OpBuilder &b, Location l, ValueRange a) -> Value {
            return arith::DivFOp::create(
                b, l, a[0], createScalarConstant(b, l, f64, double(n)));
          });
    };
    Value mean = scaleRows(sum);
    Value sq = sum2D(rewriter, loc, {m, n}, /*dim=*/1, ValueRange{*x, mean},
                     {maps.full, maps.row},
                     [](OpBuilder &b, Location l, ValueRange a) -> Value {
                       Value d = arith::SubFOp::create(
                           b, l, extF64(b, l, a[0]), a[1]);
                       return arith::MulFOp::create(b, l, d, d);
                     });
    Value var = scaleRows(sq);
    Value epsValue =
        eps ? createScalarConstant(rewriter, loc, f64, *eps)
            : castScalar(rewriter, loc, adaptor.getEps(), f64);
    // rstd = 1 / sqrt(var + eps), ATen's formula (not rsqrt).
    Value rstd = *createElementwiseOp(
        rewriter, loc, rowF64, var,
        [&](OpBuilder &b, Location l, ValueRange a) -> Value {
          Value s = math::SqrtOp::create(b, l,
                                         arith::AddFOp::create(b, l, a[0],
                                                               epsValue));
          return arith::DivFOp::create(
              b, l, createScalarConstant(b, l, f64, 1), s);
        });
    // The statistics in their dtype; the output uses them in T_ACC (the
    // input dtype for f32/f64, f32 for f16/bf16).
    Value meanT = castTensor(rewriter, loc, mean, computeType);
    Value rstdT = castTensor(rewriter, loc, rstd, computeType);
    SmallVector<Value> inputs = {castTensor(rewriter, loc, *x, computeType),
                                 meanT, rstdT};
    SmallVector<AffineMap> inputMaps = {maps.full, maps.row, maps.row};
    bool affine = *weight && *bias;
    if (*weight) {
      inputs.push_back(*weight);
      inputMaps.push_back(maps.col);
    }
    if (*bias) {
      inputs.push_back(*bias);
      inputMaps.push_back(maps.col);
    }
    bool hasWeight = bool(*weight), hasBias = bool(*bias);
    auto fullType = RankedTensorType::get({m, n}, computeType);
    Value y = build2D(
        rewriter, loc, fullType, inputs, inputMaps, maps.full,
        createEmptyTensor(rewriter, loc, fullType), parallel,
        [&](OpBuilder &b, Location l, ValueRange a) -> Value {
          Value xv = a[0], mv = a[1], rv = a[2];
          if (affine) {
            // (x * scale + bias) * gamma + beta, scale = rstd,
            // bias = -rstd * mean.
            Value shift = arith::MulFOp::create(
                b, l, arith::NegFOp::create(b, l, rv), mv);
            Value t = arith::AddFOp::create(
                b, l, arith::MulFOp::create(b, l, xv, rv), shift);
            return arith::AddFOp::create(
                b, l, arith::MulFOp::create(b, l, t, a[3]), a[4]);
          }
          // (x - mean) * rstd * gamma + beta with the missing ones skipped.
          Value t = arith::MulFOp::create(
              b, l, arith::SubFOp::create(b, l, xv, mv), rv);
          size_t next = 3;
          if (hasWeight)
            t = arith::MulFOp::create(b, l, t, a[next++]);
          if (hasBias)
            t = arith::AddFOp::create(b, l, t, a[next++]);
          return t;
        });
    FailureOr<Value> out = createReshape(
        rewriter, loc, castTensor(rewriter, loc, y, elemType), outType);
    auto statistic = [&](Value f64Value, Value inComputeType,
                         RankedTensorType statType) {
      Type t = statType.getElementType();
      return createReshape(
          rewriter, loc,
          t == computeType ? inComputeType
                           : castTensor(rewriter, loc, f64Value, t),
          statType);
    };
    FailureOr<Value> meanOut = statistic(mean, meanT, meanType);
    FailureOr<Value> rstdOut = statistic(rstd, rstdT, rstdType);
    if (failed(out) || failed(meanOut) || failed(rstdOut))
      return fail(op, rewriter, "cannot reshape the results");
    rewriter.replaceOp(op, ValueRange{*out, *meanOut, *rstdOut});
    return success();
  }
};

class ConvertNativeLayerNormBackwardOp
    : public TorchConversionPattern<torch::AtenNativeLayerNormBackwardOp> {
public:
  using Base::Base;
  LogicalResult
  matchAndRewrite(torch::AtenNativeLayerNormBackwardOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    RankedTensorType gradInputType = getTensorType(op.getGradInput().getType());
    RankedTensorType gradWeightType =
        getTensorType(op.getGradWeight().getType());
    RankedTensorType gradBiasType = getTensorType(op.getGradBias().getType());
    if (!gradInputType || !gradWeightType || !gradBiasType)
      return fail(op, rewriter, "result type is not convertible");
    auto inputType = cast<RankedTensorType>(adaptor.getInput().getType());
    Type elemType = inputType.getElementType();
    if (!isa<FloatType>(elemType))
      return fail(op, rewriter, "needs a floating-point input");
    Type computeType = getSumAccumulatorType(elemType);
    std::optional<SmallVector<bool>> mask =
        getConstantBoolList(op.getOutputMask());
    if (!mask || mask->size() != 3)
      return fail(op, rewriter, "output_mask must be 3 constant bools");
    // An unwanted grad_input is an undefined tensor in ATen (LTC types it
    // []): zeros of that type, like the other unwanted gradients.
    auto gradOutType = cast<RankedTensorType>(adaptor.getGradOut().getType());
    if (gradOutType != inputType || ((*mask)[0] && gradInputType != inputType))
      return fail(op, rewriter, "input, grad_out and grad_input types differ");
    FailureOr<std::pair<int64_t, int64_t>> sizes =
        getLayerNormSizes(op.getNormalizedShape(), inputType);
    if (failed(sizes))
      return fail(op, rewriter,
                  "normalized_shape must be a constant suffix of the input "
                  "shape");
    auto [m, n] = *sizes;
    if (inputType.getNumElements() == 0)
      return fail(op, rewriter, "empty inputs are not supported");
    auto meanType = cast<RankedTensorType>(adaptor.getMean().getType());
    auto rstdType = cast<RankedTensorType>(adaptor.getRstd().getType());
    if (meanType.getNumElements() != m || rstdType.getNumElements() != m ||
        !isa<FloatType>(meanType.getElementType()) ||
        !isa<FloatType>(rstdType.getElementType()))
      return fail(op, rewriter, "mean/rstd must be float with one value per row");
    Location loc = op.getLoc();
    Type f64 = rewriter.getF64Type();
    FailureOr<Value> gamma =
        getParam(rewriter, loc, adaptor.getWeight(), n, computeType);
    if (failed(gamma))
      return fail(op, rewriter, "weight does not match normalized_shape");
    auto rows = [&](Value v, bool perRow) -> FailureOr<Value> {
      auto t = cast<RankedTensorType>(v.getType());
      SmallVector<int64_t> shape = {m};
      if (!perRow)
        shape.push_back(n);
      return createReshape(rewriter, loc, v,
                           RankedTensorType::get(shape, t.getElementType()));
    };
    FailureOr<Value> x = rows(adaptor.getInput(), false);
    FailureOr<Value> dy = rows(adaptor.getGradOut(), false);
    FailureOr<Value> meanRows = rows(adaptor.getMean(), true);
    FailureOr<Value> rstdRows = rows(adaptor.getRstd(), true);
    if (failed(x) || failed(dy) || failed(meanRows) || failed(rstdRows))
      return fail(op, rewriter, "cannot view the operands as rows");
    Value mean = castTensor(rewriter, loc, *meanRows, f64);
    Value rstd = castTensor(rewriter, loc, *rstdRows, f64);

    MLIRContext *ctx = op.getContext();
    Maps2D maps(ctx);
    using IT = utils::IteratorType;
    SmallVector<IT> parallel = {IT::parallel, IT::parallel};
    auto fullType = RankedTensorType::get({m, n}, computeType);
    bool hasGamma = bool(*gamma);

    auto zerosOrReshape = [&](bool wanted, RankedTensorType type,
                              function_ref<Value()> compute)
        -> FailureOr<Value> {
      if (!wanted || type.getNumElements() == 0)
        return createZeroTensor(rewriter, loc, type);
      return createReshape(rewriter, loc, compute(), type);
    };

    FailureOr<Value> gradInput =
        zerosOrReshape((*mask)[0], gradInputType, [&]() -> Value {
          // ds = sum(dy * gamma * x), db = sum(dy * gamma) per row.
          SmallVector<Value> in = {*dy, *x};
          SmallVector<AffineMap> inMaps = {maps.full, maps.full};
          if (hasGamma) {
            in.push_back(*gamma);
            inMaps.push_back(maps.col);
          }
          auto rowF64 = RankedTensorType::get({m}, f64);
          auto dyGamma = [&](OpBuilder &b, Location l, ValueRange a) {
            Value d = extF64(b, l, a[0]);
            return hasGamma ? arith::MulFOp::create(b, l, d, extF64(b, l, a[2]))
                                  .getResult()
                            : d;
          };
          // Both in one pass over the rows.
          SmallVector<Value> sums = createSum(
              rewriter, loc, {m, n}, {1}, in, inMaps, {f64, f64},
              [&](OpBuilder &b, Location l, ValueRange a,
                  LoopIndexFn) -> SmallVector<Value> {
                Value dg = dyGamma(b, l, a);
                return {arith::MulFOp::create(b, l, dg, extF64(b, l, a[1])),
                        dg};
              });
          Value ds = sums[0], db = sums[1];
          // a = rstd, b = (db * mean - ds) * a^3 / N,
          // c = -b * mean - db * a / N; dx = a * dy * gamma + b * x + c.
          double scale = 1.0 / double(n);
          Value bCoeff64 = *createElementwiseOp(
              rewriter, loc, rowF64, ValueRange{ds, db, mean, rstd},
              [&](OpBuilder &b, Location l, ValueRange a) -> Value {
                Value t = arith::SubFOp::create(
                    b, l, arith::MulFOp::create(b, l, a[1], a[2]), a[0]);
                t = arith::MulFOp::create(b, l, t, a[3]);
                t = arith::MulFOp::create(b, l, t, a[3]);
                t = arith::MulFOp::create(b, l, t, a[3]);
                return arith::MulFOp::create(
                    b, l, t, createScalarConstant(b, l, f64, scale));
              });
          Value cCoeff64 = *createElementwiseOp(
              rewriter, loc, rowF64, ValueRange{bCoeff64, db, mean, rstd},
              [&](OpBuilder &b, Location l, ValueRange a) -> Value {
                Value t = arith::MulFOp::create(
                    b, l, arith::NegFOp::create(b, l, a[0]), a[2]);
                Value u = arith::MulFOp::create(
                    b, l, arith::MulFOp::create(b, l, a[1], a[3]),
                    createScalarConstant(b, l, f64, scale));
                return arith::SubFOp::create(b, l, t, u);
              });
          Value aT = castTensor(rewriter, loc, rstd, computeType);
          Value bT = castTensor(rewriter, loc, bCoeff64, computeType);
          Value cT = castTensor(rewriter, loc, cCoeff64, computeType);
          SmallVector<Value> fin = {castTensor(rewriter, loc, *dy, computeType),
                                    castTensor(rewriter, loc, *x, computeType),
                                    aT, bT, cT};
          SmallVector<AffineMap> finMaps = {maps.full, maps.full, maps.row,
                                            maps.row, maps.row};
          if (hasGamma) {
            fin.push_back(*gamma);
            finMaps.push_back(maps.col);
          }
          Value dx = build2D(
              rewriter, loc, fullType, fin, finMaps, maps.full,
              createEmptyTensor(rewriter, loc, fullType), parallel,
              [&](OpBuilder &b, Location l, ValueRange a) -> Value {
                Value t = arith::MulFOp::create(b, l, a[2], a[0]);
                if (hasGamma)
                  t = arith::MulFOp::create(b, l, t, a[5]);
                Value bx = arith::MulFOp::create(b, l, a[3], a[1]);
                return arith::AddFOp::create(
                    b, l, arith::AddFOp::create(b, l, t, bx), a[4]);
              });
          return castTensor(rewriter, loc, dx, elemType);
        });

    FailureOr<Value> gradWeight = zerosOrReshape(
        (*mask)[1] && gradWeightType.getNumElements() == n, gradWeightType,
        [&]() -> Value {
          // sum over rows of dy * (x - mean) * rstd.
          Value sum = sum2D(
              rewriter, loc, {m, n}, /*dim=*/0, ValueRange{*dy, *x, mean, rstd},
              {maps.full, maps.full, maps.row, maps.row},
              [&](OpBuilder &b, Location l, ValueRange a) -> Value {
                Value xh = arith::MulFOp::create(
                    b, l,
                    arith::SubFOp::create(b, l, extF64(b, l, a[1]), a[2]),
                    a[3]);
                return arith::MulFOp::create(b, l, extF64(b, l, a[0]), xh);
              });
          return castTensor(rewriter, loc, sum,
                            gradWeightType.getElementType());
        });
    FailureOr<Value> gradBias = zerosOrReshape(
        (*mask)[2] && gradBiasType.getNumElements() == n, gradBiasType,
        [&]() -> Value {
          Value sum = sum2D(rewriter, loc, {m, n}, /*dim=*/0, ValueRange{*dy},
                            {maps.full},
                            [](OpBuilder &b, Location l, ValueRange a) {
                              return extF64(b, l, a[0]);
                            });
          return castTensor(rewriter, loc, sum, gradBiasType.getElementType());
        });
    if (failed(gradInput) || failed(gradWeight) || failed(gradBias))
      return fail(op, rewriter, "cannot reshape the results");
    rewriter.replaceOp(op, ValueRange{*gradInput, *gradWeight, *gradBias});
    return success();
  }
};

} // namespace

void populateNormalizationPatterns(TorchTypeConverter &typeConverter,
                                   RewritePatternSet &patterns) {
  patterns.add<
      ConvertSoftmaxOp<torch::AtenSoftmaxOp, /*IsLog=*/false>,
      ConvertSoftmaxOp<torch::AtenLogSoftmaxOp, true>,
      ConvertSoftmaxBackwardOp<torch::AtenSoftmaxBackwardDataOp, false>,
      ConvertSoftmaxBackwardOp<torch::AtenLogSoftmaxBackwardDataOp, true>,
      ConvertNativeLayerNormOp, ConvertNativeLayerNormBackwardOp>(
      typeConverter, patterns.getContext());
}

} // namespace ltc_mlir::torch_to_linalg
