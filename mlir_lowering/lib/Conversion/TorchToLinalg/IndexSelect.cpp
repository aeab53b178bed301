//===- IndexSelect.cpp - index_select, embedding and its backward --------===//
//
// Gathers of whole slices at integer indices along one dim: index_select
// and embedding are a linalg.generic over the result reading the index and
// extracting from self/weight with tensor.extract; embedding_dense_backward
// adds grad rows into their index's row in a serial loop (eager's order). Each runs behind a runtime bounds check (eager:
// "index out of range in self"), and the index is clamped to stay
// memory-safe.
//
//===----------------------------------------------------------------------===//

#include "ltc_mlir/Compiler/Compiler.h"
#include "ltc_mlir/Conversion/TorchToLinalg/Utils.h"

#include "mlir/Dialect/SCF/IR/SCF.h"

#include <string>

using namespace mlir;

namespace ltc_mlir::torch_to_linalg {
namespace {

/// index_select(self, dim, index): result[.., i, ..] = self[.., index[i], ..],
/// a linalg.generic over the result reading index and gathering from self
/// with tensor.extract. Indices outside [0, size) fail a runtime check (eager:
/// "index out of range in self") and are clamped to stay memory-safe.
class ConvertIndexSelectOp
    : public TorchConversionPattern<torch::AtenIndexSelectOp> {
public:
  using Base::Base;
  LogicalResult
  matchAndRewrite(torch::AtenIndexSelectOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    RankedTensorType type = getTensorType(op.getType());
    auto selfType = cast<RankedTensorType>(adaptor.getSelf().getType());
    auto indexType = cast<RankedTensorType>(adaptor.getIndex().getType());
    if (!type || type.getElementType() != selfType.getElementType())
      return fail(op, rewriter, "result type is not convertible");
    int64_t rank = selfType.getRank();
    if (rank == 0)
      return fail(op, rewriter, "a 0-d self is not supported");
    if (indexType.getRank() > 1 ||
        !isa<IntegerType>(indexType.getElementType()))
      return fail(op, rewriter, "index must be a 0-d or 1-D integer tensor");
    std::optional<int64_t> dim = getConstantInt(adaptor.getDim());
    if (!dim)
      return fail(op, rewriter, "dim must be a constant");
    std::optional<int64_t> d = normalizeDim(*dim, rank);
    if (!d)
      return fail(op, rewriter, "dim out of range");
    int64_t numIndices = indexType.getNumElements();
    SmallVector<int64_t> shape(selfType.getShape());
    shape[*d] = numIndices;
    if (!llvm::equal(shape, type.getShape()))
      return fail(op, rewriter, "result type does not match the indices");
    int64_t size = selfType.getDimSize(*d);
    Location loc = op.getLoc();
    if (type.getNumElements() == 0) {
      rewriter.replaceOp(op, createEmptyTensor(rewriter, loc, type));
      return success();
    }
    if (size == 0)
      return fail(op, rewriter, "index out of range in self (dim has size 0)");

    Value index = adaptor.getIndex();
    if (indexType.getRank() == 0) {
      FailureOr<Value> flat =
          createReshape(rewriter, loc, index,
                        RankedTensorType::get({1}, indexType.getElementType()));
      if (failed(flat))
        return fail(op, rewriter, "cannot reshape the index");
      index = *flat;
    }
    Type i64 = rewriter.getI64Type();
    // Signed indices (si64/si32): unsigned `i < size` also rejects i < 0.
    Value ok = createAllOf(
        rewriter, loc, index, [&](OpBuilder &b, Location l, Value element) {
          return arith::CmpIOp::create(b, l, arith::CmpIPredicate::ult,
                                       castScalar(b, l, element, i64),
                                       createIntConstant(b, l, i64, size))
              .getResult();
        });
    emitRuntimeCheck(rewriter, loc, ok,
                     std::string(kIndexErrorTag) +
                         "index_select: index out of range in self: every index "
                     "must be in [0, " +
                         std::to_string(size) + ") for dim " +
                         std::to_string(*d) + " of size " +
                         std::to_string(size) +
                         ". Check the indices passed to index_select.");

    MLIRContext *ctx = rewriter.getContext();
    SmallVector<AffineMap> maps = {
        AffineMap::get(rank, 0, getAffineDimExpr(*d, ctx)),
        rewriter.getMultiDimIdentityMap(rank)};
    SmallVector<utils::IteratorType> iterators(rank,
                                               utils::IteratorType::parallel);
    Value self = adaptor.getSelf();
    auto generic = linalg::GenericOp::create(
        rewriter, loc, TypeRange{type}, ValueRange{index},
        ValueRange{createEmptyTensor(rewriter, loc, type)}, maps, iterators,
        [&](OpBuilder &b, Location nloc, ValueRange args) {
          Value i = castScalar(b, nloc, args[0], i64);
          i = arith::MaxSIOp::create(b, nloc, i,
                                     createIntConstant(b, nloc, i64, 0));
          i = arith::MinSIOp::create(b, nloc, i,
                                     createIntConstant(b, nloc, i64, size - 1));
          SmallVector<Value> coords;
          for (int64_t k = 0; k < rank; ++k)
            coords.push_back(
                k == *d
                    ? arith::IndexCastOp::create(b, nloc, b.getIndexType(), i)
                          .getResult()
                    : linalg::IndexOp::create(b, nloc, k).getResult());
          Value element = tensor::ExtractOp::create(b, nloc, self, coords);
          linalg::YieldOp::create(b, nloc, element);
        });
    rewriter.replaceOp(op, generic.getResult(0));
    return success();
  }
};

/// The check that every index is in [0, size) (signed indices: unsigned
/// `i < size` also rejects i < 0), as a runtime check with `message`.
void emitIndexBoundsCheck(OpBuilder &b, Location loc, Value indices,
                          int64_t size, const std::string &message) {
  Type i64 = b.getI64Type();
  Value ok = createAllOf(b, loc, indices, [&](OpBuilder &nb, Location l,
                                              Value element) {
    return arith::CmpIOp::create(nb, l, arith::CmpIPredicate::ult,
                                 castScalar(nb, l, element, i64),
                                 createIntConstant(nb, l, i64, size))
        .getResult();
  });
  emitRuntimeCheck(b, loc, ok, kIndexErrorTag + message);
}

/// embedding(weight [V, D], indices): result[..., d] = weight[indices[...], d]
/// (a gather like index_select, behind the same bounds check).
class ConvertEmbeddingOp : public TorchConversionPattern<torch::AtenEmbeddingOp> {
public:
  using Base::Base;
  LogicalResult
  matchAndRewrite(torch::AtenEmbeddingOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    RankedTensorType type = getTensorType(op.getType());
    auto weightType = cast<RankedTensorType>(adaptor.getWeight().getType());
    auto indexType = cast<RankedTensorType>(adaptor.getIndices().getType());
    if (!type || type.getElementType() != weightType.getElementType())
      return fail(op, rewriter, "result type is not convertible");
    if (weightType.getRank() != 2 ||
        !isa<IntegerType>(indexType.getElementType()))
      return fail(op, rewriter, "needs a 2-D weight and integer indices");
    SmallVector<int64_t> shape(indexType.getShape());
    shape.push_back(weightType.getDimSize(1));
    if (!llvm::equal(shape, type.getShape()))
      return fail(op, rewriter, "result type does not match the indices");
    int64_t size = weightType.getDimSize(0);
    Location loc = op.getLoc();
    if (type.getNumElements() == 0) {
      rewriter.replaceOp(op, createEmptyTensor(rewriter, loc, type));
      return success();
    }
    if (size == 0)
      return fail(op, rewriter, "index out of range in self (empty weight)");
    emitIndexBoundsCheck(
        rewriter, loc, adaptor.getIndices(), size,
        "embedding: index out of range in self: every index must be in [0, " +
            std::to_string(size) + ") for a weight of " +
            std::to_string(size) +
            " rows. Check the indices passed to the embedding.");

    MLIRContext *ctx = rewriter.getContext();
    int64_t rank = type.getRank();
    SmallVector<AffineExpr> indexExprs;
    for (int64_t k = 0; k + 1 < rank; ++k)
      indexExprs.push_back(getAffineDimExpr(k, ctx));
    SmallVector<AffineMap> maps = {AffineMap::get(rank, 0, indexExprs, ctx),
                                   rewriter.getMultiDimIdentityMap(rank)};
    SmallVector<utils::IteratorType> iterators(rank,
                                               utils::IteratorType::parallel);
    Value weight = adaptor.getWeight();
    Type i64 = rewriter.getI64Type();
    auto generic = linalg::GenericOp::create(
        rewriter, loc, TypeRange{type}, ValueRange{adaptor.getIndices()},
        ValueRange{createEmptyTensor(rewriter, loc, type)}, maps, iterators,
        [&](OpBuilder &b, Location nloc, ValueRange args) {
          Value i = castScalar(b, nloc, args[0], i64);
          i = arith::MaxSIOp::create(b, nloc, i,
                                     createIntConstant(b, nloc, i64, 0));
          i = arith::MinSIOp::create(b, nloc, i,
                                     createIntConstant(b, nloc, i64, size - 1));
          Value row = arith::IndexCastOp::create(b, nloc, b.getIndexType(), i);
          Value col = linalg::IndexOp::create(b, nloc, rank - 1);
          Value element =
              tensor::ExtractOp::create(b, nloc, weight, ValueRange{row, col});
          linalg::YieldOp::create(b, nloc, element);
        });
    rewriter.replaceOp(op, generic.getResult(0));
    return success();
  }
};

/// embedding_dense_backward: result[v, d] = sum over n (in order) of
/// grad[n, d] where indices[n] == v != padding_idx: one linalg.generic with
/// the indices as a reduction dim (V * N * D work, no scatter). Rows of an
/// out-of-range index match no v (and fail the runtime check).
class ConvertEmbeddingDenseBackwardOp
    : public TorchConversionPattern<torch::AtenEmbeddingDenseBackwardOp> {
public:
  using Base::Base;
  LogicalResult
  matchAndRewrite(torch::AtenEmbeddingDenseBackwardOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    RankedTensorType type = getTensorType(op.getType());
    auto gradType = cast<RankedTensorType>(adaptor.getGradOutput().getType());
    auto indexType = cast<RankedTensorType>(adaptor.getIndices().getType());
    if (!type || type.getRank() != 2 ||
        !isa<FloatType>(type.getElementType()))
      return fail(op, rewriter, "needs a 2-D floating-point result");
    if (!isa<IntegerType>(indexType.getElementType()))
      return fail(op, rewriter, "indices must be integers");
    std::optional<bool> scale = getConstantBool(op.getScaleGradByFreq());
    if (!scale || *scale)
      return fail(op, rewriter, "scale_grad_by_freq=True is not supported");
    int64_t numWeights = type.getDimSize(0), dim = type.getDimSize(1);
    int64_t numIndices = indexType.getNumElements();
    if (gradType.getNumElements() != numIndices * dim)
      return fail(op, rewriter, "grad_output does not match the indices");
    Location loc = op.getLoc();
    Value zeros = createZeroTensor(rewriter, loc, type);
    if (type.getNumElements() == 0 || numIndices == 0) {
      rewriter.replaceOp(op, zeros);
      return success();
    }
    Type indexElem = indexType.getElementType();
    FailureOr<Value> indices = createReshape(
        rewriter, loc, adaptor.getIndices(),
        RankedTensorType::get({numIndices}, indexElem));
    FailureOr<Value> grad = createReshape(
        rewriter, loc, adaptor.getGradOutput(),
        RankedTensorType::get({numIndices, dim}, gradType.getElementType()));
    if (failed(indices) || failed(grad))
      return fail(op, rewriter, "cannot flatten the indices");
    emitIndexBoundsCheck(
        rewriter, loc, *indices, numWeights,
        "embedding_dense_backward: index out of range in self: every index "
        "must be in [0, " +
            std::to_string(numWeights) +
            "). Check the indices passed to the embedding.");

    // ATen's CPU loop: grad rows are added into their index's row in token
    // order (bit for bit eager's sums). Serial: O(indices x dim), where a
    // dense compare over every (weight row, token) pair cost O(rows x
    // indices x dim) (15 ms per nanoGPT step for a 256-token vocabulary).
    Type i64 = rewriter.getI64Type();
    Value padding = castScalar(rewriter, loc, adaptor.getPaddingIdx(), i64);
    Type elemType = type.getElementType();
    Value zeroI = createIntConstant(rewriter, loc, i64, 0);
    Value lastRow = createIntConstant(rewriter, loc, i64, numWeights - 1);
    auto cidx = [&](int64_t v) {
      return arith::ConstantIndexOp::create(rewriter, loc, v).getResult();
    };
    auto tokens = scf::ForOp::create(
        rewriter, loc, cidx(0), cidx(numIndices), cidx(1), ValueRange{zeros},
        [&](OpBuilder &b, Location l, Value n, ValueRange acc) {
          Value i = castScalar(b, l, tensor::ExtractOp::create(b, l, *indices, n),
                               i64);
          Value keep =
              arith::CmpIOp::create(b, l, arith::CmpIPredicate::ne, i, padding);
          // Out-of-range indices failed the check above; clamp them so that
          // the loop stays memory-safe.
          i = arith::MinSIOp::create(b, l, arith::MaxSIOp::create(b, l, i, zeroI),
                                     lastRow);
          Value row = arith::IndexCastOp::create(b, l, b.getIndexType(), i);
          auto ifOp = scf::IfOp::create(
              b, l, keep,
              [&](OpBuilder &tb, Location tl) {
                auto columns = scf::ForOp::create(
                    tb, tl, cidx(0), cidx(dim), cidx(1), ValueRange{acc[0]},
                    [&](OpBuilder &cb, Location cl, Value c, ValueRange out) {
                      Value g = castScalar(
                          cb, cl,
                          tensor::ExtractOp::create(cb, cl, *grad,
                                                    ValueRange{n, c}),
                          elemType);
                      Value old = tensor::ExtractOp::create(cb, cl, out[0],
                                                            ValueRange{row, c});
                      Value sum = arith::AddFOp::create(cb, cl, old, g);
                      scf::YieldOp::create(
                          cb, cl,
                          tensor::InsertOp::create(cb, cl, sum, out[0],
                                                   ValueRange{row, c})
                              .getResult());
                    });
                scf::YieldOp::create(tb, tl, columns.getResults());
              },
              [&](OpBuilder &eb, Location el) {
                scf::YieldOp::create(eb, el, acc[0]);
              });
          scf::YieldOp::create(b, l, ifOp.getResults());
        });
    rewriter.replaceOp(op, tokens.getResult(0));
    return success();
  }
};

} // namespace

void populateIndexSelectPatterns(TorchTypeConverter &typeConverter,
                                 RewritePatternSet &patterns) {
  patterns.add<ConvertIndexSelectOp, ConvertEmbeddingOp,
               ConvertEmbeddingDenseBackwardOp>(typeConverter,
                                                patterns.getContext());
}

} // namespace ltc_mlir::torch_to_linalg
