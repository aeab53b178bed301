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

using namespace mlir;

namespace ltc_mlir::torch_to_linalg {
namespace {

/// The constant parameters shared by convolution and convolution_backward.
struct ConvParams {
  SmallVector<int64_t> stride, padding, dilation, outputPadding;
  bool transposed = false;
  int64_t groups = 1;
};

/// A list of `n` ints; one value stands for all (like ATen's
/// expand_param_if_needed).
std::optional<SmallVector<int64_t>> getParamList(Value list, unsigned n) {
  std::optional<SmallVector<int64_t>> values = getConstantIntList(list);
  if (!values)
    return std::nullopt;
  if (values->size() == 1 && n > 1)
    values->assign(n, values->front());
  if (values->size() != n)
    return std::nullopt;
  return values;
}

/// Reads and checks the constant parameters and the operand types; `why`
/// says what is wrong otherwise.
template <typename AdaptorT>
std::optional<ConvParams> getConvParams(AdaptorT adaptor,
                                        RankedTensorType inputType,
                                        RankedTensorType weightType,
                                        Type torchDtype, std::string &why) {
  int64_t rank = inputType.getRank();
  if (rank < 3 || rank > 5 || weightType.getRank() != rank) {
    why = "expects input and weight of rank 3 to 5 (1-D to 3-D)";
    return std::nullopt;
  }
  Type elemType = inputType.getElementType();
  // Integers as ATen's CPU kernels (slow_conv2d & co.), which accumulate in
  // the element type (wrapping, as here); bool raises there, and so do
  // transposed and dilated convolutions of integers narrower than int64
  // (checked below): those are left to the eager fallback, which raises
  // eager's error.
  // (From the torch dtype: bool is stored as i8.)
  bool isInteger = torchDtype && torchDtype.isInteger() && !torchDtype.isInteger(1);
  if (!torchDtype || !(isa<FloatType>(elemType) || isInteger) ||
      weightType.getElementType() != elemType) {
    why = "expects float or integer input and weight of the same dtype";
    return std::nullopt;
  }
  unsigned nd = rank - 2;
  ConvParams p;
  auto stride = getParamList(adaptor.getStride(), nd);
  auto padding = getParamList(adaptor.getPadding(), nd);
  auto dilation = getParamList(adaptor.getDilation(), nd);
  auto outputPadding = getParamList(adaptor.getOutputPadding(), nd);
  std::optional<bool> transposed = getConstantBool(adaptor.getTransposed());
  std::optional<int64_t> groups = getConstantInt(adaptor.getGroups());
  if (!stride || !padding || !dilation || !outputPadding || !transposed ||
      !groups) {
    why = "stride, padding, dilation, output_padding, transposed and groups "
          "must be constants (one value or one per spatial dim)";
    return std::nullopt;
  }
  p.stride = *stride;
  p.padding = *padding;
  p.dilation = *dilation;
  p.outputPadding = *outputPadding;
  p.transposed = *transposed;
  p.groups = *groups;
  bool dilated = llvm::any_of(p.dilation, [](int64_t d) { return d != 1; });
  if (isInteger && (p.transposed || dilated) && !torchDtype.isSignedInteger(64)) {
    why = "transposed and dilated convolutions of integers are int64 only "
          "(eager raises)";
    return std::nullopt;
  }
  for (unsigned i = 0; i < nd; ++i)
    if (p.stride[i] < 1 || p.dilation[i] < 1 || p.padding[i] < 0 ||
        p.outputPadding[i] < 0) {
      why = "stride and dilation must be >= 1, padding and output_padding "
            ">= 0";
      return std::nullopt;
    }
  int64_t c = inputType.getDimSize(1);
  if (p.groups < 1 || c % p.groups != 0) {
    why = "groups must be >= 1 and divide the input channels";
    return std::nullopt;
  }
  // Regular: weight [F, C / G, K...]; transposed: weight [C, F / G, K...].
  if (p.transposed ? weightType.getDimSize(0) != c
                   : (weightType.getDimSize(1) * p.groups != c ||
                      weightType.getDimSize(0) % p.groups != 0)) {
    why = "weight shape does not match the input channels and groups";
    return std::nullopt;
  }
  return p;
}

/// The input's torch dtype when the weight has the same one (bool and
/// unsigned types are stored as signless integers), else null.
template <typename OpT> Type getTorchDtype(OpT op) {
  Type input = cast<torch::ValueTensorType>(op.getInput().getType()).getDtype();
  Type weight = cast<torch::ValueTensorType>(op.getWeight().getType()).getDtype();
  return input == weight ? input : Type();
}

/// Output channels and spatial sizes of the convolution, or std::nullopt
/// when the input is too small for the kernel.
std::optional<SmallVector<int64_t>> getOutputShape(const ConvParams &p,
                                                   RankedTensorType inputType,
                                                   RankedTensorType weightType) {
  SmallVector<int64_t> shape = {inputType.getDimSize(0)};
  shape.push_back(p.transposed ? weightType.getDimSize(1) * p.groups
                               : weightType.getDimSize(0));
  for (unsigned i = 0; i + 2 < inputType.getRank(); ++i) {
    int64_t s = inputType.getDimSize(2 + i), k = weightType.getDimSize(2 + i);
    int64_t span = p.dilation[i] * (k - 1);
    int64_t o = p.transposed ? (s - 1) * p.stride[i] - 2 * p.padding[i] +
                                   span + p.outputPadding[i] + 1
                             : floorDiv(s + 2 * p.padding[i] - span - 1,
                                        p.stride[i]) +
                                   1;
    if (o < 0 || k < 1)
      return std::nullopt;
    shape.push_back(o);
  }
  return shape;
}

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
    // Unwanted gradients are undefined tensors, typed [] or [0] by LTC.
    int64_t channels = gradOutType.getDimSize(1);
    if (((*mask)[0] && gradInputType != inputType) ||
        ((*mask)[1] && gradWeightType != weightType) ||
        ((*mask)[2] &&
         gradBiasType != RankedTensorType::get({channels},
                                               inputType.getElementType())))
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
    Value gradInput, gradWeight, gradBias;
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
    if ((*mask)[2])
      gradBias = createBiasGrad(rewriter, loc, gradOut, gradBiasType);
    if (!gradInput)
      gradInput = createZeroTensor(rewriter, loc, gradInputType);
    if (!gradWeight)
      gradWeight = createZeroTensor(rewriter, loc, gradWeightType);
    if (!gradBias)
      gradBias = createZeroTensor(rewriter, loc, gradBiasType);
    rewriter.replaceOp(op, ValueRange{gradInput, gradWeight, gradBias});
    return success();
  }
};

} // namespace

void populateConvolutionPatterns(TorchTypeConverter &typeConverter,
                                 RewritePatternSet &patterns) {
  patterns.add<ConvertConvolutionOp, ConvertConvolutionBackwardOp>(
      typeConverter, patterns.getContext());
}

} // namespace ltc_mlir::torch_to_linalg