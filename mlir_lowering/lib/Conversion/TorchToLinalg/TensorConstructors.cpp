//===- TensorConstructors.cpp - zero, fill.Scalar, eye, one_hot ----------===//
//
// The functional forms of zero_ and fill_ only keep the shape of `self`.
// eye(n[, m]) is a linalg.generic over the result's indices (i == j). one_hot
// compares each index of self with the class index of a new last dim
// (num_classes must be a constant; ltc_backend keeps num_classes = -1, whose
// result shape depends on the values, out of the graph); out-of-range class
// values give all-zero rows and fail a runtime check with eager's message.
//
//===----------------------------------------------------------------------===//

#include "ltc_mlir/Conversion/TorchToLinalg/Utils.h"

using namespace mlir;

namespace ltc_mlir::torch_to_linalg {
namespace {

class ConvertZeroOp : public TorchConversionPattern<torch::AtenZeroOp> {
public:
  using Base::Base;
  LogicalResult
  matchAndRewrite(torch::AtenZeroOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    RankedTensorType type = getTensorType(op.getType());
    if (!type)
      return fail(op, rewriter, "result type is not convertible");
    rewriter.replaceOp(op, createZeroTensor(rewriter, op.getLoc(), type));
    return success();
  }
};

class ConvertFillScalarOp
    : public TorchConversionPattern<torch::AtenFillScalarOp> {
public:
  using Base::Base;
  LogicalResult
  matchAndRewrite(torch::AtenFillScalarOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    RankedTensorType type = getTensorType(op.getType());
    if (!type)
      return fail(op, rewriter, "result type is not convertible");
    // The scalar is converted like ATen's fill_: a C++ cast to the dtype
    // (bool(x) is x != 0, stored as an i8 0/1).
    Value value = adaptor.getValue();
    bool isBool = isBoolDtype(getTorchDtype(op.getResult()));
    if (isBool)
      value = castScalar(rewriter, op.getLoc(), value, rewriter.getI1Type());
    value = castScalar(rewriter, op.getLoc(), value, type.getElementType(),
                       /*srcUnsigned=*/isBool);
    rewriter.replaceOp(op,
                       createFilledTensor(rewriter, op.getLoc(), type, value));
    return success();
  }
};

// Literals become arith.constant of the same (already builtin) attribute;
// bool literals are widened to the i8 storage of bool tensors.
class ConvertValueTensorLiteralOp
    : public TorchConversionPattern<torch::ValueTensorLiteralOp> {
public:
  using Base::Base;
  LogicalResult
  matchAndRewrite(torch::ValueTensorLiteralOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto value = llvm::dyn_cast<TypedAttr>(op.getValue());
    if (!value)
      return fail(op, rewriter, "literal value is not a typed attribute");
    RankedTensorType type = getTensorType(op.getType());
    if (!type)
      return fail(op, rewriter, "result type is not convertible");
    if (value.getType() != type) {
      auto dense = llvm::dyn_cast<DenseIntElementsAttr>(value);
      if (!dense || !dense.getElementType().isInteger(1))
        return fail(op, rewriter, "literal does not match the result type");
      value = dense.mapValues(type.getElementType(), [](const APInt &v) {
        return v.zext(8);
      });
    }
    rewriter.replaceOpWithNewOp<arith::ConstantOp>(op, value);
    return success();
  }
};

/// eye(n, ...) and eye.m(n, m, ...): ones where row == column.
template <typename OpTy>
class ConvertEyeOp : public TorchConversionPattern<OpTy> {
public:
  using OpAdaptor = typename OpTy::Adaptor;
  using TorchConversionPattern<OpTy>::TorchConversionPattern;
  LogicalResult
  matchAndRewrite(OpTy op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    RankedTensorType type = this->getTensorType(op.getType());
    if (!type || type.getRank() != 2)
      return this->fail(op, rewriter, "result must be a 2-D tensor");
    if (!isNone(op.getLayout()) && getConstantInt(op.getLayout()) != 0)
      return this->fail(op, rewriter, "layout must be None or strided");
    Type elemType = type.getElementType();
    Location loc = op.getLoc();
    FailureOr<Value> result = createElementwiseOp(
        rewriter, loc, type, ValueRange{},
        [&](OpBuilder &b, Location l, ValueRange) {
          Value i = linalg::IndexOp::create(b, l, 0);
          Value j = linalg::IndexOp::create(b, l, 1);
          Value onDiagonal =
              arith::CmpIOp::create(b, l, arith::CmpIPredicate::eq, i, j);
          return castScalar(b, l, onDiagonal, elemType, /*srcUnsigned=*/true);
        });
    return this->replaceOrFail(op, rewriter, result, "cannot build the result");
  }
};

/// one_hot(self, num_classes): result[..., c] = self[...] == c.
class ConvertOneHotOp : public TorchConversionPattern<torch::AtenOneHotOp> {
public:
  using Base::Base;
  LogicalResult
  matchAndRewrite(torch::AtenOneHotOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    RankedTensorType type = getTensorType(op.getType());
    if (!type)
      return fail(op, rewriter, "result type is not convertible");
    auto selfType = cast<RankedTensorType>(adaptor.getSelf().getType());
    if (!selfType.getElementType().isInteger(64) ||
        !type.getElementType().isInteger(64))
      return fail(op, rewriter, "one_hot takes and returns int64 tensors");
    std::optional<int64_t> numClasses = getConstantInt(op.getNumClasses());
    if (!numClasses || *numClasses < 0)
      return fail(op, rewriter,
                  "num_classes must be a constant >= 0 (-1 depends on the "
                  "values)");
    int64_t rank = selfType.getRank();
    SmallVector<int64_t> expected(selfType.getShape());
    expected.push_back(*numClasses);
    if (type.getShape() != ArrayRef<int64_t>(expected))
      return fail(op, rewriter, "result shape must be self's + [num_classes]");
    Location loc = op.getLoc();
    MLIRContext *context = rewriter.getContext();
    Type i64 = rewriter.getI64Type();
    Value self = adaptor.getSelf();
    Value zero = createIntConstant(rewriter, loc, i64, 0);
    Value classes = createIntConstant(rewriter, loc, i64, *numClasses);
    if (selfType.getNumElements() > 0) {
      Value nonNegative =
          createAllOf(rewriter, loc, self, [&](OpBuilder &b, Location l, Value v) {
            return arith::CmpIOp::create(b, l, arith::CmpIPredicate::sge, v,
                                         zero)
                .getResult();
          });
      emitRuntimeCheck(rewriter, loc, nonNegative,
                       "one_hot: Class values must be non-negative.");
      Value small =
          createAllOf(rewriter, loc, self, [&](OpBuilder &b, Location l, Value v) {
            return arith::CmpIOp::create(b, l, arith::CmpIPredicate::slt, v,
                                         classes)
                .getResult();
          });
      emitRuntimeCheck(rewriter, loc, small,
                       "one_hot: Class values must be smaller than "
                       "num_classes.");
    }
    SmallVector<AffineMap> maps{getDropDimsMap(rank + 1, {rank}, context),
                                rewriter.getMultiDimIdentityMap(rank + 1)};
    SmallVector<utils::IteratorType> iterators(rank + 1,
                                               utils::IteratorType::parallel);
    auto generic = linalg::GenericOp::create(
        rewriter, loc, TypeRange{type}, ValueRange{self},
        ValueRange{createEmptyTensor(rewriter, loc, type)}, maps, iterators,
        [&](OpBuilder &b, Location l, ValueRange args) {
          Value c = arith::IndexCastOp::create(
              b, l, i64, linalg::IndexOp::create(b, l, rank));
          Value hit =
              arith::CmpIOp::create(b, l, arith::CmpIPredicate::eq, args[0], c);
          linalg::YieldOp::create(
              b, l, castScalar(b, l, hit, i64, /*srcUnsigned=*/true));
        });
    rewriter.replaceOp(op, generic.getResult(0));
    return success();
  }
};

} // namespace

void populateTensorConstructorsPatterns(TorchTypeConverter &typeConverter,
                                        RewritePatternSet &patterns) {
  patterns.add<ConvertZeroOp, ConvertFillScalarOp, ConvertValueTensorLiteralOp,
               ConvertEyeOp<torch::AtenEyeOp>, ConvertEyeOp<torch::AtenEyeMOp>,
               ConvertOneHotOp>(typeConverter, patterns.getContext());
}

} // namespace ltc_mlir::torch_to_linalg
