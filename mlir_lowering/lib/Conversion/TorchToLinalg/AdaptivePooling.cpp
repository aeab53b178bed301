//===- AdaptivePooling.cpp - adaptive avg/max pooling (+ backward) --------===//
//
// _adaptive_avg_pool{2,3}d, adaptive_max_pool{2,3}d and their backwards, on
// [N, C, *spatial] or [C, *spatial]. Output o of a dim reads ATen's bin
// [floor(o * in / out), ceil((o + 1) * in / out)), so bins of non-divisible
// sizes differ in length and may overlap. Like ATen's CPU kernels:
//  - avg: (sum of the bin in row-major order) / bin_h / bin_w (one division
//    per dim); backward: grad_input[e] += grad_output[o] / bin_h / bin_w over
//    the bins containing e, in raster order of the outputs;
//  - max: the first maximum of the bin wins, a NaN always replaces it; the
//    index is the flat position in the input plane; backward sums
//    grad_output where indices point at the element.
// When every dim divides evenly (bins are a regular kh x kw pooling with
// stride = kernel) and the window is small, the avg forward and backward
// use the unrolled strided slices of WindowGather.h (vectorized); otherwise
// (and for max, which torch's LTC has no Lazy kernel for) a table gather.
//
//===----------------------------------------------------------------------===//

#include "ltc_mlir/Conversion/TorchToLinalg/Utils.h"
#include "WindowGather.h"

using namespace mlir;

namespace ltc_mlir::torch_to_linalg {
namespace {

constexpr int64_t kMaxUnrolledWindow = 64;

int64_t binStart(int64_t o, int64_t in, int64_t out) { return o * in / out; }
int64_t binEnd(int64_t o, int64_t in, int64_t out) {
  return ((o + 1) * in + out - 1) / out;
}

struct AdaptiveGeometry {
  SmallVector<int64_t> batchShape, in, out;

  size_t rank() const { return in.size(); }
  SmallVector<WindowEntry> bin(size_t d, int64_t o) const {
    SmallVector<WindowEntry> entries;
    for (int64_t i = binStart(o, in[d], out[d]); i < binEnd(o, in[d], out[d]);
         ++i)
      entries.push_back({i});
    return entries;
  }
  /// The regular pooling the bins are, when every dim divides evenly.
  std::optional<PoolGeometry> asRegularPool() const {
    PoolGeometry g;
    g.batchShape = batchShape;
    g.in = in;
    g.out = out;
    for (size_t d = 0; d < rank(); ++d) {
      if (in[d] % out[d] != 0)
        return std::nullopt;
      g.kernel.push_back(in[d] / out[d]);
    }
    g.stride = g.kernel;
    g.padding.assign(rank(), 0);
    g.dilation.assign(rank(), 1);
    if (g.windowSize() > kMaxUnrolledWindow)
      return std::nullopt;
    return g;
  }
  SmallVector<GatherDim> forwardTables() const {
    return getGatherTables(
        out, [&](size_t d, int64_t o) { return bin(d, o); },
        /*weighted=*/false);
  }
  SmallVector<GatherDim> backwardTables() const {
    return getScatterTables(
        in, out, [&](size_t d, int64_t o) { return bin(d, o); },
        /*weighted=*/false);
  }
};

/// Input [C, *spatial] or [N, C, *spatial] and output spatial sizes
/// `outSpatial` (all positive).
FailureOr<AdaptiveGeometry> getAdaptiveGeometry(size_t n,
                                                RankedTensorType inputType,
                                                ArrayRef<int64_t> outShape,
                                                std::string &why) {
  int64_t rank = inputType.getRank();
  if (rank != static_cast<int64_t>(n) + 1 &&
      rank != static_cast<int64_t>(n) + 2) {
    why = "input must be " + std::to_string(n + 1) + "-D or " +
          std::to_string(n + 2) + "-D";
    return failure();
  }
  AdaptiveGeometry g;
  ArrayRef<int64_t> shape = inputType.getShape();
  g.batchShape.assign(shape.begin(), shape.end() - n);
  g.in.assign(shape.end() - n, shape.end());
  if (static_cast<int64_t>(outShape.size()) != rank ||
      outShape.take_front(rank - n) != ArrayRef(g.batchShape)) {
    why = "the result must keep the input's leading dims";
    return failure();
  }
  g.out.assign(outShape.end() - n, outShape.end());
  for (size_t d = 0; d < n; ++d)
    if (g.in[d] <= 0 || g.out[d] <= 0) {
      why = "empty input or output dims are not supported";
      return failure();
    }
  return g;
}

/// value / bin_0(o_0) / bin_1(o_1) / ... with the bin sizes of the output
/// position given by the linalg.index of dims [lead, lead + rank).
Value divideByBins(OpBuilder &b, Location loc, Value value, unsigned lead,
                   const AdaptiveGeometry &g) {
  Type type = value.getType();
  for (auto [d, o] : llvm::enumerate(getLoopIndices(b, loc, lead, g.rank()))) {
    auto c = [&](int64_t v) { return arith::ConstantIndexOp::create(b, loc, v); };
    Value start = arith::DivSIOp::create(
        b, loc, arith::MulIOp::create(b, loc, o, c(g.in[d])), c(g.out[d]));
    Value next = arith::AddIOp::create(b, loc, o, c(1));
    Value end = arith::CeilDivSIOp::create(
        b, loc, arith::MulIOp::create(b, loc, next, c(g.in[d])), c(g.out[d]));
    Value size = arith::IndexCastOp::create(
        b, loc, b.getI64Type(), arith::SubIOp::create(b, loc, end, start));
    value = arith::DivFOp::create(b, loc, value, castScalar(b, loc, size, type));
  }
  return value;
}

template <typename OpTy, size_t N>
class ConvertAdaptiveAvgPoolOp : public TorchConversionPattern<OpTy> {
public:
  using TorchConversionPattern<OpTy>::TorchConversionPattern;
  using OpAdaptor = typename OpTy::Adaptor;

