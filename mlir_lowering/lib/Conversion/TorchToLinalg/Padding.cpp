//===- Padding.cpp - constant, reflection and replication padding ---------===//
//
// constant_pad_nd is what F.pad(mode="constant") and convolutions with
// padding="same" and an even kernel record (the backward crops with
// negative pads). The result is filled with the value, and the part of the
// input that survives negative pads is copied into its slice (a linalg.copy
// into tensor.extract_slice of the result, inserted back: bufferization
// writes straight into the result's buffer).
//
// reflection_pad{1,2,3}d and replication_pad{1,2,3}d (F.pad modes "reflect"
// and "replicate") pad the last 1-3 dims of a [C, ...] or [N, C, ...]
// tensor; padding = [before_last, after_last, before_second_last, ...].
// Every result position reads one source position per dim, known at compile
// time: with j = o - before, reflection takes |j| mirrored at in - 1
// (2 (in - 1) - j past the end; ATen requires pads < in), replication
// clamp(j, 0, in - 1). The forward is a table gather (WindowGather.h); the
// backward sums, for each input position, the grad_output elements of the
// outputs that read it, in increasing output order per dim like ATen's
// scatter-adding loops. Negative pads (ATen's crops) are not lowered.
//
//===----------------------------------------------------------------------===//

#include "ltc_mlir/Conversion/TorchToLinalg/Utils.h"
#include "WindowGather.h"

#include <algorithm>

using namespace mlir;

namespace ltc_mlir::torch_to_linalg {
namespace {

class ConvertConstantPadNdOp
    : public TorchConversionPattern<torch::AtenConstantPadNdOp> {
public:
  using Base::Base;
  LogicalResult
  matchAndRewrite(torch::AtenConstantPadNdOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    RankedTensorType type = getTensorType(op.getType());
    auto selfType = dyn_cast<RankedTensorType>(adaptor.getSelf().getType());
    if (!type || !selfType)
      return fail(op, rewriter, "operand types are not convertible");
    std::optional<SmallVector<int64_t>> pad = getConstantIntList(op.getPad());
    int64_t rank = selfType.getRank();
    if (!pad || pad->size() % 2 != 0 ||
        static_cast<int64_t>(pad->size()) > 2 * rank)
      return fail(op, rewriter,
                  "pad must be a constant list of (before, after) pairs, at "
                  "most two per dim");
    // pad = [before_last, after_last, before_second_last, ...].
    SmallVector<int64_t> before(rank, 0), after(rank, 0);
    for (size_t i = 0; i < pad->size() / 2; ++i) {
      before[rank - 1 - i] = (*pad)[2 * i];
      after[rank - 1 - i] = (*pad)[2 * i + 1];
    }
    SmallVector<int64_t> srcOffsets, dstOffsets, sizes;
    for (int64_t d = 0; d < rank; ++d) {
      int64_t size = selfType.getDimSize(d);
      if (size + before[d] + after[d] != type.getDimSize(d))
        return fail(op, rewriter, "result shape does not match the pads");
      srcOffsets.push_back(std::max<int64_t>(0, -before[d]));
      dstOffsets.push_back(std::max<int64_t>(0, before[d]));
      sizes.push_back(std::max<int64_t>(0, size + std::min<int64_t>(0, before[d]) +
                                               std::min<int64_t>(0, after[d])));
    }
    if (type.getElementType() != selfType.getElementType())
      return fail(op, rewriter, "result dtype differs from self's");

    Location loc = op.getLoc();
    // The value is converted like ATen's fill_ (a C++ cast; bools as 0/1).
    Value value = adaptor.getValue();
    bool isBool = isBoolDtype(getTorchDtype(op.getResult()));
    if (isBool)
      value = castScalar(rewriter, loc, value, rewriter.getI1Type());
    value = castScalar(rewriter, loc, value, type.getElementType(),
                       /*srcUnsigned=*/isBool);
    Value result = createFilledTensor(rewriter, loc, type, value);
    if (product(sizes) != 0) {
      auto sliceType = RankedTensorType::get(sizes, type.getElementType());
      auto attrs = [&](ArrayRef<int64_t> xs) {
        return getAsIndexOpFoldResult(rewriter.getContext(), xs);
      };
      SmallVector<OpFoldResult> ones = attrs(SmallVector<int64_t>(rank, 1));
      Value src = tensor::ExtractSliceOp::create(
          rewriter, loc, sliceType, adaptor.getSelf(), attrs(srcOffsets),
          attrs(sizes), ones);
      Value dst = tensor::ExtractSliceOp::create(rewriter, loc, sliceType,
                                                 result, attrs(dstOffsets),
                                                 attrs(sizes), ones);
      Value copied = linalg::CopyOp::create(rewriter, loc, src, dst).getResult(0);
      result = tensor::InsertSliceOp::create(rewriter, loc, copied, result,
                                             attrs(dstOffsets), attrs(sizes),
                                             ones);
    }
    rewriter.replaceOp(op, result);
    return success();
  }

private:
  static int64_t product(ArrayRef<int64_t> xs) {
    int64_t p = 1;
    for (int64_t x : xs)
      p *= x;
    return p;
  }
};

enum class EdgeMode { Reflect, Replicate };

/// The source position read by output position `o` of a dim of `in`
/// elements padded by `before` elements.
int64_t edgeSource(EdgeMode mode, int64_t o, int64_t in, int64_t before) {
  int64_t j = o - before;
  if (mode == EdgeMode::Replicate)
    return std::clamp<int64_t>(j, 0, in - 1);
  if (j < 0)
    j = -j;
  if (j >= in)
    j = 2 * (in - 1) - j;
  return std::clamp<int64_t>(j, 0, in - 1);
}

/// The geometry of an N-d reflection/replication padding.
struct EdgePadParams {
  EdgeMode mode;
  SmallVector<int64_t> batchShape, in, out, before;

