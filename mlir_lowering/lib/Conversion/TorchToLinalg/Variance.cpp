//===- Variance.cpp - var, std, var_mean, std_mean ------------------------===//
//
// Two passes, like ATen's CPU kernels are exact to about the same degree:
// mean = sum(x) / N, then var = sum((x - mean)^2) / max(0, N - correction)
// (correction None = 1, one read at run time when it is not a constant;
// the .dim ops' unbiased is correction 1 or 0), both sums blocked
// (createSum). ATen accumulates f32 in double (at::acc_type<float,
// /*is_cuda=*/false>), and so do we; f16/bf16 in f32. N - correction <= 0 divides by zero (inf or NaN, as
// eager), an empty reduction gives a NaN mean. std = sqrt(var). Complex
// and integer inputs are refused (eager raises for integers).
//
//===----------------------------------------------------------------------===//

#include "ReductionUtils.h"

#include "mlir/Dialect/Math/IR/Math.h"

using namespace mlir;

namespace ltc_mlir::torch_to_linalg {
namespace {

/// (var or std, mean) of `input` over `dims`, in `elemType`, dims dropped.
/// `correction` is an i64 value (a constant, or an argument of the graph:
/// LTC passes Scalars other than 0 and 1 as device data).
std::pair<Value, Value> createVariance(OpBuilder &b, Location loc, Value input,
                                       ArrayRef<int64_t> dims,
                                       Value correction, bool isStd,
                                       Type elemType) {
  MLIRContext *ctx = b.getContext();
  auto inputType = cast<RankedTensorType>(input.getType());
  int64_t rank = inputType.getRank();
  Type accType = elemType.isF64() || elemType.isF32()
                     ? Type(Float64Type::get(ctx))
                     : Type(Float32Type::get(ctx));
  int64_t count = 1;
  for (int64_t d : dims)
    count *= inputType.getDimSize(d);
  AffineMap identity = b.getMultiDimIdentityMap(rank);
  Value sum = createSum(b, loc, inputType.getShape(), dims, input, identity,
                        accType,
                        [&](OpBuilder &nb, Location nloc, ValueRange args,
                            LoopIndexFn) -> SmallVector<Value> {
                          return {castScalar(nb, nloc, args[0], accType)};
                        })
                  .front();
  auto accResultType = cast<RankedTensorType>(sum.getType());
  Value countValue = createScalarConstant(b, loc, accType, double(count));
  Value mean = *createElementwiseOp(
      b, loc, accResultType, sum,
      [&](OpBuilder &nb, Location nloc, ValueRange args) -> Value {
        return arith::DivFOp::create(nb, nloc, args[0], countValue);
      });
  Value squares =
      createSum(b, loc, inputType.getShape(), dims, ValueRange{input, mean},
                {identity, getDropDimsMap(rank, dims, ctx)}, accType,
                [&](OpBuilder &nb, Location nloc, ValueRange args,
                    LoopIndexFn) -> SmallVector<Value> {
                  Value x = castScalar(nb, nloc, args[0], accType);
                  Value d = arith::SubFOp::create(nb, nloc, x, args[1]);
                  return {arith::MulFOp::create(nb, nloc, d, d).getResult()};
                })
          .front();
  // max(0, N - correction), converted to the accumulator type.
  Value remaining = arith::MaxSIOp::create(
      b, loc,
      arith::SubIOp::create(b, loc,
                            createIntConstant(b, loc, b.getI64Type(), count),
                            correction),
      createIntConstant(b, loc, b.getI64Type(), 0));
  Value divisor = arith::SIToFPOp::create(b, loc, accType, remaining);
  auto resultType = RankedTensorType::get(accResultType.getShape(), elemType);
  Value var = *createElementwiseOp(
      b, loc, resultType, squares,
      [&](OpBuilder &nb, Location nloc, ValueRange args) -> Value {
        Value v = arith::DivFOp::create(nb, nloc, args[0], divisor);
        if (isStd)
          v = math::SqrtOp::create(nb, nloc, v);
        return castScalar(nb, nloc, v, elemType);
      });
  return {var, castTensor(b, loc, mean, elemType)};
}

/// The correction of var/std as an i64 value: `.correction` ops take an
/// optional Scalar (None = 1), `.dim` ops a bool `unbiased` (1 or 0).
template <typename OpTy>
FailureOr<Value> getCorrection(OpTy op, typename OpTy::Adaptor adaptor,
                               OpBuilder &b) {
  Location loc = op.getLoc();
  if constexpr (requires { op.getUnbiased(); }) {
    std::optional<bool> unbiased = getConstantBool(op.getUnbiased());
    if (!unbiased)
      return failure();
    return createIntConstant(b, loc, b.getI64Type(), *unbiased ? 1 : 0);
  } else {
    if (isNone(op.getCorrection()))
      return createIntConstant(b, loc, b.getI64Type(), 1);
    if (std::optional<int64_t> c = getConstantInt(op.getCorrection()))
      return createIntConstant(b, loc, b.getI64Type(), *c);
    // A float correction (torch allows one) is refused here: it is not an
    // i64 after conversion.
    Value converted = adaptor.getCorrection();
    if (!converted.getType().isInteger(64))
      return failure();
    return converted;
  }
}

template <typename OpTy, bool IsStd, bool WithMean>
class ConvertVarianceOp : public TorchConversionPattern<OpTy> {
public:
  using OpAdaptor = typename OpTy::Adaptor;
  using TorchConversionPattern<OpTy>::TorchConversionPattern;

