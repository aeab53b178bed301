//===- Unfold.cpp - unfold_copy (Tensor.unfold) and unfold_backward -------===//
//
// unfold_copy(self, dim, size, step): windows of `size` elements `step`
// apart along `dim`; result[..., w, ..., k] = self[..., w * step + k, ...]
// (the window index replaces dim, k is a new last dim). One generic whose
// input map is the affine d_dim * step + d_k.
//
// unfold_backward(grad, input_sizes, dim, size, step): each input element i
// collects the window elements it appeared in: the k in [0, size) with
// i - k = w * step for a window w. A generic over the result with a
// reduction over k reads grad[..., w, ..., k] (tensor.extract, clamped)
// and adds it where that window exists.
//
//===----------------------------------------------------------------------===//

#include "Sorting.h"
#include "ltc_mlir/Conversion/TorchToLinalg/Utils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;

namespace ltc_mlir::torch_to_linalg {
namespace {

bool isLoweredElement(Type t) {
  return t.isF32() || t.isF64() || t.isInteger(64) || t.isInteger(32);
}

/// A 0-d tensor's only window (size 1: reshaped to [1], and back for the
/// gradient) or no window (size 0: an empty result).
LogicalResult replaceZeroDimWindow(Operation *op, Value source,
                                   RankedTensorType resultType,
                                   ConversionPatternRewriter &rewriter) {
  Location loc = op->getLoc();
  if (resultType.getNumElements() == 0) {
    rewriter.replaceOp(op, createEmptyTensor(rewriter, loc, resultType));
    return success();
  }
  FailureOr<Value> reshaped = createReshape(rewriter, loc, source, resultType);
  if (failed(reshaped))
    return rewriter.notifyMatchFailure(op, "0-d window of another size");
  rewriter.replaceOp(op, *reshaped);
  return success();
}

class ConvertUnfoldCopy : public NamedTorchPattern {
public:
  ConvertUnfoldCopy(const TorchTypeConverter &tc, MLIRContext *ctx)
      : NamedTorchPattern("torch.aten.unfold_copy", tc, ctx) {}
  LogicalResult
  matchAndRewrite(Operation *op, ArrayRef<Value> operands,
                  ConversionPatternRewriter &rewriter) const override {
    auto selfType = dyn_cast<RankedTensorType>(operands[0].getType());
    RankedTensorType resultType = getTensorType(op->getResult(0).getType());
    std::optional<int64_t> dim = getConstantInt(op->getOperand(1));
    std::optional<int64_t> step = getConstantInt(op->getOperand(3));
    if (selfType && selfType.getRank() == 0 && resultType &&
        resultType.hasStaticShape())
      return replaceZeroDimWindow(op, operands[0], resultType, rewriter);
    if (!selfType || !resultType || !resultType.hasStaticShape() ||
        selfType.getRank() == 0 || !dim || !step || *step < 1 ||
        resultType.getRank() != selfType.getRank() + 1)
      return fail(op, rewriter, "static ranked self with constant dim/step");
    int64_t rank = selfType.getRank();
    int64_t d = *dim < 0 ? *dim + rank : *dim;
    MLIRContext *ctx = rewriter.getContext();
    SmallVector<AffineExpr> inputExprs;
    for (int64_t i = 0; i < rank; ++i)
      inputExprs.push_back(i == d ? getAffineDimExpr(i, ctx) * *step +
                                        getAffineDimExpr(rank, ctx)
                                  : getAffineDimExpr(i, ctx));
    SmallVector<AffineMap> maps = {
        AffineMap::get(rank + 1, 0, inputExprs, ctx),
        rewriter.getMultiDimIdentityMap(rank + 1)};
    Location loc = op->getLoc();
    auto generic = linalg::GenericOp::create(
        rewriter, loc, resultType, ValueRange{operands[0]},
        ValueRange{createEmptyTensor(rewriter, loc, resultType)}, maps,
        SmallVector<utils::IteratorType>(rank + 1,
                                         utils::IteratorType::parallel),
        [](OpBuilder &b, Location l, ValueRange args) {
          linalg::YieldOp::create(b, l, args[0]);
        });
    rewriter.replaceOp(op, generic.getResult(0));
    return success();
  }
};

class ConvertUnfoldBackward : public NamedTorchPattern {
public:
  ConvertUnfoldBackward(const TorchTypeConverter &tc, MLIRContext *ctx)
      : NamedTorchPattern("torch.aten.unfold_backward", tc, ctx) {}
  LogicalResult
  matchAndRewrite(Operation *op, ArrayRef<Value> operands,
                  ConversionPatternRewriter &rewriter) const override {
    Value grad = operands[0];
    auto gradType = dyn_cast<RankedTensorType>(grad.getType());
    RankedTensorType resultType = getTensorType(op->getResult(0).getType());
    std::optional<int64_t> dim = getConstantInt(op->getOperand(2));
    std::optional<int64_t> size = getConstantInt(op->getOperand(3));
    std::optional<int64_t> step = getConstantInt(op->getOperand(4));
    if (gradType && gradType.hasStaticShape() && resultType &&
        resultType.getRank() == 0) {
      if (gradType.getNumElements() == 1)
        return replaceZeroDimWindow(op, grad, resultType, rewriter);
      Location loc = op->getLoc();
      Type elem = resultType.getElementType();
      Value zero = isa<FloatType>(elem)
                       ? createScalarConstant(rewriter, loc, elem, 0.0)
                       : createIntConstant(rewriter, loc, elem, 0);
      rewriter.replaceOp(op, createFilledTensor(rewriter, loc, resultType, zero));
      return success();
    }
    if (!gradType || !resultType || !resultType.hasStaticShape() ||
        !gradType.hasStaticShape() || resultType.getRank() == 0 ||
        gradType.getRank() != resultType.getRank() + 1 || !dim || !size ||
        !step || *step < 1 || *size < 1 ||
        !isLoweredElement(resultType.getElementType()))
      return fail(op, rewriter,
                  "static f32/f64/i32/i64 grad with constant dim/size/step");
    int64_t rank = resultType.getRank();
    int64_t d = *dim < 0 ? *dim + rank : *dim;
    int64_t windows = gradType.getDimSize(d);
    Type elem = resultType.getElementType();
    Location loc = op->getLoc();
    Value zero = isa<FloatType>(elem)
                     ? createScalarConstant(rewriter, loc, elem, 0.0)
                     : createIntConstant(rewriter, loc, elem, 0);
    Value init = createFilledTensor(rewriter, loc, resultType, zero);
    // Loops: the result's dims, then k (a reduction); no inputs (the grad
    // is read with tensor.extract).
    MLIRContext *ctx = rewriter.getContext();
    SmallVector<AffineExpr> outExprs;
    for (int64_t i = 0; i < rank; ++i)
      outExprs.push_back(getAffineDimExpr(i, ctx));
    SmallVector<utils::IteratorType> iterators(rank,
                                               utils::IteratorType::parallel);
    iterators.push_back(utils::IteratorType::reduction);
    // A size-`size` dummy input gives the k loop its extent.
    auto kType = RankedTensorType::get({*size}, elem);
    Value kExtent = createEmptyTensor(rewriter, loc, kType);
    SmallVector<AffineMap> maps = {
        AffineMap::get(rank + 1, 0, {getAffineDimExpr(rank, ctx)}, ctx),
        AffineMap::get(rank + 1, 0, outExprs, ctx)};
    auto generic = linalg::GenericOp::create(
        rewriter, loc, resultType, ValueRange{kExtent}, ValueRange{init}, maps,
        iterators, [&](OpBuilder &b, Location l, ValueRange args) {
          auto cst = [&](int64_t v) -> Value {
            return arith::ConstantIndexOp::create(b, l, v);
          };
          SmallVector<Value> idx;
          for (int64_t i = 0; i <= rank; ++i)
            idx.push_back(linalg::IndexOp::create(b, l, i));
          Value diff = arith::SubIOp::create(b, l, idx[d], idx[rank]);
          Value w = arith::DivSIOp::create(b, l, diff, cst(*step));
          Value exact = arith::CmpIOp::create(
              b, l, arith::CmpIPredicate::eq,
              arith::MulIOp::create(b, l, w, cst(*step)), diff);
          Value valid = arith::AndIOp::create(
              b, l,
              arith::AndIOp::create(
                  b, l,
                  arith::CmpIOp::create(b, l, arith::CmpIPredicate::sge, diff,
                                        cst(0)),
                  exact),
              arith::CmpIOp::create(b, l, arith::CmpIPredicate::slt, w,
                                    cst(windows)));
          SmallVector<Value> gradIdx(idx);
          gradIdx[d] = arith::SelectOp::create(b, l, valid, w, cst(0));
          Value v = tensor::ExtractOp::create(b, l, grad, gradIdx);
          Value sum = isa<FloatType>(elem)
                          ? arith::AddFOp::create(b, l, args[1], v).getResult()
                          : arith::AddIOp::create(b, l, args[1], v).getResult();
          linalg::YieldOp::create(
              b, l, ValueRange{arith::SelectOp::create(b, l, valid, sum, args[1])});
        });
    rewriter.replaceOp(op, generic.getResult(0));
    return success();
  }
};

} // namespace

void populateUnfoldPatterns(TorchTypeConverter &typeConverter,
                            RewritePatternSet &patterns) {
  patterns.add<ConvertUnfoldCopy, ConvertUnfoldBackward>(
      typeConverter, patterns.getContext());
}

} // namespace ltc_mlir::torch_to_linalg
