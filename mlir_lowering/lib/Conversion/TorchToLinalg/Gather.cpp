//===- Gather.cpp - gather along a dim, take ------------------------------===//
//
// gather(self, dim, index): result[i] = self[i with i[dim] = index[i]], a
// parallel linalg.generic over index's shape reading self with
// tensor.extract. take(self, index): result[i] = flat(self)[index[i]], a
// negative index counting from the end. Out-of-range indices fail a runtime
// check with eager's kind of error ("index ... is out of bounds for
// dimension ...", "out of range: tried to access index ...") and are
// clamped to stay memory-safe.
//
//===----------------------------------------------------------------------===//

#include "ltc_mlir/Compiler/Compiler.h"
#include "ltc_mlir/Conversion/TorchToLinalg/Utils.h"

#include <string>

using namespace mlir;

namespace ltc_mlir::torch_to_linalg {
namespace {

/// An i64 index value in [0, size): `i` clamped.
Value clampIndex(OpBuilder &b, Location loc, Value i, int64_t size) {
  Type i64 = b.getI64Type();
  i = arith::MaxSIOp::create(b, loc, i, createIntConstant(b, loc, i64, 0));
  return arith::MinSIOp::create(b, loc, i,
                                createIntConstant(b, loc, i64, size - 1));
}

/// `tensor` of rank 0 as rank 1 (size 1); other ranks unchanged.
Value asAtLeast1D(OpBuilder &b, Location loc, Value tensor) {
  auto type = cast<RankedTensorType>(tensor.getType());
  if (type.getRank() != 0)
    return tensor;
  return *createReshape(b, loc, tensor,
                        RankedTensorType::get({1}, type.getElementType()));
}

class ConvertGatherOp : public TorchConversionPattern<torch::AtenGatherOp> {
public:
  using Base::Base;
  LogicalResult
  matchAndRewrite(torch::AtenGatherOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    RankedTensorType type = getTensorType(op.getType());
    Location loc = op.getLoc();
    Value self = adaptor.getSelf(), index = adaptor.getIndex();
    auto selfType = cast<RankedTensorType>(self.getType());
    auto indexType = cast<RankedTensorType>(index.getType());
    if (!type || type.getElementType() != selfType.getElementType() ||
        type.getShape() != indexType.getShape())
      return fail(op, rewriter, "result type does not match self and index");
    if (!isa<IntegerType>(indexType.getElementType()))
      return fail(op, rewriter, "index must be an integer tensor");
    int64_t rank = std::max<int64_t>(1, selfType.getRank());
    if (std::max<int64_t>(1, indexType.getRank()) != rank)
      return fail(op, rewriter, "index and self must have the same rank");
    std::optional<int64_t> dimArg = getConstantInt(op.getDim());
    if (!dimArg)
      return fail(op, rewriter, "dim must be a constant");
    std::optional<int64_t> dim = normalizeDim(*dimArg, selfType.getRank());
    if (!dim)
      return fail(op, rewriter, "dim out of range");
    self = asAtLeast1D(rewriter, loc, self);
    index = asAtLeast1D(rewriter, loc, index);
    selfType = cast<RankedTensorType>(self.getType());
    indexType = cast<RankedTensorType>(index.getType());
    for (int64_t d = 0; d < rank; ++d)
      if (d != *dim && indexType.getDimSize(d) > selfType.getDimSize(d))
        return fail(op, rewriter,
                    "index is larger than self in a dim other than dim "
                    "(eager raises)");
    if (indexType.getNumElements() == 0) {
      rewriter.replaceOp(op, createEmptyTensor(rewriter, loc, type));
      return success();
    }
    int64_t size = selfType.getDimSize(*dim);
    if (size == 0)
      return fail(op, rewriter, "gather from an empty dim (eager raises)");
    Type i64 = rewriter.getI64Type();
    Value ok = createAllOf(rewriter, loc, index,
                           [&](OpBuilder &b, Location l, Value element) {
                             return arith::CmpIOp::create(
                                        b, l, arith::CmpIPredicate::ult,
                                        castScalar(b, l, element, i64),
                                        createIntConstant(b, l, i64, size))
                                 .getResult();
                           });
    emitRuntimeCheck(rewriter, loc, ok,
                     "gather(): index out of bounds: every index must be in "
                     "[0, " + std::to_string(size) + ") for dimension " +
                         std::to_string(*dim) + " with size " +
                         std::to_string(size) +
                         ". Check the indices passed to gather.");
    auto resultType =
        RankedTensorType::get(indexType.getShape(), selfType.getElementType());
    SmallVector<AffineMap> maps(2, rewriter.getMultiDimIdentityMap(rank));
    SmallVector<utils::IteratorType> iterators(rank,
                                               utils::IteratorType::parallel);
    Value result =
        linalg::GenericOp::create(
            rewriter, loc, TypeRange{resultType}, ValueRange{index},
            ValueRange{createEmptyTensor(rewriter, loc, resultType)}, maps,
            iterators,
            [&](OpBuilder &b, Location l, ValueRange args) {
              Value i = clampIndex(b, l, castScalar(b, l, args[0], i64), size);
              SmallVector<Value> coords;
              for (int64_t d = 0; d < rank; ++d)
                coords.push_back(
                    d == *dim ? arith::IndexCastOp::create(
                                    b, l, b.getIndexType(), i)
                                    .getResult()
                              : linalg::IndexOp::create(b, l, d).getResult());
              linalg::YieldOp::create(
                  b, l, tensor::ExtractOp::create(b, l, self, coords)
                            .getResult());
            })
            .getResult(0);
    return replaceOrFail(op, rewriter,
                         createReshape(rewriter, loc, result, type),
                         "cannot reshape the result");
  }
};

class ConvertTakeOp : public TorchConversionPattern<torch::AtenTakeOp> {
public:
  using Base::Base;
  LogicalResult
  matchAndRewrite(torch::AtenTakeOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    RankedTensorType type = getTensorType(op.getType());
    Location loc = op.getLoc();
    Value self = adaptor.getSelf(), index = adaptor.getIndex();
    auto selfType = cast<RankedTensorType>(self.getType());
    auto indexType = cast<RankedTensorType>(index.getType());
    if (!type || type.getElementType() != selfType.getElementType() ||
        type.getShape() != indexType.getShape())
      return fail(op, rewriter, "result type does not match self and index");
    if (!isa<IntegerType>(indexType.getElementType()))
      return fail(op, rewriter, "index must be an integer tensor");
    if (type.getNumElements() == 0) {
      rewriter.replaceOp(op, createEmptyTensor(rewriter, loc, type));
      return success();
    }
    int64_t n = selfType.getNumElements();
    if (n == 0)
      return fail(op, rewriter, "take from an empty tensor (eager raises)");
    FailureOr<Value> flat = createReshape(
        rewriter, loc, self, RankedTensorType::get({n}, selfType.getElementType()));
    if (failed(flat))
      return fail(op, rewriter, "cannot flatten self");
    Type i64 = rewriter.getI64Type();
    Value ok = createAllOf(
        rewriter, loc, index, [&](OpBuilder &b, Location l, Value element) {
          Value i = castScalar(b, l, element, i64);
          Value lo = arith::CmpIOp::create(b, l, arith::CmpIPredicate::sge, i,
                                           createIntConstant(b, l, i64, -n));
          Value hi = arith::CmpIOp::create(b, l, arith::CmpIPredicate::slt, i,
                                           createIntConstant(b, l, i64, n));
          return arith::AndIOp::create(b, l, lo, hi).getResult();
        });
    emitRuntimeCheck(rewriter, loc, ok,
                     std::string(kIndexErrorTag) +
                         "take(): out of range: every index must be in [-" +
                         std::to_string(n) + ", " + std::to_string(n) +
                         ") for a tensor of " + std::to_string(n) +
                         " elements. Check the indices passed to take.");
    // A 0-d take runs as a 1-element one (the vectorizer turns a 0-d
    // generic's tensor.extract into an invalid 0-d vector.gather).
    RankedTensorType loopType = type;
    if (type.getRank() == 0) {
      loopType = RankedTensorType::get({1}, type.getElementType());
      index = *createReshape(
          rewriter, loc, index,
          RankedTensorType::get({1}, indexType.getElementType()));
    }
    int64_t rank = loopType.getRank();
    SmallVector<AffineMap> maps(2, rewriter.getMultiDimIdentityMap(rank));
    SmallVector<utils::IteratorType> iterators(rank,
                                               utils::IteratorType::parallel);
    Value source = *flat;
    Value result =
        linalg::GenericOp::create(
            rewriter, loc, TypeRange{loopType}, ValueRange{index},
            ValueRange{createEmptyTensor(rewriter, loc, loopType)}, maps, iterators,
            [&](OpBuilder &b, Location l, ValueRange args) {
              Value i = castScalar(b, l, args[0], i64);
              Value negative = arith::CmpIOp::create(
                  b, l, arith::CmpIPredicate::slt, i,
                  createIntConstant(b, l, i64, 0));
              i = arith::SelectOp::create(
                  b, l, negative,
                  arith::AddIOp::create(b, l, i,
                                        createIntConstant(b, l, i64, n)),
                  i);
              i = clampIndex(b, l, i, n);
              Value at = arith::IndexCastOp::create(b, l, b.getIndexType(), i);
              linalg::YieldOp::create(
                  b, l, tensor::ExtractOp::create(b, l, source, at).getResult());
            })
            .getResult(0);
    return replaceOrFail(op, rewriter, createReshape(rewriter, loc, result, type),
                         "cannot reshape the result");
  }
};

} // namespace

void populateGatherPatterns(TorchTypeConverter &typeConverter,
                            RewritePatternSet &patterns) {
  patterns.add<ConvertGatherOp, ConvertTakeOp>(typeConverter,
                                               patterns.getContext());
}

} // namespace ltc_mlir::torch_to_linalg
