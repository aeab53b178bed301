//===- CumulativeOps.cpp - cummax, cummin, logcumsumexp, logsumexp, put ---===//
//
// cummax/cummin(self, dim) and logcumsumexp(self, dim) are scans like
// cumsum (Scan.cpp): an scf.for over `dim` whose iteration k combines slice
// k of self with a running accumulator (one parallel linalg.generic over
// the other dims) and inserts it as slice k of the result, in ATen's CPU
// order (cpu_cum_base_kernel):
//   cummax: x[k] replaces the running max when x[k] >= max, or x[k] is NaN
//           (a NaN stays once seen): ties and NaNs take the later index.
//   cummin: the same with <=.
//   logcumsumexp: acc = log(exp(acc) + exp(x[k])) as ATen's
//           _log_add_exp_helper, in f64 for f32 and f64 (at::acc_type).
// logsumexp(self, dims, keepdim) is ATen's logsumexp_out_impl: m = amax
// over dims (0 where infinite), log(sum(exp(self - m))) + m; integer
// inputs are converted to the result's float dtype first.
// put(self, index, source, accumulate) writes (or adds) source's elements
// at the flat positions index of self, in index order as ATen's CPU loop
// (duplicates: the last write wins, sums add in order). Out-of-range
// indices fail a runtime check and are clamped.
//
//===----------------------------------------------------------------------===//

#include "Sorting.h"
#include "ltc_mlir/Compiler/Compiler.h"
#include "ltc_mlir/Conversion/TorchToLinalg/Utils.h"

#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

#include <limits>

using namespace mlir;

namespace ltc_mlir::torch_to_linalg {
namespace {

enum class ScanKind { Max, Min, LogSumExp };

/// Offsets/sizes/strides of slice k along `dim` of `shape`.
struct SliceAt {
  SmallVector<OpFoldResult> offsets, sizes, strides;
  SliceAt(OpBuilder &b, ArrayRef<int64_t> shape, int64_t dim, Value k) {
    int64_t rank = shape.size();
    offsets.assign(rank, b.getIndexAttr(0));
    strides.assign(rank, b.getIndexAttr(1));
    for (int64_t d = 0; d < rank; ++d)
      sizes.push_back(b.getIndexAttr(d == dim ? 1 : shape[d]));
    offsets[dim] = k;
  }
};

/// ATen's _log_add_exp_helper(x, acc) in the accumulator type.
Value createLogAddExp(OpBuilder &b, Location l, Value x, Value acc) {
  auto cmp = [&](arith::CmpFPredicate p, Value u, Value v) {
    return arith::CmpFOp::create(b, l, p, u, v).getResult();
  };
  Value accNan = cmp(arith::CmpFPredicate::UNO, acc, acc);
  // std::min(x, acc) = acc < x ? acc : x; std::max(x, acc) = x < acc ? acc : x
  Value lo = arith::SelectOp::create(b, l, cmp(arith::CmpFPredicate::OLT, acc, x),
                                     acc, x);
  Value hi = arith::SelectOp::create(b, l, cmp(arith::CmpFPredicate::OLT, x, acc),
                                     acc, x);
  lo = arith::SelectOp::create(b, l, accNan, acc, lo);
  hi = arith::SelectOp::create(b, l, accNan, acc, hi);
  Value inf = createScalarConstant(b, l, x.getType(),
                                   std::numeric_limits<double>::infinity());
  Value finite = cmp(arith::CmpFPredicate::ONE, math::AbsFOp::create(b, l, lo),
                     inf);
  Value differ = cmp(arith::CmpFPredicate::UNE, lo, hi);
  Value sum = arith::AddFOp::create(
      b, l, hi,
      math::Log1pOp::create(
          b, l, math::ExpOp::create(b, l, arith::SubFOp::create(b, l, lo, hi))));
  return arith::SelectOp::create(
      b, l, arith::OrIOp::create(b, l, differ, finite), sum, x);
}

/// cummax, cummin (values, indices) and logcumsumexp (one result).
class ConvertScanOp : public NamedTorchPattern {
public:
  ConvertScanOp(StringRef name, ScanKind kind,
                const TorchTypeConverter &typeConverter, MLIRContext *context)
      : NamedTorchPattern(name, typeConverter, context), kind(kind) {}

