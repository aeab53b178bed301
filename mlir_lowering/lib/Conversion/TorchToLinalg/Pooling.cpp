//===- Pooling.cpp - max_pool{2,3}d_with_indices, avg_pool{2,3}d (+ bwd) --===//
//
// Semantics follow ATen's CPU kernels (input [N, C, *spatial] or [C, *spatial]):
//  - output size per dim: (in + 2p - dil * (k - 1) - 1 (+ s - 1 in ceil mode))
//    / s + 1, minus one in ceil mode if the last window would start in the
//    right padding;
//  - max: padding never wins; the first maximum of the window (row-major)
//    wins, a NaN always replaces the current maximum; the index is the flat
//    position in the input plane; a window of -inf gives its first in-image
//    position;
//  - avg: sum / divisor, divisor = divisor_override, else the window size
//    clipped to [-p, in + p) (count_include_pad) or to [0, in); integers
//    divide with truncation (avg_pool2d supports int64);
//  - backward: grad_input[e] accumulates, in raster order of the outputs,
//    grad_output[o] (max: where indices[o] == e) or grad_output[o] / divisor.
//
// Windows of up to kMaxUnrolledWindow elements are unrolled: the forward
// combines one strided slice of the padded input per window offset in an
// elementwise generic, the backward adds grad_output into the matching
// strided slice of a padded accumulator once per offset (in reverse window
// order, which visits the outputs covering an element in raster order, so the
// sums round like ATen's). Every map is an identity: the ops vectorize and
// nothing is scattered. Larger windows use a table gather (WindowGather.h).
//
//===----------------------------------------------------------------------===//

#include "ltc_mlir/Conversion/TorchToLinalg/Utils.h"
#include "WindowGather.h"

using namespace mlir;

