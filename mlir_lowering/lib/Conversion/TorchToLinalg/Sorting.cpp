//===- Sorting.cpp - sort, sort.stable, topk (rank sort along a dim) ------===//
//
// A stable sort by ranks, in two parallel linalg.generic ops with a
// reduction loop j over the sorted dim:
//   rank[i] = #{ j : x[j] before x[i], or x[j] ties x[i] and j < i }
//   values[p], indices[p] = x[j], j for the j with rank[j] == p.
// "Before" is ascending (or descending) order with NaN after every number
// ascending and before every number descending, NaNs tying with each other:
// the order of torch.sort on CPU, stable for ties (which sort.stable
// guarantees and which the unstable sort also gives on CPU for the ties
// of OpInfo's samples). n^2 comparisons per line: refused above a few
// million comparisons per graph (the eager fallback sorts in n log n).
//
//===----------------------------------------------------------------------===//

#include "Sorting.h"
#include "ltc_mlir/Conversion/TorchToLinalg/Utils.h"

using namespace mlir;

namespace ltc_mlir::torch_to_linalg {

Value createBefore(OpBuilder &b, Location loc, Value a, Value c,
                   bool descending, bool isUnsigned) {
  if (isa<FloatType>(a.getType())) {
    auto cmp = [&](arith::CmpFPredicate p, Value l, Value r) {
      return arith::CmpFOp::create(b, loc, p, l, r).getResult();
    };
    Value aNan = cmp(arith::CmpFPredicate::UNO, a, a);
    Value cNan = cmp(arith::CmpFPredicate::UNO, c, c);
    Value notANan = arith::XOrIOp::create(
        b, loc, aNan, arith::ConstantOp::create(b, loc, b.getBoolAttr(true)));
    Value notCNan = arith::XOrIOp::create(
        b, loc, cNan, arith::ConstantOp::create(b, loc, b.getBoolAttr(true)));
    if (descending) // a > c, or a NaN and c a number
      return arith::OrIOp::create(b, loc, cmp(arith::CmpFPredicate::OGT, a, c),
                                  arith::AndIOp::create(b, loc, aNan, notCNan));
    // a < c, or a a number and c NaN
    return arith::OrIOp::create(b, loc, cmp(arith::CmpFPredicate::OLT, a, c),
                                arith::AndIOp::create(b, loc, notANan, cNan));
  }
  arith::CmpIPredicate p =
      descending ? (isUnsigned ? arith::CmpIPredicate::ugt
                               : arith::CmpIPredicate::sgt)
                 : (isUnsigned ? arith::CmpIPredicate::ult
                               : arith::CmpIPredicate::slt);
  return arith::CmpIOp::create(b, loc, p, a, c);
}

Value createTie(OpBuilder &b, Location loc, Value a, Value c) {
  if (isa<FloatType>(a.getType())) {
    Value eq = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OEQ, a, c);
    Value bothNan = arith::AndIOp::create(
        b, loc, arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UNO, a, a),
        arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UNO, c, c));
    return arith::OrIOp::create(b, loc, eq, bothNan);
  }
  return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, a, c);
}

Value createStableRanks(OpBuilder &rewriter, Location loc, Value self,
                        int64_t dim, bool descending, bool isUnsigned) {
  auto selfType = cast<RankedTensorType>(self.getType());
  int64_t rank = selfType.getRank();
  Type i64 = rewriter.getI64Type();
  MLIRContext *ctx = rewriter.getContext();
  SmallVector<AffineExpr> own, atJ;
  for (int64_t d = 0; d < rank; ++d) {
    own.push_back(getAffineDimExpr(d, ctx));
    atJ.push_back(getAffineDimExpr(d == dim ? rank : d, ctx));
  }
  AffineMap ownMap = AffineMap::get(rank + 1, 0, own, ctx);
  AffineMap jMap = AffineMap::get(rank + 1, 0, atJ, ctx);
  SmallVector<utils::IteratorType> iterators(rank,
                                             utils::IteratorType::parallel);
  iterators.push_back(utils::IteratorType::reduction);
  auto ranksType = RankedTensorType::get(selfType.getShape(), i64);
  return linalg::GenericOp::create(
             rewriter, loc, TypeRange{ranksType}, ValueRange{self, self},
             ValueRange{createZeroTensor(rewriter, loc, ranksType)},
             {ownMap, jMap, ownMap}, iterators,
             [&](OpBuilder &b, Location l, ValueRange args) {
               Value xi = args[0], xj = args[1];
               Value i = linalg::IndexOp::create(b, l, dim);
               Value j = linalg::IndexOp::create(b, l, rank);
               Value jFirst = arith::CmpIOp::create(
                   b, l, arith::CmpIPredicate::ult, j, i);
               Value before = arith::OrIOp::create(
                   b, l, createBefore(b, l, xj, xi, descending, isUnsigned),
                   arith::AndIOp::create(b, l, createTie(b, l, xj, xi),
                                         jFirst));
               Value add = arith::ExtUIOp::create(b, l, i64, before);
               linalg::YieldOp::create(
                   b, l, arith::AddIOp::create(b, l, args[2], add).getResult());
             })
      .getResult(0);
}

