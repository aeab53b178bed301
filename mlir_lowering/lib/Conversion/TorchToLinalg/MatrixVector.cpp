//===- MatrixVector.cpp - dot, vdot, mv, addmv, addbmm, baddbmm, cross ----===//
//
// Inner products whose result is small compared with their sums (dot, mv,
// addmv, addbmm) are createSum contractions, blocked like every float sum
// (f16/bf16 accumulate in f32). baddbmm is a linalg.batch_matmul (as bmm)
// so that the pipelines tile and vectorize it. The add* ops then compute
// beta * self + alpha * product (self broadcast) in the accumulator type;
// beta == 0 ignores self entirely (NaN in self does not propagate), as in
// ATen. vdot equals dot for real dtypes (complex is not convertible).
// linalg_cross is the elementwise 3-vector cross product along dim.
//
//===----------------------------------------------------------------------===//

#include "ltc_mlir/Conversion/TorchToLinalg/Utils.h"

using namespace mlir;

namespace ltc_mlir::torch_to_linalg {
namespace {

bool isConstantScalarValue(Value original, int64_t value) {
  if (std::optional<int64_t> v = getConstantInt(original))
    return *v == value;
  if (std::optional<double> v = getConstantFloat(original))
    return *v == static_cast<double>(value);
  return false;
}

/// sum over `reduced` loops of lhs * rhs, read through `maps` over
/// `loopShape`, in `accType` (operands first converted to `elemType`).
Value createProductSum(OpBuilder &b, Location loc, ArrayRef<int64_t> loopShape,
                       ArrayRef<int64_t> reduced, Value lhs, Value rhs,
                       ArrayRef<AffineMap> maps, Type elemType, Type accType,
                       bool lhsUnsigned, bool rhsUnsigned) {
  return createSum(b, loc, loopShape, reduced, ValueRange{lhs, rhs}, maps,
                   accType,
                   [&](OpBuilder &nb, Location l, ValueRange args,
                       LoopIndexFn) -> SmallVector<Value> {
                     Value x = castScalar(nb, l, args[0], elemType, lhsUnsigned);
                     Value y = castScalar(nb, l, args[1], elemType, rhsUnsigned);
                     x = castScalar(nb, l, x, accType);
                     y = castScalar(nb, l, y, accType);
                     return {createMul(nb, l, x, y)};
                   })
      .front();
}

/// beta * self + alpha * product (product in `accType`, shaped as the
/// result), converted to the result's element type.
template <typename OpTy, typename AdaptorTy>
FailureOr<Value> createEpilogue(OpBuilder &b, Location loc, OpTy op,
                                AdaptorTy adaptor, RankedTensorType type,
                                Value product) {
  Type accType = cast<RankedTensorType>(product.getType()).getElementType();
  auto accTensorType = type.clone(accType);
  Value self = adaptor.getSelf();
  if (failed(getBroadcastMap(cast<RankedTensorType>(self.getType()).getShape(),
                             type.getShape(), b.getContext())))
    return failure();
  bool alphaIsOne = isConstantScalarValue(op.getAlpha(), 1);
  Value alpha =
      alphaIsOne ? Value() : castScalar(b, loc, adaptor.getAlpha(), accType);
  bool isFloat = isa<FloatType>(accType);
  Value result;
  if (isConstantScalarValue(op.getBeta(), 0)) {
    result = alphaIsOne
                 ? product
                 : *createElementwiseOp(
                       b, loc, accTensorType, product,
                       [&](OpBuilder &nb, Location l, ValueRange args) {
                         return createMul(nb, l, alpha, args[0]);
                       });
  } else {
    Value beta, betaIsZero;
    if (!isConstantScalarValue(op.getBeta(), 1)) {
      beta = castScalar(b, loc, adaptor.getBeta(), accType);
      Value zero = createScalarConstant(b, loc, accType, 0);
      betaIsZero = isFloat ? arith::CmpFOp::create(
                                 b, loc, arith::CmpFPredicate::OEQ, beta, zero)
                                 .getResult()
                           : arith::CmpIOp::create(
                                 b, loc, arith::CmpIPredicate::eq, beta, zero)
                                 .getResult();
    }
    Type selfDtype = getTorchDtype(op.getSelf());
    bool selfUnsigned = isUnsignedDtype(selfDtype) || isBoolDtype(selfDtype);
    Type elemType = type.getElementType();
    result = *createElementwiseOp(
        b, loc, accTensorType, ValueRange{self, product},
        [&](OpBuilder &nb, Location l, ValueRange args) -> Value {
          Value s = castScalar(nb, l, args[0], elemType, selfUnsigned);
          s = castScalar(nb, l, s, accType);
          Value p = alpha ? createMul(nb, l, alpha, args[1]) : args[1];
          Value scaled = beta ? createMul(nb, l, beta, s) : s;
          Value sum = createAdd(nb, l, scaled, p);
          if (!beta)
            return sum;
          return arith::SelectOp::create(nb, l, betaIsZero, p, sum);
        });
  }
  return castTensor(b, loc, result, type.getElementType());
}

enum class Product { Dot, Mv, Addmv, Addbmm, Baddbmm };

template <typename OpTy, Product Kind>
class ConvertProductOp : public TorchConversionPattern<OpTy> {
public:
  using OpAdaptor = typename OpTy::Adaptor;
  using TorchConversionPattern<OpTy>::TorchConversionPattern;

