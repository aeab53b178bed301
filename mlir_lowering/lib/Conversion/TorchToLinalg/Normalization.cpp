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
  /// `init`.
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

Value addF(OpBuilder &b, Location loc, Value x, Value y) {
  return arith::AddFOp::create(b, loc, x, y);
}

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
    Type elemType = type.getElementType();
    // half_to_float is reflected in the result dtype: compute in it.
    Value x = castTensor(rewriter, loc, adaptor.getSelf(), elemType,
                         isUnsignedDtype(getTorchDtype(op.getSelf())));
    RowwiseBuilder rows(rewriter, loc, type, dims);

    Value negInf = createScalarConstant(
        rewriter, loc, elemType, -std::numeric_limits<double>::infinity());
    Value zero = createScalarConstant(rewriter, loc, elemType, 0);
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
    Value sum = rows.reduce(x, max, zero, expShifted, addF);

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
    rewriter.replaceOp(op, result);
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
    Type elemType = type.getElementType();
    Value grad = castTensor(rewriter, loc, adaptor.getGradOutput(), elemType);
    Value output = castTensor(rewriter, loc, adaptor.getOutput(), elemType);
    RowwiseBuilder rows(rewriter, loc, type, dims);
    Value zero = createScalarConstant(rewriter, loc, elemType, 0);

    Value result;
    if (IsLog) {
      Value sum = rows.reduce(
          grad, {}, zero,
          [](OpBuilder &, Location, ValueRange f, ValueRange) { return f[0]; },
          addF);
      result = rows.map(
          ValueRange{grad, output}, sum,
          [](OpBuilder &b, Location l, ValueRange f, ValueRange r) -> Value {
            Value e = math::ExpOp::create(b, l, f[1]);
            return arith::SubFOp::create(b, l, f[0],
                                         arith::MulFOp::create(b, l, e, r[0]));
          });
    } else {
      Value sum = rows.reduce(
          ValueRange{grad, output}, {}, zero,
          [](OpBuilder &b, Location l, ValueRange f, ValueRange) -> Value {
            return arith::MulFOp::create(b, l, f[0], f[1]);
          },
          addF);
      result = rows.map(
          ValueRange{grad, output}, sum,
          [](OpBuilder &b, Location l, ValueRange f, ValueRange r) -> Value {
            return arith::MulFOp::create(
                b, l, f[1], arith::SubFOp::create(b, l, f[0], r[0]));
          });
    }
    rewriter.replaceOp(op, result);
    return success();
  }
};

//===----------------------------------------------------------------------===//
// native_layer_norm and its backward: the input is viewed as [M, N] (N the
// product of normalized_shape), statistics are [M], weight/bias [N]. Sums are
// accumulated in f64 (ATen accumulates float rows with a cascaded Welford,
// which is as accurate as f64 sums rounded once), the per-element formulas
// follow ATen's CPU kernels (layer_norm_kernel.cpp) in the input dtype.
//===----------------------------------------------------------------------===//

