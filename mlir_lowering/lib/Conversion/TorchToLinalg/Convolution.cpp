//===- Convolution.cpp - convolution, convolution_backward -> im2col + bmm ===//
//
// Every convolution-shaped product (forward, transposed forward, the input
// and weight gradients, 1-D to 3-D, any groups) is one batched matmul over
// the groups, fed by an im2col tensor
//   col[g, c * T + t, n * P + p]  (T kernel taps, P output positions)
// so that the pipeline tiles and vectorizes it like any matmul:
//   output      = w[g, f, c*T+t] x col            -> [G, F/G, N*P]
//   grad_weight = col x grad_out^T[g, n*P+p, f]   -> [G, C/G*T, F/G]
// A transposed convolution (and the input gradient of a convolution) is the
// convolution of its input spread out by `stride` (zeros in between),
// padded by dilation * (K - 1) - padding, with the kernel flipped: im2col
// reads that virtual input directly, so no zeros are materialized.
// For kernels above 3x3, col is one linalg.generic reading a zero-padded
// copy of the input at o * stride + k * dilation (compile time independent
// of the kernel size); for smaller kernels, spread-out inputs and negative
// padding it is built with one strided copy per tap: a linalg.generic with
// projected-permutation maps (vectorized along the output rows) from a
// tensor.extract_slice of the input into a tensor.extract_slice of col;
// positions that read padding keep the zeros of col's initial fill.
// The bias gradient is a plain sum over the batch and the spatial dims.
// Float and integer dtypes; f16/bf16 accumulate in f32, as ATen does.
//
//===----------------------------------------------------------------------===//

#include "ConvolutionIm2col.h"
#include "ConvolutionParams.h"

using namespace mlir;