  SmallVector<WindowEntry> window(size_t d, int64_t o) const {
    return {{edgeSource(mode, o, in[d], before[d])}};
  }
};

/// Reads `padding` and the shapes (`inShape`: self, `outShape`: the padded
/// result) of an N-d edge padding.
LogicalResult getEdgePadParams(size_t n, EdgeMode mode,
                               ArrayRef<int64_t> inShape,
                               ArrayRef<int64_t> outShape, Value padding,
                               EdgePadParams &p, std::string &why) {
  size_t rank = inShape.size();
  if (rank != outShape.size() || (rank != n + 1 && rank != n + 2) ||
      inShape.take_front(rank - n) != outShape.take_front(rank - n)) {
    why = "self must be [C] or [N, C] followed by " + std::to_string(n) +
          " padded dims, with a result of the same rank";
    return failure();
  }
  std::optional<SmallVector<int64_t>> pad = getConstantIntList(padding);
  if (!pad || pad->size() != 2 * n) {
    why = "padding must be a constant list of " + std::to_string(2 * n) +
          " ints";
    return failure();
  }
  p.mode = mode;
  p.batchShape.assign(inShape.begin(), inShape.begin() + (rank - n));
  for (size_t d = 0; d < n; ++d) {
    int64_t before = (*pad)[2 * (n - 1 - d)];
    int64_t after = (*pad)[2 * (n - 1 - d) + 1];
    int64_t in = inShape[rank - n + d], out = outShape[rank - n + d];
    if (before < 0 || after < 0) {
      why = "negative padding is not supported";
      return failure();
    }
    if (in <= 0 || out != in + before + after) {
      why = "the result shape does not match the padding";
      return failure();
    }
    if (mode == EdgeMode::Reflect && (before >= in || after >= in)) {
      why = "reflection padding must be smaller than the padded dim";
      return failure();
    }
    p.in.push_back(in);
    p.out.push_back(out);
    p.before.push_back(before);
  }
  return success();
}

/// reflection_pad{N}d / replication_pad{N}d: a table gather.
template <typename OpTy, size_t N, EdgeMode Mode>
class ConvertEdgePadOp : public TorchConversionPattern<OpTy> {
public:
  using TorchConversionPattern<OpTy>::TorchConversionPattern;
  using OpAdaptor = typename OpTy::Adaptor;

