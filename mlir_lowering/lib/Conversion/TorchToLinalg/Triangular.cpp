//===- Triangular.cpp - tril, triu, diag, trace ---------------------------===//
//
// tril/triu keep the elements with j - i <= diagonal (>= for triu) of the
// last two dims and zero the others (one parallel linalg.generic).
// diag(1-D v, k) is the square matrix with v on diagonal k; diag(2-D m, k)
// is diagonal k of m (result[t] = m[t + max(0, -k), t + max(0, k)]).
// trace sums the main diagonal (copied out first, then createSum); integer
// inputs give int64 as in ATen, f32 adds in f64 like ATen's trace_cpu.
//
//===----------------------------------------------------------------------===//

#include "ltc_mlir/Conversion/TorchToLinalg/Utils.h"

using namespace mlir;

namespace ltc_mlir::torch_to_linalg {
namespace {

template <typename OpTy, bool IsLower>
class ConvertTriangularOp : public TorchConversionPattern<OpTy> {
public:
  using OpAdaptor = typename OpTy::Adaptor;
  using TorchConversionPattern<OpTy>::TorchConversionPattern;

  LogicalResult
  matchAndRewrite(OpTy op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    RankedTensorType type = this->getTensorType(op.getType());
    Value self = adaptor.getSelf();
    if (!type || type != self.getType())
      return this->fail(op, rewriter, "result type differs from self's");
    int64_t rank = type.getRank();
    if (rank < 2)
      return this->fail(op, rewriter, "needs at least 2 dims (eager raises)");
    std::optional<int64_t> diagonal = getConstantInt(op.getDiagonal());
    if (!diagonal)
      return this->fail(op, rewriter, "diagonal must be a constant");
    Location loc = op.getLoc();
    Type i64 = rewriter.getI64Type();
    Type elemType = type.getElementType();
    Value result = *createElementwiseOp(
        rewriter, loc, type, self,
        [&](OpBuilder &b, Location l, ValueRange args) -> Value {
          Value i = arith::IndexCastOp::create(
              b, l, i64, linalg::IndexOp::create(b, l, rank - 2));
          Value j = arith::IndexCastOp::create(
              b, l, i64, linalg::IndexOp::create(b, l, rank - 1));
          Value diff = arith::SubIOp::create(b, l, j, i);
          Value keep = arith::CmpIOp::create(
              b, l, IsLower ? arith::CmpIPredicate::sle
                            : arith::CmpIPredicate::sge,
              diff, createIntConstant(b, l, i64, *diagonal));
          Value zero = isa<FloatType>(elemType)
                           ? createScalarConstant(b, l, elemType, 0)
                           : createIntConstant(b, l, elemType, 0);
          return arith::SelectOp::create(b, l, keep, args[0], zero);
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// Diagonal `k` of the 2-D `matrix` as a 1-D tensor of `type`.
Value extractDiagonal(OpBuilder &b, Location loc, Value matrix, int64_t k,
                      RankedTensorType type) {
  int64_t rowOffset = std::max<int64_t>(0, -k), colOffset =
                                                    std::max<int64_t>(0, k);
  SmallVector<AffineMap> maps = {b.getMultiDimIdentityMap(1)};
  SmallVector<utils::IteratorType> iterators = {utils::IteratorType::parallel};
  return linalg::GenericOp::create(
             b, loc, TypeRange{type}, ValueRange{},
             ValueRange{createEmptyTensor(b, loc, type)}, maps, iterators,
             [&](OpBuilder &nb, Location l, ValueRange) {
               Value t = linalg::IndexOp::create(nb, l, 0);
               Value r = arith::AddIOp::create(
                   nb, l, t, arith::ConstantIndexOp::create(nb, l, rowOffset));
               Value c = arith::AddIOp::create(
                   nb, l, t, arith::ConstantIndexOp::create(nb, l, colOffset));
               linalg::YieldOp::create(
                   nb, l,
                   tensor::ExtractOp::create(nb, l, matrix, ValueRange{r, c})
                       .getResult());
             })
      .getResult(0);
}

class ConvertDiagOp : public TorchConversionPattern<torch::AtenDiagOp> {
public:
  using Base::Base;
  LogicalResult
  matchAndRewrite(torch::AtenDiagOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    RankedTensorType type = getTensorType(op.getType());
    Value self = adaptor.getSelf();
    auto selfType = cast<RankedTensorType>(self.getType());
    if (!type || type.getElementType() != selfType.getElementType())
      return fail(op, rewriter, "result type is not convertible");
    std::optional<int64_t> k = getConstantInt(op.getDiagonal());
    if (!k)
      return fail(op, rewriter, "diagonal must be a constant");
    Location loc = op.getLoc();
    if (selfType.getRank() == 2) {
      int64_t rows = selfType.getDimSize(0), cols = selfType.getDimSize(1);
      int64_t n = *k >= 0 ? std::min(rows, cols - *k)
                          : std::min(rows + *k, cols);
      n = std::max<int64_t>(0, n);
      if (type.getRank() != 1 || type.getDimSize(0) != n)
        return fail(op, rewriter, "result shape does not match the diagonal");
      if (n == 0) {
        rewriter.replaceOp(op, createEmptyTensor(rewriter, loc, type));
        return success();
      }
      rewriter.replaceOp(op, extractDiagonal(rewriter, loc, self, *k, type));
      return success();
    }
    if (selfType.getRank() != 1)
      return fail(op, rewriter, "needs a 1-D or 2-D self");
    int64_t n = selfType.getDimSize(0) + std::abs(*k);
    if (type.getRank() != 2 || type.getDimSize(0) != n ||
        type.getDimSize(1) != n)
      return fail(op, rewriter, "result shape does not match the diagonal");
    if (n == 0) {
      rewriter.replaceOp(op, createEmptyTensor(rewriter, loc, type));
      return success();
    }
    int64_t last = selfType.getDimSize(0) - 1;
    Type elemType = type.getElementType();
    Type i64 = rewriter.getI64Type();
    SmallVector<AffineMap> maps = {rewriter.getMultiDimIdentityMap(2)};
    SmallVector<utils::IteratorType> iterators(2,
                                               utils::IteratorType::parallel);
    Value result =
        linalg::GenericOp::create(
            rewriter, loc, TypeRange{type}, ValueRange{},
            ValueRange{createEmptyTensor(rewriter, loc, type)}, maps, iterators,
            [&](OpBuilder &b, Location l, ValueRange) {
              Value zero = isa<FloatType>(elemType)
                               ? createScalarConstant(b, l, elemType, 0)
                               : createIntConstant(b, l, elemType, 0);
              if (last < 0) {
                linalg::YieldOp::create(b, l, zero);
                return;
              }
              Value i = linalg::IndexOp::create(b, l, 0);
              Value j = linalg::IndexOp::create(b, l, 1);
              Value diff = arith::SubIOp::create(
                  b, l, arith::IndexCastOp::create(b, l, i64, j),
                  arith::IndexCastOp::create(b, l, i64, i));
              Value on = arith::CmpIOp::create(b, l, arith::CmpIPredicate::eq,
                                               diff,
                                               createIntConstant(b, l, i64, *k));
              // The position in self: the row (k >= 0) or the column.
              Value t = *k >= 0 ? i : j;
              t = arith::MinUIOp::create(
                  b, l, t, arith::ConstantIndexOp::create(b, l, last));
              Value x = tensor::ExtractOp::create(b, l, self, t);
              linalg::YieldOp::create(
                  b, l, arith::SelectOp::create(b, l, on, x, zero).getResult());
            })
            .getResult(0);
    rewriter.replaceOp(op, result);
    return success();
  }
};

class ConvertTraceOp : public TorchConversionPattern<torch::AtenTraceOp> {
public:
  using Base::Base;
  LogicalResult
  matchAndRewrite(torch::AtenTraceOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    RankedTensorType type = getTensorType(op.getType());
    Value self = adaptor.getSelf();
    auto selfType = cast<RankedTensorType>(self.getType());
    if (!type || type.getRank() != 0 || selfType.getRank() != 2)
      return fail(op, rewriter, "needs a 2-D self and a 0-d result");
    Type elemType = type.getElementType();
    if (isBoolDtype(getTorchDtype(op.getResult())))
      return fail(op, rewriter, "bool result dtype is not supported");
    Location loc = op.getLoc();
    int64_t n = std::min(selfType.getDimSize(0), selfType.getDimSize(1));
    auto diagType = RankedTensorType::get({n}, selfType.getElementType());
    Value diag = n == 0 ? createEmptyTensor(rewriter, loc, diagType)
                        : extractDiagonal(rewriter, loc, self, 0, diagType);
    Type selfDtype = getTorchDtype(op.getSelf());
    bool selfUnsigned = isUnsignedDtype(selfDtype) || isBoolDtype(selfDtype);
    // ATen's trace_cpu adds in at::acc_type<T, false>: double for f32.
    Type accType = elemType.isF32() ? rewriter.getF64Type()
                                    : getSumAccumulatorType(elemType);
    Value sum = createSum(rewriter, loc, diag, {0}, accType, selfUnsigned);
    rewriter.replaceOp(op, castTensor(rewriter, loc, sum, elemType));
    return success();
  }
};

} // namespace

void populateTriangularPatterns(TorchTypeConverter &typeConverter,
                                RewritePatternSet &patterns) {
  patterns.add<ConvertTriangularOp<torch::AtenTrilOp, true>,
               ConvertTriangularOp<torch::AtenTriuOp, false>, ConvertDiagOp,
               ConvertTraceOp>(typeConverter, patterns.getContext());
}

} // namespace ltc_mlir::torch_to_linalg
