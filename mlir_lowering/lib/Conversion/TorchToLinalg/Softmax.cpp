//===- Softmax.cpp - softmax, log_softmax and their backwards -> linalg ---===//
//
// Each op is a short chain of linalg.generic ops over the input shape: row
// reductions along `dim` (results drop that dim) and elementwise ops that
// read the reduced values through a map without `dim`. Forward ops subtract
// the row max before exp, as ATen does, so large inputs do not overflow.
//
//===----------------------------------------------------------------------===//

#include "ltc_mlir/Conversion/TorchToLinalg/Utils.h"

#include "mlir/Dialect/Math/IR/Math.h"

#include <limits>

using namespace mlir;

namespace ltc_mlir::torch_to_linalg {
namespace {

/// Builds generics over a tensor of `type` where `dims` (empty or one dim)
/// is the softmax dim. "Full" operands have `type`'s shape; "row" operands
/// lack `dims`.
class RowwiseBuilder {
public:
  RowwiseBuilder(OpBuilder &b, Location loc, RankedTensorType type,
                 ArrayRef<int64_t> dims)
      : b(b), loc(loc), type(type), dims(dims) {}

  using Body = function_ref<Value(OpBuilder &, Location, ValueRange full,
                                  ValueRange row)>;

  RankedTensorType getRowType() const {
    SmallVector<int64_t> shape;
    for (int64_t d = 0; d < type.getRank(); ++d)
      if (!llvm::is_contained(dims, d))
        shape.push_back(type.getDimSize(d));
    return RankedTensorType::get(shape, type.getElementType());
  }

  /// Reduces body(full, row) along dims, combining with `combine` from
  /// `init` in one linalg.generic (for order-independent reductions such as
  /// max; sums go through `sum`).
  Value reduce(ValueRange full, ValueRange row, Value init, Body body,
               function_ref<Value(OpBuilder &, Location, Value, Value)>
                   combine) {
    RankedTensorType rowType = getRowType();
    Value acc = createFilledTensor(b, loc, rowType, init);
    SmallVector<utils::IteratorType> iterators;
    for (int64_t d = 0; d < type.getRank(); ++d)
      iterators.push_back(llvm::is_contained(dims, d)
                              ? utils::IteratorType::reduction
                              : utils::IteratorType::parallel);
    return build(rowType, full, row, acc, getRowMap(), iterators,
                 [&](OpBuilder &nb, Location nloc, ValueRange f, ValueRange r,
                     Value accValue) {
                   return combine(nb, nloc, body(nb, nloc, f, r), accValue);
                 });
  }

  /// Sums body(full, row) along dims, in blocks (createSum).
  Value sum(ValueRange full, ValueRange row, Body body) {
    SmallVector<Value> inputs(full);
    inputs.append(row.begin(), row.end());
    SmallVector<AffineMap> maps(full.size(),
                                b.getMultiDimIdentityMap(type.getRank()));
    maps.append(row.size(), getRowMap());
    size_t numFull = full.size();
    return createSum(b, loc, type.getShape(), dims, inputs, maps,
                     type.getElementType(),
                     [&](OpBuilder &nb, Location nloc, ValueRange args,
                         LoopIndexFn) -> SmallVector<Value> {
                       return {body(nb, nloc, args.take_front(numFull),
                                    args.drop_front(numFull))};
                     })
        .front();
  }

  /// Elementwise over the full shape.
  Value map(ValueRange full, ValueRange row, Body body) {
    SmallVector<utils::IteratorType> iterators(type.getRank(),
                                               utils::IteratorType::parallel);
    return build(type, full, row, createEmptyTensor(b, loc, type),
                 b.getMultiDimIdentityMap(type.getRank()), iterators,
                 [&](OpBuilder &nb, Location nloc, ValueRange f, ValueRange r,
                     Value) { return body(nb, nloc, f, r); });
  }

private:
  AffineMap getRowMap() const {
    return getDropDimsMap(type.getRank(), dims, b.getContext());
  }

