//===- TensorConstructors.cpp - zero, fill, arange, eye, one_hot ----------===//
//
// The functional forms of zero_ and fill_ only keep the shape of `self`.
// arange is a 1-D linalg.generic over linalg.index (see ConvertArangeOp).
// eye(n[, m]) is a linalg.generic over the result's indices (i == j). one_hot
// compares each index of self with the class index of a new last dim
// (num_classes must be a constant; ltc_backend keeps num_classes = -1, whose
// result shape depends on the values, out of the graph); out-of-range class
// values give all-zero rows and fail a runtime check with eager's message.
//
//===----------------------------------------------------------------------===//

#include "ltc_mlir/Conversion/TorchToLinalg/Utils.h"

#include "mlir/Dialect/Math/IR/Math.h"

#include <cmath>

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

/// ATen's accumulation type of arange for a result element type
/// (at::acc_type<T, /*is_cuda=*/false>): int64 for every integer dtype,
/// double for f32/f64, float for f16/bf16.
Type getArangeAccumulatorType(Type elemType) {
  MLIRContext *context = elemType.getContext();
  if (isa<IntegerType>(elemType))
    return IntegerType::get(context, 64);
  if (elemType.isF16() || elemType.isBF16())
    return Float32Type::get(context);
  return Float64Type::get(context);
}

/// The length ATen's arange_out gives [start, end) in steps of `step` when
/// all three are constants (a null start is 0, a null step 1), or nullopt.
/// For an int64 result the bounds are first truncated to int64
/// (Scalar::to<int64_t>), otherwise they are read as doubles:
/// ceil((end - start) / step).
std::optional<int64_t> getConstantArangeLength(Value start, Value end,
                                               Value step, bool isInt64) {
  struct Bound {
    double d;
    int64_t i;
  };
  auto read = [](Value v, int64_t dflt) -> std::optional<Bound> {
    if (!v)
      return Bound{double(dflt), dflt};
    if (std::optional<int64_t> i = getConstantInt(v))
      return Bound{double(*i), *i};
    std::optional<double> d = getConstantFloat(v);
    if (!d || !std::isfinite(*d) || std::abs(*d) >= 9.2e18)
      return std::nullopt;
    return Bound{*d, static_cast<int64_t>(*d)};
  };
  std::optional<Bound> s = read(start, 0), e = read(end, 0), st = read(step, 1);
  if (!s || !e || !st)
    return std::nullopt;
  double size;
  if (isInt64) {
    if (st->i == 0)
      return std::nullopt;
    size = std::ceil(static_cast<double>(e->i - s->i) / double(st->i));
  } else {
    if (st->d == 0.0)
      return std::nullopt;
    size = std::ceil((e->d - s->d) / st->d);
  }
  return size < 0 ? 0 : static_cast<int64_t>(size);
}

/// arange(end), arange.start(start, end) and arange.start_step(start, end,
/// step) (also LTC's arange.start_out, see the emitter): result[i] =
/// start + step * i, computed like ATen's CPU kernel in the accumulation
/// type (getArangeAccumulatorType; start and step converted to it first,
/// i.e. truncated toward zero for integer results) and then converted to
/// the result dtype. The scalars may be run-time values (LTC passes them
/// as graph inputs); the length is the result's static size, which LTC
/// computed with ATen's rule and which is checked when they are constants.
/// f32/f64 results reproduce ATen's loop (RangeFactoriesKernel.cpp with
/// Loops.h's vectorized_loop, AVX2/default 256-bit vectors of V = 8 f32 or
/// 4 f64, FMA-contracted): the first floor(n / 2V) * 2V elements come in
/// blocks of V as T(fma(k, step, T(fma(step, i0, start)))) (i0 = block
/// start, k = offset in it), the rest as T(fma(step, i, start)). Exact for
/// up to 32768 elements (ATen's grain size: one chunk); longer ranges are
/// split by ATen's thread count and may differ by an ulp, as may runs with
/// ATEN_CPU_CAPABILITY=avx512. f16/bf16 use the plain float formula.
template <typename OpTy>
class ConvertArangeOp : public TorchConversionPattern<OpTy> {
public:
  using OpAdaptor = typename OpTy::Adaptor;
  using TorchConversionPattern<OpTy>::TorchConversionPattern;

