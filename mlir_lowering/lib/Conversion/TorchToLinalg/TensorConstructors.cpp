//===- TensorConstructors.cpp - zero, fill.Scalar -> linalg.fill ----------===//
//
// The functional forms of zero_ and fill_ only keep the shape of `self`.
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

} // namespace

void populateTensorConstructorsPatterns(TorchTypeConverter &typeConverter,
                                        RewritePatternSet &patterns) {
  patterns.add<ConvertZeroOp, ConvertFillScalarOp, ConvertValueTensorLiteralOp>(
      typeConverter, patterns.getContext());
}

} // namespace ltc_mlir::torch_to_linalg