  LogicalResult
  matchAndRewrite(OpTy op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Value input = adaptor.getSelf();
    auto inputType = dyn_cast<RankedTensorType>(input.getType());
    RankedTensorType resultType = this->getTensorType(op.getResult().getType());
    if (!inputType || !resultType ||
        resultType.getElementType() != inputType.getElementType())
      return this->fail(op, rewriter,
                        "self and result must be tensors of one dtype");
    EdgePadParams p;
    std::string why;
    if (failed(getEdgePadParams(N, Mode, inputType.getShape(),
                                resultType.getShape(), op.getPadding(), p,
                                why)))
      return this->fail(op, rewriter, why);
    SmallVector<GatherDim> dims = getGatherTables(
        p.out, [&](size_t d, int64_t o) { return p.window(d, o); },
        /*weighted=*/false);
    rewriter.replaceOp(op, createGatheredCopy(rewriter, op.getLoc(), input,
                                              p.batchShape, dims, resultType));
    return success();
  }
};

/// The backward ops: grad_input[i] = the sum of grad_output over the
/// outputs reading i, accumulated in f32 for f16/bf16.
template <typename OpTy, size_t N, EdgeMode Mode>
class ConvertEdgePadBackwardOp : public TorchConversionPattern<OpTy> {
public:
  using TorchConversionPattern<OpTy>::TorchConversionPattern;
  using OpAdaptor = typename OpTy::Adaptor;

  LogicalResult
  matchAndRewrite(OpTy op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Value grad = adaptor.getGradOutput();
    auto gradType = dyn_cast<RankedTensorType>(grad.getType());
    auto selfType = dyn_cast<RankedTensorType>(adaptor.getSelf().getType());
    RankedTensorType resultType = this->getTensorType(op.getResult().getType());
    if (!gradType || !selfType || !resultType ||
        !isa<FloatType>(gradType.getElementType()) ||
        resultType.getElementType() != gradType.getElementType() ||
        resultType.getShape() != selfType.getShape())
      return this->fail(op, rewriter,
                        "grad_output must be a float tensor, the result "
                        "shaped like self with grad_output's dtype");
    EdgePadParams p;
    std::string why;
    if (failed(getEdgePadParams(N, Mode, resultType.getShape(),
                                gradType.getShape(), op.getPadding(), p, why)))
      return this->fail(op, rewriter, why);
    SmallVector<GatherDim> dims = getScatterTables(
        p.in, p.out, [&](size_t d, int64_t o) { return p.window(d, o); },
        /*weighted=*/false);
    Location loc = op.getLoc();
    Type elemType = gradType.getElementType();
    Value gradIn = createGatheredSum(
        rewriter, loc, grad, p.batchShape, dims,
        RankedTensorType::get(resultType.getShape(),
                              getAccumulatorType(elemType)));
    rewriter.replaceOp(op, castTensor(rewriter, loc, gradIn, elemType));
    return success();
  }
};

} // namespace

void populatePaddingPatterns(TorchTypeConverter &typeConverter,
                             RewritePatternSet &patterns) {
  using namespace torch;
  constexpr EdgeMode R = EdgeMode::Reflect, C = EdgeMode::Replicate;
  patterns.add<
      ConvertConstantPadNdOp, ConvertEdgePadOp<AtenReflectionPad1dOp, 1, R>,
      ConvertEdgePadOp<AtenReflectionPad2dOp, 2, R>,
      ConvertEdgePadOp<AtenReflectionPad3dOp, 3, R>,
      ConvertEdgePadOp<AtenReplicationPad1dOp, 1, C>,
      ConvertEdgePadOp<AtenReplicationPad2dOp, 2, C>,
      ConvertEdgePadOp<AtenReplicationPad3dOp, 3, C>,
      ConvertEdgePadBackwardOp<AtenReflectionPad1dBackwardOp, 1, R>,
      ConvertEdgePadBackwardOp<AtenReflectionPad2dBackwardOp, 2, R>,
      ConvertEdgePadBackwardOp<AtenReflectionPad3dBackwardOp, 3, R>,
      ConvertEdgePadBackwardOp<AtenReplicationPad1dBackwardOp, 1, C>,
      ConvertEdgePadBackwardOp<AtenReplicationPad2dBackwardOp, 2, C>,
      ConvertEdgePadBackwardOp<AtenReplicationPad3dBackwardOp, 3, C>>(
      typeConverter, patterns.getContext());
}

} // namespace ltc_mlir::torch_to_linalg
