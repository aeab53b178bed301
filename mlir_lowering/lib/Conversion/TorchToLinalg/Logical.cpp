//===- Logical.cpp - logical_and/or/xor/not, bitwise_not ------------------===//
//
// logical_*: each operand is read as a truth value like a C++ bool cast
// (x != 0; NaN is true), the result (bool, stored as i8 0/1) is 0 or 1
// converted to the result dtype. bitwise_not: !x for bool, ~x for
// integers (ATen has no float bitwise_not).
//
//===----------------------------------------------------------------------===//

#include "ltc_mlir/Conversion/TorchToLinalg/Utils.h"

using namespace mlir;

namespace ltc_mlir::torch_to_linalg {
namespace {

enum class LogicalKind { And, Or, Xor, Not };

template <typename OpTy, LogicalKind Kind>
class ConvertLogicalOp : public TorchConversionPattern<OpTy> {
public:
  using OpAdaptor = typename OpTy::Adaptor;
  using TorchConversionPattern<OpTy>::TorchConversionPattern;

  LogicalResult
  matchAndRewrite(OpTy op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    RankedTensorType resultType = this->getTensorType(op.getType());
    if (!resultType)
      return this->fail(op, rewriter, "result type is not convertible");
    Type elemType = resultType.getElementType();
    SmallVector<Value> inputs;
    SmallVector<bool> unsignedInputs;
    for (auto [original, converted] :
         llvm::zip_equal(op->getOperands(), adaptor.getOperands())) {
      inputs.push_back(converted);
      Type dtype = getTorchDtype(original);
      unsignedInputs.push_back(isUnsignedDtype(dtype) || isBoolDtype(dtype));
    }
    FailureOr<Value> result = createElementwiseOp(
        rewriter, op.getLoc(), resultType, inputs,
        [&](OpBuilder &b, Location loc, ValueRange args) {
          SmallVector<Value> v;
          for (auto [arg, isUnsigned] : llvm::zip_equal(args, unsignedInputs))
            v.push_back(castScalar(b, loc, arg, b.getI1Type(), isUnsigned));
          Value r;
          switch (Kind) {
          case LogicalKind::And:
            r = arith::AndIOp::create(b, loc, v[0], v[1]);
            break;
          case LogicalKind::Or:
            r = arith::OrIOp::create(b, loc, v[0], v[1]);
            break;
          case LogicalKind::Xor:
            r = arith::XOrIOp::create(b, loc, v[0], v[1]);
            break;
          case LogicalKind::Not:
            r = arith::XOrIOp::create(
                b, loc, v[0], arith::ConstantIntOp::create(b, loc, 1, 1));
            break;
          }
          return castScalar(b, loc, r, elemType, /*srcUnsigned=*/true);
        });
    return this->replaceOrFail(op, rewriter, result,
                               "operand shapes do not broadcast to the result");
  }
};

class ConvertBitwiseNotOp
    : public TorchConversionPattern<torch::AtenBitwiseNotOp> {
public:
  using Base::Base;
  LogicalResult
  matchAndRewrite(torch::AtenBitwiseNotOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    RankedTensorType resultType = getTensorType(op.getType());
    if (!resultType)
      return fail(op, rewriter, "result type is not convertible");
    auto elemType = dyn_cast<IntegerType>(resultType.getElementType());
    if (!elemType || getTorchDtype(op.getSelf()) != getTorchDtype(op.getResult()))
      return fail(op, rewriter, "needs a bool or integer self and result");
    bool isBool = isBoolDtype(getTorchDtype(op.getResult()));
    FailureOr<Value> result = createElementwiseOp(
        rewriter, op.getLoc(), resultType, adaptor.getSelf(),
        [&](OpBuilder &b, Location loc, ValueRange args) -> Value {
          // bool: 1 - x on the 0/1 storage; integers: x ^ -1.
          Value mask = createIntConstant(b, loc, elemType, isBool ? 1 : -1);
          return arith::XOrIOp::create(b, loc, args[0], mask);
        });
    return replaceOrFail(op, rewriter, result,
                         "operand shape does not match the result");
  }
};

} // namespace

void populateLogicalPatterns(TorchTypeConverter &typeConverter,
                             RewritePatternSet &patterns) {
  patterns.add<
      ConvertLogicalOp<torch::AtenLogicalAndOp, LogicalKind::And>,
      ConvertLogicalOp<torch::AtenLogicalOrOp, LogicalKind::Or>,
      ConvertLogicalOp<torch::AtenLogicalXorOp, LogicalKind::Xor>,
      ConvertLogicalOp<torch::AtenLogicalNotOp, LogicalKind::Not>,
      ConvertBitwiseNotOp>(typeConverter, patterns.getContext());
}

} // namespace ltc_mlir::torch_to_linalg
