//===- IndexUpdate.cpp - index_fill, index_copy, index_add ----------------===//
//
// self with the slices at `index` along dim filled with a value, replaced
// by source's slices, or with alpha * source's slices added. One
// linalg.generic over self's dims plus a reduction loop k over the indices,
// starting from self: where index[k] equals the element's position along
// dim, the element is updated. k runs in order, so duplicate indices
// resolve as ATen's CPU loops do (the last copy wins; additions in index
// order). index_fill accepts negative indices (counted from the end), as
// ATen; out-of-range indices fail a runtime check and match nothing.
//
//===----------------------------------------------------------------------===//

#include "ltc_mlir/Compiler/Compiler.h"
#include "ltc_mlir/Conversion/TorchToLinalg/Utils.h"

#include <string>

using namespace mlir;

namespace ltc_mlir::torch_to_linalg {
namespace {

enum class IndexUpdate { Fill, Copy, Add };

template <typename OpTy, IndexUpdate Kind>
class ConvertIndexUpdateOp : public TorchConversionPattern<OpTy> {
public:
  using OpAdaptor = typename OpTy::Adaptor;
  using TorchConversionPattern<OpTy>::TorchConversionPattern;

  LogicalResult
  matchAndRewrite(OpTy op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    RankedTensorType type = this->getTensorType(op.getType());
    Value self = adaptor.getSelf();
    auto selfType = cast<RankedTensorType>(self.getType());
    if (!type || type != selfType)
      return this->fail(op, rewriter, "result type differs from self's");
    RankedTensorType resultType = type;
    Location loc = op.getLoc();
    // A 0-d self is updated as a 1-element 1-D tensor (dim 0 or -1).
    if (type.getRank() == 0) {
      type = RankedTensorType::get({1}, type.getElementType());
      self = *createReshape(rewriter, loc, self, type);
      selfType = type;
    }
    int64_t rank = type.getRank();
    Value index = adaptor.getIndex();
    auto indexType = cast<RankedTensorType>(index.getType());
    if (indexType.getRank() > 1 ||
        !isa<IntegerType>(indexType.getElementType()))
      return this->fail(op, rewriter, "index must be a 0-d or 1-D integer tensor");
    std::optional<int64_t> dimArg = getConstantInt(op.getDim());
    if (!dimArg)
      return this->fail(op, rewriter, "dim must be a constant");
    std::optional<int64_t> nd = normalizeDim(*dimArg, resultType.getRank());
    if (!nd)
      return this->fail(op, rewriter, "dim out of range");
    int64_t dim = *nd, size = type.getDimSize(dim);
    int64_t numIndices = indexType.getNumElements();
    Type elemType = type.getElementType();
    Type i64 = rewriter.getI64Type();

    Value source, scalar;
    bool sourceUnsigned = false;
    if constexpr (Kind == IndexUpdate::Fill) {
      Value value = adaptor.getValue();
      if (auto valueType = dyn_cast<RankedTensorType>(value.getType())) {
        if (valueType.getRank() != 0)
          return this->fail(op, rewriter, "value must be a 0-d tensor");
        value = tensor::ExtractOp::create(rewriter, loc, value, ValueRange{});
        Type vd = getTorchDtype(op.getValue());
        sourceUnsigned = isUnsignedDtype(vd) || isBoolDtype(vd);
      } else if (!value.getType().isIntOrFloat()) {
        return this->fail(op, rewriter, "value must be a scalar");
      }
      scalar = value;
    } else {
      source = adaptor.getSource();
      auto sourceType = cast<RankedTensorType>(source.getType());
      SmallVector<int64_t> expected(type.getShape());
      expected[dim] = numIndices;
      if (sourceType.getElementType() != elemType ||
          !(sourceType.getShape() == ArrayRef<int64_t>(expected) ||
            (sourceType.getRank() == 0 && rank == 1 && numIndices == 1)))
        return this->fail(op, rewriter,
                          "source must have self's dtype and the slices' shape");
      if (sourceType.getRank() == 0)
        source = *createReshape(rewriter, loc, source,
                                RankedTensorType::get({1}, elemType));
    }
    if (numIndices == 0 || type.getNumElements() == 0) {
      rewriter.replaceOp(op, adaptor.getSelf());
      return success();
    }
    if (indexType.getRank() == 0)
      index = *createReshape(rewriter, loc, index,
                             RankedTensorType::get({1}, indexType.getElementType()));

    bool allowNegative = Kind == IndexUpdate::Fill;
    Value ok = createAllOf(
        rewriter, loc, index, [&](OpBuilder &b, Location l, Value element) {
          Value i = castScalar(b, l, element, i64);
          Value hi = arith::CmpIOp::create(b, l, arith::CmpIPredicate::slt, i,
                                           createIntConstant(b, l, i64, size));
          Value lo = arith::CmpIOp::create(
              b, l, arith::CmpIPredicate::sge, i,
              createIntConstant(b, l, i64, allowNegative ? -size : 0));
          return arith::AndIOp::create(b, l, lo, hi).getResult();
        });
    StringRef name = Kind == IndexUpdate::Fill   ? "index_fill"
                     : Kind == IndexUpdate::Copy ? "index_copy"
                                                 : "index_add";
    emitRuntimeCheck(rewriter, loc, ok,
                     (kIndexErrorTag + name +
                      "(): index out of range in self: every index must "
                             "be in [" +
                      std::to_string(allowNegative ? -size : 0) + ", " +
                      std::to_string(size) + ") for dimension " +
                      std::to_string(dim) + " with size " +
                      std::to_string(size) + ". Check the indices passed to " +
                      name + ".")
                         .str());

    Value alpha;
    if constexpr (Kind == IndexUpdate::Add)
      alpha = castScalar(rewriter, loc, adaptor.getAlpha(), elemType);
    if (scalar)
      scalar = castScalar(rewriter, loc, scalar, elemType, sourceUnsigned);

    MLIRContext *ctx = rewriter.getContext();
    unsigned loops = rank + 1;
    SmallVector<AffineExpr> own, atK;
    for (int64_t d = 0; d < rank; ++d) {
      own.push_back(getAffineDimExpr(d, ctx));
      atK.push_back(getAffineDimExpr(d == dim ? rank : d, ctx));
    }
    SmallVector<Value> inputs = {index};
    SmallVector<AffineMap> maps = {
        AffineMap::get(loops, 0, getAffineDimExpr(rank, ctx))};
    if (source) {
      inputs.push_back(source);
      maps.push_back(AffineMap::get(loops, 0, atK, ctx));
    }
    maps.push_back(AffineMap::get(loops, 0, own, ctx));
    SmallVector<utils::IteratorType> iterators(rank,
                                               utils::IteratorType::parallel);
    iterators.push_back(utils::IteratorType::reduction);
    auto generic = linalg::GenericOp::create(
        rewriter, loc, TypeRange{type}, inputs, ValueRange{self}, maps,
        iterators, [&](OpBuilder &b, Location l, ValueRange args) {
          Value j = castScalar(b, l, args[0], i64);
          if (allowNegative) {
            Value negative = arith::CmpIOp::create(
                b, l, arith::CmpIPredicate::slt, j,
                createIntConstant(b, l, i64, 0));
            j = arith::SelectOp::create(
                b, l, negative,
                arith::AddIOp::create(b, l, j, createIntConstant(b, l, i64, size)),
                j);
          }
          Value position = arith::IndexCastOp::create(
              b, l, i64, linalg::IndexOp::create(b, l, dim));
          Value match =
              arith::CmpIOp::create(b, l, arith::CmpIPredicate::eq, j, position);
          Value out = args.back();
          Value updated;
          if constexpr (Kind == IndexUpdate::Fill)
            updated = scalar;
          else if constexpr (Kind == IndexUpdate::Copy)
            updated = args[1];
          else
            updated = createAdd(b, l, out, createMul(b, l, alpha, args[1]));
          linalg::YieldOp::create(
              b, l, arith::SelectOp::create(b, l, match, updated, out).getResult());
        });
    return this->replaceOrFail(
        op, rewriter, createReshape(rewriter, loc, generic.getResult(0), resultType),
        "cannot reshape the result");
  }
};

} // namespace

void populateIndexUpdatePatterns(TorchTypeConverter &typeConverter,
                                 RewritePatternSet &patterns) {
  patterns.add<
      ConvertIndexUpdateOp<torch::AtenIndexFillIntScalarOp, IndexUpdate::Fill>,
      ConvertIndexUpdateOp<torch::AtenIndexFillIntTensorOp, IndexUpdate::Fill>,
      ConvertIndexUpdateOp<torch::AtenIndexCopyOp, IndexUpdate::Copy>,
      ConvertIndexUpdateOp<torch::AtenIndexAddOp, IndexUpdate::Add>>(
      typeConverter, patterns.getContext());
}

} // namespace ltc_mlir::torch_to_linalg
