//===- Repeat.cpp - aten.repeat -------------------------------------------===//
//
// repeat(self, repeats): self (left-padded with size-1 dims to
// len(repeats)) tiled repeats[i] times along dim i. One broadcasting
// linalg.generic writes [r0, s0, r1, s1, ...] (reading self through a
// projected permutation, so it vectorizes), then tensor.collapse_shape
// merges each (r_i, s_i) pair. F.instance_norm repeats the weight, bias and
// running statistics N times this way.
//
//===----------------------------------------------------------------------===//

#include "ltc_mlir/Conversion/TorchToLinalg/Utils.h"

using namespace mlir;

namespace ltc_mlir::torch_to_linalg {
namespace {

class ConvertRepeatOp : public TorchConversionPattern<torch::AtenRepeatOp> {
public:
  using Base::Base;
  LogicalResult
  matchAndRewrite(torch::AtenRepeatOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    RankedTensorType resultType = getTensorType(op.getType());
    if (!resultType)
      return fail(op, rewriter, "result type is not convertible");
    std::optional<SmallVector<int64_t>> repeats =
        getConstantIntList(op.getRepeats());
    if (!repeats)
      return fail(op, rewriter, "repeats must be a list of int constants");
    auto selfType = cast<RankedTensorType>(adaptor.getSelf().getType());
    int64_t rank = repeats->size(), lead = rank - selfType.getRank();
    if (lead < 0)
      return fail(op, rewriter,
                  "repeats has fewer dims than self (eager raises: Number of "
                  "dimensions of repeat dims can not be smaller than number "
                  "of dimensions of tensor)");
    if (llvm::any_of(*repeats, [](int64_t r) { return r < 0; }))
      return fail(op, rewriter, "repeats must not be negative");
    SmallVector<int64_t> tiledShape, expected;
    SmallVector<AffineExpr> selfExprs;
    SmallVector<ReassociationIndices> pairs;
    MLIRContext *context = op.getContext();
    for (int64_t d = 0; d < rank; ++d) {
      int64_t size = d < lead ? 1 : selfType.getDimSize(d - lead);
      tiledShape.append({(*repeats)[d], size});
      expected.push_back((*repeats)[d] * size);
      if (d >= lead)
        selfExprs.push_back(getAffineDimExpr(2 * d + 1, context));
      pairs.push_back({2 * d, 2 * d + 1});
    }
    if (resultType.getShape() != ArrayRef<int64_t>(expected) ||
        resultType.getElementType() != selfType.getElementType())
      return fail(op, rewriter, "result type differs from the tiled self");

    Location loc = op.getLoc();
    auto tiledType =
        RankedTensorType::get(tiledShape, resultType.getElementType());
    SmallVector<AffineMap> maps = {
        AffineMap::get(2 * rank, 0, selfExprs, context),
        rewriter.getMultiDimIdentityMap(2 * rank)};
    SmallVector<utils::IteratorType> iterators(2 * rank,
                                               utils::IteratorType::parallel);
    Value tiled =
        linalg::GenericOp::create(
            rewriter, loc, TypeRange{tiledType}, ValueRange{adaptor.getSelf()},
            ValueRange{createEmptyTensor(rewriter, loc, tiledType)}, maps,
            iterators,
            [](OpBuilder &b, Location l, ValueRange args) {
              linalg::YieldOp::create(b, l, args[0]);
            })
            .getResult(0);
    Value result = tiled;
    if (rank > 0)
      result = tensor::CollapseShapeOp::create(rewriter, loc, resultType, tiled,
                                               pairs);
    rewriter.replaceOp(op, result);
    return success();
  }
};

} // namespace

void populateRepeatPatterns(TorchTypeConverter &typeConverter,
                            RewritePatternSet &patterns) {
  patterns.add<ConvertRepeatOp>(typeConverter, patterns.getContext());
}

} // namespace ltc_mlir::torch_to_linalg
