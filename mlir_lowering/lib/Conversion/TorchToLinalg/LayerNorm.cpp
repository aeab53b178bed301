//===- LayerNorm.cpp - native_layer_norm and its backward -> linalg -------===//
//
// native_layer_norm and its backward: the input is viewed as [M, N] (N the
// product of normalized_shape), statistics are [M], weight/bias [N]. Sums are
// accumulated in f64 (ATen accumulates float rows with a cascaded Welford,
// which is as accurate as f64 sums rounded once) through createSum, the
// per-element formulas follow ATen's CPU kernels (layer_norm_kernel.cpp) in
// T_ACC: the input dtype for f32/f64, f32 for f16/bf16 (rounded once).
//
//===----------------------------------------------------------------------===//

#include "Normalization.h"

#include "mlir/Dialect/Math/IR/Math.h"

using namespace mlir;

namespace ltc_mlir::torch_to_linalg {
namespace {

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
    if (m == 0) { // no rows: empty out, mean and rstd (as eager)
      rewriter.replaceOp(op, ValueRange{createEmptyTensor(rewriter, loc, outType),
                                        createEmptyTensor(rewriter, loc, meanType),
                                        createEmptyTensor(rewriter, loc, rstdType)});
      return success();
    }
    if (outType.getNumElements() == 0)
      return fail(op, rewriter, "empty rows are not supported");
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
    if (m == 0) { // no rows: every gradient is zeros (an empty grad_input)
      Location loc = op.getLoc();
      rewriter.replaceOp(op, ValueRange{createZeroTensor(rewriter, loc, gradInputType),
                                        createZeroTensor(rewriter, loc, gradWeightType),
                                        createZeroTensor(rewriter, loc, gradBiasType)});
      return success();
    }
    if (inputType.getNumElements() == 0)
      return fail(op, rewriter, "empty rows are not supported");
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

void populateLayerNormPatterns(TorchTypeConverter &typeConverter,
                               RewritePatternSet &patterns) {
  patterns.add<ConvertNativeLayerNormOp, ConvertNativeLayerNormBackwardOp>(
      typeConverter, patterns.getContext());
}

} // namespace ltc_mlir::torch_to_linalg
