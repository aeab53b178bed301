//===- Upsample.cpp - upsample_nearest / linear {1,2,3}d (+ backward) -----===//
//
// Source positions and weights depend only on the output position of each
// dim, so they are computed here, at compile time, with ATen's arithmetic
// (ATen/native/UpSample.h):
//  - nearest: out == in copies, out == 2 * in takes o >> 1, otherwise
//    min(floor(o * scale), in - 1) in float, scale = 1 / scales if given
//    (> 0), else in / out;
//  - linear: ratio = (in - 1) / (out - 1) with align_corners (0 if out is
//    1), else 1 / scales or in / out, in the input's precision; source
//    index x = ratio * o (align_corners) or max(ratio * (o + 0.5) - 0.5, 0)
//    in double; taps i0 = (int)x, i1 = i0 + (i0 < in - 1), weights
//    l1 = x - i0, l0 = 1 - l1; out == in copies (weights 1 and 0).
// The forward reads the taps with tensor.extract (linear: ATen's nesting,
// t = t(i0) * l0 + t(i1) * l1 from the outermost dim in); the backward is
// a table gather over the outputs that read each input element, in raster
// order, accumulating weight_product * grad like ATen's scatter.
//
//===----------------------------------------------------------------------===//

#include "ltc_mlir/Conversion/TorchToLinalg/Utils.h"
#include "WindowGather.h"

#include <cmath>
#include <functional>

using namespace mlir;

namespace ltc_mlir::torch_to_linalg {
namespace {

int64_t nearestSource(int64_t o, int64_t in, int64_t out,
                      std::optional<double> scale) {
  if (out == in)
    return o;
  if (out == 2 * in)
    return o >> 1;
  float s = scale && *scale > 0 ? static_cast<float>(1.0 / *scale)
                                : static_cast<float>(in) / out;
  return std::min(static_cast<int64_t>(std::floor(o * s)), in - 1);
}

struct LinearTaps {
  int64_t i0, i1;
  double l0, l1;
};

/// The taps of output `o`, computed in T (float for f32, f16 and bf16,
/// double for f64) like compute_source_index_and_lambda.
template <typename T>
LinearTaps linearTaps(int64_t o, int64_t in, int64_t out, bool alignCorners,
                      std::optional<double> scale) {
  if (out == in)
    return {o, o, 1.0, 0.0};
  T ratio;
  if (alignCorners)
    ratio = out > 1 ? static_cast<T>(in - 1) / (out - 1) : static_cast<T>(0);
  else
    ratio = scale && *scale > 0 ? static_cast<T>(1.0 / *scale)
                                : static_cast<T>(in) / out;
  double r = static_cast<double>(ratio);
  double x = alignCorners ? r * o : r * (o + 0.5) - 0.5;
  if (!alignCorners && x < 0)
    x = 0;
  int64_t i0 = static_cast<int64_t>(x);
  int64_t i1 = i0 + (i0 < in - 1 ? 1 : 0);
  T l1 = static_cast<T>(x - i0);
  T l0 = static_cast<T>(1) - l1;
  return {i0, i1, static_cast<double>(l0), static_cast<double>(l1)};
}

/// Operands shared by the upsample ops, read from the IR.
struct UpsampleParams {
  SmallVector<int64_t> batchShape, in, out;
  SmallVector<std::optional<double>> scales;
  bool alignCorners = false;

  size_t rank() const { return in.size(); }