  Value build(RankedTensorType resultType, ValueRange full, ValueRange row,
              Value init, AffineMap outputMap,
              ArrayRef<utils::IteratorType> iterators,
              function_ref<Value(OpBuilder &, Location, ValueRange, ValueRange,
                                 Value)>
                  body) {
    SmallVector<Value> inputs(full);
    inputs.append(row.begin(), row.end());
    SmallVector<AffineMap> maps(full.size(),
                                b.getMultiDimIdentityMap(type.getRank()));
    maps.append(row.size(), getRowMap());
    maps.push_back(outputMap);
    size_t numFull = full.size(), numRow = row.size();
    auto generic = linalg::GenericOp::create(
        b, loc, TypeRange{resultType}, inputs, ValueRange{init}, maps,
        iterators, [&](OpBuilder &nb, Location nloc, ValueRange args) {
          Value result = body(nb, nloc, args.take_front(numFull),
                              args.slice(numFull, numRow), args.back());
          linalg::YieldOp::create(nb, nloc, result);
        });
    return generic.getResult(0);
  }

  OpBuilder &b;
  Location loc;
  RankedTensorType type;
  ArrayRef<int64_t> dims;
};

/// Base of the softmax patterns. Checks a float result of the input's shape
/// and a constant dim, then calls `rewrite` with the result type and the
/// softmax dims (see RowwiseBuilder).
template <typename OpTy>
class ConvertSoftmaxOpBase : public TorchConversionPattern<OpTy> {
public:
  using OpAdaptor = typename OpTy::Adaptor;
  using TorchConversionPattern<OpTy>::TorchConversionPattern;

  LogicalResult
  matchAndRewrite(OpTy op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const final {
    RankedTensorType type = this->getTensorType(op.getType());
    if (!type)
      return this->fail(op, rewriter, "result type is not convertible");
    if (!isa<FloatType>(type.getElementType()))
      return this->fail(op, rewriter, "needs a floating-point result dtype");
    auto sourceType = cast<RankedTensorType>(getShapeSource(adaptor).getType());
    if (sourceType.getShape() != type.getShape())
      return this->fail(op, rewriter,
                        "result shape differs from the input shape");
    std::optional<int64_t> dim = getConstantInt(op.getDim());
    if (!dim)
      return this->fail(op, rewriter, "dim must be a constant");
    std::optional<int64_t> d = normalizeDim(*dim, type.getRank());
    if (!d)
      return this->fail(op, rewriter, "dim out of range");
    SmallVector<int64_t> dims;
    if (type.getRank() > 0) // a 0-d tensor is its own row
      dims.push_back(*d);
    return rewrite(op, adaptor, type, dims, rewriter);
  }

protected:
  /// The operand whose shape the result has.
  virtual Value getShapeSource(OpAdaptor adaptor) const = 0;
  virtual LogicalResult rewrite(OpTy op, OpAdaptor adaptor,
                                RankedTensorType type, ArrayRef<int64_t> dims,
                                ConversionPatternRewriter &rewriter) const = 0;
};

/// _softmax / _log_softmax(self, dim, half_to_float).
template <typename OpTy, bool IsLog>
class ConvertSoftmaxOp : public ConvertSoftmaxOpBase<OpTy> {
public:
  using OpAdaptor = typename OpTy::Adaptor;
  using ConvertSoftmaxOpBase<OpTy>::ConvertSoftmaxOpBase;

protected:
  Value getShapeSource(OpAdaptor adaptor) const override {
    return adaptor.getSelf();
  }