namespace {

/// The most comparisons a sort may emit (n * n per line).
constexpr int64_t kMaxSortWork = int64_t(1) << 26;

/// (values, indices) of the first `count` positions along `dim` of `self`
/// sorted (ascending or descending, stable), by the two rank generics.
std::pair<Value, Value> createRankSort(OpBuilder &rewriter, Location loc,
                                       Value self, int64_t dim, int64_t count,
                                       bool descending, bool isUnsigned) {
  auto selfType = cast<RankedTensorType>(self.getType());
  int64_t rank = selfType.getRank();
  Type i64 = rewriter.getI64Type();
  MLIRContext *ctx = rewriter.getContext();
  unsigned loops = rank + 1;
  SmallVector<AffineExpr> own, atJ;
  for (int64_t d = 0; d < rank; ++d) {
    own.push_back(getAffineDimExpr(d, ctx));
    atJ.push_back(getAffineDimExpr(d == dim ? rank : d, ctx));
  }
  AffineMap ownMap = AffineMap::get(loops, 0, own, ctx);
  AffineMap jMap = AffineMap::get(loops, 0, atJ, ctx);
  SmallVector<utils::IteratorType> iterators(rank,
                                             utils::IteratorType::parallel);
  iterators.push_back(utils::IteratorType::reduction);
  Value ranks =
      createStableRanks(rewriter, loc, self, dim, descending, isUnsigned);

  SmallVector<int64_t> shape(selfType.getShape());
  shape[dim] = count;
  auto valuesType = RankedTensorType::get(shape, selfType.getElementType());
  auto indicesType = RankedTensorType::get(shape, i64);
  auto generic = linalg::GenericOp::create(
      rewriter, loc, TypeRange{valuesType, indicesType}, ValueRange{ranks, self},
      ValueRange{createZeroTensor(rewriter, loc, valuesType),
                 createZeroTensor(rewriter, loc, indicesType)},
      {jMap, jMap, ownMap, ownMap}, iterators,
      [&](OpBuilder &b, Location l, ValueRange args) {
        Value p = arith::IndexCastOp::create(
            b, l, i64, linalg::IndexOp::create(b, l, dim));
        Value j = arith::IndexCastOp::create(
            b, l, i64, linalg::IndexOp::create(b, l, rank));
        Value here =
            arith::CmpIOp::create(b, l, arith::CmpIPredicate::eq, args[0], p);
        linalg::YieldOp::create(
            b, l,
            ValueRange{arith::SelectOp::create(b, l, here, args[1], args[2]),
                       arith::SelectOp::create(b, l, here, j, args[3])});
      });
  return {generic.getResult(0), generic.getResult(1)};
}

template <typename OpTy>
class ConvertSortOp : public TorchConversionPattern<OpTy> {
public:
  using OpAdaptor = typename OpTy::Adaptor;
  using TorchConversionPattern<OpTy>::TorchConversionPattern;