namespace ltc_mlir::torch_to_linalg {
namespace {

/// Above this many elements per window, the window is gathered, not unrolled.
constexpr int64_t kMaxUnrolledWindow = 64;

/// An int list argument of `n` values given as 1 or n constants (or none,
/// when `allowEmpty`), like ATen's pooling argument parsing.
std::optional<SmallVector<int64_t>> getPoolList(Value list, size_t n,
                                                bool allowEmpty) {
  std::optional<SmallVector<int64_t>> values = getConstantIntList(list);
  if (!values)
    return std::nullopt;
  if (values->empty() && allowEmpty)
    return values;
  if (values->size() == 1)
    return SmallVector<int64_t>(n, values->front());
  if (values->size() != n)
    return std::nullopt;
  return values;
}

int64_t floorDiv(int64_t a, int64_t b) {
  return a / b - ((a % b != 0) && ((a < 0) != (b < 0)));
}

/// Reads and checks the window of an N-d pooling op (dilation null for avg
/// pooling). `why` says what is wrong on failure.
FailureOr<PoolGeometry> getPoolGeometry(size_t n, RankedTensorType inputType,
                                        Value kernelList, Value strideList,
                                        Value paddingList, Value dilationList,
                                        Value ceilMode, std::string &why) {
  PoolGeometry g;
  int64_t rank = inputType.getRank();
  if (rank != static_cast<int64_t>(n) + 1 &&
      rank != static_cast<int64_t>(n) + 2) {
    why = "input must be " + std::to_string(n + 1) + "-D or " +
          std::to_string(n + 2) + "-D";
    return failure();
  }
  ArrayRef<int64_t> shape = inputType.getShape();
  g.batchShape.assign(shape.begin(), shape.end() - n);
  g.in.assign(shape.end() - n, shape.end());
  auto kernel = getPoolList(kernelList, n, false);
  auto stride = getPoolList(strideList, n, true);
  auto padding = getPoolList(paddingList, n, false);
  std::optional<SmallVector<int64_t>> dilation = SmallVector<int64_t>(n, 1);
  if (dilationList)
    dilation = getPoolList(dilationList, n, false);
  std::optional<bool> ceil = getConstantBool(ceilMode);
  if (!kernel || !stride || !padding || !dilation || !ceil) {
    why = "kernel_size, stride, padding, dilation and ceil_mode must be "
          "constants with 1 or " +
          std::to_string(n) + " values";
    return failure();
  }
  g.kernel = *kernel;
  g.stride = stride->empty() ? *kernel : *stride;
  g.padding = *padding;
  g.dilation = *dilation;
  g.ceilMode = *ceil;
  for (size_t d = 0; d < n; ++d) {
    if (g.kernel[d] <= 0 || g.stride[d] <= 0 || g.dilation[d] <= 0 ||
        g.padding[d] < 0 || g.padding[d] > g.kernel[d] / 2) {
      why = "kernel, stride and dilation must be positive and padding at "
            "most half the kernel size";
      return failure();
    }
    int64_t effective = g.dilation[d] * (g.kernel[d] - 1) + 1;
    int64_t out = floorDiv(g.in[d] + 2 * g.padding[d] - effective +
                               (g.ceilMode ? g.stride[d] - 1 : 0),
                           g.stride[d]) +
                  1;
    if (g.ceilMode && (out - 1) * g.stride[d] >= g.in[d] + g.padding[d])
      --out;
    if (out <= 0) {
      why = "the output would be empty (input smaller than the window)";
      return failure();
    }
    g.out.push_back(out);
  }
  return g;
}

bool isPoolableElementType(Value torchTensor, Type elementType) {
  Type dtype = getTorchDtype(torchTensor);
  if (isa<FloatType>(elementType))
    return true;
  return isa<IntegerType>(elementType) && !isUnsignedDtype(dtype);
}

/// Index of the window start o * s - p of each spatial dim (index values),
/// from the linalg.index of the dims [lead, lead + rank).
SmallVector<Value> getWindowStarts(OpBuilder &b, Location loc, unsigned lead,
                                   const PoolGeometry &g) {
  SmallVector<Value> starts;
  for (auto [d, o] : llvm::enumerate(getLoopIndices(b, loc, lead, g.rank()))) {
    Value scaled = arith::MulIOp::create(
        b, loc, o, arith::ConstantIndexOp::create(b, loc, g.stride[d]));
    starts.push_back(arith::SubIOp::create(
        b, loc, scaled, arith::ConstantIndexOp::create(b, loc, g.padding[d])));
  }
  return starts;
}

/// ATen's avg_pool divide_factor for the windows starting at `starts`, as a
/// scalar of `type`.
Value createAvgDivisor(OpBuilder &b, Location loc, ValueRange starts,
                       const PoolGeometry &g, bool countIncludePad,
                       std::optional<int64_t> divisorOverride, Type type) {
  if (divisorOverride)
    return createScalarConstant(b, loc, type, *divisorOverride);
  Value count;
  for (auto [d, start] : llvm::enumerate(starts)) {
    auto c = [&](int64_t v) { return arith::ConstantIndexOp::create(b, loc, v); };
    Value end = arith::MinSIOp::create(
        b, loc, arith::AddIOp::create(b, loc, start, c(g.kernel[d])),
        c(g.in[d] + g.padding[d]));
    Value first = start;
    if (!countIncludePad) {
      first = arith::MaxSIOp::create(b, loc, start, c(0));
      end = arith::MinSIOp::create(b, loc, end, c(g.in[d]));
    }
    Value size = arith::SubIOp::create(b, loc, end, first);
    count = count ? arith::MulIOp::create(b, loc, count, size).getResult()
                  : size;
  }
  Value asInt = arith::IndexCastOp::create(b, loc, b.getI64Type(), count);
  return castScalar(b, loc, asInt, type);
}

Value createDivide(OpBuilder &b, Location loc, Value lhs, Value rhs) {
  if (isa<FloatType>(lhs.getType()))
    return arith::DivFOp::create(b, loc, lhs, rhs);
  return arith::DivSIOp::create(b, loc, lhs, rhs);
}

/// Forward gather table of dim `d` (entries in the padding dropped).
GatherDim getForwardWindowTable(const PoolGeometry &g, size_t d) {
  return getGatherTable(
      g.out[d],
      [&](int64_t o) {
        SmallVector<WindowEntry> entries = g.window(d, o);
        for (WindowEntry &e : entries)
          if (e.position >= g.in[d])
            e.position = -1;
        return entries;
      },
      /*weighted=*/false);
}

/// Backward table of dim `d`: the outputs covering each input position.
GatherDim getBackwardWindowTable(const PoolGeometry &g, size_t d) {
  return getScatterTable(
      g.in[d], g.out[d], [&](int64_t o) { return g.window(d, o); },
      /*weighted=*/false);
}

//===----------------------------------------------------------------------===//
// max_pool{2,3}d_with_indices
//===----------------------------------------------------------------------===//

template <typename OpTy, size_t N>
class ConvertMaxPoolWithIndicesOp : public TorchConversionPattern<OpTy> {
public:
  using TorchConversionPattern<OpTy>::TorchConversionPattern;
  using OpAdaptor = typename OpTy::Adaptor;

