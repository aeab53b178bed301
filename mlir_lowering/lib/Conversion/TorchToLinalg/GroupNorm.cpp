//===- GroupNorm.cpp - native_group_norm and its backward -----------------===//
//
// The input [N, C, *S] is viewed as [N, G, D, *S] (C = G * D, a
// tensor.expand_shape): statistics are per (N, G), summed over D and S
// (createSum, f16/bf16 accumulate in f32), weight/bias per (G, D). The
// formulas follow ATen's CPU kernels (group_norm_kernel.cpp):
//   mean, var (biased), rstd = 1 / sqrt(var + eps);
//   no weight and bias: y = (x - mean) * rstd;
//   else y = x * scale + bias' with scale = rstd * weight and
//     bias' = bias - scale * mean, per (N, C).
// Backward, per (N, C): ds = sum_S(dy * x), db = sum_S(dy); per (N, G):
//   dsg = sum_D(ds * weight), dbg = sum_D(db * weight),
//   c2 = (dbg * mean - dsg) * rstd^3 / (D * S), c3 = -c2 * mean - dbg * rstd
//   / (D * S); dx = rstd * weight * dy + c2 * x + c3;
//   grad_weight = sum_N((ds - db * mean) * rstd), grad_bias = sum_N(db).
//
// On the lazy device GroupNorm reaches these patterns as native_group_norm
// and native_group_norm_backward (torch 2.14's LTC has Lazy kernels for
// both).
//
//===----------------------------------------------------------------------===//

#include "ltc_mlir/Conversion/TorchToLinalg/ChannelNorm.h"

using namespace mlir;

