//===- ExternalConvolution.cpp - f32 convolutions as oneDNN calls --------===//
//
// A regular f32 convolution of rank 3 or 4 (1-D or 2-D) and both its
// gradients call oneDNN's convolution primitives through the runtime
// (runtime/convolution.h): the kernels eager's CPU convolutions run, with
// blocked layouts and direct/BRGEMM convolution per ISA, where the im2col
// lowering (Convolution.cpp) materializes a K*K times larger matrix and
// runs a GEMM on it. A 1-D convolution is the 2-D one of height 1.
// Bias, activation and normalization around the call stay generated loops,
// fused among themselves. Every other convolution (transposed, 3-D, other
// dtypes) falls through to the im2col patterns, which also report errors.
//
//===----------------------------------------------------------------------===//

#include "ExternalConvolution.h"

#include "ConvolutionParams.h"
#include "RuntimeCalls.h"

using namespace mlir;

namespace ltc_mlir::torch_to_linalg {
namespace {

/// Tried before the im2col patterns (benefit 1).
constexpr unsigned kBenefit = 2;

/// Checks what the runtime computes: f32, rank 3 or 4, not transposed,
/// constant parameters. Null `params` on anything else.
template <typename OpT, typename AdaptorT>
std::optional<ConvParams> getExternalParams(OpT op, AdaptorT adaptor,
                                            RankedTensorType &inputType,
                                            RankedTensorType &weightType) {
  inputType = dyn_cast<RankedTensorType>(adaptor.getInput().getType());
  weightType = dyn_cast<RankedTensorType>(adaptor.getWeight().getType());
  Type dtype = getTorchDtype(op);
  if (!inputType || !weightType || !dtype || !dtype.isF32() ||
      (inputType.getRank() != 3 && inputType.getRank() != 4) ||
      !inputType.hasStaticShape() || !weightType.hasStaticShape())
    return std::nullopt;
  std::string why;
  std::optional<ConvParams> p =
      getConvParams(adaptor, inputType, weightType, dtype, why);
  if (!p || p->transposed)
    return std::nullopt;
  return p;
}

/// `type` with a unit dim inserted at 2 when it is 1-D (rank 3).
RankedTensorType as2d(RankedTensorType type) {
  if (type.getRank() == 4)
    return type;
  SmallVector<int64_t> shape(type.getShape());
  shape.insert(shape.begin() + 2, 1);
  return RankedTensorType::get(shape, type.getElementType());
}

Value reshape(OpBuilder &b, Location loc, Value value, RankedTensorType type) {
  return *createReshape(b, loc, value, type);
}

/// stride, padding and dilation of both spatial dims (a 1-D convolution's
/// height dim is 1, 0, 1), then groups: the runtime's scalar arguments.
SmallVector<int64_t> runtimeScalars(const ConvParams &p) {
  bool is1d = p.stride.size() == 1;
  auto first = [&](const SmallVector<int64_t> &v, int64_t unit) {
    return is1d ? unit : v[0];
  };
  return {first(p.stride, 1),   p.stride.back(),   first(p.padding, 0),
          p.padding.back(),     first(p.dilation, 1), p.dilation.back(),
          p.groups};
}

class ConvolutionToRuntime
    : public OpConversionPattern<torch::AtenConvolutionOp> {
public:
  ConvolutionToRuntime(const TypeConverter &converter, MLIRContext *context)
      : OpConversionPattern(converter, context, kBenefit) {}

  LogicalResult
  matchAndRewrite(torch::AtenConvolutionOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    RankedTensorType inputType, weightType;
    std::optional<ConvParams> p =
        getExternalParams(op, adaptor, inputType, weightType);
    auto resultType = dyn_cast_or_null<RankedTensorType>(
        getTypeConverter()->convertType(op.getType()));
    if (!p || !resultType)
      return failure();
    std::optional<SmallVector<int64_t>> shape =
        getOutputShape(*p, inputType, weightType);
    if (!shape || ArrayRef<int64_t>(*shape) != resultType.getShape() ||
        resultType.getElementType() != inputType.getElementType())
      return failure();
    Location loc = op.getLoc();
    Value bias;
    int64_t channels = resultType.getDimSize(1);
    if (isNone(op.getBias())) {
      // Never read: an empty bias means none.
      bias = createEmptyTensor(rewriter, loc,
                               RankedTensorType::get({0}, rewriter.getF32Type()));
    } else {
      bias = adaptor.getBias();
      auto biasType = dyn_cast<RankedTensorType>(bias.getType());
      if (!biasType || biasType != RankedTensorType::get(
                                       {channels}, rewriter.getF32Type()))
        return failure();
    }
    RankedTensorType result2d = as2d(resultType);
    Value out = callRuntime(
        rewriter, loc, "ltc_mlir_rt_conv2d_forward_f32",
        {reshape(rewriter, loc, adaptor.getInput(), as2d(inputType)),
         reshape(rewriter, loc, adaptor.getWeight(), as2d(weightType)), bias},
        {result2d}, runtimeScalars(*p))[0];
    rewriter.replaceOp(op, reshape(rewriter, loc, out, resultType));
    return success();
  }
};

class ConvolutionBackwardToRuntime
    : public OpConversionPattern<torch::AtenConvolutionBackwardOp> {
public:
  ConvolutionBackwardToRuntime(const TypeConverter &converter,
                               MLIRContext *context)
      : OpConversionPattern(converter, context, kBenefit) {}

  LogicalResult
  matchAndRewrite(torch::AtenConvolutionBackwardOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    RankedTensorType inputType, weightType;
    std::optional<ConvParams> p =
        getExternalParams(op, adaptor, inputType, weightType);
    auto convert = [&](Type type) {
      return dyn_cast_or_null<RankedTensorType>(
          getTypeConverter()->convertType(type));
    };
    RankedTensorType gradInputType = convert(op.getGradInput().getType());
    RankedTensorType gradWeightType = convert(op.getGradWeight().getType());
    RankedTensorType gradBiasType = convert(op.getGradBias().getType());
    auto gradOutType =
        dyn_cast<RankedTensorType>(adaptor.getGradOutput().getType());
    std::optional<SmallVector<bool>> mask =
        getConstantBoolList(op.getOutputMask());
    if (!p || !gradInputType || !gradWeightType || !gradBiasType ||
        !gradOutType || !mask || mask->size() != 3)
      return failure();
    std::optional<SmallVector<int64_t>> shape =
        getOutputShape(*p, inputType, weightType);
    if (!shape || ArrayRef<int64_t>(*shape) != gradOutType.getShape() ||
        gradOutType.getElementType() != inputType.getElementType())
      return failure();
    if (!backwardTypesMatch(*mask, gradInputType, gradWeightType, gradBiasType,
                            inputType, weightType, gradOutType.getDimSize(1)))
      return failure();

    Location loc = op.getLoc();
    Value gradOut2d =
        reshape(rewriter, loc, adaptor.getGradOutput(), as2d(gradOutType));
    SmallVector<int64_t> scalars = runtimeScalars(*p);
    Value gradInput, gradWeight;
    if ((*mask)[0]) {
      Value weight2d =
          reshape(rewriter, loc, adaptor.getWeight(), as2d(weightType));
      Value r = callRuntime(rewriter, loc,
                            "ltc_mlir_rt_conv2d_backward_data_f32",
                            {gradOut2d, weight2d}, {as2d(inputType)},
                            scalars)[0];
      gradInput = reshape(rewriter, loc, r, inputType);
    }
    if ((*mask)[1]) {
      Value input2d =
          reshape(rewriter, loc, adaptor.getInput(), as2d(inputType));
      Value r = callRuntime(rewriter, loc,
                            "ltc_mlir_rt_conv2d_backward_weights_f32",
                            {input2d, gradOut2d}, {as2d(weightType)},
                            scalars)[0];
      gradWeight = reshape(rewriter, loc, r, weightType);
    }
    replaceConvolutionBackward(rewriter, *getTypeConverter(), op, *mask,
                               adaptor.getGradOutput(), gradInput, gradWeight);
    return success();
  }
};

} // namespace

void populateExternalConvolutionPatterns(TorchTypeConverter &typeConverter,
                                         RewritePatternSet &patterns) {
  patterns.add<ConvolutionToRuntime, ConvolutionBackwardToRuntime>(
      typeConverter, patterns.getContext());
}

} // namespace ltc_mlir::torch_to_linalg