  LogicalResult
  matchAndRewrite(OpTy op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Value input = adaptor.getSelf();
    auto inputType = cast<RankedTensorType>(input.getType());
    Type elemType = inputType.getElementType();
    if (!isPoolableElementType(op.getSelf(), elemType))
      return this->fail(op, rewriter, "self must be a float or signed integer tensor");
    std::string why;
    FailureOr<PoolGeometry> geometry = getPoolGeometry(
        N, inputType, op.getKernelSize(), op.getStride(), op.getPadding(),
        op.getDilation(), op.getCeilMode(), why);
    if (failed(geometry))
      return this->fail(op, rewriter, why);
    const PoolGeometry &g = *geometry;
    RankedTensorType valuesType = this->getTensorType(op.getValues().getType());
    RankedTensorType indicesType =
        this->getTensorType(op.getIndices().getType());
    SmallVector<int64_t> shape = g.resultShape(g.out);
    if (!valuesType || !indicesType || valuesType.getShape() != ArrayRef(shape) ||
        indicesType.getShape() != ArrayRef(shape) ||
        valuesType.getElementType() != elemType ||
        !indicesType.getElementType().isInteger(64))
      return this->fail(op, rewriter, "unexpected result types");

    Location loc = op.getLoc();
    Value values, indices;
    if (g.windowSize() <= kMaxUnrolledWindow)
      std::tie(values, indices) =
          createUnrolled(rewriter, loc, input, g, valuesType, indicesType);
    else
      std::tie(values, indices) =
          createGathered(rewriter, loc, input, g, valuesType, indicesType);
    rewriter.replaceOp(op, {values, indices});
    return success();
  }

private:
  static std::pair<Value, Value>
  createUnrolled(OpBuilder &b, Location loc, Value input, const PoolGeometry &g,
                 RankedTensorType valuesType, RankedTensorType indicesType) {
    Type elemType = valuesType.getElementType();
    Value padded = createPadded(b, loc, input, g.padding, g.highPadding(),
                                createLowestValue(b, loc, elemType));
    SmallVector<Value> slices = getWindowSlices(b, loc, padded, g);
    SmallVector<SmallVector<int64_t>> window = enumerateWindow(g.kernel);
    unsigned lead = g.batchShape.size();
    unsigned numLoops = lead + g.rank();
    SmallVector<AffineMap> maps(slices.size() + 2,
                                b.getMultiDimIdentityMap(numLoops));
    SmallVector<utils::IteratorType> iterators(numLoops,
                                               utils::IteratorType::parallel);
    auto generic = linalg::GenericOp::create(
        b, loc, TypeRange{valuesType, indicesType}, slices,
        ValueRange{createEmptyTensor(b, loc, valuesType),
                   createEmptyTensor(b, loc, indicesType)},
        maps, iterators, [&](OpBuilder &nb, Location l, ValueRange args) {
          SmallVector<Value> starts = getWindowStarts(nb, l, lead, g);
          // The first in-image position: the start moved right by whole
          // dilation steps while it is in the left padding.
          SmallVector<Value> firstValid;
          for (auto [d, start] : llvm::enumerate(starts)) {
            auto c = [&](int64_t v) {
              return arith::ConstantIndexOp::create(nb, l, v);
            };
            Value before = arith::MaxSIOp::create(
                nb, l, arith::SubIOp::create(nb, l, c(0), start), c(0));
            Value steps = arith::CeilDivSIOp::create(nb, l, before,
                                                     c(g.dilation[d]));
            firstValid.push_back(arith::AddIOp::create(
                nb, l, start,
                arith::MulIOp::create(nb, l, steps, c(g.dilation[d]))));
          }
          Value base = createFlatPosition(nb, l, starts, g.in);
          // f16/bf16 compare and select in f32 (exact; LLVM cannot select
          // vectors of bf16 on x86).
          Type computeType = getAccumulatorType(elemType);
          Value cur = createLowestValue(nb, l, computeType);
          Value curIndex = createFlatPosition(nb, l, firstValid, g.in);
          for (auto [k, offset] : llvm::enumerate(window)) {
            int64_t flatOffset = 0;
            for (size_t d = 0; d < g.rank(); ++d)
              flatOffset = flatOffset * g.in[d] + offset[d] * g.dilation[d];
            Value v = castScalar(nb, l, args[k], computeType);
            Value takes = createMaxPoolTakes(nb, l, v, cur);
            Value position = arith::AddIOp::create(
                nb, l, base, createIntConstant(nb, l, nb.getI64Type(), flatOffset));
            cur = arith::SelectOp::create(nb, l, takes, v, cur);
            curIndex = arith::SelectOp::create(nb, l, takes, position, curIndex);
          }
          linalg::YieldOp::create(
              nb, l, ValueRange{castScalar(nb, l, cur, elemType), curIndex});
        });
    return {generic.getResult(0), generic.getResult(1)};
  }