namespace ltc_mlir::torch_to_linalg {
namespace {

Value mulF(OpBuilder &b, Location loc, Value x, Value y) {
  return arith::MulFOp::create(b, loc, x, y);
}

/// The shapes of a group norm: the input's [N, C, *S] and the groups.
struct GroupNormShape {
  int64_t n, c, groups, hxw;
  NormLoops loops; // [N, G, D, *S]
};

/// Checks the input type and the int operands (constant ones must agree
/// with the input; `group` may be a run-time value only when `statType`
/// gives it).
FailureOr<GroupNormShape>
getGroupNormShape(MLIRContext *context, RankedTensorType inputType, Value nOp,
                  Value cOp, Value hxwOp, Value groupOp,
                  RankedTensorType statType, std::string &why) {
  if (!isa<FloatType>(inputType.getElementType())) {
    why = "needs a floating-point input";
    return failure();
  }
  if (inputType.getRank() < 2 || inputType.getNumElements() == 0) {
    why = "needs a non-empty input of rank >= 2 ([N, C, ...])";
    return failure();
  }
  ArrayRef<int64_t> shape = inputType.getShape();
  int64_t n = shape[0], c = shape[1], hxw = 1;
  for (int64_t s : shape.drop_front(2))
    hxw *= s;
  std::optional<int64_t> groups = getConstantInt(groupOp);
  if (!groups && statType.getNumElements() % n == 0)
    groups = statType.getNumElements() / n;
  if (!groups || *groups <= 0 || c % *groups != 0) {
    why = "group must be a constant dividing C";
    return failure();
  }
  for (auto [operand, expected] : {std::pair(nOp, n), {cOp, c}, {hxwOp, hxw}}) {
    std::optional<int64_t> v = getConstantInt(operand);
    if (v && *v != expected) {
      why = "N, C, HxW differ from the input shape";
      return failure();
    }
  }
  SmallVector<int64_t> loopShape = {n, *groups, c / *groups};
  llvm::append_range(loopShape, shape.drop_front(2));
  return GroupNormShape{n, c, *groups, hxw,
                        NormLoops(context, loopShape, {0, 1}, {1, 2})};
}

class ConvertNativeGroupNormOp
    : public TorchConversionPattern<torch::AtenNativeGroupNormOp> {
public:
  using Base::Base;
  LogicalResult
  matchAndRewrite(torch::AtenNativeGroupNormOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    RankedTensorType outType = getTensorType(op.getOutput().getType());
    RankedTensorType meanType = getTensorType(op.getMean().getType());
    RankedTensorType rstdType = getTensorType(op.getRstd().getType());
    if (!outType || !meanType || !rstdType)
      return fail(op, rewriter, "result type is not convertible");
    auto inputType = cast<RankedTensorType>(adaptor.getInput().getType());
    if (outType != inputType)
      return fail(op, rewriter, "output type differs from the input type");
    std::string why;
    FailureOr<GroupNormShape> shape =
        getGroupNormShape(op.getContext(), inputType, op.getN(), op.getC(),
                          op.getHxW(), op.getGroup(), meanType, why);
    if (failed(shape))
      return fail(op, rewriter, why);
    const NormLoops &loops = shape->loops;
    int64_t numStats = shape->n * shape->groups;
    for (RankedTensorType t : {meanType, rstdType})
      if (!isa<FloatType>(t.getElementType()) || t.getNumElements() != numStats)
        return fail(op, rewriter,
                    "mean/rstd must be float with N * group "
                    "elements");

    Location loc = op.getLoc();
    Type elemType = inputType.getElementType();
    Type accType = getSumAccumulatorType(elemType);
    RankedTensorType paramType = loops.paramType(accType);
    FailureOr<Value> weight =
        getOptionalOperand(rewriter, loc, adaptor.getWeight(), paramType);
    FailureOr<Value> bias =
        getOptionalOperand(rewriter, loc, adaptor.getBias(), paramType);
    if (failed(weight) || failed(bias))
      return fail(op, rewriter, "weight/bias must be float with C elements");
    FailureOr<Value> x = createReshape(rewriter, loc, adaptor.getInput(),
                                       loops.fullType(elemType));
    if (failed(x))
      return fail(op, rewriter, "cannot view the input as [N, G, D, ...]");
    Value eps = getEpsF64(rewriter, loc, adaptor.getEps());
    auto [mean, var] = computeMeanAndVar(rewriter, loc, loops, *x, accType);
    Value rstd = createInvStd(rewriter, loc, var, eps);

    Value y;
    bool hasWeight = bool(*weight), hasBias = bool(*bias);
    if (!hasWeight && !hasBias) {
      y = mapFull(rewriter, loc, loops, elemType, ValueRange{*x, mean, rstd},
                  {loops.full, loops.stat, loops.stat},
                  [&](OpBuilder &b, Location l, ValueRange a) {
                    Value xv = castScalar(b, l, a[0], accType);
                    Value d = arith::SubFOp::create(b, l, xv, a[1]);
                    return castScalar(b, l, mulF(b, l, d, a[2]), elemType);
                  });
    } else {
      // scale and bias' per (N, G, D): a small generic over [N, G, D].
      SmallVector<int64_t> ngd(loops.shape.begin(), loops.shape.begin() + 3);
      NormLoops coeffLoops(op.getContext(), ngd, {0, 1}, {1, 2});
      SmallVector<Value> in = {mean, rstd};
      SmallVector<AffineMap> maps = {coeffLoops.stat, coeffLoops.stat};
      if (hasWeight) {
        in.push_back(*weight);
        maps.push_back(coeffLoops.param);
      }
      if (hasBias) {
        in.push_back(*bias);
        maps.push_back(coeffLoops.param);
      }
      // One generic for both (see mapSameMulti).
      SmallVector<Value> coeffs = mapFullMulti(
          rewriter, loc, coeffLoops, {accType, accType}, in, maps,
          [&](OpBuilder &b, Location l, ValueRange a) -> SmallVector<Value> {
            Value scale = hasWeight ? mulF(b, l, a[1], a[2]) : a[1];
            Value t = arith::NegFOp::create(b, l, mulF(b, l, scale, a[0]));
            if (hasBias)
              t = arith::AddFOp::create(b, l, t, a[hasWeight ? 3 : 2]);
            return {scale, t};
          });
      Value scale = coeffs[0], shift = coeffs[1];
      AffineMap ngdMap = loops.dimsMap({0, 1, 2});
      y = mapFull(rewriter, loc, loops, elemType, ValueRange{*x, scale, shift},
                  {loops.full, ngdMap, ngdMap},
                  [&](OpBuilder &b, Location l, ValueRange a) {
                    Value xv = castScalar(b, l, a[0], accType);
                    Value t =
                        arith::AddFOp::create(b, l, mulF(b, l, xv, a[1]), a[2]);
                    return castScalar(b, l, t, elemType);
                  });
    }
    FailureOr<Value> out = createReshape(rewriter, loc, y, outType);
    FailureOr<Value> meanOut =
        createResult(rewriter, loc, true, meanType, [&] { return mean; });
    FailureOr<Value> rstdOut =
        createResult(rewriter, loc, true, rstdType, [&] { return rstd; });
    if (failed(out) || failed(meanOut) || failed(rstdOut))
      return fail(op, rewriter, "cannot shape the results");
    rewriter.replaceOp(op, ValueRange{*out, *meanOut, *rstdOut});
    return success();
  }
};

class ConvertNativeGroupNormBackwardOp
    : public TorchConversionPattern<torch::AtenNativeGroupNormBackwardOp> {
public:
  using Base::Base;
  LogicalResult
  matchAndRewrite(torch::AtenNativeGroupNormBackwardOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    RankedTensorType gradInputType = getTensorType(op.getGradInput().getType());
    RankedTensorType gradWeightType =
        getTensorType(op.getGradWeight().getType());
    RankedTensorType gradBiasType = getTensorType(op.getGradBias().getType());
    if (!gradInputType || !gradWeightType || !gradBiasType)
      return fail(op, rewriter, "result type is not convertible");
    auto inputType = cast<RankedTensorType>(adaptor.getInput().getType());
    if (cast<RankedTensorType>(adaptor.getGradOut().getType()) != inputType)
      return fail(op, rewriter, "grad_out type differs from the input type");
    auto meanType = cast<RankedTensorType>(adaptor.getMean().getType());
    auto rstdType = cast<RankedTensorType>(adaptor.getRstd().getType());
    std::string why;
    FailureOr<GroupNormShape> shape =
        getGroupNormShape(op.getContext(), inputType, op.getN(), op.getC(),
                          op.getHxW(), op.getGroup(), meanType, why);
    if (failed(shape))
      return fail(op, rewriter, why);
    std::optional<SmallVector<bool>> mask =
        getConstantBoolList(op.getOutputMask());
    if (!mask || mask->size() != 3)
      return fail(op, rewriter, "output_mask must be 3 constant bools");
    bool wantInput = (*mask)[0], wantWeight = (*mask)[1], wantBias = (*mask)[2];
    if (wantInput && gradInputType != inputType)
      return fail(op, rewriter, "grad_input type differs from the input type");
    for (auto [wanted, type] :
         {std::pair(wantWeight, gradWeightType), {wantBias, gradBiasType}})
      if (wanted && (!isa<FloatType>(type.getElementType()) ||
                     type.getNumElements() != shape->c))
        return fail(op, rewriter,
                    "grad_weight/grad_bias must be float with C elements");

    const NormLoops &loops = shape->loops;
    Location loc = op.getLoc();
    Type elemType = inputType.getElementType();
    Type accType = getSumAccumulatorType(elemType);
    RankedTensorType statType = loops.statType(accType);
    FailureOr<Value> mean =
        getOptionalOperand(rewriter, loc, adaptor.getMean(), statType);
    FailureOr<Value> rstd =
        getOptionalOperand(rewriter, loc, adaptor.getRstd(), statType);
    if (failed(mean) || failed(rstd) || !*mean || !*rstd ||
        rstdType.getNumElements() != statType.getNumElements())
      return fail(op, rewriter,
                  "mean/rstd must be float with N * group "
                  "elements");
    FailureOr<Value> weight = getOptionalOperand(
        rewriter, loc, adaptor.getWeight(), loops.paramType(accType));
    if (failed(weight))
      return fail(op, rewriter, "weight must be float with C elements");
    FailureOr<Value> x = createReshape(rewriter, loc, adaptor.getInput(),
                                       loops.fullType(elemType));
    FailureOr<Value> dy = createReshape(rewriter, loc, adaptor.getGradOut(),
                                        loops.fullType(elemType));
    if (failed(x) || failed(dy))
      return fail(op, rewriter, "cannot view the input as [N, G, D, ...]");

    // ds, db per (N, G, D): sums over the spatial loops.
    SmallVector<int64_t> ngd(loops.shape.begin(), loops.shape.begin() + 3);
    NormLoops coeffLoops(op.getContext(), ngd, {0, 1}, {1, 2});
    SmallVector<int64_t> spatial;
    for (int64_t d = 3, e = loops.shape.size(); d < e; ++d)
      spatial.push_back(d);
    Value ds, db;
    if (wantInput || wantWeight || wantBias) {
      SmallVector<Value> sums = sumOverLoops(
          rewriter, loc, loops.shape, spatial, ValueRange{*dy, *x},
          {loops.full, loops.full}, {accType, accType},
          [&](OpBuilder &b, Location l, ValueRange a) -> SmallVector<Value> {
            Value dyv = castScalar(b, l, a[0], accType);
            Value xv = castScalar(b, l, a[1], accType);
            return {mulF(b, l, dyv, xv), dyv};
          });
      ds = sums[0];
      db = sums[1];
    }

    bool hasWeight = bool(*weight);
    double s = 1.0 / double(loops.count);
    FailureOr<Value> gradInput =
        createResult(rewriter, loc, wantInput, gradInputType, [&]() -> Value {
          SmallVector<Value> in = {ds, db};
          SmallVector<AffineMap> maps = {coeffLoops.full, coeffLoops.full};
          if (hasWeight) {
            in.push_back(*weight);
            maps.push_back(coeffLoops.param);
          }
          SmallVector<Value> groupSums = sumOverLoops(
              rewriter, loc, coeffLoops.shape, {2}, in, maps,
              {accType, accType},
              [&](OpBuilder &b, Location l,
                  ValueRange a) -> SmallVector<Value> {
                if (!hasWeight)
                  return {a[0], a[1]};
                return {mulF(b, l, a[0], a[2]), mulF(b, l, a[1], a[2])};
              });
          Value dsg = groupSums[0], dbg = groupSums[1];
          auto constant = [&](OpBuilder &b, Location l, double v) {
            return createScalarConstant(b, l, accType, v);
          };
          // c2 and c3 in one generic (see mapSameMulti).
          SmallVector<Value> c23 = mapSameMulti(
              rewriter, loc, {accType, accType},
              ValueRange{dsg, dbg, *mean, *rstd},
              [&](OpBuilder &b, Location l,
                  ValueRange a) -> SmallVector<Value> {
                Value t =
                    arith::SubFOp::create(b, l, mulF(b, l, a[1], a[2]), a[0]);
                t = mulF(b, l, mulF(b, l, mulF(b, l, t, a[3]), a[3]), a[3]);
                Value c2 = mulF(b, l, t, constant(b, l, s));
                Value u = mulF(b, l, arith::NegFOp::create(b, l, c2), a[2]);
                Value v = mulF(b, l, mulF(b, l, a[1], a[3]), constant(b, l, s));
                return {c2, arith::SubFOp::create(b, l, u, v).getResult()};
              });
          Value c2 = c23[0], c3 = c23[1];
          SmallVector<Value> fin = {*dy, *x, *rstd, c2, c3};
          SmallVector<AffineMap> finMaps = {loops.full, loops.full, loops.stat,
                                            loops.stat, loops.stat};
          if (hasWeight) {
            fin.push_back(*weight);
            finMaps.push_back(loops.param);
          }
          return mapFull(rewriter, loc, loops, elemType, fin, finMaps,
                         [&](OpBuilder &b, Location l, ValueRange a) {
                           Value dyv = castScalar(b, l, a[0], accType);
                           Value xv = castScalar(b, l, a[1], accType);
                           Value c1 = hasWeight ? mulF(b, l, a[2], a[5]) : a[2];
                           Value t = arith::AddFOp::create(
                               b, l, mulF(b, l, c1, dyv), mulF(b, l, a[3], xv));
                           t = arith::AddFOp::create(b, l, t, a[4]);
                           return castScalar(b, l, t, elemType);
                         });
        });
    FailureOr<Value> gradWeight =
        createResult(rewriter, loc, wantWeight, gradWeightType, [&] {
          return sumOverLoops(rewriter, loc, coeffLoops.shape, {0},
                              ValueRange{ds, db, *mean, *rstd},
                              {coeffLoops.full, coeffLoops.full,
                               coeffLoops.stat, coeffLoops.stat},
                              accType,
                              [&](OpBuilder &b, Location l,
                                  ValueRange a) -> SmallVector<Value> {
                                Value t = arith::SubFOp::create(
                                    b, l, a[0], mulF(b, l, a[1], a[2]));
                                return {mulF(b, l, t, a[3])};
                              })[0];
        });
    FailureOr<Value> gradBias =
        createResult(rewriter, loc, wantBias, gradBiasType, [&] {
          return sumOverLoops(
              rewriter, loc, coeffLoops.shape, {0}, ValueRange{db},
              {coeffLoops.full}, accType,
              [&](OpBuilder &, Location, ValueRange a) -> SmallVector<Value> {
                return {a[0]};
              })[0];
        });
    if (failed(gradInput) || failed(gradWeight) || failed(gradBias))
      return fail(op, rewriter, "cannot shape the gradients");
    rewriter.replaceOp(op, ValueRange{*gradInput, *gradWeight, *gradBias});
    return success();
  }
};

} // namespace

void populateGroupNormPatterns(TorchTypeConverter &typeConverter,
                               RewritePatternSet &patterns) {
  patterns.add<ConvertNativeGroupNormOp, ConvertNativeGroupNormBackwardOp>(
      typeConverter, patterns.getContext());
}

} // namespace ltc_mlir::torch_to_linalg
