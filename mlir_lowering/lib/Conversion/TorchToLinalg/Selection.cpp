//===- Selection.cpp - median, nanmedian, kthvalue, mode ------------------===//
//
// median and nanmedian: one element per line along `dim` (or of the whole
// tensor for median() and nanmedian()), picked with the stable ranks of
// Sorting.cpp:
//   rank[i] = position of x[i] in the stable ascending sort (NaN last)
//   value, index = x[j], j for the j with rank[j] == target(line)
// where target is (n - 1) / 2 (median; the position of the first NaN when
// the line has one: median propagates NaN), and (m - 1) / 2 over the m
// non-NaN elements (nanmedian; 0 when all are NaN). ATen's median.dim
// breaks ties by index, which is the stable order. n^2 comparisons per
// line: refused above 2^26 per op (the eager fallback runs it).
//
// kthvalue and mode call the runtime (runtime/sorting.h), which runs eager's
// algorithms (Sedgewick's quickselect; std::sort and a scan of equal runs):
// which of several tied elements' index they return is only defined by
// those algorithms.
//
//===----------------------------------------------------------------------===//

#include "Sorting.h"
#include "ltc_mlir/Conversion/TorchToLinalg/Utils.h"

using namespace mlir;

namespace ltc_mlir::torch_to_linalg {
namespace {

constexpr int64_t kMaxSelectionWork = int64_t(1) << 26;

enum class SelectKind { Median, NanMedian, Kth, Mode };

Value isNanScalar(OpBuilder &b, Location l, Value x) {
  if (!isa<FloatType>(x.getType()))
    return arith::ConstantOp::create(b, l, b.getBoolAttr(false));
  return arith::CmpFOp::create(b, l, arith::CmpFPredicate::UNO, x, x);
}

/// Per line (self's shape without `dim`): the number of NaNs, i64.
Value createNanCount(OpBuilder &b, Location loc, Value self, int64_t dim) {
  Type i64 = b.getI64Type();
  return createReduction(
      b, loc, self, {dim}, createIntConstant(b, loc, i64, 0),
      [&](OpBuilder &nb, Location l, Value element, Value acc) {
        Value nan = arith::ExtUIOp::create(nb, l, i64, isNanScalar(nb, l, element));
        return arith::AddIOp::create(nb, l, acc, nan).getResult();
      });
}

/// (value, index) per line of the element whose stable rank is target.
std::pair<Value, Value> createPickRank(OpBuilder &b, Location loc, Value self,
                                       Value ranks, Value target, int64_t dim) {
  auto selfType = cast<RankedTensorType>(self.getType());
  int64_t rank = selfType.getRank();
  MLIRContext *ctx = b.getContext();
  Type i64 = b.getI64Type();
  SmallVector<int64_t> lineShape;
  for (int64_t d = 0; d < rank; ++d)
    if (d != dim)
      lineShape.push_back(selfType.getDimSize(d));
  auto valuesType = RankedTensorType::get(lineShape, selfType.getElementType());
  auto indicesType = RankedTensorType::get(lineShape, i64);
  AffineMap id = b.getMultiDimIdentityMap(rank);
  AffineMap line = getDropDimsMap(rank, {dim}, ctx);
  SmallVector<utils::IteratorType> iterators(rank,
                                             utils::IteratorType::parallel);
  iterators[dim] = utils::IteratorType::reduction;
  auto generic = linalg::GenericOp::create(
      b, loc, TypeRange{valuesType, indicesType},
      ValueRange{ranks, self, target},
      ValueRange{createZeroTensor(b, loc, valuesType),
                 createZeroTensor(b, loc, indicesType)},
      {id, id, line, line, line}, iterators,
      [&](OpBuilder &nb, Location l, ValueRange args) {
        Value j = arith::IndexCastOp::create(nb, l, i64,
                                             linalg::IndexOp::create(nb, l, dim));
        Value here = arith::CmpIOp::create(nb, l, arith::CmpIPredicate::eq,
                                           args[0], args[2]);
        linalg::YieldOp::create(
            nb, l,
            ValueRange{arith::SelectOp::create(nb, l, here, args[1], args[3]),
                       arith::SelectOp::create(nb, l, here, j, args[4])});
      });
  return {generic.getResult(0), generic.getResult(1)};
}

/// median(self), nanmedian(self) (HasDim false: one 0-d value) and
/// median.dim, nanmedian.dim, kthvalue, mode (values, indices).
class ConvertSelectionOp : public NamedTorchPattern {
public:
  ConvertSelectionOp(StringRef name, SelectKind kind, bool hasDim,
                     const TorchTypeConverter &typeConverter,
                     MLIRContext *context)
      : NamedTorchPattern(name, typeConverter, context), kind(kind),
        hasDim(hasDim) {}