  static std::pair<Value, Value>
  createGathered(OpBuilder &b, Location loc, Value input, const PoolGeometry &g,
                 RankedTensorType valuesType, RankedTensorType indicesType) {
    SmallVector<GatherDim> dims;
    for (size_t d = 0; d < g.rank(); ++d)
      dims.push_back(getForwardWindowTable(g, d));
    return createGatheredMax(b, loc, input, g.batchShape, dims, valuesType,
                             indicesType);
  }
};

template <typename OpTy, size_t N>
class ConvertMaxPoolWithIndicesBackwardOp : public TorchConversionPattern<OpTy> {
public:
  using TorchConversionPattern<OpTy>::TorchConversionPattern;
  using OpAdaptor = typename OpTy::Adaptor;

  LogicalResult
  matchAndRewrite(OpTy op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Value grad = adaptor.getGradOutput();
    Value indices = adaptor.getIndices();
    auto inputType = cast<RankedTensorType>(adaptor.getSelf().getType());
    auto gradType = cast<RankedTensorType>(grad.getType());
    auto indicesType = cast<RankedTensorType>(indices.getType());
    Type elemType = gradType.getElementType();
    if (!isa<FloatType>(elemType))
      return this->fail(op, rewriter, "grad_output must be a float tensor");
    std::string why;
    FailureOr<PoolGeometry> geometry = getPoolGeometry(
        N, inputType, op.getKernelSize(), op.getStride(), op.getPadding(),
        op.getDilation(), op.getCeilMode(), why);
    if (failed(geometry))
      return this->fail(op, rewriter, why);
    const PoolGeometry &g = *geometry;
    RankedTensorType resultType = this->getTensorType(op.getResult().getType());
    SmallVector<int64_t> outShape = g.resultShape(g.out);
    if (!resultType || resultType.getShape() != inputType.getShape() ||
        resultType.getElementType() != elemType ||
        gradType.getShape() != ArrayRef(outShape) ||
        indicesType.getShape() != ArrayRef(outShape) ||
        !indicesType.getElementType().isInteger(64))
      return this->fail(op, rewriter,
                        "grad_output and indices must have the pooled shape "
                        "(indices int64)");

    Location loc = op.getLoc();
    Type accType = getAccumulatorType(elemType);
    unsigned lead = g.batchShape.size();
    Value gradIn;
    if (g.windowSize() <= kMaxUnrolledWindow) {
      gradIn = createUnrolledBackward(
          rewriter, loc, g, ValueRange{grad, indices}, accType,
          [&](OpBuilder &b, Location l, ValueRange args,
              ArrayRef<int64_t> offset) -> Value {
            SmallVector<Value> positions = getWindowStarts(b, l, lead, g);
            for (size_t d = 0; d < g.rank(); ++d)
              positions[d] = arith::AddIOp::create(
                  b, l, positions[d],
                  arith::ConstantIndexOp::create(b, l,
                                                 offset[d] * g.dilation[d]));
            Value hit = arith::CmpIOp::create(
                b, l, arith::CmpIPredicate::eq, args[1],
                createFlatPosition(b, l, positions, g.in));
            return arith::SelectOp::create(
                b, l, hit, castScalar(b, l, args[0], accType),
                createScalarConstant(b, l, accType, 0));
          });
    } else {
      SmallVector<GatherDim> dims;
      for (size_t d = 0; d < g.rank(); ++d)
        dims.push_back(getBackwardWindowTable(g, d));
      gradIn = createGatheredMaxBackward(
          rewriter, loc, grad, indices, g.batchShape, dims,
          RankedTensorType::get(inputType.getShape(), accType));
    }
    rewriter.replaceOp(op, castTensor(rewriter, loc, gradIn, elemType));
    return success();
  }
};

//===----------------------------------------------------------------------===//
// avg_pool{2,3}d
//===----------------------------------------------------------------------===//

/// count_include_pad and divisor_override (0 is rejected, like ATen).
template <typename OpTy>
LogicalResult getAvgOptions(OpTy op, bool &countIncludePad,
                            std::optional<int64_t> &divisorOverride,
                            std::string &why) {
  std::optional<bool> include = getConstantBool(op.getCountIncludePad());
  if (!include) {
    why = "count_include_pad must be a constant";
    return failure();
  }
  countIncludePad = *include;
  if (!isNone(op.getDivisorOverride())) {
    divisorOverride = getConstantInt(op.getDivisorOverride());
    if (!divisorOverride || *divisorOverride == 0) {
      why = "divisor_override must be None or a non-zero constant";
      return failure();
    }
  }
  return success();
}

template <typename OpTy, size_t N>
class ConvertAvgPoolOp : public TorchConversionPattern<OpTy> {
public:
  using TorchConversionPattern<OpTy>::TorchConversionPattern;
  using OpAdaptor = typename OpTy::Adaptor;

