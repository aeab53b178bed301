//===- MaskedFill.cpp - masked_fill.Scalar, masked_fill.Tensor ------------===//
//
// masked_fill(self, mask, value) = mask ? value : self, one broadcasting
// linalg.generic (the result has the broadcast shape of self and mask, as
// ATen's out-of-place masked_fill expands both). The value is converted to
// self's dtype like ATen's masked_fill_ (Scalar::to<T>: a C++ cast, `!= 0`
// for bool); masked_fill.Tensor takes it from a 0-dim tensor (item()). Its
// backward is masked_fill(grad, mask, 0).
//
//===----------------------------------------------------------------------===//

#include "ltc_mlir/Conversion/TorchToLinalg/Utils.h"

using namespace mlir;

namespace ltc_mlir::torch_to_linalg {
namespace {

template <typename OpTy>
class ConvertMaskedFillOp : public TorchConversionPattern<OpTy> {
public:
  using OpAdaptor = typename OpTy::Adaptor;
  using TorchConversionPattern<OpTy>::TorchConversionPattern;
  static constexpr bool kTensorValue =
      std::is_same_v<OpTy, torch::AtenMaskedFillTensorOp>;

  LogicalResult
  matchAndRewrite(OpTy op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    RankedTensorType type = this->getTensorType(op.getType());
    if (!type)
      return this->fail(op, rewriter, "result type is not convertible");
    // torch 1.13: "masked_fill_ only supports boolean masks".
    if (!isBoolDtype(getTorchDtype(op.getMask())))
      return this->fail(op, rewriter, "mask must be bool");
    Type selfDtype = getTorchDtype(op.getSelf());
    if (selfDtype != getTorchDtype(op.getResult()))
      return this->fail(op, rewriter, "result dtype differs from self's");
    bool selfBool = isBoolDtype(selfDtype);
    Type elemType = type.getElementType();
    Location loc = op.getLoc();

    // The fill value as a scalar of self's dtype (bools as i8 0/1).
    auto convert = [&, elemType](OpBuilder &b, Location l, Value v,
                                 bool srcUnsigned) -> Value {
      if (selfBool) {
        v = castScalar(b, l, v, b.getI1Type(), srcUnsigned);
        return castScalar(b, l, v, elemType, /*srcUnsigned=*/true);
      }
      // item()/Scalar: ints through int64, floats through double.
      Type via = isa<FloatType>(v.getType()) ? Type(b.getF64Type())
                                            : Type(b.getI64Type());
      v = castScalar(b, l, v, via, srcUnsigned);
      return castScalar(b, l, v, elemType);
    };

    SmallVector<Value> inputs = {adaptor.getMask(), adaptor.getSelf()};
    Value scalar;
    bool valueUnsigned = false;
    if constexpr (kTensorValue) {
      auto valueType = cast<RankedTensorType>(adaptor.getValue().getType());
      if (valueType.getRank() != 0)
        return this->fail(op, rewriter,
                          "value must be a 0-dim tensor (eager raises)");
      Type valueDtype = getTorchDtype(op.getValue());
      valueUnsigned = isUnsignedDtype(valueDtype) || isBoolDtype(valueDtype);
      inputs.push_back(adaptor.getValue());
    } else {
      scalar = convert(rewriter, loc, adaptor.getValue(), false);
    }
    FailureOr<Value> result = createElementwiseOp(
        rewriter, loc, type, inputs,
        [&](OpBuilder &b, Location l, ValueRange args) {
          Value cond = castScalar(b, l, args[0], b.getI1Type(), true);
          Value fill =
              kTensorValue ? convert(b, l, args[2], valueUnsigned) : scalar;
          return arith::SelectOp::create(b, l, cond, fill, args[1])
              .getResult();
        });
    return this->replaceOrFail(op, rewriter, result,
                               "self and mask do not broadcast to the result");
  }
};

} // namespace

void populateMaskedFillPatterns(TorchTypeConverter &typeConverter,
                                RewritePatternSet &patterns) {
  patterns.add<ConvertMaskedFillOp<torch::AtenMaskedFillScalarOp>,
               ConvertMaskedFillOp<torch::AtenMaskedFillTensorOp>>(
      typeConverter, patterns.getContext());
}

} // namespace ltc_mlir::torch_to_linalg