  LogicalResult
  matchAndRewrite(OpTy op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Value input = adaptor.getSelf();
    auto inputType = cast<RankedTensorType>(input.getType());
    RankedTensorType resultType = this->getTensorType(op.getResult().getType());
    Type elemType = inputType.getElementType();
    if (!isa<FloatType>(elemType) || !resultType ||
        resultType.getElementType() != elemType)
      return this->fail(op, rewriter, "self must be a float tensor");
    std::optional<SmallVector<int64_t>> outputSize =
        getConstantIntList(op.getOutputSize());
    if (!outputSize || outputSize->size() != N ||
        ArrayRef(*outputSize) != resultType.getShape().take_back(N))
      return this->fail(op, rewriter,
                        "output_size must be constant and match the result");
    std::string why;
    FailureOr<AdaptiveGeometry> geometry =
        getAdaptiveGeometry(N, inputType, resultType.getShape(), why);
    if (failed(geometry))
      return this->fail(op, rewriter, why);
    const AdaptiveGeometry &g = *geometry;

    Location loc = op.getLoc();
    Type accType = getAccumulatorType(elemType);
    unsigned lead = g.batchShape.size();
    auto divide = [&](OpBuilder &b, Location l, Value sum) {
      return castScalar(b, l, divideByBins(b, l, sum, lead, g), elemType);
    };
    Value result;
    if (std::optional<PoolGeometry> regular = g.asRegularPool()) {
      SmallVector<Value> slices = getWindowSlices(rewriter, loc, input, *regular);
      unsigned numLoops = lead + g.rank();
      SmallVector<AffineMap> maps(slices.size() + 1,
                                  rewriter.getMultiDimIdentityMap(numLoops));
      SmallVector<utils::IteratorType> iterators(
          numLoops, utils::IteratorType::parallel);
      result = linalg::GenericOp::create(
                   rewriter, loc, TypeRange{resultType}, slices,
                   ValueRange{createEmptyTensor(rewriter, loc, resultType)},
                   maps, iterators,
                   [&](OpBuilder &b, Location l, ValueRange args) {
                     Value sum = createScalarConstant(b, l, accType, 0);
                     for (Value v : args.drop_back())
                       sum = createAdd(b, l, sum, castScalar(b, l, v, accType));
                     linalg::YieldOp::create(b, l,
                                             ValueRange{divide(b, l, sum)});
                   })
                   .getResult(0);
    } else {
      Value sums = createGatheredSum(
          rewriter, loc, input, g.batchShape, g.forwardTables(),
          RankedTensorType::get(resultType.getShape(), accType));
      result = *createElementwiseOp(
          rewriter, loc, resultType, ValueRange{sums},
          [&](OpBuilder &b, Location l, ValueRange args) {
            return divide(b, l, args[0]);
          });
    }
    rewriter.replaceOp(op, result);
    return success();
  }
};

template <typename OpTy, size_t N>
class ConvertAdaptiveAvgPoolBackwardOp : public TorchConversionPattern<OpTy> {
public:
  using TorchConversionPattern<OpTy>::TorchConversionPattern;
  using OpAdaptor = typename OpTy::Adaptor;