  LogicalResult rewrite(OpTy op, OpAdaptor adaptor, RankedTensorType type,
                        ArrayRef<int64_t> dims,
                        ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    // half_to_float is reflected in the result dtype. f16/bf16 rows are
    // computed in f32 and rounded once, like ATen's kernels.
    Type elemType = getSumAccumulatorType(type.getElementType());
    RankedTensorType computeType = type.clone(elemType);
    Value x = castTensor(rewriter, loc, adaptor.getSelf(), elemType,
                         isUnsignedDtype(getTorchDtype(op.getSelf())));
    RowwiseBuilder rows(rewriter, loc, computeType, dims);

    Value negInf = createScalarConstant(
        rewriter, loc, elemType, -std::numeric_limits<double>::infinity());
    Value max = rows.reduce(
        x, {}, negInf,
        [](OpBuilder &, Location, ValueRange f, ValueRange) { return f[0]; },
        [](OpBuilder &b, Location l, Value v, Value acc) -> Value {
          return arith::MaximumFOp::create(b, l, v, acc);
        });
    auto expShifted = [](OpBuilder &b, Location l, ValueRange f,
                         ValueRange r) -> Value {
      return math::ExpOp::create(b, l,
                                 arith::SubFOp::create(b, l, f[0], r[0]));
    };
    Value sum = rows.sum(x, max, expShifted);

    Value result;
    if (IsLog) {
      // (x - max) - log(sum): ATen keeps this order, since max + log(sum)
      // would lose the small log term next to a large max.
      Value logSum = *createElementwiseOp(
          rewriter, loc, rows.getRowType(), sum,
          [](OpBuilder &b, Location l, ValueRange args) -> Value {
            return math::LogOp::create(b, l, args[0]);
          });
      result = rows.map(x, ValueRange{max, logSum},
                        [](OpBuilder &b, Location l, ValueRange f,
                           ValueRange r) -> Value {
                          Value shifted =
                              arith::SubFOp::create(b, l, f[0], r[0]);
                          return arith::SubFOp::create(b, l, shifted, r[1]);
                        });
    } else {
      result = rows.map(x, ValueRange{max, sum},
                        [&](OpBuilder &b, Location l, ValueRange f,
                            ValueRange r) -> Value {
                          return arith::DivFOp::create(
                              b, l, expShifted(b, l, f, r.take_front()), r[1]);
                        });
    }
    rewriter.replaceOp(op, castTensor(rewriter, loc, result,
                                      type.getElementType()));
    return success();
  }
};

/// _log_softmax_backward_data: grad - exp(output) * sum(grad, dim).
/// _softmax_backward_data:     output * (grad - sum(grad * output, dim)).
template <typename OpTy, bool IsLog>
class ConvertSoftmaxBackwardOp : public ConvertSoftmaxOpBase<OpTy> {
public:
  using OpAdaptor = typename OpTy::Adaptor;
  using ConvertSoftmaxOpBase<OpTy>::ConvertSoftmaxOpBase;

protected:
  Value getShapeSource(OpAdaptor adaptor) const override {
    return adaptor.getGradOutput();
  }

  LogicalResult rewrite(OpTy op, OpAdaptor adaptor, RankedTensorType type,
                        ArrayRef<int64_t> dims,
                        ConversionPatternRewriter &rewriter) const override {
    auto outputType = cast<RankedTensorType>(adaptor.getOutput().getType());
    if (outputType.getShape() != type.getShape())
      return this->fail(op, rewriter, "output and grad_output shapes differ");
    Location loc = op.getLoc();
    Type elemType = getSumAccumulatorType(type.getElementType());
    Value grad = castTensor(rewriter, loc, adaptor.getGradOutput(), elemType);
    Value output = castTensor(rewriter, loc, adaptor.getOutput(), elemType);
    RowwiseBuilder rows(rewriter, loc, type.clone(elemType), dims);

    Value result;
    if (IsLog) {
      Value sum = rows.sum(
          grad, {},
          [](OpBuilder &, Location, ValueRange f, ValueRange) { return f[0]; });
      result = rows.map(
          ValueRange{grad, output}, sum,
          [](OpBuilder &b, Location l, ValueRange f, ValueRange r) -> Value {
            Value e = math::ExpOp::create(b, l, f[1]);
            return arith::SubFOp::create(b, l, f[0],
                                         arith::MulFOp::create(b, l, e, r[0]));
          });
    } else {
      Value sum = rows.sum(
          ValueRange{grad, output}, {},
          [](OpBuilder &b, Location l, ValueRange f, ValueRange) -> Value {
            return arith::MulFOp::create(b, l, f[0], f[1]);
          });
      result = rows.map(
          ValueRange{grad, output}, sum,
          [](OpBuilder &b, Location l, ValueRange f, ValueRange r) -> Value {
            return arith::MulFOp::create(
                b, l, f[1], arith::SubFOp::create(b, l, f[0], r[0]));
          });
    }
    rewriter.replaceOp(op, castTensor(rewriter, loc, result,
                                      type.getElementType()));
    return success();
  }
};

} // namespace

/// The softmax family (declared in Patterns.h under its former file name;
/// layer norm is populated by LayerNorm.cpp).
void populateNormalizationPatterns(TorchTypeConverter &typeConverter,
                                   RewritePatternSet &patterns) {
  patterns.add<
      ConvertSoftmaxOp<torch::AtenSoftmaxOp, /*IsLog=*/false>,
      ConvertSoftmaxOp<torch::AtenLogSoftmaxOp, true>,
      ConvertSoftmaxBackwardOp<torch::AtenSoftmaxBackwardDataOp, false>,
      ConvertSoftmaxBackwardOp<torch::AtenLogSoftmaxBackwardDataOp, true>>(
      typeConverter, patterns.getContext());
}

} // namespace ltc_mlir::torch_to_linalg