  LogicalResult
  matchAndRewrite(OpTy op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Value input = adaptor.getSelf();
    auto inputType = cast<RankedTensorType>(input.getType());
    Type elemType = inputType.getElementType();
    if (!isPoolableElementType(op.getSelf(), elemType))
      return this->fail(op, rewriter, "self must be a float or signed integer tensor");
    std::string why;
    FailureOr<PoolGeometry> geometry =
        getPoolGeometry(N, inputType, op.getKernelSize(), op.getStride(),
                        op.getPadding(), nullptr, op.getCeilMode(), why);
    bool countIncludePad = true;
    std::optional<int64_t> divisorOverride;
    if (failed(geometry) ||
        failed(getAvgOptions(op, countIncludePad, divisorOverride, why)))
      return this->fail(op, rewriter, why);
    const PoolGeometry &g = *geometry;
    RankedTensorType resultType = this->getTensorType(op.getResult().getType());
    if (!resultType || resultType.getShape() != ArrayRef(g.resultShape(g.out)) ||
        resultType.getElementType() != elemType)
      return this->fail(op, rewriter, "unexpected result type");

    Location loc = op.getLoc();
    Type accType = getAccumulatorType(elemType);
    unsigned lead = g.batchShape.size();
    Value result;
    if (g.windowSize() <= kMaxUnrolledWindow) {
      Value padded =
          createPadded(rewriter, loc, input, g.padding, g.highPadding(),
                       createScalarConstant(rewriter, loc, elemType, 0));
      SmallVector<Value> slices = getWindowSlices(rewriter, loc, padded, g);
      unsigned numLoops = lead + g.rank();
      SmallVector<AffineMap> maps(slices.size() + 1,
                                  rewriter.getMultiDimIdentityMap(numLoops));
      SmallVector<utils::IteratorType> iterators(
          numLoops, utils::IteratorType::parallel);
      result =
          linalg::GenericOp::create(
              rewriter, loc, TypeRange{resultType}, slices,
              ValueRange{createEmptyTensor(rewriter, loc, resultType)}, maps,
              iterators,
              [&](OpBuilder &b, Location l, ValueRange args) {
                Value sum = createScalarConstant(b, l, accType, 0);
                for (Value v : args.drop_back())
                  sum = createAdd(b, l, sum, castScalar(b, l, v, accType));
                Value divisor = createAvgDivisor(
                    b, l, getWindowStarts(b, l, lead, g), g, countIncludePad,
                    divisorOverride, accType);
                linalg::YieldOp::create(
                    b, l,
                    ValueRange{castScalar(b, l, createDivide(b, l, sum, divisor),
                                          elemType)});
              })
              .getResult(0);
    } else {
      SmallVector<GatherDim> dims;
      for (size_t d = 0; d < g.rank(); ++d)
        dims.push_back(getForwardWindowTable(g, d));
      Value sums = createGatheredSum(
          rewriter, loc, input, g.batchShape, dims,
          RankedTensorType::get(resultType.getShape(), accType));
      result = *createElementwiseOp(
          rewriter, loc, resultType, ValueRange{sums},
          [&](OpBuilder &b, Location l, ValueRange args) {
            Value divisor =
                createAvgDivisor(b, l, getWindowStarts(b, l, lead, g), g,
                                 countIncludePad, divisorOverride, accType);
            return castScalar(b, l, createDivide(b, l, args[0], divisor),
                              elemType);
          });
    }
    rewriter.replaceOp(op, result);
    return success();
  }
};

template <typename OpTy, size_t N>
class ConvertAvgPoolBackwardOp : public TorchConversionPattern<OpTy> {
public:
  using TorchConversionPattern<OpTy>::TorchConversionPattern;
  using OpAdaptor = typename OpTy::Adaptor;

