//===- MaskedFill.cpp - masked_fill.Scalar / masked_fill.Tensor ------------===//
//
// result = mask ? value : self, with mask broadcast to self's shape (the
// result's) and value converted to self's dtype like ATen's
// value.to<scalar_t>() (for a bool self: value != 0). masked_fill.Tensor
// takes value as a 0-dim tensor (read through a broadcast map). In-place
// masked_fill_ reaches us functionalized; autograd's backward of masked_fill
// is grad.masked_fill(mask, 0).
//
//===----------------------------------------------------------------------===//

#include "ltc_mlir/Conversion/TorchToLinalg/Utils.h"

using namespace mlir;

namespace ltc_mlir::torch_to_linalg {
namespace {

template <typename OpTy, bool ValueIsTensor>
class ConvertMaskedFillOp : public TorchConversionPattern<OpTy> {
public:
  using OpAdaptor = typename OpTy::Adaptor;
  using TorchConversionPattern<OpTy>::TorchConversionPattern;

  LogicalResult
  matchAndRewrite(OpTy op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    RankedTensorType resultType = this->getTensorType(op.getType());
    if (!resultType)
      return this->fail(op, rewriter, "result type is not convertible");
    auto selfType = dyn_cast<RankedTensorType>(adaptor.getSelf().getType());
    if (!selfType || selfType.getShape() != resultType.getShape())
      return this->fail(op, rewriter, "result must have self's shape");
    Type maskDtype = getTorchDtype(op.getMask());
    if (!isBoolDtype(maskDtype))
      return this->fail(op, rewriter, "mask must be a bool tensor");
    Location loc = op.getLoc();
    Type elemType = resultType.getElementType();
    bool isBool = isBoolDtype(getTorchDtype(op.getResult()));
    bool selfUnsigned = isUnsignedDtype(getTorchDtype(op.getSelf()));
    // value.to<scalar_t>(): a C++ cast (bool: != 0, stored as i8 0/1).
    auto convert = [&](OpBuilder &b, Location l, Value v,
                       bool srcUnsigned) -> Value {
      if (isBool) {
        v = castScalar(b, l, v, b.getI1Type(), srcUnsigned);
        srcUnsigned = true;
      }
      return castScalar(b, l, v, elemType, srcUnsigned);
    };
    SmallVector<Value> inputs{adaptor.getSelf(), adaptor.getMask()};
    Value scalarValue;
    bool valueUnsigned = false;
    if constexpr (ValueIsTensor) {
      auto valueType = dyn_cast<RankedTensorType>(adaptor.getValue().getType());
      if (!valueType || valueType.getRank() != 0)
        return this->fail(op, rewriter, "value must be a 0-dim tensor");
      inputs.push_back(adaptor.getValue());
      valueUnsigned = isUnsignedDtype(getTorchDtype(op.getValue()));
    } else {
      scalarValue = convert(rewriter, loc, adaptor.getValue(), false);
    }
    FailureOr<Value> result = createElementwiseOp(
        rewriter, loc, resultType, inputs,
        [&](OpBuilder &b, Location l, ValueRange args) {
          Value cond = castScalar(b, l, args[1], b.getI1Type(), true);
          Value fill = ValueIsTensor ? convert(b, l, args[2], valueUnsigned)
                                     : scalarValue;
          Value self = castScalar(b, l, args[0], elemType, selfUnsigned);
          return arith::SelectOp::create(b, l, cond, fill, self).getResult();
        });
    return this->replaceOrFail(op, rewriter, result,
                               "mask does not broadcast to self's shape");
  }
};

} // namespace

void populateMaskedFillPatterns(TorchTypeConverter &typeConverter,
                                RewritePatternSet &patterns) {
  patterns.add<ConvertMaskedFillOp<torch::AtenMaskedFillScalarOp, false>,
               ConvertMaskedFillOp<torch::AtenMaskedFillTensorOp, true>>(
      typeConverter, patterns.getContext());
}

} // namespace ltc_mlir::torch_to_linalg