  LogicalResult
  matchAndRewrite(Operation *op, ArrayRef<Value> operands,
                  ConversionPatternRewriter &rewriter) const override {
    unsigned numResults = hasDim ? 2 : 1;
    if (op->getNumResults() != numResults || operands.empty())
      return fail(op, rewriter, "unexpected operands or results");
    Value self = operands[0];
    auto selfType = dyn_cast<RankedTensorType>(self.getType());
    RankedTensorType valuesType = getTensorType(op->getResult(0).getType());
    RankedTensorType indicesType =
        hasDim ? getTensorType(op->getResult(1).getType()) : RankedTensorType();
    if (!selfType || !valuesType ||
        valuesType.getElementType() != selfType.getElementType() ||
        (hasDim && (!indicesType ||
                    !indicesType.getElementType().isInteger(64))))
      return fail(op, rewriter, "result types do not match self");
    Type dtype = getTorchDtype(op->getOperand(0));
    Type elemType = selfType.getElementType();
    bool isBool = isBoolDtype(dtype);
    bool viaRuntime = kind == SelectKind::Kth || kind == SelectKind::Mode;
    if (!viaRuntime && (elemType.isF16() || isBool))
      return fail(op, rewriter,
                  "f16 and bool inputs are left to the eager kernel");
    bool isUnsigned = isUnsignedDtype(dtype) || isBool;
    Location loc = op->getLoc();

    // The line: `dim` of self, or all of self flattened.
    Value input = self;
    int64_t dim = 0;
    if (!hasDim || selfType.getRank() == 0) {
      input = *createReshape(
          rewriter, loc, self,
          RankedTensorType::get({selfType.getNumElements()}, elemType));
    }
    if (hasDim) {
      unsigned dimOperand = kind == SelectKind::Kth ? 2 : 1;
      std::optional<int64_t> dimArg = getConstantInt(op->getOperand(dimOperand));
      if (!dimArg)
        return fail(op, rewriter, "dim must be a constant");
      std::optional<int64_t> nd =
          normalizeDim(*dimArg, std::max<int64_t>(selfType.getRank(), 1));
      if (!nd)
        return fail(op, rewriter, "dim out of range (eager raises)");
      dim = selfType.getRank() == 0 ? 0 : *nd;
    }
    auto inputType = cast<RankedTensorType>(input.getType());
    int64_t n = inputType.getDimSize(dim);
    if (n == 0 || inputType.getNumElements() == 0)
      return fail(op, rewriter, "empty line (eager raises or returns NaN)");
    if (viaRuntime) {
      SmallVector<int64_t> scalars;
      if (kind == SelectKind::Kth) {
        std::optional<int64_t> k = getConstantInt(op->getOperand(1));
        if (!k)
          return fail(op, rewriter, "k must be a constant");
        if (*k < 1 || *k > n)
          return fail(op, rewriter, "k out of range (eager raises)");
        scalars.push_back(*k);
      }
      FailureOr<std::pair<Value, Value>> picked = callSortingRuntime(
          rewriter, loc, kind == SelectKind::Kth ? "kthvalue" : "mode", input,
          dtype, dim, /*count=*/1, valuesType, indicesType, scalars);
      if (failed(picked))
        return fail(op, rewriter, "no runtime selection for this dtype or shape");
      rewriter.replaceOp(op, ValueRange{picked->first, picked->second});
      return success();
    }
    if (inputType.getNumElements() * n > kMaxSelectionWork)
      return fail(op, rewriter,
                  "long lines: the n^2 rank selection would be too slow");

    Value values, indices;
    {
      SmallVector<int64_t> lineShape;
      for (int64_t d = 0; d < inputType.getRank(); ++d)
        if (d != dim)
          lineShape.push_back(inputType.getDimSize(d));
      Type i64 = rewriter.getI64Type();
      auto lineType = RankedTensorType::get(lineShape, i64);
      Value target;
      if (!isa<FloatType>(elemType)) {
        target = createFilledTensor(
            rewriter, loc, lineType,
            createIntConstant(rewriter, loc, i64, (n - 1) / 2));
      } else {
        Value nans = createNanCount(rewriter, loc, input, dim);
        bool nanMedian = kind == SelectKind::NanMedian;
        target = *createElementwiseOp(
            rewriter, loc, lineType, ValueRange{nans},
            [&](OpBuilder &b, Location l, ValueRange args) -> Value {
              auto c = [&](int64_t v) { return createIntConstant(b, l, i64, v); };
              Value nanCount = args[0];
              Value numbers = arith::SubIOp::create(b, l, c(n), nanCount);
              auto half = [&](Value m) {
                return arith::DivSIOp::create(
                           b, l, arith::SubIOp::create(b, l, m, c(1)), c(2))
                    .getResult();
              };
              Value none = arith::CmpIOp::create(b, l, arith::CmpIPredicate::eq,
                                                 nanMedian ? numbers : nanCount,
                                                 c(0));
              if (nanMedian) // all NaN: the first NaN
                return arith::SelectOp::create(b, l, none, c(0), half(numbers));
              // a NaN: the first NaN (stable rank n - nanCount)
              return arith::SelectOp::create(b, l, none, half(c(n)), numbers);
            });
      }
      Value ranks = createStableRanks(rewriter, loc, input, dim,
                                      /*descending=*/false, isUnsigned);
      std::tie(values, indices) =
          createPickRank(rewriter, loc, input, ranks, target, dim);
    }
    FailureOr<Value> v = createReshape(rewriter, loc, values, valuesType);
    if (failed(v))
      return fail(op, rewriter, "cannot reshape the result");
    if (!hasDim) {
      rewriter.replaceOp(op, *v);
      return success();
    }
    FailureOr<Value> i = createReshape(rewriter, loc, indices, indicesType);
    if (failed(i))
      return fail(op, rewriter, "cannot reshape the indices");
    rewriter.replaceOp(op, ValueRange{*v, *i});
    return success();
  }

private:
  SelectKind kind;
  bool hasDim;
};

} // namespace

void populateSelectionPatterns(TorchTypeConverter &typeConverter,
                               RewritePatternSet &patterns) {
  MLIRContext *context = patterns.getContext();
  patterns.add<ConvertSelectionOp>("torch.aten.median", SelectKind::Median,
                                   false, typeConverter, context);
  patterns.add<ConvertSelectionOp>("torch.aten.nanmedian",
                                   SelectKind::NanMedian, false, typeConverter,
                                   context);
  patterns.add<ConvertSelectionOp>("torch.aten.median.dim", SelectKind::Median,
                                   true, typeConverter, context);
  patterns.add<ConvertSelectionOp>("torch.aten.nanmedian.dim",
                                   SelectKind::NanMedian, true, typeConverter,
                                   context);
  patterns.add<ConvertSelectionOp>("torch.aten.kthvalue", SelectKind::Kth, true,
                                   typeConverter, context);
  patterns.add<ConvertSelectionOp>("torch.aten.mode", SelectKind::Mode, true,
                                   typeConverter, context);
}

} // namespace ltc_mlir::torch_to_linalg