  static std::pair<Value, Value> operands(OpTy op) {
    if constexpr (std::is_same_v<OpTy, torch::AtenDotOp>)
      return {op.getSelf(), op.getTensor()};
    else if constexpr (std::is_same_v<OpTy, torch::AtenVdotOp>)
      return {op.getSelf(), op.getOther()};
    else if constexpr (std::is_same_v<OpTy, torch::AtenMvOp>)
      return {op.getSelf(), op.getVec()};
    else if constexpr (std::is_same_v<OpTy, torch::AtenAddmvOp>)
      return {op.getMat(), op.getVec()};
    else
      return {op.getBatch1(), op.getBatch2()};
  }
  static std::pair<Value, Value> operands(OpAdaptor a) {
    if constexpr (std::is_same_v<OpTy, torch::AtenDotOp>)
      return {a.getSelf(), a.getTensor()};
    else if constexpr (std::is_same_v<OpTy, torch::AtenVdotOp>)
      return {a.getSelf(), a.getOther()};
    else if constexpr (std::is_same_v<OpTy, torch::AtenMvOp>)
      return {a.getSelf(), a.getVec()};
    else if constexpr (std::is_same_v<OpTy, torch::AtenAddmvOp>)
      return {a.getMat(), a.getVec()};
    else
      return {a.getBatch1(), a.getBatch2()};
  }