  LogicalResult
  matchAndRewrite(OpTy op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    RankedTensorType valuesType = this->getTensorType(op.getValues().getType());
    RankedTensorType indicesType =
        this->getTensorType(op.getIndices().getType());
    Value self = adaptor.getSelf();
    auto selfType = cast<RankedTensorType>(self.getType());
    if (!valuesType || valuesType != selfType || !indicesType ||
        indicesType.getShape() != selfType.getShape() ||
        !indicesType.getElementType().isInteger(64))
      return this->fail(op, rewriter, "result types do not match self");
    std::optional<bool> descending = getConstantBool(op.getDescending());
    std::optional<int64_t> dimArg = getConstantInt(op.getDim());
    if (!descending || !dimArg)
      return this->fail(op, rewriter, "dim and descending must be constants");
    int64_t rank = selfType.getRank();
    std::optional<int64_t> nd = normalizeDim(*dimArg, rank);
    if (!nd)
      return this->fail(op, rewriter, "dim out of range");
    Location loc = op.getLoc();
    if (rank == 0 || selfType.getNumElements() == 0 ||
        selfType.getDimSize(*nd) == 1) {
      // Nothing to reorder: indices are 0.
      rewriter.replaceOp(op, {self, createZeroTensor(rewriter, loc,
                                                     indicesType)});
      return success();
    }
    int64_t dim = *nd, n = selfType.getDimSize(dim);
    if (selfType.getNumElements() * n > kMaxSortWork)
      return this->fail(op, rewriter,
                        "sort of long lines: n^2 rank sort would be too slow");
    Type selfDtype = getTorchDtype(op.getSelf());
    bool isUnsigned = isUnsignedDtype(selfDtype) || isBoolDtype(selfDtype);

    auto [values, indices] =
        createRankSort(rewriter, loc, self, dim, n, *descending, isUnsigned);
    rewriter.replaceOp(op, {values, indices});
    return success();
  }
};

/// topk(self, k, dim, largest, sorted=True): the first k of the stable
/// descending (largest) or ascending sort. Ties keep the lower index first;
/// ATen's CPU topk (a partial sort) may order tied values differently.
class ConvertTopkOp : public TorchConversionPattern<torch::AtenTopkOp> {
public:
  using Base::Base;
  LogicalResult
  matchAndRewrite(torch::AtenTopkOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    RankedTensorType valuesType = getTensorType(op.getValues().getType());
    RankedTensorType indicesType = getTensorType(op.getIndices().getType());
    Value self = adaptor.getSelf();
    auto selfType = cast<RankedTensorType>(self.getType());
    if (!valuesType || !indicesType ||
        valuesType.getElementType() != selfType.getElementType() ||
        !indicesType.getElementType().isInteger(64))
      return fail(op, rewriter, "result types do not match self");
    std::optional<int64_t> k = getConstantInt(op.getK());
    std::optional<int64_t> dimArg = getConstantInt(op.getDim());
    std::optional<bool> largest = getConstantBool(op.getLargest());
    std::optional<bool> sorted = getConstantBool(op.getSorted());
    if (!k || !dimArg || !largest || !sorted)
      return fail(op, rewriter, "k, dim, largest and sorted must be constants");
    if (!*sorted)
      return fail(op, rewriter, "sorted=False leaves ATen's order unspecified");
    int64_t rank = selfType.getRank();
    std::optional<int64_t> nd = normalizeDim(*dimArg, rank);
    if (!nd)
      return fail(op, rewriter, "dim out of range");
    Location loc = op.getLoc();
    Value input = self;
    int64_t dim = *nd;
    if (rank == 0) {
      input = *createReshape(rewriter, loc, self,
                             RankedTensorType::get({1}, selfType.getElementType()));
      dim = 0;
    }
    auto inputType = cast<RankedTensorType>(input.getType());
    int64_t n = inputType.getDimSize(dim);
    if (*k < 0 || *k > n)
      return fail(op, rewriter, "k out of range (eager raises)");
    if (valuesType.getNumElements() != inputType.getNumElements() / std::max<int64_t>(n, 1) * *k)
      return fail(op, rewriter, "result shape does not match k");
    if (inputType.getNumElements() * n > kMaxSortWork)
      return fail(op, rewriter, "topk of long lines: n^2 rank sort would be too slow");
    if (valuesType.getNumElements() == 0) {
      rewriter.replaceOp(op, {createEmptyTensor(rewriter, loc, valuesType),
                              createEmptyTensor(rewriter, loc, indicesType)});
      return success();
    }
    Type dtype = getTorchDtype(op.getSelf());
    auto [values, indices] =
        createRankSort(rewriter, loc, input, dim, *k, *largest,
                       isUnsignedDtype(dtype) || isBoolDtype(dtype));
    FailureOr<Value> v = createReshape(rewriter, loc, values, valuesType);
    FailureOr<Value> i = createReshape(rewriter, loc, indices, indicesType);
    if (failed(v) || failed(i))
      return fail(op, rewriter, "cannot reshape the result");
    rewriter.replaceOp(op, {*v, *i});
    return success();
  }
};

} // namespace

void populateSortingPatterns(TorchTypeConverter &typeConverter,
                             RewritePatternSet &patterns) {
  patterns.add<ConvertSortOp<torch::AtenSortOp>,
               ConvertSortOp<torch::AtenSortStableOp>, ConvertTopkOp>(typeConverter,
                                                       patterns.getContext());
  populateSelectionPatterns(typeConverter, patterns);
  populateCumulativePatterns(typeConverter, patterns);
  populateUnfoldPatterns(typeConverter, patterns);
}

} // namespace ltc_mlir::torch_to_linalg
