//===- Linear.cpp - mm, bmm, addmm -> linalg.matmul / batch_matmul --------===//
//
// Products are named linalg contractions accumulating into a zero-filled init
// tensor, so that the pipelines can recognize, tile and vectorize them (or
// hand them to a microkernel). addmm adds beta * self + alpha * product in a
// separate elementwise op that fusion can fold into the consumer.
//
//===----------------------------------------------------------------------===//

#include "ltc_mlir/Conversion/TorchToLinalg/Utils.h"

using namespace mlir;

namespace ltc_mlir::torch_to_linalg {
namespace {

/// Casts both operands to the result element type (ATen requires equal
/// dtypes, so this is normally a no-op) and builds the contraction. Its
/// accumulator (and result) is of type `accType`: the contraction reads
/// f16/bf16 operands and accumulates in f32, as ATen's CPU GEMMs do.
template <typename ContractionOp>
Value createContraction(OpBuilder &b, Location loc, RankedTensorType type,
                        Type accType, Value lhs, bool lhsUnsigned, Value rhs,
                        bool rhsUnsigned) {
  lhs = castTensor(b, loc, lhs, type.getElementType(), lhsUnsigned);
  rhs = castTensor(b, loc, rhs, type.getElementType(), rhsUnsigned);
  auto accTensorType = type.clone(accType);
  Value init = createZeroTensor(b, loc, accTensorType);
  return ContractionOp::create(b, loc, TypeRange{accTensorType},
                               ValueRange{lhs, rhs}, ValueRange{init})
      .getResult(0);
}

/// [B,] M, K  x  [B,] K, N  ->  [B,] M, N for the shapes of the operands
/// and the result, all of rank 2 or all of rank 3.
bool isMatmulShape(ArrayRef<int64_t> l, ArrayRef<int64_t> r,
                   ArrayRef<int64_t> o) {
  size_t rank = o.size();
  return l[rank - 1] == r[rank - 2] && o[rank - 2] == l[rank - 2] &&
         o[rank - 1] == r[rank - 1] &&
         (rank == 2 || (l[0] == o[0] && r[0] == o[0]));
}

template <typename OpTy, typename ContractionOp, int64_t Rank>
class ConvertMatmulLikeOp : public TorchConversionPattern<OpTy> {
public:
  using OpAdaptor = typename OpTy::Adaptor;
  using TorchConversionPattern<OpTy>::TorchConversionPattern;

  LogicalResult
  matchAndRewrite(OpTy op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    RankedTensorType type = this->getTensorType(op.getType());
    auto lhsType = dyn_cast<RankedTensorType>(adaptor.getSelf().getType());
    auto rhsType = dyn_cast<RankedTensorType>(adaptor.getMat2().getType());
    if (!type || !lhsType || !rhsType)
      return this->fail(op, rewriter, "operand types are not convertible");
    // Bool tensors are stored as i8 (see TorchTypeConverter).
    if (isBoolDtype(getTorchDtype(op.getResult())))
      return this->fail(op, rewriter, "bool matmul is not supported");
    if (lhsType.getRank() != Rank || rhsType.getRank() != Rank ||
        type.getRank() != Rank)
      return this->fail(op, rewriter, "expects operands and result of rank " +
                                          Twine(Rank));
    if (!isMatmulShape(lhsType.getShape(), rhsType.getShape(), type.getShape()))
      return this->fail(op, rewriter, "operand shapes do not match");
    Type accType = getSumAccumulatorType(type.getElementType());
    Value product = createContraction<ContractionOp>(
        rewriter, op.getLoc(), type, accType, adaptor.getSelf(),
        isUnsignedDtype(getTorchDtype(op.getSelf())), adaptor.getMat2(),
        isUnsignedDtype(getTorchDtype(op.getMat2())));
    // Rounded once to the result dtype (no-op unless f16/bf16).
    rewriter.replaceOp(op, castTensor(rewriter, op.getLoc(), product,
                                      type.getElementType()));
    return success();
  }
};

/// Whether the torch scalar `original` is the constant `value`.
bool isConstantScalar(Value original, int64_t value) {
  if (std::optional<int64_t> v = getConstantInt(original))
    return *v == value;
  if (std::optional<double> v = getConstantFloat(original))
    return *v == static_cast<double>(value);
  return false;
}

/// addmm(self, mat1, mat2, beta, alpha) = beta * self + alpha * (mat1 @ mat2)
/// with self broadcast to [M, N]. As in ATen, beta == 0 ignores self
/// entirely (NaN/inf in self do not propagate).
class ConvertAddmmOp : public TorchConversionPattern<torch::AtenAddmmOp> {
public:
  using Base::Base;

