//===- Diagonal.cpp - diagonal_copy and diagonal_scatter ------------------===//
//
// x.diagonal() on lazy tensors is diagonal_copy, and an in-place op on it
// writes back with diagonal_scatter. diagonal_copy is a linalg.generic
// over the result reading self at (i + rowStart, i + colStart) in dims
// (dim1, dim2) with tensor.extract (linalg's shape inference rejects an
// `i + c` input map); diagonal_scatter is one elementwise pass over self that
// takes src's element on the diagonal (a tensor.extract) and self's
// elsewhere.
//
//===----------------------------------------------------------------------===//

#include "ltc_mlir/Conversion/TorchToLinalg/Utils.h"

#include <algorithm>
#include <string>

using namespace mlir;

namespace ltc_mlir::torch_to_linalg {
namespace {

/// The diagonal of a tensor of `shape` in dims dim1/dim2 with `offset`:
/// element i is at (i + rowStart, i + colStart) in (dim1, dim2).
struct Diagonal {
  int64_t dim1, dim2;
  int64_t rowStart, colStart;
  int64_t length;
  /// The other dims of self, in order (the leading dims of the result).
  SmallVector<int64_t> otherDims;
};

template <typename OpTy>
class ConvertDiagonalOp : public TorchConversionPattern<OpTy> {
public:
  using TorchConversionPattern<OpTy>::TorchConversionPattern;

protected:
  /// The diagonal of self (of `shape`); fails through `fail` when the
  /// operands are not constants or `diagonalShape` (the copy's result, the
  /// scatter's src) is not its shape.
  FailureOr<Diagonal> getDiagonal(OpTy op, ArrayRef<int64_t> shape,
                                  ArrayRef<int64_t> diagonalShape,
                                  ConversionPatternRewriter &rewriter) const {
    std::optional<int64_t> offset = getConstantInt(op.getOffset());
    std::optional<int64_t> dim1 = getConstantInt(op.getDim1());
    std::optional<int64_t> dim2 = getConstantInt(op.getDim2());
    if (!offset || !dim1 || !dim2)
      return this->fail(op, rewriter, "offset, dim1 and dim2 must be constants");
    int64_t rank = shape.size();
    std::optional<int64_t> d1 = normalizeDim(*dim1, rank);
    std::optional<int64_t> d2 = normalizeDim(*dim2, rank);
    if (!d1 || !d2 || rank < 2)
      return this->fail(op, rewriter, "dim out of range");
    if (*d1 == *d2)
      return this->fail(op, rewriter, "dim1 and dim2 must differ");
    Diagonal diagonal;
    diagonal.dim1 = *d1;
    diagonal.dim2 = *d2;
    diagonal.rowStart = std::max<int64_t>(0, -*offset);
    diagonal.colStart = std::max<int64_t>(0, *offset);
    diagonal.length = std::max<int64_t>(
        0, std::min(shape[*d1] - diagonal.rowStart,
                    shape[*d2] - diagonal.colStart));
    SmallVector<int64_t> expected;
    for (int64_t k = 0; k < rank; ++k)
      if (k != *d1 && k != *d2) {
        diagonal.otherDims.push_back(k);
        expected.push_back(shape[k]);
      }
    expected.push_back(diagonal.length);
    if (!llvm::equal(expected, diagonalShape))
      return this->fail(op, rewriter,
                        "the diagonal's shape does not match the operands");
    return diagonal;
  }
};

/// diagonal_copy: result[o..., i] = self[.., i + rowStart @ dim1, ..,
/// i + colStart @ dim2, ..], a gather.
class ConvertDiagonalCopyOp
    : public ConvertDiagonalOp<torch::AtenDiagonalCopyOp> {
public:
  using ConvertDiagonalOp::ConvertDiagonalOp;
  LogicalResult
  matchAndRewrite(torch::AtenDiagonalCopyOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    RankedTensorType type = getTensorType(op.getType());
    auto selfType = cast<RankedTensorType>(adaptor.getSelf().getType());
    if (!type || type.getElementType() != selfType.getElementType())
      return fail(op, rewriter, "result type is not convertible");
    FailureOr<Diagonal> diagonal =
        getDiagonal(op, selfType.getShape(), type.getShape(), rewriter);
    if (failed(diagonal))
      return failure();
    Location loc = op.getLoc();
    Value init = createEmptyTensor(rewriter, loc, type);
    if (type.getNumElements() == 0) {
      rewriter.replaceOp(op, init);
      return success();
    }
    int64_t rank = type.getRank();
    SmallVector<AffineMap> maps = {rewriter.getMultiDimIdentityMap(rank)};
    SmallVector<utils::IteratorType> iterators(rank,
                                               utils::IteratorType::parallel);
    const Diagonal &d = *diagonal;
    Value self = adaptor.getSelf();
    auto generic = linalg::GenericOp::create(
        rewriter, loc, TypeRange{type}, ValueRange{}, ValueRange{init}, maps,
        iterators, [&](OpBuilder &b, Location nloc, ValueRange) {
          SmallVector<Value> indices(selfType.getRank());
          for (auto [j, k] : llvm::enumerate(d.otherDims))
            indices[k] = linalg::IndexOp::create(b, nloc, j);
          Value i = linalg::IndexOp::create(b, nloc, rank - 1);
          auto shifted = [&](int64_t start) -> Value {
            if (start == 0)
              return i;
            return arith::AddIOp::create(
                b, nloc, i, arith::ConstantIndexOp::create(b, nloc, start));
          };
          indices[d.dim1] = shifted(d.rowStart);
          indices[d.dim2] = shifted(d.colStart);
          Value element = tensor::ExtractOp::create(b, nloc, self, indices);
          linalg::YieldOp::create(b, nloc, element);
        });
    rewriter.replaceOp(op, generic.getResult(0));
    return success();
  }
};

/// diagonal_scatter: result = self except on the diagonal, where
/// result[.., r @ dim1, .., c @ dim2, ..] = src[o..., r - rowStart] when
/// c - r == colStart - rowStart and r - rowStart < length.
class ConvertDiagonalScatterOp
    : public ConvertDiagonalOp<torch::AtenDiagonalScatterOp> {
public:
  using ConvertDiagonalOp::ConvertDiagonalOp;
  LogicalResult
  matchAndRewrite(torch::AtenDiagonalScatterOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    RankedTensorType type = getTensorType(op.getType());
    auto selfType = cast<RankedTensorType>(adaptor.getSelf().getType());
    auto srcType = cast<RankedTensorType>(adaptor.getSrc().getType());
    if (!type || type != selfType)
      return fail(op, rewriter, "result type differs from self's");
    Type selfDtype = getTorchDtype(op.getSelf());
    Type srcDtype = getTorchDtype(op.getSrc());
    if (selfDtype != srcDtype &&
        (isBoolDtype(selfDtype) || isBoolDtype(srcDtype)))
      return fail(op, rewriter, "cannot convert src to self's dtype");
    FailureOr<Diagonal> diagonal =
        getDiagonal(op, selfType.getShape(), srcType.getShape(), rewriter);
    if (failed(diagonal))
      return failure();
    Location loc = op.getLoc();
    if (diagonal->length == 0 || type.getNumElements() == 0) {
      rewriter.replaceOp(op, adaptor.getSelf());
      return success();
    }
    Type elemType = type.getElementType();
    Value src = castTensor(rewriter, loc, adaptor.getSrc(), elemType,
                           isUnsignedDtype(srcDtype));
    int64_t rank = type.getRank();
    SmallVector<AffineMap> maps(2, rewriter.getMultiDimIdentityMap(rank));
    SmallVector<utils::IteratorType> iterators(rank,
                                               utils::IteratorType::parallel);
    Value init = createEmptyTensor(rewriter, loc, type);
    const Diagonal &d = *diagonal;
    auto generic = linalg::GenericOp::create(
        rewriter, loc, TypeRange{type}, ValueRange{adaptor.getSelf()},
        ValueRange{init}, maps, iterators,
        [&](OpBuilder &b, Location nloc, ValueRange args) {
          auto index = [&](int64_t k) -> Value {
            return linalg::IndexOp::create(b, nloc, k);
          };
          auto constant = [&](int64_t v) -> Value {
            return arith::ConstantIndexOp::create(b, nloc, v);
          };
          // i = r - rowStart; on the diagonal iff c - colStart == i and
          // 0 <= i < length (unsigned compare covers i < 0).
          auto unshifted = [&](int64_t k, int64_t start) -> Value {
            Value v = index(k);
            if (start == 0)
              return v;
            return arith::SubIOp::create(b, nloc, v, constant(start));
          };
          Value i = unshifted(d.dim1, d.rowStart);
          Value j = unshifted(d.dim2, d.colStart);
          Value same =
              arith::CmpIOp::create(b, nloc, arith::CmpIPredicate::eq, i, j);
          Value inRange = arith::CmpIOp::create(
              b, nloc, arith::CmpIPredicate::ult, i, constant(d.length));
          Value onDiagonal = arith::AndIOp::create(b, nloc, same, inRange);
          // Clamped so that the read stays inside src off the diagonal.
          Value safe = arith::MinUIOp::create(b, nloc, i, constant(d.length - 1));
          SmallVector<Value> srcIndices;
          for (int64_t k : d.otherDims)
            srcIndices.push_back(index(k));
          srcIndices.push_back(safe);
          Value fromSrc = tensor::ExtractOp::create(b, nloc, src, srcIndices);
          linalg::YieldOp::create(
              b, nloc,
              arith::SelectOp::create(b, nloc, onDiagonal, fromSrc, args[0])
                  .getResult());
        });
    rewriter.replaceOp(op, generic.getResult(0));
    return success();
  }
};

} // namespace

void populateDiagonalPatterns(TorchTypeConverter &typeConverter,
                              RewritePatternSet &patterns) {
  patterns.add<ConvertDiagonalCopyOp, ConvertDiagonalScatterOp>(
      typeConverter, patterns.getContext());
}

} // namespace ltc_mlir::torch_to_linalg
