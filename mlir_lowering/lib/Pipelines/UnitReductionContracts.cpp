//===- UnitReductionContracts.cpp - repair one-sided unit reductions -----===//
//
// MLIR 22's reduction-to-contract patterns fold a broadcast into a
// vector.contract also when the broadcast adds a unit *reduction* dim (a
// register tile of size 1 over a reduction loop, as in
// `sum(a[3, 7] * w[7])`). The contract then has a reduction dim that only
// one operand indexes, which its verifier rejects ("invalid
// accumulator/result vector shape"), and the whole graph failed to
// compile. Reducing over a unit dim is a no-op: this pattern drops such a
// dim from the operand (a shape_cast) and from the contract.
//
//===----------------------------------------------------------------------===//

#include "ltc_mlir/Pipelines/Pipelines.h"

#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/AffineMap.h"
#include "mlir/IR/PatternMatch.h"
#include "llvm/ADT/SmallBitVector.h"

using namespace mlir;

namespace {

struct DropOneSidedUnitReduction : OpRewritePattern<vector::ContractionOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(vector::ContractionOp op,
                                PatternRewriter &rewriter) const override {
    SmallVector<AffineMap> maps = op.getIndexingMapsArray();
    SmallVector<vector::IteratorType> iterators = op.getIteratorTypesArray();
    for (unsigned dim = 0; dim < iterators.size(); ++dim) {
      if (iterators[dim] != vector::IteratorType::reduction)
        continue;
      std::optional<unsigned> lhsPos =
          maps[0].getResultPosition(rewriter.getAffineDimExpr(dim));
      std::optional<unsigned> rhsPos =
          maps[1].getResultPosition(rewriter.getAffineDimExpr(dim));
      if (lhsPos.has_value() == rhsPos.has_value())
        continue;  // on both sides (a real contraction dim) or on neither
      unsigned operandIndex = lhsPos ? 0 : 1;
      unsigned position = lhsPos ? *lhsPos : *rhsPos;
      Value operand = operandIndex == 0 ? op.getLhs() : op.getRhs();
      auto type = cast<VectorType>(operand.getType());
      if (type.getDimSize(position) != 1 || type.isScalable())
        continue;
      if (isa<vector::MaskingOpInterface>(op->getParentOp()))
        return failure();
      // The operand without the unit dim, and every map without `dim`.
      SmallVector<int64_t> shape(type.getShape());
      shape.erase(shape.begin() + position);
      Value dropped = vector::ShapeCastOp::create(
          rewriter, op.getLoc(), VectorType::get(shape, type.getElementType()),
          operand);
      SmallVector<AffineMap> newMaps;
      for (AffineMap map : maps) {
        SmallVector<AffineExpr> results;
        for (AffineExpr e : map.getResults()) {
          if (e == rewriter.getAffineDimExpr(dim))
            continue;
          results.push_back(e);
        }
        newMaps.push_back(
            AffineMap::get(map.getNumDims(), 0, results, op.getContext()));
      }
      llvm::SmallBitVector unused(iterators.size());
      unused.set(dim);
      for (AffineMap &m : newMaps)
        m = compressDims(m, unused);
      SmallVector<Attribute> newIterators;
      for (unsigned i = 0; i < iterators.size(); ++i)
        if (i != dim)
          newIterators.push_back(op.getIteratorTypes()[i]);
      Value lhs = operandIndex == 0 ? dropped : op.getLhs();
      Value rhs = operandIndex == 1 ? dropped : op.getRhs();
      rewriter.replaceOpWithNewOp<vector::ContractionOp>(
          op, lhs, rhs, op.getAcc(), rewriter.getAffineMapArrayAttr(newMaps),
          rewriter.getArrayAttr(newIterators), op.getKind());
      return success();
    }
    return failure();
  }
};

} // namespace

void ltc_mlir::populateDropOneSidedUnitReductionPatterns(RewritePatternSet &patterns) {
  patterns.add<DropOneSidedUnitReduction>(patterns.getContext(), /*benefit=*/10);
}