  LogicalResult
  matchAndRewrite(OpTy op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Value grad = adaptor.getGradOutput();
    auto inputType = cast<RankedTensorType>(adaptor.getSelf().getType());
    auto gradType = cast<RankedTensorType>(grad.getType());
    Type elemType = gradType.getElementType();
    if (!isPoolableElementType(op.getGradOutput(), elemType))
      return this->fail(op, rewriter,
                        "grad_output must be a float or signed integer tensor");
    std::string why;
    FailureOr<PoolGeometry> geometry =
        getPoolGeometry(N, inputType, op.getKernelSize(), op.getStride(),
                        op.getPadding(), nullptr, op.getCeilMode(), why);
    bool countIncludePad = true;
    std::optional<int64_t> divisorOverride;
    if (failed(geometry) ||
        failed(getAvgOptions(op, countIncludePad, divisorOverride, why)))
      return this->fail(op, rewriter, why);
    const PoolGeometry &g = *geometry;
    RankedTensorType resultType = this->getTensorType(op.getResult().getType());
    if (!resultType || resultType.getShape() != inputType.getShape() ||
        resultType.getElementType() != elemType ||
        gradType.getShape() != ArrayRef(g.resultShape(g.out)))
      return this->fail(op, rewriter, "grad_output must have the pooled shape");

    Location loc = op.getLoc();
    Type accType = getAccumulatorType(elemType);
    unsigned lead = g.batchShape.size();
    // grad_output / divisor, per output (ATen's gradient_delta).
    Value delta = *createElementwiseOp(
        rewriter, loc, RankedTensorType::get(gradType.getShape(), accType),
        ValueRange{grad}, [&](OpBuilder &b, Location l, ValueRange args) {
          Value divisor =
              createAvgDivisor(b, l, getWindowStarts(b, l, lead, g), g,
                               countIncludePad, divisorOverride, accType);
          return createDivide(b, l, castScalar(b, l, args[0], accType),
                              divisor);
        });
    Value gradIn;
    if (g.windowSize() <= kMaxUnrolledWindow) {
      gradIn = createUnrolledBackward(
          rewriter, loc, g, ValueRange{delta}, accType,
          [](OpBuilder &, Location, ValueRange args, ArrayRef<int64_t>) {
            return args[0];
          });
    } else {
      SmallVector<GatherDim> dims;
      for (size_t d = 0; d < g.rank(); ++d)
        dims.push_back(getBackwardWindowTable(g, d));
      gradIn = createGatheredSum(
          rewriter, loc, delta, g.batchShape, dims,
          RankedTensorType::get(inputType.getShape(), accType));
    }
    rewriter.replaceOp(op, castTensor(rewriter, loc, gradIn, elemType));
    return success();
  }
};

} // namespace

void populatePoolingPatterns(TorchTypeConverter &typeConverter,
                             RewritePatternSet &patterns) {
  MLIRContext *context = patterns.getContext();
  patterns.add<
      ConvertMaxPoolWithIndicesOp<torch::AtenMaxPool2dWithIndicesOp, 2>,
      ConvertMaxPoolWithIndicesOp<torch::AtenMaxPool3dWithIndicesOp, 3>,
      ConvertMaxPoolWithIndicesBackwardOp<
          torch::AtenMaxPool2dWithIndicesBackwardOp, 2>,
      ConvertMaxPoolWithIndicesBackwardOp<
          torch::AtenMaxPool3dWithIndicesBackwardOp, 3>,
      ConvertAvgPoolOp<torch::AtenAvgPool2dOp, 2>,
      ConvertAvgPoolOp<torch::AtenAvgPool3dOp, 3>,
      ConvertAvgPoolBackwardOp<torch::AtenAvgPool2dBackwardOp, 2>,
      ConvertAvgPoolBackwardOp<torch::AtenAvgPool3dBackwardOp, 3>>(
      typeConverter, context);
}

} // namespace ltc_mlir::torch_to_linalg
