//===- Padding.cpp - constant_pad_nd -> linalg.fill + copy into a slice ----===//
//
// constant_pad_nd is what F.pad(mode="constant") and convolutions with
// padding="same" and an even kernel record (the backward crops with
// negative pads). The result is filled with the value, and the part of the
// input that survives negative pads is copied into its slice (a linalg.copy
// into tensor.extract_slice of the result, inserted back: bufferization
// writes straight into the result's buffer).
//
//===----------------------------------------------------------------------===//

#include "ltc_mlir/Conversion/TorchToLinalg/Utils.h"

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

} // namespace

void populatePaddingPatterns(TorchTypeConverter &typeConverter,
                             RewritePatternSet &patterns) {
  patterns.add<ConvertConstantPadNdOp>(typeConverter, patterns.getContext());
}

} // namespace ltc_mlir::torch_to_linalg