  LogicalResult
  matchAndRewrite(OpTy op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    RankedTensorType type = this->getTensorType(op.getType());
    if (!type || type.getRank() != 1)
      return this->fail(op, rewriter, "result must be a 1-D tensor");
    if (isBoolDtype(getTorchDtype(op.getResult())))
      return this->fail(op, rewriter,
                        "arange is not implemented for bool (as in eager)");
    Type elemType = type.getElementType();
    Location loc = op.getLoc();
    Type accType = getArangeAccumulatorType(elemType);

    Value torchStart, torchStep, adaptorStart, adaptorStep;
    if constexpr (!std::is_same_v<OpTy, torch::AtenArangeOp>) {
      torchStart = op.getStart();
      adaptorStart = adaptor.getStart();
    }
    if constexpr (std::is_same_v<OpTy, torch::AtenArangeStartStepOp>) {
      torchStep = op.getStep();
      adaptorStep = adaptor.getStep();
    }
    // Constant bounds: the length must be ATen's (an LTC shape bug would
    // otherwise give silently different values).
    std::optional<int64_t> length = getConstantArangeLength(
        torchStart, op.getEnd(), torchStep, elemType.isInteger(64));
    if (length && *length != type.getDimSize(0))
      return this->fail(op, rewriter,
                        "result length " + Twine(type.getDimSize(0)) +
                            " differs from ATen's " + Twine(*length));

    Value start = adaptorStart
                      ? castScalar(rewriter, loc, adaptorStart, accType)
                      : createScalarConstant(rewriter, loc, accType, 0.0);
    Value step = adaptorStep
                     ? castScalar(rewriter, loc, adaptorStep, accType)
                     : createScalarConstant(rewriter, loc, accType, 1.0);
    int64_t n = type.getDimSize(0);
    SmallVector<AffineMap> maps = {rewriter.getMultiDimIdentityMap(1)};
    SmallVector<utils::IteratorType> iterators = {
        utils::IteratorType::parallel};
    Value result =
        linalg::GenericOp::create(
            rewriter, loc, TypeRange{type}, ValueRange{},
            ValueRange{createEmptyTensor(rewriter, loc, type)}, maps,
            iterators,
            [&](OpBuilder &b, Location l, ValueRange) {
              Value index = linalg::IndexOp::create(b, l, 0);
              Value i = arith::IndexCastOp::create(b, l, b.getI64Type(), index);
              auto toAcc = [&](Value v) { return castScalar(b, l, v, accType); };
              Value v;
              if (!accType.isF64()) {
                v = createAdd(b, l, start, createMul(b, l, step, toAcc(i)));
              } else {
                int64_t lanes = 256 / elemType.getIntOrFloatBitWidth();
                int64_t vectorized = n / (2 * lanes) * (2 * lanes);
                Value laneMask = createIntConstant(b, l, i.getType(), ~(lanes - 1));
                Value i0 = arith::AndIOp::create(b, l, i, laneMask);
                Value k = arith::SubIOp::create(b, l, i, i0);
                Value base = math::FmaOp::create(b, l, step, toAcc(i0), start);
                base = toAcc(castScalar(b, l, base, elemType));
                Value inBlock = math::FmaOp::create(b, l, toAcc(k), step, base);
                Value tail = math::FmaOp::create(b, l, step, toAcc(i), start);
                Value isVector = arith::CmpIOp::create(
                    b, l, arith::CmpIPredicate::slt, i,
                    createIntConstant(b, l, i.getType(), vectorized));
                v = arith::SelectOp::create(b, l, isVector, inBlock, tail);
              }
              linalg::YieldOp::create(b, l, castScalar(b, l, v, elemType));
            })
            .getResult(0);
    rewriter.replaceOp(op, result);
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
               ConvertArangeOp<torch::AtenArangeOp>,
               ConvertArangeOp<torch::AtenArangeStartOp>,
               ConvertArangeOp<torch::AtenArangeStartStepOp>,
               ConvertEyeOp<torch::AtenEyeOp>, ConvertEyeOp<torch::AtenEyeMOp>,
               ConvertOneHotOp>(typeConverter, patterns.getContext());
}

} // namespace ltc_mlir::torch_to_linalg