/// One linalg.generic over the 2-D iteration space (d0 = row, d1 = column).
/// `inputMaps` pick full/row/column views; a reduction writes `init` through
/// `outMap` (row or column), a map writes a full tensor.
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
    if (!elemType.isF32() && !elemType.isF64())
      return fail(op, rewriter, "only f32 and f64 inputs are supported");
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
        getParam(rewriter, loc, adaptor.getWeight(), n, elemType);
    FailureOr<Value> bias =
        getParam(rewriter, loc, adaptor.getBias(), n, elemType);
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
    SmallVector<IT> rowReduce = {IT::parallel, IT::reduction};
    SmallVector<IT> parallel = {IT::parallel, IT::parallel};
    Value zero = createScalarConstant(rewriter, loc, f64, 0);
    Value sum = build2D(
        rewriter, loc, rowF64, *x, {maps.full}, maps.row,
        createFilledTensor(rewriter, loc, rowF64, zero), rowReduce,
        [](OpBuilder &b, Location l, ValueRange a) -> Value {
          return arith::AddFOp::create(b, l, extF64(b, l, a[0]), a[1]);
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
    Value sq = build2D(
        rewriter, loc, rowF64, ValueRange{*x, mean}, {maps.full, maps.row},
        maps.row, createFilledTensor(rewriter, loc, rowF64, zero), rowReduce,
        [](OpBuilder &b, Location l, ValueRange a) -> Value {
          Value d = arith::SubFOp::create(b, l, extF64(b, l, a[0]), a[1]);
          return arith::AddFOp::create(b, l,
                                       arith::MulFOp::create(b, l, d, d), a[2]);
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
    // The statistics in their dtype; the output uses them in the input
    // dtype (ATen's T_ACC is float for float inputs).
    Value meanT = castTensor(rewriter, loc, mean, elemType);
    Value rstdT = castTensor(rewriter, loc, rstd, elemType);
    SmallVector<Value> inputs = {*x, meanT, rstdT};
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
    auto fullType = RankedTensorType::get({m, n}, elemType);
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
    FailureOr<Value> out = createReshape(rewriter, loc, y, outType);
    auto statistic = [&](Value f64Value, Value inElemType,
                         RankedTensorType statType) {
      Type t = statType.getElementType();
      return createReshape(rewriter, loc,
                           t == elemType ? inElemType
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
    if (!elemType.isF32() && !elemType.isF64())
      return fail(op, rewriter, "only f32 and f64 inputs are supported");
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
        getParam(rewriter, loc, adaptor.getWeight(), n, elemType);
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
    SmallVector<IT> rowReduce = {IT::parallel, IT::reduction};
    SmallVector<IT> colReduce = {IT::reduction, IT::parallel};
    SmallVector<IT> parallel = {IT::parallel, IT::parallel};
    Value zero = createScalarConstant(rewriter, loc, f64, 0);
    auto fullType = RankedTensorType::get({m, n}, elemType);
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
          Value ds = build2D(
              rewriter, loc, rowF64, in, inMaps, maps.row,
              createFilledTensor(rewriter, loc, rowF64, zero), rowReduce,
              [&](OpBuilder &b, Location l, ValueRange a) -> Value {
                Value t = arith::MulFOp::create(b, l, dyGamma(b, l, a),
                                                extF64(b, l, a[1]));
                return arith::AddFOp::create(b, l, t, a.back());
              });
          Value db = build2D(
              rewriter, loc, rowF64, in, inMaps, maps.row,
              createFilledTensor(rewriter, loc, rowF64, zero), rowReduce,
              [&](OpBuilder &b, Location l, ValueRange a) -> Value {
                return arith::AddFOp::create(b, l, dyGamma(b, l, a), a.back());
              });
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
          Value aT = castTensor(rewriter, loc, rstd, elemType);
          Value bT = castTensor(rewriter, loc, bCoeff64, elemType);
          Value cT = castTensor(rewriter, loc, cCoeff64, elemType);
          SmallVector<Value> fin = {*dy, *x, aT, bT, cT};
          SmallVector<AffineMap> finMaps = {maps.full, maps.full, maps.row,
                                            maps.row, maps.row};
          if (hasGamma) {
            fin.push_back(*gamma);
            finMaps.push_back(maps.col);
          }
          return build2D(
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
        });

    auto colF64 = RankedTensorType::get({n}, f64);
    FailureOr<Value> gradWeight = zerosOrReshape(
        (*mask)[1] && gradWeightType.getNumElements() == n, gradWeightType,
        [&]() -> Value {
          // sum over rows of dy * (x - mean) * rstd.
          Value sum = build2D(
              rewriter, loc, colF64, ValueRange{*dy, *x, mean, rstd},
              {maps.full, maps.full, maps.row, maps.row}, maps.col,
              createFilledTensor(rewriter, loc, colF64, zero), colReduce,
              [&](OpBuilder &b, Location l, ValueRange a) -> Value {
                Value xh = arith::MulFOp::create(
                    b, l,
                    arith::SubFOp::create(b, l, extF64(b, l, a[1]), a[2]),
                    a[3]);
                Value t = arith::MulFOp::create(b, l, extF64(b, l, a[0]), xh);
                return arith::AddFOp::create(b, l, t, a[4]);
              });
          return castTensor(rewriter, loc, sum,
                            gradWeightType.getElementType());
        });
    FailureOr<Value> gradBias = zerosOrReshape(
        (*mask)[2] && gradBiasType.getNumElements() == n, gradBiasType,
        [&]() -> Value {
          Value sum = build2D(
              rewriter, loc, colF64, ValueRange{*dy}, {maps.full}, maps.col,
              createFilledTensor(rewriter, loc, colF64, zero), colReduce,
              [&](OpBuilder &b, Location l, ValueRange a) -> Value {
                return arith::AddFOp::create(b, l, extF64(b, l, a[0]), a[1]);
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