  LogicalResult
  matchAndRewrite(OpTy op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Value grad = adaptor.getGradOutput();
    auto gradType = cast<RankedTensorType>(grad.getType());
    auto inputType = cast<RankedTensorType>(adaptor.getSelf().getType());
    RankedTensorType resultType = this->getTensorType(op.getResult().getType());
    Type elemType = gradType.getElementType();
    if (!isa<FloatType>(elemType) || !resultType ||
        resultType != inputType.clone(elemType))
      return this->fail(op, rewriter,
                        "grad_output must be a float tensor, the result "
                        "shaped like self");
    std::string why;
    FailureOr<AdaptiveGeometry> geometry =
        getAdaptiveGeometry(N, inputType, gradType.getShape(), why);
    if (failed(geometry))
      return this->fail(op, rewriter, why);
    const AdaptiveGeometry &g = *geometry;

    Location loc = op.getLoc();
    Type accType = getAccumulatorType(elemType);
    unsigned lead = g.batchShape.size();
    // ATen's grad_delta: grad_output / bin_h / bin_w.
    Value delta = *createElementwiseOp(
        rewriter, loc, RankedTensorType::get(gradType.getShape(), accType),
        ValueRange{grad}, [&](OpBuilder &b, Location l, ValueRange args) {
          return divideByBins(b, l, castScalar(b, l, args[0], accType), lead,
                              g);
        });
    Value gradIn;
    if (std::optional<PoolGeometry> regular = g.asRegularPool())
      gradIn = createUnrolledBackward(
          rewriter, loc, *regular, ValueRange{delta}, accType,
          [](OpBuilder &, Location, ValueRange args, ArrayRef<int64_t>) {
            return args[0];
          });
    else
      gradIn = createGatheredSum(
          rewriter, loc, delta, g.batchShape, g.backwardTables(),
          RankedTensorType::get(inputType.getShape(), accType));
    rewriter.replaceOp(op, castTensor(rewriter, loc, gradIn, elemType));
    return success();
  }
};

template <typename OpTy, size_t N>
class ConvertAdaptiveMaxPoolOp : public TorchConversionPattern<OpTy> {
public:
  using TorchConversionPattern<OpTy>::TorchConversionPattern;
  using OpAdaptor = typename OpTy::Adaptor;

