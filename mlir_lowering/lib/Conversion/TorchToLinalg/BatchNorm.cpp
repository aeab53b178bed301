//===- BatchNorm.cpp - native_batch_norm and its backward -----------------===//
//
// The loop nest is the input itself, [N, C, *S] (rank >= 2): statistics and
// weight/bias are per channel (dim 1), sums run over N and S (createSum; f32
// accumulates in f64 as in ATen, f16/bf16 in f32). The formulas follow ATen's CPU kernels
// (batch_norm_kernel.cpp, contiguous path):
//   training: mean = sum(x) / n, var = sum((x - mean)^2) / n (biased, two
//     passes), invstd = 1 / sqrt(var + eps) in f64;
//   eval: mean = running_mean, invstd = 1 / sqrt(running_var + eps);
//   output = x * alpha + beta, alpha = invstd * weight,
//     beta = bias - mean * alpha (one generic, so an elementwise consumer
//     such as ReLU fuses into it).
// The op never writes its operands: in training, the running statistics are
// not updated here (value semantics; the update is ordinary ops around the
// op) and are not read.
//
//===----------------------------------------------------------------------===//

#include "ltc_mlir/Conversion/TorchToLinalg/ChannelNorm.h"

using namespace mlir;

namespace ltc_mlir::torch_to_linalg {
namespace {

/// The input (or grad_out) of a batch norm op as a float tensor of rank >=
/// 2 with at least one element, or failure with the reason.
FailureOr<RankedTensorType> getBatchNormInputType(Value converted,
                                                  std::string &why) {
  auto type = cast<RankedTensorType>(converted.getType());
  if (!isa<FloatType>(type.getElementType()))
    why = "needs a floating-point input";
  else if (type.getRank() < 2)
    why = "needs an input of rank >= 2 ([N, C, ...])";
  else if (type.getNumElements() == 0)
    why = "empty inputs are not supported";
  else
    return type;
  return failure();
}

/// The type of the statistics, sums and per-element math: ATen's CPU batch
/// norm accumulates float in double (acc_type<float, /*is_cuda=*/false>),
/// and a float mean of activations whose mean is far from 0 (after ReLU6)
/// is off by more than their spread allows; f16/bf16 accumulate in f32.
Type getBatchNormAccumulatorType(Type elemType) {
  if (elemType.isF32())
    return Float64Type::get(elemType.getContext());
  return getSumAccumulatorType(elemType);
}

Value mulF(OpBuilder &b, Location loc, Value x, Value y) {
  return arith::MulFOp::create(b, loc, x, y);
}

constexpr const char *kMissingRunningStats =
    "native_batch_norm: running_mean and running_var must be given in "
    "evaluation mode (training=False); pass the running statistics or use "
    "training=True (eager torch 1.13 crashes on this call)";

/// The mean and invstd a training/eval batch norm op uses: per channel, in
/// `accType`. Eval (and the backward in eval) reads the running
/// statistics; the training backward reads save_mean/save_invstd.
struct ChannelStats {
  Value mean, invstd;
};

FailureOr<ChannelStats> getRunningStats(OpBuilder &b, Location loc,
                                        Value runningMean, Value runningVar,
                                        RankedTensorType channelType,
                                        Value epsF64) {
  FailureOr<Value> mean = getOptionalOperand(b, loc, runningMean, channelType);
  FailureOr<Value> var = getOptionalOperand(b, loc, runningVar, channelType);
  if (failed(mean) || failed(var) || !*mean || !*var)
    return failure();
  return ChannelStats{*mean, createInvStd(b, loc, *var, epsF64)};
}

class ConvertNativeBatchNormOp
    : public TorchConversionPattern<torch::AtenNativeBatchNormOp> {
public:
  using Base::Base;
  LogicalResult
  matchAndRewrite(torch::AtenNativeBatchNormOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    RankedTensorType outType = getTensorType(op.getOutput().getType());
    RankedTensorType meanType = getTensorType(op.getSaveMean().getType());
    RankedTensorType invstdType = getTensorType(op.getSaveInvstd().getType());
    if (!outType || !meanType || !invstdType)
      return fail(op, rewriter, "result type is not convertible");
    std::string why;
    FailureOr<RankedTensorType> inputType =
        getBatchNormInputType(adaptor.getInput(), why);
    if (failed(inputType))
      return fail(op, rewriter, why);
    if (outType != *inputType)
      return fail(op, rewriter, "output type differs from the input type");
    std::optional<bool> training = getConstantBool(op.getTraining());
    if (!training)
      return fail(op, rewriter, "training must be a constant");
    int64_t channels = inputType->getDimSize(1);
    for (RankedTensorType t : {meanType, invstdType})
      if (!isa<FloatType>(t.getElementType()) ||
          (t.getNumElements() != 0 && t.getNumElements() != channels))
        return fail(op, rewriter,
                    "save_mean/save_invstd must be float with one value per "
                    "channel (or empty)");
    // Eval without running statistics crashes eager torch (2.14: a
    // segfault in native_batch_norm; F.batch_norm checks first): here it
    // computes the batch statistics and fails a runtime check.
    bool missingRunning = !*training && (isNone(adaptor.getRunningMean()) ||
                                         isNone(adaptor.getRunningVar()));
    bool eval = !*training && !missingRunning;

    Location loc = op.getLoc();
    Type elemType = inputType->getElementType();
    // Eval sums nothing: the element type's usual compute type is enough.
    Type accType = eval ? getSumAccumulatorType(elemType)
                        : getBatchNormAccumulatorType(elemType);
    NormLoops loops(op.getContext(), inputType->getShape(), {1}, {1});
    RankedTensorType channelType = loops.paramType(accType);
    FailureOr<Value> weight =
        getOptionalOperand(rewriter, loc, adaptor.getWeight(), channelType);
    FailureOr<Value> bias =
        getOptionalOperand(rewriter, loc, adaptor.getBias(), channelType);
    if (failed(weight) || failed(bias))
      return fail(op, rewriter, "weight/bias must be float with C elements");
    Value eps = getEpsF64(rewriter, loc, adaptor.getEps());

    // Per channel: mean and var (of the batch, or the running ones), then
    // invstd, alpha = invstd * weight and beta = bias - mean * alpha in one
    // generic (see mapSameMulti).
    Value mean, var;
    if (eval) {
      FailureOr<Value> runningMean = getOptionalOperand(
          rewriter, loc, adaptor.getRunningMean(), channelType);
      FailureOr<Value> runningVar = getOptionalOperand(
          rewriter, loc, adaptor.getRunningVar(), channelType);
      if (failed(runningMean) || failed(runningVar))
        return fail(op, rewriter,
                    "running_mean/running_var must be float with C elements");
      mean = *runningMean;
      var = *runningVar;
    } else {
      std::tie(mean, var) =
          computeMeanAndVar(rewriter, loc, loops, adaptor.getInput(), accType);
    }
    SmallVector<Value> coeffInputs = {mean, var};
    bool hasWeight = bool(*weight), hasBias = bool(*bias);
    if (hasWeight)
      coeffInputs.push_back(*weight);
    if (hasBias)
      coeffInputs.push_back(*bias);
    SmallVector<Value> coeffs = mapSameMulti(
        rewriter, loc, {accType, accType, accType}, coeffInputs,
        [&](OpBuilder &b, Location l, ValueRange a) -> SmallVector<Value> {
          Value invstd = createInvStdScalar(b, l, a[1], eps, accType);
          Value alpha = hasWeight ? mulF(b, l, invstd, a[2]) : invstd;
          Value shift = mulF(b, l, a[0], alpha);
          Value beta =
              hasBias ? arith::SubFOp::create(b, l, a[hasWeight ? 3 : 2], shift)
                            .getResult()
                      : arith::NegFOp::create(b, l, shift).getResult();
          return {invstd, alpha, beta};
        });
    ChannelStats stats = {mean, coeffs[0]};
    Value out = mapFull(rewriter, loc, loops, elemType,
                        ValueRange{adaptor.getInput(), coeffs[1], coeffs[2]},
                        {loops.full, loops.param, loops.param},
                        [&](OpBuilder &b, Location l, ValueRange a) {
                          Value x = castScalar(b, l, a[0], accType);
                          Value y = arith::AddFOp::create(
                              b, l, mulF(b, l, x, a[1]), a[2]);
                          return castScalar(b, l, y, elemType);
                        });

    if (missingRunning)
      emitRuntimeCheck(rewriter, loc,
                       arith::ConstantOp::create(rewriter, loc,
                                                 rewriter.getBoolAttr(false)),
                       kMissingRunningStats);
    // Eager CPU returns empty save_mean/save_invstd in eval; when LTC
    // types them [C], they hold the statistics that were used.
    FailureOr<Value> meanOut =
        createResult(rewriter, loc, true, meanType, [&] { return stats.mean; });
    FailureOr<Value> invstdOut = createResult(rewriter, loc, true, invstdType,
                                              [&] { return stats.invstd; });
    if (failed(meanOut) || failed(invstdOut))
      return fail(op, rewriter, "cannot shape the statistics");
    rewriter.replaceOp(op, ValueRange{out, *meanOut, *invstdOut});
    return success();
  }
};

/// native_batch_norm_backward (ATen's batch_norm_cpu_backward, contiguous):
/// per channel, sum = sum(dy) and dotp = sum((x - mean) * dy);
///   training: dx = (dy - sum / n - (x - mean) * dotp * invstd^2 / n)
///                  * invstd * weight,
///   eval:     dx = dy * invstd * weight;
///   grad_weight = dotp * invstd, grad_bias = sum.
class ConvertNativeBatchNormBackwardOp
    : public TorchConversionPattern<torch::AtenNativeBatchNormBackwardOp> {
public:
  using Base::Base;
  LogicalResult
  matchAndRewrite(torch::AtenNativeBatchNormBackwardOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    RankedTensorType gradInputType = getTensorType(op.getGradInput().getType());
    RankedTensorType gradWeightType =
        getTensorType(op.getGradWeight().getType());
    RankedTensorType gradBiasType = getTensorType(op.getGradBias().getType());
    if (!gradInputType || !gradWeightType || !gradBiasType)
      return fail(op, rewriter, "result type is not convertible");
    std::string why;
    FailureOr<RankedTensorType> inputType =
        getBatchNormInputType(adaptor.getInput(), why);
    if (failed(inputType))
      return fail(op, rewriter, why);
    if (cast<RankedTensorType>(adaptor.getGradOut().getType()) != *inputType)
      return fail(op, rewriter, "grad_out type differs from the input type");
    std::optional<bool> train = getConstantBool(op.getTrain());
    if (!train)
      return fail(op, rewriter, "train must be a constant");
    std::optional<SmallVector<bool>> mask =
        getConstantBoolList(op.getOutputMask());
    if (!mask || mask->size() != 3)
      return fail(op, rewriter, "output_mask must be 3 constant bools");
    bool wantInput = (*mask)[0], wantWeight = (*mask)[1], wantBias = (*mask)[2];
    int64_t channels = inputType->getDimSize(1);
    // An unwanted gradient is an undefined tensor in ATen: LTC types it
    // anyhow and the lowering returns zeros of that type.
    if (wantInput && gradInputType != *inputType)
      return fail(op, rewriter, "grad_input type differs from the input type");
    for (auto [wanted, type] :
         {std::pair(wantWeight, gradWeightType), {wantBias, gradBiasType}})
      if (wanted && (!isa<FloatType>(type.getElementType()) ||
                     type.getNumElements() != channels))
        return fail(op, rewriter,
                    "grad_weight/grad_bias must be float with C elements");

    Location loc = op.getLoc();
    Type elemType = inputType->getElementType();
    Type accType = getBatchNormAccumulatorType(elemType);
    NormLoops loops(op.getContext(), inputType->getShape(), {1}, {1});
    RankedTensorType channelType = loops.paramType(accType);
    FailureOr<Value> weight =
        getOptionalOperand(rewriter, loc, adaptor.getWeight(), channelType);
    if (failed(weight))
      return fail(op, rewriter, "weight must be float with C elements");
    Value eps = getEpsF64(rewriter, loc, adaptor.getEps());
    bool missingRunning = !*train && (isNone(adaptor.getRunningMean()) ||
                                      isNone(adaptor.getRunningVar()));
    ChannelStats stats;
    if (*train) {
      FailureOr<Value> mean =
          getOptionalOperand(rewriter, loc, adaptor.getSaveMean(), channelType);
      FailureOr<Value> invstd = getOptionalOperand(
          rewriter, loc, adaptor.getSaveInvstd(), channelType);
      if (failed(mean) || failed(invstd) || !*mean || !*invstd)
        return fail(op, rewriter,
                    "training needs save_mean/save_invstd (float, C "
                    "elements)");
      stats = {*mean, *invstd};
    } else if (missingRunning) {
      // Memory-safe values; the runtime check below reports the call.
      stats = {createZeroTensor(rewriter, loc, channelType),
               createFilledTensor(
                   rewriter, loc, channelType,
                   createScalarConstant(rewriter, loc, accType, 1.0))};
    } else {
      FailureOr<ChannelStats> running =
          getRunningStats(rewriter, loc, adaptor.getRunningMean(),
                          adaptor.getRunningVar(), channelType, eps);
      if (failed(running))
        return fail(op, rewriter,
                    "eval needs running_mean/running_var (float, C "
                    "elements)");
      stats = *running;
    }

    // The per-channel sums, in one pass over dy and x.
    bool needSum = wantBias || (wantInput && *train);
    bool needDot = wantWeight || (wantInput && *train);
    Value sum, dotp;
    if (needSum || needDot) {
      SmallVector<Type> accTypes;
      if (needSum)
        accTypes.push_back(accType);
      if (needDot)
        accTypes.push_back(accType);
      SmallVector<Value> sums = sumOverLoops(
          rewriter, loc, loops.shape, loops.reducedDims,
          ValueRange{adaptor.getGradOut(), adaptor.getInput(), stats.mean},
          {loops.full, loops.full, loops.param}, accTypes,
          [&](OpBuilder &b, Location l, ValueRange a) -> SmallVector<Value> {
            Value dy = castScalar(b, l, a[0], accType);
            SmallVector<Value> terms;
            if (needSum)
              terms.push_back(dy);
            if (needDot) {
              Value x = castScalar(b, l, a[1], accType);
              terms.push_back(
                  mulF(b, l, arith::SubFOp::create(b, l, x, a[2]), dy));
            }
            return terms;
          });
      if (needSum)
        sum = sums.front();
      if (needDot)
        dotp = sums.back();
    }

    bool hasWeight = bool(*weight);
    FailureOr<Value> gradInput =
        createResult(rewriter, loc, wantInput, gradInputType, [&]() -> Value {
          if (!*train) {
            // scale = invstd * weight.
            Value scale = stats.invstd;
            if (hasWeight)
              scale = mapSame(rewriter, loc, channelType,
                              ValueRange{stats.invstd, *weight},
                              [&](OpBuilder &b, Location l, ValueRange a) {
                                return mulF(b, l, a[0], a[1]);
                              });
            return mapFull(rewriter, loc, loops, elemType,
                           ValueRange{adaptor.getGradOut(), scale},
                           {loops.full, loops.param},
                           [&](OpBuilder &b, Location l, ValueRange a) {
                             Value dy = castScalar(b, l, a[0], accType);
                             return castScalar(b, l, mulF(b, l, dy, a[1]),
                                               elemType);
                           });
          }
          // Per channel (one generic, see mapSameMulti):
          // k = dotp * invstd^2 / n, gradMean = sum / n,
          // scale = invstd * weight.
          Value n =
              createScalarConstant(rewriter, loc, accType, double(loops.count));
          SmallVector<Value> in = {dotp, sum, stats.invstd};
          if (hasWeight)
            in.push_back(*weight);
          SmallVector<Value> coeffs = mapSameMulti(
              rewriter, loc, {accType, accType, accType}, in,
              [&](OpBuilder &b, Location l,
                  ValueRange a) -> SmallVector<Value> {
                Value k = mulF(b, l, mulF(b, l, a[0], a[2]), a[2]);
                k = arith::DivFOp::create(b, l, k, n);
                Value gradMean = arith::DivFOp::create(b, l, a[1], n);
                Value scale = hasWeight ? mulF(b, l, a[2], a[3]) : a[2];
                return {k, gradMean, scale};
              });
          // dx = (dy - gradMean - (x - mean) * k) * scale.
          return mapFull(
              rewriter, loc, loops, elemType,
              ValueRange{adaptor.getGradOut(), adaptor.getInput(), stats.mean,
                         coeffs[0], coeffs[1], coeffs[2]},
              {loops.full, loops.full, loops.param, loops.param, loops.param,
               loops.param},
              [&](OpBuilder &b, Location l, ValueRange a) {
                Value dy = castScalar(b, l, a[0], accType);
                Value x = castScalar(b, l, a[1], accType);
                Value proj =
                    mulF(b, l, arith::SubFOp::create(b, l, x, a[2]), a[3]);
                Value t = arith::SubFOp::create(
                    b, l, arith::SubFOp::create(b, l, dy, a[4]), proj);
                return castScalar(b, l, mulF(b, l, t, a[5]), elemType);
              });
        });
    FailureOr<Value> gradWeight =
        createResult(rewriter, loc, wantWeight, gradWeightType, [&] {
          return mapSame(rewriter, loc, channelType,
                         ValueRange{dotp, stats.invstd},
                         [&](OpBuilder &b, Location l, ValueRange a) {
                           return mulF(b, l, a[0], a[1]);
                         });
        });
    FailureOr<Value> gradBias = createResult(rewriter, loc, wantBias,
                                             gradBiasType, [&] { return sum; });
    if (failed(gradInput) || failed(gradWeight) || failed(gradBias))
      return fail(op, rewriter, "cannot shape the gradients");
    if (missingRunning)
      emitRuntimeCheck(rewriter, loc,
                       arith::ConstantOp::create(rewriter, loc,
                                                 rewriter.getBoolAttr(false)),
                       "native_batch_norm_backward: running_mean and "
                       "running_var must be given in evaluation mode "
                       "(train=False)");
    rewriter.replaceOp(op, ValueRange{*gradInput, *gradWeight, *gradBias});
    return success();
  }
};

} // namespace

void populateBatchNormPatterns(TorchTypeConverter &typeConverter,
                               RewritePatternSet &patterns) {
  patterns.add<ConvertNativeBatchNormOp, ConvertNativeBatchNormBackwardOp>(
      typeConverter, patterns.getContext());
}

} // namespace ltc_mlir::torch_to_linalg