  SmallVector<WindowEntry> nearestWindow(size_t d, int64_t o) const {
    return {{nearestSource(o, in[d], out[d], scales[d])}};
  }
  SmallVector<WindowEntry> linearWindow(size_t d, int64_t o, bool f64) const {
    LinearTaps t =
        f64 ? linearTaps<double>(o, in[d], out[d], alignCorners, scales[d])
            : linearTaps<float>(o, in[d], out[d], alignCorners, scales[d]);
    return {{t.i0, t.l0}, {t.i1, t.l1}};
  }
};

/// Reads `scales` (each None or a float constant), the spatial sizes from
/// the input and output shapes, and checks `outputSize` (and `inputSize`
/// for backward ops, the full input shape) against them.
LogicalResult getUpsampleParams(size_t n, ArrayRef<int64_t> inShape,
                                ArrayRef<int64_t> outShape, Value outputSize,
                                Value inputSize, ValueRange scales,
                                UpsampleParams &p, std::string &why) {
  if (inShape.size() != n + 2 || outShape.size() != n + 2 ||
      inShape.take_front(2) != outShape.take_front(2)) {
    why = "input and output must be [N, C] followed by " + std::to_string(n) +
          " spatial dims";
    return failure();
  }
  p.batchShape.assign(inShape.begin(), inShape.begin() + 2);
  p.in.assign(inShape.begin() + 2, inShape.end());
  p.out.assign(outShape.begin() + 2, outShape.end());
  std::optional<SmallVector<int64_t>> outSizes = getConstantIntList(outputSize);
  if (!outSizes || ArrayRef(*outSizes) != ArrayRef(p.out)) {
    why = "output_size must be a constant list matching the output";
    return failure();
  }
  if (inputSize) {
    std::optional<SmallVector<int64_t>> inSizes = getConstantIntList(inputSize);
    if (!inSizes || ArrayRef(*inSizes) != inShape) {
      why = "input_size must be a constant list matching the result";
      return failure();
    }
  }
  for (Value scale : scales) {
    if (isNone(scale)) {
      p.scales.push_back(std::nullopt);
      continue;
    }
    std::optional<double> value = getConstantFloat(scale);
    if (!value) {
      why = "scales must be None or float constants";
      return failure();
    }
    p.scales.push_back(value);
  }
  for (size_t d = 0; d < n; ++d)
    if (p.in[d] <= 0 || p.out[d] <= 0) {
      why = "empty spatial dims are not supported";
      return failure();
    }
  return success();
}

/// The scales operands of an op (outermost dim first): its operands from
/// position `first` on.
SmallVector<Value> scalesOf(Operation *op, unsigned first) {
  return SmallVector<Value>(op->getOperands().drop_front(first));
}

/// The number of leading operands before the scales: tensor, output_size
/// [, input_size] [, align_corners].
template <typename OpTy> constexpr unsigned scalesOffset() {
  constexpr bool backward =
      std::is_same_v<OpTy, torch::AtenUpsampleNearest1dBackwardOp> ||
      std::is_same_v<OpTy, torch::AtenUpsampleNearest2dBackwardOp> ||
      std::is_same_v<OpTy, torch::AtenUpsampleNearest3dBackwardOp> ||
      std::is_same_v<OpTy, torch::AtenUpsampleLinear1dBackwardOp> ||
      std::is_same_v<OpTy, torch::AtenUpsampleBilinear2dBackwardOp> ||
      std::is_same_v<OpTy, torch::AtenUpsampleTrilinear3dBackwardOp>;
  constexpr bool linear =
      std::is_same_v<OpTy, torch::AtenUpsampleLinear1dOp> ||
      std::is_same_v<OpTy, torch::AtenUpsampleBilinear2dOp> ||
      std::is_same_v<OpTy, torch::AtenUpsampleTrilinear3dOp> ||
      std::is_same_v<OpTy, torch::AtenUpsampleLinear1dBackwardOp> ||
      std::is_same_v<OpTy, torch::AtenUpsampleBilinear2dBackwardOp> ||
      std::is_same_v<OpTy, torch::AtenUpsampleTrilinear3dBackwardOp>;
  return 2 + (backward ? 1 : 0) + (linear ? 1 : 0);
}

/// Forward: nearest (Linear = false) or linear interpolation.
template <typename OpTy, size_t N, bool Linear>
class ConvertUpsampleOp : public TorchConversionPattern<OpTy> {
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
    // Eager's CPU kernels: nearest copies floats and uint8 (images), linear
    // interpolates floats.
    bool uint8 = getTorchDtype(op.getSelf()).isUnsignedInteger(8);
    if (!(isa<FloatType>(elemType) || (!Linear && uint8)) || !resultType ||
        resultType.getElementType() != elemType)
      return this->fail(op, rewriter,
                        Linear ? "self must be a float tensor"
                               : "self must be a float or uint8 tensor");
    UpsampleParams p;
    std::string why;
    if (failed(getUpsampleParams(N, inputType.getShape(), resultType.getShape(),
                                 op.getOutputSize(), nullptr,
                                 scalesOf(op, scalesOffset<OpTy>()), p, why)))
      return this->fail(op, rewriter, why);
    if constexpr (Linear) {
      std::optional<bool> align = getConstantBool(op.getAlignCorners());
      if (!align)
        return this->fail(op, rewriter, "align_corners must be a constant");
      p.alignCorners = *align;
    }