  LogicalResult
  matchAndRewrite(OpTy op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    RankedTensorType type, meanType;
    if constexpr (WithMean) {
      type = this->getTensorType(op.getResult0().getType());
      meanType = this->getTensorType(op.getResult1().getType());
      if (type != meanType)
        return this->fail(op, rewriter, "result types differ");
    } else {
      type = this->getTensorType(op.getType());
    }
    Value self = adaptor.getSelf();
    auto selfType = cast<RankedTensorType>(self.getType());
    if (!type || !isa<FloatType>(type.getElementType()) ||
        type.getElementType() != selfType.getElementType())
      return this->fail(op, rewriter,
                        "needs a floating-point self and result of one dtype");
    std::optional<bool> keepdim = getConstantBool(op.getKeepdim());
    if (!keepdim)
      return this->fail(op, rewriter, "keepdim must be a constant");
    FailureOr<Value> correction = getCorrection(op, adaptor, rewriter);
    if (failed(correction))
      return this->fail(op, rewriter,
                        "correction must be an int (unbiased a constant)");
    std::string why;
    FailureOr<SmallVector<int64_t>> dims = getCheckedReductionDims(
        op.getDim(), selfType.getShape(), *keepdim, type.getShape(), why);
    if (failed(dims))
      return this->fail(op, rewriter, why);
    Location loc = op.getLoc();
    auto [var, mean] = createVariance(rewriter, loc, self, *dims, *correction,
                                      IsStd, type.getElementType());
    LogicalResult replaced =
        WithMean ? replaceWithReshaped(op, rewriter, {var, mean}, {type, type})
                 : replaceWithReshaped(op, rewriter, var, type);
    if (failed(replaced))
      return this->fail(op, rewriter, "cannot reshape the result");
    return success();
  }
};

} // namespace

void populateVariancePatterns(TorchTypeConverter &typeConverter,
                              RewritePatternSet &patterns) {
  patterns.add<
      ConvertVarianceOp<torch::AtenVarCorrectionOp, false, false>,
      ConvertVarianceOp<torch::AtenStdCorrectionOp, true, false>,
      ConvertVarianceOp<torch::AtenVarMeanCorrectionOp, false, true>,
      ConvertVarianceOp<torch::AtenStdMeanCorrectionOp, true, true>,
      ConvertVarianceOp<torch::AtenVarDimOp, false, false>,
      ConvertVarianceOp<torch::AtenStdDimOp, true, false>,
      ConvertVarianceOp<torch::AtenVarMeanDimOp, false, true>,
      ConvertVarianceOp<torch::AtenStdMeanDimOp, true, true>>(
      typeConverter, patterns.getContext());
}

} // namespace ltc_mlir::torch_to_linalg