  LogicalResult
  matchAndRewrite(OpTy op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Value input = adaptor.getSelf();
    auto inputType = cast<RankedTensorType>(input.getType());
    Type elemType = inputType.getElementType();
    RankedTensorType valuesType = this->getTensorType(op.getValues().getType());
    RankedTensorType indicesType =
        this->getTensorType(op.getIndices().getType());
    if (!isa<FloatType>(elemType) || !valuesType || !indicesType ||
        valuesType.getElementType() != elemType ||
        !indicesType.getElementType().isInteger(64) ||
        valuesType.getShape() != indicesType.getShape())
      return this->fail(op, rewriter,
                        "self must be a float tensor, indices int64");
    std::optional<SmallVector<int64_t>> outputSize =
        getConstantIntList(op.getOutputSize());
    if (!outputSize || outputSize->size() != N ||
        ArrayRef(*outputSize) != valuesType.getShape().take_back(N))
      return this->fail(op, rewriter,
                        "output_size must be constant and match the result");
    std::string why;
    FailureOr<AdaptiveGeometry> geometry =
        getAdaptiveGeometry(N, inputType, valuesType.getShape(), why);
    if (failed(geometry))
      return this->fail(op, rewriter, why);
    auto [values, indices] =
        createGatheredMax(rewriter, op.getLoc(), input, geometry->batchShape,
                          geometry->forwardTables(), valuesType, indicesType);
    rewriter.replaceOp(op, {values, indices});
    return success();
  }
};

template <typename OpTy, size_t N>
class ConvertAdaptiveMaxPoolBackwardOp : public TorchConversionPattern<OpTy> {
public:
  using TorchConversionPattern<OpTy>::TorchConversionPattern;
  using OpAdaptor = typename OpTy::Adaptor;

  LogicalResult
  matchAndRewrite(OpTy op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Value grad = adaptor.getGradOutput();
    Value indices = adaptor.getIndices();
    auto gradType = cast<RankedTensorType>(grad.getType());
    auto indicesType = cast<RankedTensorType>(indices.getType());
    auto inputType = cast<RankedTensorType>(adaptor.getSelf().getType());
    RankedTensorType resultType = this->getTensorType(op.getResult().getType());
    Type elemType = gradType.getElementType();
    if (!isa<FloatType>(elemType) || !resultType ||
        resultType != inputType.clone(elemType) ||
        indicesType.getShape() != gradType.getShape() ||
        !indicesType.getElementType().isInteger(64))
      return this->fail(op, rewriter,
                        "grad_output must be a float tensor, indices int64 "
                        "of the same shape");
    std::string why;
    FailureOr<AdaptiveGeometry> geometry =
        getAdaptiveGeometry(N, inputType, gradType.getShape(), why);
    if (failed(geometry))
      return this->fail(op, rewriter, why);
    Location loc = op.getLoc();
    Value gradIn = createGatheredMaxBackward(
        rewriter, loc, grad, indices, geometry->batchShape,
        geometry->backwardTables(),
        RankedTensorType::get(inputType.getShape(),
                              getAccumulatorType(elemType)));
    rewriter.replaceOp(op, castTensor(rewriter, loc, gradIn, elemType));
    return success();
  }
};

} // namespace

void populateAdaptivePoolingPatterns(TorchTypeConverter &typeConverter,
                                     RewritePatternSet &patterns) {
  patterns.add<
      ConvertAdaptiveAvgPoolOp<torch::Aten_AdaptiveAvgPool2dOp, 2>,
      ConvertAdaptiveAvgPoolOp<torch::Aten_AdaptiveAvgPool3dOp, 3>,
      ConvertAdaptiveAvgPoolBackwardOp<torch::AtenAdaptiveAvgPool2dBackwardOp,
                                       2>,
      ConvertAdaptiveAvgPoolBackwardOp<torch::AtenAdaptiveAvgPool3dBackwardOp,
                                       3>,
      ConvertAdaptiveMaxPoolOp<torch::AtenAdaptiveMaxPool2dOp, 2>,
      ConvertAdaptiveMaxPoolOp<torch::AtenAdaptiveMaxPool3dOp, 3>,
      ConvertAdaptiveMaxPoolBackwardOp<torch::AtenAdaptiveMaxPool2dBackwardOp,
                                       2>,
      ConvertAdaptiveMaxPoolBackwardOp<torch::AtenAdaptiveMaxPool3dBackwardOp,
                                       3>>(typeConverter, patterns.getContext());
}

} // namespace ltc_mlir::torch_to_linalg