  LogicalResult
  matchAndRewrite(Operation *op, ArrayRef<Value> operands,
                  ConversionPatternRewriter &rewriter) const override {
    bool withIndices = kind != ScanKind::LogSumExp;
    if (op->getNumResults() != (withIndices ? 2u : 1u) || operands.size() != 2)
      return fail(op, rewriter, "unexpected operands or results");
    Value self = operands[0];
    auto selfType = dyn_cast<RankedTensorType>(self.getType());
    RankedTensorType type = getTensorType(op->getResult(0).getType());
    RankedTensorType indicesType =
        withIndices ? getTensorType(op->getResult(1).getType())
                    : RankedTensorType();
    if (!selfType || type != selfType ||
        (withIndices && (!indicesType ||
                         indicesType.getShape() != selfType.getShape() ||
                         !indicesType.getElementType().isInteger(64))))
      return fail(op, rewriter, "result types do not match self");
    Type elemType = selfType.getElementType();
    if (kind == ScanKind::LogSumExp &&
        (!isa<FloatType>(elemType) || elemType.isF16()))
      return fail(op, rewriter,
                  "logcumsumexp of this dtype is left to the eager kernel");
    if (elemType.isF16())
      return fail(op, rewriter, "f16 is left to the eager kernel");
    std::optional<int64_t> dimArg = getConstantInt(op->getOperand(1));
    if (!dimArg)
      return fail(op, rewriter, "dim must be a constant");
    int64_t rank = selfType.getRank();
    std::optional<int64_t> nd = normalizeDim(*dimArg, std::max<int64_t>(rank, 1));
    if (!nd)
      return fail(op, rewriter, "dim out of range (eager raises)");
    Location loc = op->getLoc();
    Type i64 = rewriter.getI64Type();
    // Nothing to combine: the values themselves, index 0.
    if (rank == 0 || selfType.getNumElements() == 0 ||
        selfType.getDimSize(*nd) == 1) {
      SmallVector<Value> results = {self};
      if (withIndices)
        results.push_back(createZeroTensor(rewriter, loc, indicesType));
      rewriter.replaceOp(op, results);
      return success();
    }
    int64_t dim = *nd;
    Type dtype = getTorchDtype(op->getOperand(0));
    bool isUnsigned = isUnsignedDtype(dtype) || isBoolDtype(dtype);
    Type accType = elemType;
    if (kind == ScanKind::LogSumExp)
      accType = elemType.isBF16() ? Type(rewriter.getF32Type())
                                  : Type(rewriter.getF64Type());

    SmallVector<int64_t> sliceShape;
    for (int64_t d = 0; d < rank; ++d)
      if (d != dim)
        sliceShape.push_back(selfType.getDimSize(d));
    auto selfSliceType = RankedTensorType::get(sliceShape, elemType);
    auto accSliceType = RankedTensorType::get(sliceShape, accType);
    auto indexSliceType = RankedTensorType::get(sliceShape, i64);
    ArrayRef<int64_t> shape = selfType.getShape();

    // Initial accumulators: slice 0 of self (it replaces itself at k = 0)
    // for cummax/cummin; -inf for logcumsumexp.
    SmallVector<Value> init;
    if (withIndices) {
      Value zero = arith::ConstantIndexOp::create(rewriter, loc, 0);
      SliceAt s(rewriter, shape, dim, zero);
      init.push_back(tensor::ExtractSliceOp::create(
          rewriter, loc, selfSliceType, self, s.offsets, s.sizes, s.strides));
      init.push_back(createZeroTensor(rewriter, loc, indexSliceType));
    } else {
      init.push_back(createFilledTensor(
          rewriter, loc, accSliceType,
          createScalarConstant(rewriter, loc, accType,
                               -std::numeric_limits<double>::infinity())));
    }
    unsigned numAcc = init.size();
    init.push_back(createEmptyTensor(rewriter, loc, selfType));
    if (withIndices)
      init.push_back(createEmptyTensor(rewriter, loc, indicesType));

    SmallVector<AffineMap> maps(1 + numAcc,
                                rewriter.getMultiDimIdentityMap(sliceShape.size()));
    SmallVector<utils::IteratorType> iterators(sliceShape.size(),
                                               utils::IteratorType::parallel);
    bool isMax = kind == ScanKind::Max;
    auto loop = scf::ForOp::create(
        rewriter, loc, arith::ConstantIndexOp::create(rewriter, loc, 0),
        arith::ConstantIndexOp::create(rewriter, loc, shape[dim]),
        arith::ConstantIndexOp::create(rewriter, loc, 1), init,
        [&](OpBuilder &b, Location l, Value k, ValueRange iterArgs) {
          SliceAt s(b, shape, dim, k);
          Value x = tensor::ExtractSliceOp::create(b, l, selfSliceType, self,
                                                   s.offsets, s.sizes, s.strides);
          SmallVector<Type> accTypes = {accSliceType};
          if (withIndices)
            accTypes.push_back(indexSliceType);
          auto generic = linalg::GenericOp::create(
              b, l, accTypes, ValueRange{x}, iterArgs.take_front(numAcc), maps,
              iterators, [&](OpBuilder &nb, Location nl, ValueRange args) {
                Value v = args[0], acc = args[1];
                if (!withIndices) {
                  linalg::YieldOp::create(
                      nb, nl,
                      createLogAddExp(nb, nl, castScalar(nb, nl, v, accType),
                                      acc));
                  return;
                }
                Value take;
                if (isa<FloatType>(elemType)) {
                  Value vNan = arith::CmpFOp::create(
                      nb, nl, arith::CmpFPredicate::UNO, v, v);
                  Value ge = arith::CmpFOp::create(
                      nb, nl,
                      isMax ? arith::CmpFPredicate::OGE
                            : arith::CmpFPredicate::OLE,
                      v, acc);
                  // ge is false when acc is NaN: the NaN stays.
                  take = arith::OrIOp::create(nb, nl, vNan, ge);
                } else {
                  arith::CmpIPredicate p =
                      isMax ? (isUnsigned ? arith::CmpIPredicate::uge
                                          : arith::CmpIPredicate::sge)
                            : (isUnsigned ? arith::CmpIPredicate::ule
                                          : arith::CmpIPredicate::sle);
                  take = arith::CmpIOp::create(nb, nl, p, v, acc);
                }
                Value kk = arith::IndexCastOp::create(nb, nl, i64, k);
                linalg::YieldOp::create(
                    nb, nl,
                    ValueRange{arith::SelectOp::create(nb, nl, take, v, acc),
                               arith::SelectOp::create(nb, nl, take, kk,
                                                       args[2])});
              });
          SmallVector<Value> yields(generic.getResults());
          Value y = withIndices ? yields[0] : castTensor(b, l, yields[0], elemType);
          yields.push_back(tensor::InsertSliceOp::create(
              b, l, y, iterArgs[numAcc], s.offsets, s.sizes, s.strides));
          if (withIndices)
            yields.push_back(tensor::InsertSliceOp::create(
                b, l, yields[1], iterArgs[numAcc + 1], s.offsets, s.sizes,
                s.strides));
          scf::YieldOp::create(b, l, yields);
        });
    SmallVector<Value> results = {loop.getResult(numAcc)};
    if (withIndices)
      results.push_back(loop.getResult(numAcc + 1));
    rewriter.replaceOp(op, results);
    return success();
  }

private:
  ScanKind kind;
};

/// logsumexp(self, dim, keepdim).
class ConvertLogsumexpOp : public NamedTorchPattern {
public:
  ConvertLogsumexpOp(const TorchTypeConverter &typeConverter,
                     MLIRContext *context)
      : NamedTorchPattern("torch.aten.logsumexp", typeConverter, context) {}