namespace ltc_mlir::torch_to_linalg {
namespace {

/// The im2col geometry of a regular convolution from `inSizes` to
/// `outSizes` (also the weight gradient's and, for transposed
/// convolutions, the input gradient's).
SmallVector<SpatialDim> getRegularDims(const ConvParams &p,
                                       ArrayRef<int64_t> inSizes,
                                       ArrayRef<int64_t> outSizes,
                                       ArrayRef<int64_t> kernel) {
  SmallVector<SpatialDim> dims;
  for (unsigned i = 0; i < inSizes.size(); ++i)
    dims.push_back({inSizes[i], outSizes[i], kernel[i], p.stride[i],
                    p.dilation[i], p.padding[i]});
  return dims;
}

/// ... of a transposed convolution from `inSizes` to `outSizes` (also the
/// input gradient of a regular convolution): stride 1 over the input
/// spread out by `stride`, padded by dilation * (K - 1) - padding, kernel
/// flipped.
SmallVector<SpatialDim> getTransposedDims(const ConvParams &p,
                                          ArrayRef<int64_t> inSizes,
                                          ArrayRef<int64_t> outSizes,
                                          ArrayRef<int64_t> kernel) {
  SmallVector<SpatialDim> dims;
  for (unsigned i = 0; i < inSizes.size(); ++i) {
    SpatialDim d{inSizes[i],   outSizes[i],
                 kernel[i],    1,
                 p.dilation[i], p.dilation[i] * (kernel[i] - 1) - p.padding[i]};
    d.inputDilation = p.stride[i];
    d.flip = true;
    dims.push_back(d);
  }
  return dims;
}

class ConvertConvolutionOp
    : public TorchConversionPattern<torch::AtenConvolutionOp> {
public:
  using Base::Base;
  LogicalResult
  matchAndRewrite(torch::AtenConvolutionOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    RankedTensorType resultType = getTensorType(op.getType());
    auto inputType = dyn_cast<RankedTensorType>(adaptor.getInput().getType());
    auto weightType = dyn_cast<RankedTensorType>(adaptor.getWeight().getType());
    if (!resultType || !inputType || !weightType)
      return fail(op, rewriter, "operand types are not convertible");
    std::string why;
    std::optional<ConvParams> p =
        getConvParams(adaptor, inputType, weightType, getTorchDtype(op), why);
    if (!p)
      return fail(op, rewriter, why);
    std::optional<SmallVector<int64_t>> shape =
        getOutputShape(*p, inputType, weightType);
    if (!shape || ArrayRef<int64_t>(*shape) != resultType.getShape() ||
        resultType.getElementType() != inputType.getElementType())
      return fail(op, rewriter, "result type does not match the input, weight "
                                "and parameters");
    Value bias;
    if (!isNone(op.getBias())) {
      bias = adaptor.getBias();
      auto biasType = dyn_cast<RankedTensorType>(bias.getType());
      if (!biasType || biasType.getRank() != 1 ||
          biasType.getDimSize(0) != resultType.getDimSize(1) ||
          biasType.getElementType() != resultType.getElementType())
        return fail(op, rewriter, "bias must be [out_channels] of the input "
                                  "dtype");
    }

    Location loc = op.getLoc();
    ArrayRef<int64_t> inSizes = inputType.getShape().drop_front(2);
    ArrayRef<int64_t> outSizes = resultType.getShape().drop_front(2);
    ArrayRef<int64_t> kernel = weightType.getShape().drop_front(2);
    Value col, w3;
    if (p->transposed) {
      col = createIm2col(rewriter, loc, adaptor.getInput(), p->groups,
                         getTransposedDims(*p, inSizes, outSizes, kernel));
      w3 = getSwappedWeight(rewriter, loc, adaptor.getWeight(), p->groups);
    } else {
      col = createIm2col(rewriter, loc, adaptor.getInput(), p->groups,
                         getRegularDims(*p, inSizes, outSizes, kernel));
      w3 = getRegularWeight(rewriter, loc, adaptor.getWeight(), p->groups);
    }
    rewriter.replaceOp(
        op, createConvolution(rewriter, loc, col, w3, bias, resultType));
    return success();
  }
};

class ConvertConvolutionBackwardOp
    : public TorchConversionPattern<torch::AtenConvolutionBackwardOp> {
public:
  using Base::Base;
  LogicalResult
  matchAndRewrite(torch::AtenConvolutionBackwardOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    RankedTensorType gradInputType = getTensorType(op.getGradInput().getType());
    RankedTensorType gradWeightType = getTensorType(op.getGradWeight().getType());
    RankedTensorType gradBiasType = getTensorType(op.getGradBias().getType());
    auto gradOutType =
        dyn_cast<RankedTensorType>(adaptor.getGradOutput().getType());
    auto inputType = dyn_cast<RankedTensorType>(adaptor.getInput().getType());
    auto weightType = dyn_cast<RankedTensorType>(adaptor.getWeight().getType());
    if (!gradInputType || !gradWeightType || !gradBiasType || !gradOutType ||
        !inputType || !weightType)
      return fail(op, rewriter, "operand types are not convertible");
    std::string why;
    std::optional<ConvParams> p =
        getConvParams(adaptor, inputType, weightType, getTorchDtype(op), why);
    if (!p)
      return fail(op, rewriter, why);
    std::optional<SmallVector<bool>> mask =
        getConstantBoolList(op.getOutputMask());
    if (!mask || mask->size() != 3)
      return fail(op, rewriter, "output_mask must be 3 constant bools");
    std::optional<SmallVector<int64_t>> shape =
        getOutputShape(*p, inputType, weightType);
    if (!shape || ArrayRef<int64_t>(*shape) != gradOutType.getShape() ||
        gradOutType.getElementType() != inputType.getElementType())
      return fail(op, rewriter, "grad_output type does not match the input, "
                                "weight and parameters");
    if (!backwardTypesMatch(*mask, gradInputType, gradWeightType, gradBiasType,
                            inputType, weightType, gradOutType.getDimSize(1)))
      return fail(op, rewriter, "result types do not match the input, weight "
                                "and output channels");

    Location loc = op.getLoc();
    Value gradOut = adaptor.getGradOutput();
    Value input = adaptor.getInput();
    Value weight = adaptor.getWeight();
    ArrayRef<int64_t> inSizes = inputType.getShape().drop_front(2);
    ArrayRef<int64_t> outSizes = gradOutType.getShape().drop_front(2);
    ArrayRef<int64_t> kernel = weightType.getShape().drop_front(2);
    int64_t groups = p->groups;
    Value gradInput, gradWeight;
    if (!p->transposed) {
      if ((*mask)[0]) {
        Value col = createIm2col(
            rewriter, loc, gradOut, groups,
            getTransposedDims(*p, outSizes, inSizes, kernel));
        gradInput = createConvolution(
            rewriter, loc, col, getSwappedWeight(rewriter, loc, weight, groups),
            Value(), inputType);
      }
      if ((*mask)[1]) {
        Value col = createIm2col(rewriter, loc, input, groups,
                                 getRegularDims(*p, inSizes, outSizes, kernel));
        gradWeight =
            createWeightGrad(rewriter, loc, col, gradOut, groups, weightType);
      }
    } else if ((*mask)[0] || (*mask)[1]) {
      // The transposed convolution's input gradient is the regular
      // convolution of grad_output; its weight gradient correlates the
      // same im2col of grad_output with the input.
      Value col = createIm2col(rewriter, loc, gradOut, groups,
                               getRegularDims(*p, outSizes, inSizes, kernel));
      if ((*mask)[0])
        gradInput = createConvolution(
            rewriter, loc, col, getRegularWeight(rewriter, loc, weight, groups),
            Value(), inputType);
      if ((*mask)[1])
        gradWeight =
            createWeightGrad(rewriter, loc, col, input, groups, weightType);
    }
    replaceConvolutionBackward(rewriter, converter, op, *mask, gradOut,
                               gradInput, gradWeight);
    return success();
  }
};

} // namespace

namespace {
/// Sum of grad_output [N, F, O...] over N and O, cast to `type` [F]. One
/// accumulator per channel adds up to N * P values: f32 sums accumulate in
/// f64, f16/bf16 ones in f32 (like ATen).
Value createBiasGrad(OpBuilder &b, Location loc, Value gradOut,
                     RankedTensorType type) {
  auto gType = cast<RankedTensorType>(gradOut.getType());
  Type accType = gType.getElementType().getIntOrFloatBitWidth() < 32
                     ? b.getF32Type()
                     : b.getF64Type();
  SmallVector<int64_t> dims = {0};
  for (int64_t d = 2; d < gType.getRank(); ++d)
    dims.push_back(d);
  Value sum = createReduction(
      b, loc, gradOut, dims, createScalarConstant(b, loc, accType, 0),
      [&](OpBuilder &nb, Location l, Value element, Value acc) -> Value {
        return arith::AddFOp::create(nb, l, castScalar(nb, l, element, accType),
                                     acc);
      });
  return castTensor(b, loc, sum, type.getElementType());
}
} // namespace

void replaceConvolutionBackward(ConversionPatternRewriter &rewriter,
                                const TypeConverter &converter,
                                Operation *op, ArrayRef<bool> mask,
                                Value gradOut, Value gradInput,
                                Value gradWeight) {
  Location loc = op->getLoc();
  auto resultType = [&](unsigned i) {
    return cast<RankedTensorType>(
        converter.convertType(op->getResult(i).getType()));
  };
  Value gradBias;
  if (mask[2])
    gradBias = createBiasGrad(rewriter, loc, gradOut, resultType(2));
  if (!gradInput)
    gradInput = createZeroTensor(rewriter, loc, resultType(0));
  if (!gradWeight)
    gradWeight = createZeroTensor(rewriter, loc, resultType(1));
  if (!gradBias)
    gradBias = createZeroTensor(rewriter, loc, resultType(2));
  rewriter.replaceOp(op, ValueRange{gradInput, gradWeight, gradBias});
}

void populateConvolutionPatterns(TorchTypeConverter &typeConverter,
                                 RewritePatternSet &patterns) {
  patterns.add<ConvertConvolutionOp, ConvertConvolutionBackwardOp>(
      typeConverter, patterns.getContext());
}

} // namespace ltc_mlir::torch_to_linalg