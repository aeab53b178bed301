//===- Sorting.cpp - sort, sort.stable, topk ------------------------------===//
//
// Which of several equal elements comes first is whatever eager's CPU
// algorithm does, so that is what we compute:
//  - lines of up to 16 elements: std::sort is an insertion sort there, i.e.
//    stable, so a stable sort by ranks gives eager's order: two parallel
//    linalg.generic ops with a reduction loop j over the sorted dim,
//      rank[i] = #{ j : x[j] before x[i], or x[j] ties x[i] and j < i }
//      values[p], indices[p] = x[j], j for the j with rank[j] == p;
//  - longer lines, and topk: the runtime's entry points (runtime/sorting.h),
//    which run eager's std::sort / std::stable_sort / std::partial_sort /
//    std::nth_element with eager's comparisons, in n log n.
// "Before" is ascending (or descending) order with NaN after every number
// ascending and before every number descending, NaNs tying with each other.
//
//===----------------------------------------------------------------------===//

#include "Sorting.h"
#include "RuntimeCalls.h"
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

static std::optional<std::string> sortingEntryPoint(StringRef op, Type torchDtype,
                                             Type storage) {
  std::string suffix;
  if (isBoolDtype(torchDtype))
    suffix = "b8";
  else if (isUnsignedDtype(torchDtype))
    suffix = storage.isInteger(8) ? "u8" : "";
  else if (storage.isF32())
    suffix = "f32";
  else if (storage.isF64())
    suffix = "f64";
  else if (storage.isF16())
    suffix = "f16";
  else if (storage.isBF16())
    suffix = "bf16";
  else if (auto integer = dyn_cast<IntegerType>(storage))
    if (llvm::is_contained({8u, 16u, 32u, 64u}, integer.getWidth()))
      suffix = "i" + std::to_string(integer.getWidth());
  if (suffix.empty())
    return std::nullopt;
  return ("ltc_mlir_rt_" + op + "_" + suffix).str();
}

FailureOr<std::pair<Value, Value>>
callSortingRuntime(OpBuilder &b, Location loc, StringRef op, Value self,
                   Type torchDtype, int64_t dim, int64_t count,
                   RankedTensorType valuesType, RankedTensorType indicesType,
                   ArrayRef<int64_t> scalars) {
  auto selfType = cast<RankedTensorType>(self.getType());
  Type storage = selfType.getElementType();
  std::optional<std::string> name = sortingEntryPoint(op, torchDtype, storage);
  if (!name || !selfType.hasStaticShape())
    return failure();
  ArrayRef<int64_t> shape = selfType.getShape();
  int64_t outer = 1, inner = 1;
  for (int64_t d = 0; d < dim; ++d)
    outer *= shape[d];
  for (int64_t d = dim + 1; d < selfType.getRank(); ++d)
    inner *= shape[d];
  FailureOr<Value> lines = createReshape(
      b, loc, self, RankedTensorType::get({outer, shape[dim], inner}, storage));
  if (failed(lines))
    return failure();
  SmallVector<Value> r = callRuntime(
      b, loc, *name, {*lines},
      {RankedTensorType::get({outer, count, inner}, storage),
       RankedTensorType::get({outer, count, inner}, b.getI64Type())},
      scalars);
  FailureOr<Value> values = createReshape(b, loc, r[0], valuesType);
  FailureOr<Value> indices = createReshape(b, loc, r[1], indicesType);
  if (failed(values) || failed(indices))
    return failure();
  return std::make_pair(*values, *indices);
}

namespace {

/// Up to this line length std::sort sorts by insertion (stably).
constexpr int64_t kInsertionSortLength = 16;


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
    Type selfDtype = getTorchDtype(op.getSelf());
    bool isUnsigned = isUnsignedDtype(selfDtype) || isBoolDtype(selfDtype);
    if (n != ShapedType::kDynamic && n <= kInsertionSortLength) {
      auto [values, indices] =
          createRankSort(rewriter, loc, self, dim, n, *descending, isUnsigned);
      rewriter.replaceOp(op, {values, indices});
      return success();
    }
    bool stable = false;
    if constexpr (std::is_same_v<OpTy, torch::AtenSortStableOp>) {
      std::optional<bool> s = getConstantBool(op.getStable());
      if (!s && !isa<torch::NoneType>(op.getStable().getType()))
        return this->fail(op, rewriter, "stable must be a constant");
      stable = s.value_or(false);
    }
    FailureOr<std::pair<Value, Value>> sorted = callSortingRuntime(
        rewriter, loc, "sort", self, selfDtype, dim, n, valuesType, indicesType,
        {int64_t(*descending), int64_t(stable)});
    if (failed(sorted))
      return this->fail(op, rewriter, "no runtime sort for this dtype or shape");
    rewriter.replaceOp(op, {sorted->first, sorted->second});
    return success();
  }
};

/// topk(self, k, dim, largest, sorted): the runtime's topk, eager's
/// partial_sort / nth_element (sorted=False gives eager's order too).
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
    if (valuesType.getNumElements() == 0) {
      rewriter.replaceOp(op, {createEmptyTensor(rewriter, loc, valuesType),
                              createEmptyTensor(rewriter, loc, indicesType)});
      return success();
    }
    FailureOr<std::pair<Value, Value>> top = callSortingRuntime(
        rewriter, loc, "topk", input, getTorchDtype(op.getSelf()), dim, *k,
        valuesType, indicesType,
        {*k, int64_t(*largest), int64_t(*sorted)});
    if (failed(top))
      return fail(op, rewriter, "no runtime topk for this dtype or shape");
    rewriter.replaceOp(op, {top->first, top->second});
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