  LogicalResult
  matchAndRewrite(Operation *op, ArrayRef<Value> operands,
                  ConversionPatternRewriter &rewriter) const override {
    if (op->getNumResults() != 1 || operands.size() != 3)
      return fail(op, rewriter, "unexpected operands or results");
    Value self = operands[0];
    auto selfType = dyn_cast<RankedTensorType>(self.getType());
    RankedTensorType type = getTensorType(op->getResult(0).getType());
    if (!selfType || !type)
      return fail(op, rewriter, "result type is not convertible");
    auto resultElemType = dyn_cast<FloatType>(type.getElementType());
    if (!resultElemType)
      return fail(op, rewriter, "only float results are lowered");
    // f16/bf16 in f32, rounded once at the end.
    FloatType elemType = resultElemType.getWidth() < 32
                             ? cast<FloatType>(rewriter.getF32Type())
                             : resultElemType;
    std::optional<SmallVector<int64_t>> dimsArg =
        getConstantIntList(op->getOperand(1));
    if (!dimsArg)
      return fail(op, rewriter, "dim must be a list of int constants");
    int64_t rank = selfType.getRank();
    SmallVector<int64_t> dims;
    for (int64_t d : *dimsArg) {
      std::optional<int64_t> nd = normalizeDim(d, std::max<int64_t>(rank, 1));
      if (!nd)
        return fail(op, rewriter, "dim out of range (eager raises)");
      if (rank > 0 && !llvm::is_contained(dims, *nd))
        dims.push_back(*nd);
    }
    if (dims.empty()) // [] reduces every dim, as sum and amax do
      for (int64_t d = 0; d < rank; ++d)
        dims.push_back(d);
    llvm::sort(dims);
    if (selfType.getNumElements() == 0)
      return fail(op, rewriter, "empty input is left to the eager kernel");
    Location loc = op->getLoc();
    Type dtype = getTorchDtype(op->getOperand(0));
    Value x = castTensor(rewriter, loc, self, elemType,
                         isUnsignedDtype(dtype) || isBoolDtype(dtype));
    auto xType = cast<RankedTensorType>(x.getType());

    // m = amax over dims (NaN propagates), 0 where infinite.
    Value m = createReduction(
        rewriter, loc, x, dims,
        createScalarConstant(rewriter, loc, elemType,
                             -std::numeric_limits<double>::infinity()),
        [&](OpBuilder &b, Location l, Value e, Value acc) {
          Value take = arith::OrIOp::create(
              b, l, arith::CmpFOp::create(b, l, arith::CmpFPredicate::OGT, e, acc),
              arith::CmpFOp::create(b, l, arith::CmpFPredicate::UNO, e, e));
          return arith::SelectOp::create(b, l, take, e, acc).getResult();
        });
    auto mType = cast<RankedTensorType>(m.getType());
    m = *createElementwiseOp(
        rewriter, loc, mType, ValueRange{m},
        [&](OpBuilder &b, Location l, ValueRange args) -> Value {
          Value inf = createScalarConstant(
              b, l, elemType, std::numeric_limits<double>::infinity());
          Value isInf = arith::CmpFOp::create(
              b, l, arith::CmpFPredicate::OEQ, math::AbsFOp::create(b, l, args[0]),
              inf);
          return arith::SelectOp::create(
              b, l, isInf, createScalarConstant(b, l, elemType, 0.0), args[0]);
        });
    // exp(x - m)
    AffineMap id = rewriter.getMultiDimIdentityMap(rank);
    AffineMap reduced = getDropDimsMap(rank, dims, rewriter.getContext());
    SmallVector<utils::IteratorType> iterators(rank,
                                               utils::IteratorType::parallel);
    Value e = linalg::GenericOp::create(
                  rewriter, loc, TypeRange{xType}, ValueRange{x, m},
                  ValueRange{createEmptyTensor(rewriter, loc, xType)},
                  {id, reduced, id}, iterators,
                  [&](OpBuilder &b, Location l, ValueRange args) {
                    linalg::YieldOp::create(
                        b, l,
                        math::ExpOp::create(
                            b, l, arith::SubFOp::create(b, l, args[0], args[1]))
                            .getResult());
                  })
                  .getResult(0);
    Value s = createSum(rewriter, loc, e, dims, elemType);
    Value r = *createElementwiseOp(
        rewriter, loc, mType, ValueRange{s, m},
        [&](OpBuilder &b, Location l, ValueRange args) -> Value {
          return arith::AddFOp::create(b, l, math::LogOp::create(b, l, args[0]),
                                       args[1]);
        });
    if (elemType != resultElemType)
      r = castTensor(rewriter, loc, r, resultElemType, /*isUnsigned=*/false);
    FailureOr<Value> result = createReshape(rewriter, loc, r, type);
    if (failed(result))
      return fail(op, rewriter, "cannot reshape the result");
    rewriter.replaceOp(op, *result);
    return success();
  }
};

/// put(self, index, source, accumulate).
class ConvertPutOp : public NamedTorchPattern {
public:
  ConvertPutOp(const TorchTypeConverter &typeConverter, MLIRContext *context)
      : NamedTorchPattern("torch.aten.put", typeConverter, context) {}