    Location loc = op.getLoc();
    Value result = Linear ? createLinear(rewriter, loc, input, p, resultType)
                          : createNearest(rewriter, loc, input, p, resultType);
    rewriter.replaceOp(op, result);
    return success();
  }

private:
  static Value createNearest(OpBuilder &b, Location loc, Value input,
                             const UpsampleParams &p,
                             RankedTensorType resultType) {
    SmallVector<GatherDim> dims = getGatherTables(
        p.out, [&](size_t d, int64_t o) { return p.nearestWindow(d, o); },
        /*weighted=*/false);
    return createGatheredCopy(b, loc, input, p.batchShape, dims, resultType);
  }

  /// out = sum over the 2^N taps, nested from the outermost dim like ATen:
  /// t(dims d..) = t(i0_d, dims d+1..) * l0_d + t(i1_d, dims d+1..) * l1_d.
  static Value createLinear(OpBuilder &b, Location loc, Value input,
                            const UpsampleParams &p,
                            RankedTensorType resultType) {
    Type elemType = resultType.getElementType();
    Type computeType = getAccumulatorType(elemType);
    bool f64 = elemType.isF64();
    MLIRContext *context = b.getContext();
    unsigned lead = p.batchShape.size();
    unsigned numLoops = lead + p.rank();
    // Per dim: [out] tables of i0, i1 (index) and l0, l1 (computeType).
    SmallVector<Value> tables;
    SmallVector<AffineMap> maps;
    for (size_t d = 0; d < p.rank(); ++d) {
      SmallVector<int64_t> i0, i1;
      SmallVector<Attribute> l0, l1;
      for (int64_t o = 0; o < p.out[d]; ++o) {
        SmallVector<WindowEntry> taps = p.linearWindow(d, o, f64);
        i0.push_back(taps[0].position);
        i1.push_back(taps[1].position);
        l0.push_back(b.getFloatAttr(computeType, taps[0].weight));
        l1.push_back(b.getFloatAttr(computeType, taps[1].weight));
      }
      auto indexType = RankedTensorType::get({p.out[d]}, b.getIndexType());
      auto weightType = RankedTensorType::get({p.out[d]}, computeType);
      for (Attribute attr :
           {Attribute(DenseElementsAttr::get(indexType, ArrayRef(i0))),
            Attribute(DenseElementsAttr::get(indexType, ArrayRef(i1))),
            Attribute(DenseElementsAttr::get(weightType, l0)),
            Attribute(DenseElementsAttr::get(weightType, l1))}) {
        tables.push_back(
            arith::ConstantOp::create(b, loc, cast<TypedAttr>(attr)));
        maps.push_back(AffineMap::get(
            numLoops, 0, {b.getAffineDimExpr(lead + d)}, context));
      }
    }
    maps.push_back(b.getMultiDimIdentityMap(numLoops));
    SmallVector<utils::IteratorType> iterators(numLoops,
                                               utils::IteratorType::parallel);
    return linalg::GenericOp::create(
               b, loc, TypeRange{resultType}, tables,
               ValueRange{createEmptyTensor(b, loc, resultType)}, maps,
               iterators,
               [&](OpBuilder &nb, Location l, ValueRange args) {
                 SmallVector<Value> coords =
                     getLoopIndices(nb, l, 0, lead);
                 std::function<Value(size_t)> interpolate =
                     [&](size_t d) -> Value {
                   if (d == p.rank())
                     return castScalar(
                         nb, l, tensor::ExtractOp::create(nb, l, input, coords),
                         computeType);
                   ValueRange t = args.slice(4 * d, 4);
                   coords.push_back(t[0]);
                   Value v0 = interpolate(d + 1);
                   coords.back() = t[1];
                   Value v1 = interpolate(d + 1);
                   coords.pop_back();
                   return createAdd(nb, l, createMul(nb, l, v0, t[2]),
                                    createMul(nb, l, v1, t[3]));
                 };
                 linalg::YieldOp::create(
                     nb, l,
                     ValueRange{castScalar(nb, l, interpolate(0), elemType)});
               })
        .getResult(0);
  }
};

/// Backward: grad_input[e] = sum over the (output, tap) pairs reading e of
/// weight_product * grad_output (nearest: weights 1).
template <typename OpTy, size_t N, bool Linear>
class ConvertUpsampleBackwardOp : public TorchConversionPattern<OpTy> {
public:
  using TorchConversionPattern<OpTy>::TorchConversionPattern;
  using OpAdaptor = typename OpTy::Adaptor;