  LogicalResult
  matchAndRewrite(torch::AtenAddmmOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    RankedTensorType type = getTensorType(op.getType());
    auto selfType = dyn_cast<RankedTensorType>(adaptor.getSelf().getType());
    auto lhsType = dyn_cast<RankedTensorType>(adaptor.getMat1().getType());
    auto rhsType = dyn_cast<RankedTensorType>(adaptor.getMat2().getType());
    if (!type || !selfType || !lhsType || !rhsType)
      return fail(op, rewriter, "operand types are not convertible");
    Type elemType = type.getElementType();
    if (isBoolDtype(getTorchDtype(op.getResult())))
      return fail(op, rewriter, "bool matmul is not supported");
    if (lhsType.getRank() != 2 || rhsType.getRank() != 2 ||
        type.getRank() != 2)
      return fail(op, rewriter, "mat1, mat2 and the result must be 2-D");
    if (!isMatmulShape(lhsType.getShape(), rhsType.getShape(), type.getShape()))
      return fail(op, rewriter, "operand shapes do not match");
    if (failed(getBroadcastMap(selfType.getShape(), type.getShape(),
                               op.getContext())))
      return fail(op, rewriter, "self does not broadcast to [M, N]");

    Location loc = op.getLoc();
    // f16/bf16: the product and the epilogue in f32, rounded once at the end
    // (ATen's GEMMs compute beta * self + alpha * sum in their accumulator).
    Type resultElemType = elemType;
    elemType = getSumAccumulatorType(elemType);
    auto resultType = type;
    type = type.clone(elemType);
    Value product = createContraction<linalg::MatmulOp>(
        rewriter, loc, resultType, elemType, adaptor.getMat1(),
        isUnsignedDtype(getTorchDtype(op.getMat1())), adaptor.getMat2(),
        isUnsignedDtype(getTorchDtype(op.getMat2())));

    bool alphaIsOne = isConstantScalar(op.getAlpha(), 1);
    bool betaIsOne = isConstantScalar(op.getBeta(), 1);
    bool isFloat = isa<FloatType>(elemType);
    Value alpha = alphaIsOne
                      ? Value()
                      : castScalar(rewriter, loc, adaptor.getAlpha(), elemType);

    auto replace = [&](Value result) {
      rewriter.replaceOp(op, castTensor(rewriter, loc, result, resultElemType));
      return success();
    };
    if (isConstantScalar(op.getBeta(), 0)) {
      if (alphaIsOne)
        return replace(product);
      return replace(
          *createElementwiseOp(rewriter, loc, type, product,
                               [&](OpBuilder &b, Location l, ValueRange args) {
                                 return createMul(b, l, alpha, args[0]);
                               }));
    }

    Value beta, betaIsZero;
    if (!betaIsOne) {
      beta = castScalar(rewriter, loc, adaptor.getBeta(), elemType);
      // A runtime beta of 0 must still ignore self.
      Value zero = createScalarConstant(rewriter, loc, elemType, 0);
      betaIsZero =
          isFloat ? arith::CmpFOp::create(rewriter, loc,
                                          arith::CmpFPredicate::OEQ, beta, zero)
                        .getResult()
                  : arith::CmpIOp::create(rewriter, loc,
                                          arith::CmpIPredicate::eq, beta, zero)
                        .getResult();
    }
    bool selfUnsigned = isUnsignedDtype(getTorchDtype(op.getSelf()));
    FailureOr<Value> result = createElementwiseOp(
        rewriter, loc, type, ValueRange{adaptor.getSelf(), product},
        [&](OpBuilder &b, Location l, ValueRange args) -> Value {
          Value self = castScalar(b, l, args[0], elemType, selfUnsigned);
          Value scaledProduct =
              alpha ? createMul(b, l, alpha, args[1]) : args[1];
          Value scaledSelf = beta ? createMul(b, l, beta, self) : self;
          Value sum = createAdd(b, l, scaledSelf, scaledProduct);
          if (!beta)
            return sum;
          return arith::SelectOp::create(b, l, betaIsZero, scaledProduct, sum);
        });
    return replace(*result);
  }
};

} // namespace

void populateLinearPatterns(TorchTypeConverter &typeConverter,
                            RewritePatternSet &patterns) {
  MLIRContext *context = patterns.getContext();
  patterns.add<ConvertMatmulLikeOp<torch::AtenMmOp, linalg::MatmulOp, 2>,
               ConvertMatmulLikeOp<torch::AtenBmmOp, linalg::BatchMatmulOp, 3>,
               ConvertAddmmOp>(typeConverter, context);
}

} // namespace ltc_mlir::torch_to_linalg