  LogicalResult
  matchAndRewrite(Operation *op, ArrayRef<Value> operands,
                  ConversionPatternRewriter &rewriter) const override {
    if (op->getNumResults() != 1 || operands.size() != 4)
      return fail(op, rewriter, "unexpected operands or results");
    Value self = operands[0], index = operands[1], source = operands[2];
    auto selfType = dyn_cast<RankedTensorType>(self.getType());
    auto indexType = dyn_cast<RankedTensorType>(index.getType());
    auto sourceType = dyn_cast<RankedTensorType>(source.getType());
    RankedTensorType type = getTensorType(op->getResult(0).getType());
    if (!selfType || !indexType || !sourceType || type != selfType ||
        sourceType.getElementType() != selfType.getElementType())
      return fail(op, rewriter, "result and source types must match self");
    if (!isa<IntegerType>(indexType.getElementType()) ||
        isBoolDtype(getTorchDtype(op->getOperand(1))))
      return fail(op, rewriter, "index must be an integer tensor");
    std::optional<bool> accumulate = getConstantBool(op->getOperand(3));
    if (!accumulate)
      return fail(op, rewriter, "accumulate must be a constant");
    if (*accumulate && isBoolDtype(getTorchDtype(op->getOperand(0))))
      return fail(op, rewriter, "accumulating into bool is left to eager");
    int64_t count = indexType.getNumElements();
    if (sourceType.getNumElements() != count)
      return fail(op, rewriter,
                  "source and index differ in element count (eager raises)");
    Location loc = op->getLoc();
    if (count == 0) {
      rewriter.replaceOp(op, self);
      return success();
    }
    int64_t n = selfType.getNumElements();
    if (n == 0)
      return fail(op, rewriter, "put into an empty tensor (eager raises)");
    Type i64 = rewriter.getI64Type();
    Value ok = createAllOf(
        rewriter, loc, index, [&](OpBuilder &b, Location l, Value element) {
          Value i = castScalar(b, l, element, i64);
          Value lo = arith::CmpIOp::create(b, l, arith::CmpIPredicate::sge, i,
                                           createIntConstant(b, l, i64, -n));
          Value hi = arith::CmpIOp::create(b, l, arith::CmpIPredicate::slt, i,
                                           createIntConstant(b, l, i64, n));
          return arith::AndIOp::create(b, l, lo, hi).getResult();
        });
    emitRuntimeCheck(rewriter, loc, ok,
                     std::string(kIndexErrorTag) +
                         "put(): out of range: every index must be in [-" +
                         std::to_string(n) + ", " + std::to_string(n) +
                         ") for a tensor of " + std::to_string(n) +
                         " elements. Check the indices passed to put_/put "
                         "(or to take, whose backward is put).");
    auto flat = [&](Value t, RankedTensorType tType, int64_t size) {
      return createReshape(rewriter, loc, t,
                           RankedTensorType::get({size}, tType.getElementType()));
    };
    FailureOr<Value> flatSelf = flat(self, selfType, n);
    FailureOr<Value> flatIndex = flat(index, indexType, count);
    FailureOr<Value> flatSource = flat(source, sourceType, count);
    if (failed(flatSelf) || failed(flatIndex) || failed(flatSource))
      return fail(op, rewriter, "cannot flatten the operands");
    Value idx = *flatIndex, src = *flatSource;
    bool add = *accumulate;
    auto loop = scf::ForOp::create(
        rewriter, loc, arith::ConstantIndexOp::create(rewriter, loc, 0),
        arith::ConstantIndexOp::create(rewriter, loc, count),
        arith::ConstantIndexOp::create(rewriter, loc, 1), ValueRange{*flatSelf},
        [&](OpBuilder &b, Location l, Value k, ValueRange iterArgs) {
          Value i = castScalar(b, l, tensor::ExtractOp::create(b, l, idx, k), i64);
          Value negative = arith::CmpIOp::create(
              b, l, arith::CmpIPredicate::slt, i, createIntConstant(b, l, i64, 0));
          i = arith::SelectOp::create(
              b, l, negative,
              arith::AddIOp::create(b, l, i, createIntConstant(b, l, i64, n)), i);
          i = arith::MinSIOp::create(
              b, l,
              arith::MaxSIOp::create(b, l, i, createIntConstant(b, l, i64, 0)),
              createIntConstant(b, l, i64, n - 1));
          Value at = arith::IndexCastOp::create(b, l, b.getIndexType(), i);
          Value v = tensor::ExtractOp::create(b, l, src, k);
          if (add)
            v = createAdd(b, l,
                          tensor::ExtractOp::create(b, l, iterArgs[0], at), v);
          Value updated = tensor::InsertOp::create(b, l, v, iterArgs[0], at);
          scf::YieldOp::create(b, l, updated);
        });
    FailureOr<Value> result = createReshape(rewriter, loc, loop.getResult(0), type);
    if (failed(result))
      return fail(op, rewriter, "cannot reshape the result");
    rewriter.replaceOp(op, *result);
    return success();
  }
};

} // namespace

void populateCumulativePatterns(TorchTypeConverter &typeConverter,
                                RewritePatternSet &patterns) {
  MLIRContext *context = patterns.getContext();
  patterns.add<ConvertScanOp>("torch.aten.cummax", ScanKind::Max, typeConverter,
                              context);
  patterns.add<ConvertScanOp>("torch.aten.cummin", ScanKind::Min, typeConverter,
                              context);
  patterns.add<ConvertScanOp>("torch.aten.logcumsumexp", ScanKind::LogSumExp,
                              typeConverter, context);
  patterns.add<ConvertLogsumexpOp, ConvertPutOp>(typeConverter, context);
}

} // namespace ltc_mlir::torch_to_linalg