  LogicalResult
  matchAndRewrite(OpTy op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Value grad = adaptor.getGradOutput();
    auto gradType = cast<RankedTensorType>(grad.getType());
    RankedTensorType resultType = this->getTensorType(op.getResult().getType());
    Type elemType = gradType.getElementType();
    if (!isa<FloatType>(elemType) || !resultType ||
        resultType.getElementType() != elemType)
      return this->fail(op, rewriter, "grad_output must be a float tensor");
    UpsampleParams p;
    std::string why;
    if (failed(getUpsampleParams(N, resultType.getShape(), gradType.getShape(),
                                 op.getOutputSize(), op.getInputSize(),
                                 scalesOf(op, scalesOffset<OpTy>()), p, why)))
      return this->fail(op, rewriter, why);
    if constexpr (Linear) {
      std::optional<bool> align = getConstantBool(op.getAlignCorners());
      if (!align)
        return this->fail(op, rewriter, "align_corners must be a constant");
      p.alignCorners = *align;
    }

    Location loc = op.getLoc();
    Type accType = getAccumulatorType(elemType);
    bool f64 = elemType.isF64();
    SmallVector<GatherDim> dims = getScatterTables(
        p.in, p.out,
        [&](size_t d, int64_t o) {
          return Linear ? p.linearWindow(d, o, f64) : p.nearestWindow(d, o);
        },
        /*weighted=*/Linear);
    Value gradIn = createGatheredSum(
        rewriter, loc, grad, p.batchShape, dims,
        RankedTensorType::get(resultType.getShape(), accType));
    rewriter.replaceOp(op, castTensor(rewriter, loc, gradIn, elemType));
    return success();
  }
};

} // namespace

void populateUpsamplePatterns(TorchTypeConverter &typeConverter,
                              RewritePatternSet &patterns) {
  using namespace torch;
  patterns.add<
      ConvertUpsampleOp<AtenUpsampleNearest1dOp, 1, false>,
      ConvertUpsampleOp<AtenUpsampleNearest2dOp, 2, false>,
      ConvertUpsampleOp<AtenUpsampleNearest3dOp, 3, false>,
      ConvertUpsampleOp<AtenUpsampleLinear1dOp, 1, true>,
      ConvertUpsampleOp<AtenUpsampleBilinear2dOp, 2, true>,
      ConvertUpsampleOp<AtenUpsampleTrilinear3dOp, 3, true>,
      ConvertUpsampleBackwardOp<AtenUpsampleNearest1dBackwardOp, 1, false>,
      ConvertUpsampleBackwardOp<AtenUpsampleNearest2dBackwardOp, 2, false>,
      ConvertUpsampleBackwardOp<AtenUpsampleNearest3dBackwardOp, 3, false>,
      ConvertUpsampleBackwardOp<AtenUpsampleLinear1dBackwardOp, 1, true>,
      ConvertUpsampleBackwardOp<AtenUpsampleBilinear2dBackwardOp, 2, true>,
      ConvertUpsampleBackwardOp<AtenUpsampleTrilinear3dBackwardOp, 3, true>>(
      typeConverter, patterns.getContext());
}

} // namespace ltc_mlir::torch_to_linalg