  LogicalResult
  matchAndRewrite(OpTy op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    RankedTensorType type = this->getTensorType(op.getType());
    if (!type)
      return this->fail(op, rewriter, "result type is not convertible");
    if (isBoolDtype(getTorchDtype(op.getResult())))
      return this->fail(op, rewriter, "bool products are not supported");
    auto [lhsTorch, rhsTorch] = operands(op);
    auto [lhs, rhs] = operands(adaptor);
    auto lhsType = cast<RankedTensorType>(lhs.getType());
    auto rhsType = cast<RankedTensorType>(rhs.getType());
    if (lhsType.getElementType() != rhsType.getElementType())
      return this->fail(op, rewriter, "operands must have one dtype");
    ArrayRef<int64_t> l = lhsType.getShape(), r = rhsType.getShape(),
                      o = type.getShape();
    MLIRContext *ctx = rewriter.getContext();
    auto d = [&](unsigned i) { return getAffineDimExpr(i, ctx); };
    SmallVector<int64_t> loops, reduced;
    SmallVector<AffineMap> maps;
    bool ok = false;
    switch (Kind) {
    case Product::Dot: // [k] . [k]
      ok = l.size() == 1 && r.size() == 1 && l[0] == r[0] && o.empty();
      loops = {ok ? l[0] : 0};
      reduced = {0};
      maps = {AffineMap::get(1, 0, {d(0)}, ctx), AffineMap::get(1, 0, {d(0)}, ctx)};
      break;
    case Product::Mv:
    case Product::Addmv: // [n, m] x [m] -> [n]
      ok = l.size() == 2 && r.size() == 1 && l[1] == r[0] && o.size() == 1 &&
           o[0] == l[0];
      if (ok)
        loops = {l[0], l[1]};
      reduced = {1};
      maps = {AffineMap::get(2, 0, {d(0), d(1)}, ctx),
              AffineMap::get(2, 0, {d(1)}, ctx)};
      break;
    case Product::Addbmm: // sum_b [b, m, k] x [b, k, n] -> [m, n]
      ok = l.size() == 3 && r.size() == 3 && l[0] == r[0] && l[2] == r[1] &&
           o.size() == 2 && o[0] == l[1] && o[1] == r[2];
      if (ok)
        loops = {l[1], r[2], l[0], l[2]};
      reduced = {2, 3};
      maps = {AffineMap::get(4, 0, {d(2), d(0), d(3)}, ctx),
              AffineMap::get(4, 0, {d(2), d(3), d(1)}, ctx)};
      break;
    case Product::Baddbmm: // [b, m, k] x [b, k, n] -> [b, m, n]
      ok = l.size() == 3 && r.size() == 3 && l[0] == r[0] && l[2] == r[1] &&
           o.size() == 3 && o[0] == l[0] && o[1] == l[1] && o[2] == r[2];
      break;
    }
    if (!ok)
      return this->fail(op, rewriter, "operand shapes do not match");

    Location loc = op.getLoc();
    Type elemType = type.getElementType();
    Type accType = getSumAccumulatorType(elemType);
    Type lhsDtype = getTorchDtype(lhsTorch), rhsDtype = getTorchDtype(rhsTorch);
    bool lhsUnsigned = isUnsignedDtype(lhsDtype) || isBoolDtype(lhsDtype);
    bool rhsUnsigned = isUnsignedDtype(rhsDtype) || isBoolDtype(rhsDtype);
    Value product;
    if constexpr (Kind == Product::Baddbmm) {
      Value a = castTensor(rewriter, loc, lhs, elemType, lhsUnsigned);
      Value b = castTensor(rewriter, loc, rhs, elemType, rhsUnsigned);
      auto accTensorType = type.clone(accType);
      product = linalg::BatchMatmulOp::create(
                    rewriter, loc, TypeRange{accTensorType}, ValueRange{a, b},
                    ValueRange{createZeroTensor(rewriter, loc, accTensorType)})
                    .getResult(0);
    } else {
      product = createProductSum(rewriter, loc, loops, reduced, lhs, rhs, maps,
                                 elemType, accType, lhsUnsigned, rhsUnsigned);
    }
    if constexpr (Kind == Product::Dot || Kind == Product::Mv) {
      rewriter.replaceOp(op, castTensor(rewriter, loc, product, elemType));
      return success();
    } else {
      return this->replaceOrFail(
          op, rewriter,
          createEpilogue(rewriter, loc, op, adaptor, type, product),
          "self does not broadcast to the result");
    }
  }
};

/// linalg_cross(self, other, dim): the cross product of 3-vectors along
/// dim, self and other broadcast to the result:
/// result[c] = a[c+1] * b[c+2] - a[c+2] * b[c+1] (indices mod 3).
class ConvertLinalgCrossOp
    : public TorchConversionPattern<torch::AtenLinalgCrossOp> {
public:
  using Base::Base;
  LogicalResult
  matchAndRewrite(torch::AtenLinalgCrossOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    RankedTensorType type = getTensorType(op.getType());
    if (!type || isBoolDtype(getTorchDtype(op.getResult())))
      return fail(op, rewriter, "result type is not supported");
    Value a = adaptor.getSelf(), b = adaptor.getOther();
    auto aType = cast<RankedTensorType>(a.getType());
    auto bType = cast<RankedTensorType>(b.getType());
    Type elemType = type.getElementType();
    if (aType.getElementType() != elemType || bType.getElementType() != elemType)
      return fail(op, rewriter, "operands must have the result's dtype");
    int64_t rank = type.getRank();
    std::optional<int64_t> dimArg = getConstantInt(op.getDim());
    if (!dimArg)
      return fail(op, rewriter, "dim must be a constant");
    std::optional<int64_t> dim = normalizeDim(*dimArg, rank);
    if (!dim || rank == 0 || type.getDimSize(*dim) != 3)
      return fail(op, rewriter, "dim must have size 3 (eager raises)");
    for (auto t : {aType, bType})
      if (failed(getBroadcastMap(t.getShape(), type.getShape(), op.getContext())))
        return fail(op, rewriter, "operands do not broadcast to the result");
    Location loc = op.getLoc();
    if (type.getNumElements() == 0) {
      rewriter.replaceOp(op, createEmptyTensor(rewriter, loc, type));
      return success();
    }
    SmallVector<AffineMap> maps = {rewriter.getMultiDimIdentityMap(rank)};
    SmallVector<utils::IteratorType> iterators(rank,
                                               utils::IteratorType::parallel);
    Value result =
        linalg::GenericOp::create(
            rewriter, loc, TypeRange{type}, ValueRange{},
            ValueRange{createEmptyTensor(rewriter, loc, type)}, maps, iterators,
            [&](OpBuilder &nb, Location l, ValueRange) {
              Value c = linalg::IndexOp::create(nb, l, *dim);
              auto component = [&](int64_t shift) -> Value {
                Value k = arith::AddIOp::create(
                    nb, l, c, arith::ConstantIndexOp::create(nb, l, shift));
                return arith::RemUIOp::create(
                    nb, l, k, arith::ConstantIndexOp::create(nb, l, 3));
              };
              Value c1 = component(1), c2 = component(2);
              // Reads `t` (broadcast, right-aligned) with dim at `k`.
              auto read = [&](Value t, RankedTensorType tt, Value k) -> Value {
                SmallVector<Value> coords;
                int64_t offset = rank - tt.getRank();
                for (int64_t d = 0; d < tt.getRank(); ++d) {
                  int64_t rd = d + offset;
                  if (rd == *dim)
                    coords.push_back(tt.getDimSize(d) == 1
                                         ? arith::ConstantIndexOp::create(nb, l, 0)
                                               .getResult()
                                         : k);
                  else if (tt.getDimSize(d) == 1 && type.getDimSize(rd) != 1)
                    coords.push_back(arith::ConstantIndexOp::create(nb, l, 0));
                  else
                    coords.push_back(linalg::IndexOp::create(nb, l, rd));
                }
                return tensor::ExtractOp::create(nb, l, t, coords);
              };
              Value lhs = createMul(nb, l, read(a, aType, c1), read(b, bType, c2));
              Value rhs = createMul(nb, l, read(a, aType, c2), read(b, bType, c1));
              Value diff = isa<FloatType>(elemType)
                               ? arith::SubFOp::create(nb, l, lhs, rhs).getResult()
                               : arith::SubIOp::create(nb, l, lhs, rhs).getResult();
              linalg::YieldOp::create(nb, l, diff);
            })
            .getResult(0);
    rewriter.replaceOp(op, result);
    return success();
  }
};

} // namespace

void populateMatrixVectorPatterns(TorchTypeConverter &typeConverter,
                                  RewritePatternSet &patterns) {
  patterns.add<ConvertProductOp<torch::AtenDotOp, Product::Dot>,
               ConvertProductOp<torch::AtenVdotOp, Product::Dot>,
               ConvertProductOp<torch::AtenMvOp, Product::Mv>,
               ConvertProductOp<torch::AtenAddmvOp, Product::Addmv>,
               ConvertProductOp<torch::AtenAddbmmOp, Product::Addbmm>,
               ConvertProductOp<torch::AtenBaddbmmOp, Product::Baddbmm>,
               ConvertLinalgCrossOp>(
      typeConverter, patterns.getContext());
}

} // namespace ltc_mlir::torch_to_linalg
