//===- Scatter.cpp - scatter, scatter_add, scatter_reduce -----------------===//
//
// scatter(self, dim, index, src|value[, reduce]), scatter_add and
// scatter_reduce.two write src[i] (or the scalar value) into
// result[i with i[dim] = index[i]], combined with what is there. The
// lowering is ATen's CPU loop: an scf.for nest over index in row-major
// order carrying the result tensor (tensor.extract / tensor.insert, which
// bufferize in place), so duplicate indices resolve as in eager (the last
// write wins; sums and products add in index order, bit for bit).
// scatter_reduce with include_self=False first sets every scattered-to
// element to the reduction's identity; "mean" divides by the number of
// values reduced into each element (self counted when included; integer
// results use floor division, like ATen). amax/amin propagate NaN.
// Out-of-range indices fail a runtime check ("index ... is out of bounds
// for dimension ...") and are clamped.
//
//===----------------------------------------------------------------------===//

#include "ltc_mlir/Conversion/TorchToLinalg/Utils.h"

#include "mlir/Dialect/SCF/IR/SCF.h"

#include <limits>
#include <string>

using namespace mlir;

namespace ltc_mlir::torch_to_linalg {
namespace {

enum class ScatterReduce { Assign, Sum, Prod, Mean, Amax, Amin };

std::optional<ScatterReduce> parseReduce(const std::string &name) {
  if (name == "sum" || name == "add")
    return ScatterReduce::Sum;
  if (name == "prod" || name == "multiply")
    return ScatterReduce::Prod;
  if (name == "mean")
    return ScatterReduce::Mean;
  if (name == "amax")
    return ScatterReduce::Amax;
  if (name == "amin")
    return ScatterReduce::Amin;
  return std::nullopt;
}

Value createIdentity(OpBuilder &b, Location loc, Type type, ScatterReduce kind,
                     bool isUnsigned) {
  bool isFloat = isa<FloatType>(type);
  switch (kind) {
  case ScatterReduce::Prod:
    return createScalarConstant(b, loc, type, 1);
  case ScatterReduce::Amax:
  case ScatterReduce::Amin: {
    bool isMax = kind == ScatterReduce::Amax;
    if (isFloat)
      return createScalarConstant(
          b, loc, type,
          isMax ? -std::numeric_limits<double>::infinity()
                : std::numeric_limits<double>::infinity());
    unsigned w = type.getIntOrFloatBitWidth();
    APInt v = isUnsigned ? (isMax ? APInt::getMinValue(w) : APInt::getMaxValue(w))
                         : (isMax ? APInt::getSignedMinValue(w)
                                  : APInt::getSignedMaxValue(w));
    return arith::ConstantOp::create(b, loc, IntegerAttr::get(type, v));
  }
  default:
    return createScalarConstant(b, loc, type, 0);
  }
}

Value combine(OpBuilder &b, Location loc, ScatterReduce kind, Value old,
              Value v, bool isUnsigned) {
  bool isFloat = isa<FloatType>(v.getType());
  switch (kind) {
  case ScatterReduce::Assign:
    return v;
  case ScatterReduce::Sum:
  case ScatterReduce::Mean:
    return createAdd(b, loc, old, v);
  case ScatterReduce::Prod:
    return createMul(b, loc, old, v);
  case ScatterReduce::Amax:
    if (isFloat)
      return arith::MaximumFOp::create(b, loc, old, v);
    return isUnsigned ? arith::MaxUIOp::create(b, loc, old, v).getResult()
                      : arith::MaxSIOp::create(b, loc, old, v).getResult();
  case ScatterReduce::Amin:
    if (isFloat)
      return arith::MinimumFOp::create(b, loc, old, v);
    return isUnsigned ? arith::MinUIOp::create(b, loc, old, v).getResult()
                      : arith::MinSIOp::create(b, loc, old, v).getResult();
  }
  llvm_unreachable("all kinds handled");
}

/// Operands of one scatter, already checked.
struct ScatterArgs {
  Value self;  // builtin tensor, the result's type
  Value index; // integer tensor, self's rank
  Value src;   // tensor (at least index's sizes) or scalar of any type
  int64_t dim;
  ScatterReduce kind;
  bool includeSelf;
  bool isUnsigned;    // self/result elements are ui8 or bool
  bool srcUnsigned;   // src elements (or the scalar) are ui8 or bool
};

/// Loops over index; `body(b, loc, ivs, dest coords, iterArgs)` returns
/// the new iter args.
SmallVector<Value> scatterLoop(
    OpBuilder &b, Location loc, const ScatterArgs &a, ValueRange iterArgs,
    function_ref<SmallVector<Value>(OpBuilder &, Location, ValueRange,
                                    ArrayRef<Value>, ValueRange)>
        body) {
  auto indexType = cast<RankedTensorType>(a.index.getType());
  auto selfType = cast<RankedTensorType>(a.self.getType());
  int64_t size = selfType.getDimSize(a.dim);
  SmallVector<Value> lbs, ubs, steps;
  for (int64_t s : indexType.getShape()) {
    lbs.push_back(arith::ConstantIndexOp::create(b, loc, 0));
    ubs.push_back(arith::ConstantIndexOp::create(b, loc, s));
    steps.push_back(arith::ConstantIndexOp::create(b, loc, 1));
  }
  Type i64 = b.getI64Type();
  scf::LoopNest nest = scf::buildLoopNest(
      b, loc, lbs, ubs, steps, iterArgs,
      [&](OpBuilder &nb, Location l, ValueRange ivs,
          ValueRange args) -> scf::ValueVector {
        Value i = castScalar(nb, l,
                             tensor::ExtractOp::create(nb, l, a.index, ivs), i64);
        i = arith::MaxSIOp::create(nb, l, i, createIntConstant(nb, l, i64, 0));
        i = arith::MinSIOp::create(nb, l, i,
                                   createIntConstant(nb, l, i64, size - 1));
        SmallVector<Value> dest(ivs.begin(), ivs.end());
        dest[a.dim] = arith::IndexCastOp::create(nb, l, nb.getIndexType(), i);
        SmallVector<Value> next = body(nb, l, ivs, dest, args);
        return scf::ValueVector(next.begin(), next.end());
      });
  return SmallVector<Value>(nest.results.begin(), nest.results.end());
}

Value createScatter(OpBuilder &b, Location loc, const ScatterArgs &a) {
  auto selfType = cast<RankedTensorType>(a.self.getType());
  Type elemType = selfType.getElementType();
  bool isMean = a.kind == ScatterReduce::Mean;
  Value out = a.self;
  Value count;
  if (isMean)
    count = createFilledTensor(
        b, loc, selfType,
        createScalarConstant(b, loc, elemType, a.includeSelf ? 1 : 0));
  if (!a.includeSelf && a.kind != ScatterReduce::Assign) {
    Value identity = createIdentity(b, loc, elemType, a.kind, a.isUnsigned);
    out = scatterLoop(b, loc, a, out,
                      [&](OpBuilder &nb, Location l, ValueRange,
                          ArrayRef<Value> dest,
                          ValueRange args) -> SmallVector<Value> {
                        return {tensor::InsertOp::create(nb, l, identity,
                                                         args[0], dest)
                                    .getResult()};
                      })
              .front();
  }
  Value scalar;
  if (!isa<RankedTensorType>(a.src.getType()))
    scalar = castScalar(b, loc, a.src, elemType, a.srcUnsigned);
  SmallVector<Value> init = {out};
  if (isMean)
    init.push_back(count);
  SmallVector<Value> results = scatterLoop(
      b, loc, a, init,
      [&](OpBuilder &nb, Location l, ValueRange ivs, ArrayRef<Value> dest,
          ValueRange args) -> SmallVector<Value> {
        Value v = scalar;
        if (!v)
          v = castScalar(nb, l, tensor::ExtractOp::create(nb, l, a.src, ivs),
                         elemType, a.srcUnsigned);
        Value old = tensor::ExtractOp::create(nb, l, args[0], dest);
        Value updated = combine(nb, l, a.kind, old, v, a.isUnsigned);
        SmallVector<Value> next = {
            tensor::InsertOp::create(nb, l, updated, args[0], dest)};
        if (isMean) {
          Value c = tensor::ExtractOp::create(nb, l, args[1], dest);
          c = createAdd(nb, l, c, createScalarConstant(nb, l, elemType, 1));
          next.push_back(tensor::InsertOp::create(nb, l, c, args[1], dest));
        }
        return next;
      });
  if (!isMean)
    return results[0];
  return *createElementwiseOp(
      b, loc, selfType, ValueRange{results[0], results[1]},
      [&](OpBuilder &nb, Location l, ValueRange args) -> Value {
        Value zero = createScalarConstant(nb, l, elemType, 0);
        Value one = createScalarConstant(nb, l, elemType, 1);
        Value c = args[1];
        if (isa<FloatType>(elemType)) {
          Value isZero = arith::CmpFOp::create(nb, l, arith::CmpFPredicate::OEQ,
                                               c, zero);
          c = arith::SelectOp::create(nb, l, isZero, one, c);
          return arith::DivFOp::create(nb, l, args[0], c);
        }
        Value isZero =
            arith::CmpIOp::create(nb, l, arith::CmpIPredicate::eq, c, zero);
        c = arith::SelectOp::create(nb, l, isZero, one, c);
        if (a.isUnsigned)
          return arith::DivUIOp::create(nb, l, args[0], c);
        return arith::FloorDivSIOp::create(nb, l, args[0], c);
      });
}

/// The common operand checks; fills `a` (without kind/includeSelf).
template <typename OpTy, typename AdaptorTy>
LogicalResult getScatterArgs(OpBuilder &b, Location loc, OpTy op,
                             AdaptorTy adaptor, Value src,
                             Value srcTorch, RankedTensorType type,
                             ScatterArgs &a, std::string &why) {
  Value self = adaptor.getSelf(), index = adaptor.getIndex();
  auto selfType = cast<RankedTensorType>(self.getType());
  auto indexType = cast<RankedTensorType>(index.getType());
  if (!type || type != selfType) {
    why = "result type differs from self's";
    return failure();
  }
  if (!isa<IntegerType>(indexType.getElementType())) {
    why = "index must be an integer tensor";
    return failure();
  }
  if (std::max<int64_t>(1, indexType.getRank()) !=
      std::max<int64_t>(1, selfType.getRank())) {
    why = "index and self must have the same rank";
    return failure();
  }
  std::optional<int64_t> dimArg = getConstantInt(op.getDim());
  if (!dimArg) {
    why = "dim must be a constant";
    return failure();
  }
  std::optional<int64_t> dim = normalizeDim(*dimArg, selfType.getRank());
  if (!dim) {
    why = "dim out of range";
    return failure();
  }
  // 0-d tensors scatter like 1-element 1-D ones (the caller reshapes the
  // result back).
  auto as1D = [&](Value v) -> Value {
    auto t = cast<RankedTensorType>(v.getType());
    if (t.getRank() != 0)
      return v;
    return *createReshape(b, loc, v,
                          RankedTensorType::get({1}, t.getElementType()));
  };
  self = as1D(self);
  index = as1D(index);
  selfType = cast<RankedTensorType>(self.getType());
  indexType = cast<RankedTensorType>(index.getType());
  if (isa<RankedTensorType>(src.getType()))
    src = as1D(src);
  auto srcType = dyn_cast<RankedTensorType>(src.getType());
  if (srcType) {
    if (srcType.getRank() != indexType.getRank() ||
        srcType.getElementType() != selfType.getElementType()) {
      why = "src must have self's dtype and index's rank";
      return failure();
    }
  } else if (!src.getType().isIntOrFloat()) {
    why = "value must be a scalar";
    return failure();
  }
  for (int64_t d = 0; d < selfType.getRank(); ++d) {
    if ((d != *dim && indexType.getDimSize(d) > selfType.getDimSize(d)) ||
        (srcType && indexType.getDimSize(d) > srcType.getDimSize(d))) {
      why = "index is larger than self or src (eager raises)";
      return failure();
    }
  }
  Type selfDtype = getTorchDtype(op.getSelf());
  a.self = self;
  a.index = index;
  a.src = src;
  a.dim = *dim;
  a.isUnsigned = isUnsignedDtype(selfDtype) || isBoolDtype(selfDtype);
  if (srcType) {
    Type srcDtype = getTorchDtype(srcTorch);
    a.srcUnsigned = isUnsignedDtype(srcDtype) || isBoolDtype(srcDtype);
  } else {
    a.srcUnsigned = false;
  }
  return success();
}

/// Emits the bounds check of `a.index` against self's size at dim.
void emitScatterBoundsCheck(OpBuilder &b, Location loc, const ScatterArgs &a,
                            StringRef opName) {
  int64_t size = cast<RankedTensorType>(a.self.getType()).getDimSize(a.dim);
  Type i64 = b.getI64Type();
  Value ok = createAllOf(b, loc, a.index,
                         [&](OpBuilder &nb, Location l, Value element) {
                           return arith::CmpIOp::create(
                                      nb, l, arith::CmpIPredicate::ult,
                                      castScalar(nb, l, element, i64),
                                      createIntConstant(nb, l, i64, size))
                               .getResult();
                         });
  emitRuntimeCheck(b, loc, ok,
                   (opName + "(): index out of bounds: every index must be in "
                             "[0, " +
                    std::to_string(size) + ") for dimension " +
                    std::to_string(a.dim) + " with size " +
                    std::to_string(size) + ". Check the indices passed to " +
                    opName + ".")
                       .str());
}

/// scatter.src/value (Assign or reduce = add/multiply), scatter_add,
/// scatter_reduce.two.
template <typename OpTy>
class ConvertScatterOp : public TorchConversionPattern<OpTy> {
public:
  using OpAdaptor = typename OpTy::Adaptor;
  using TorchConversionPattern<OpTy>::TorchConversionPattern;

  LogicalResult
  matchAndRewrite(OpTy op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    RankedTensorType type = this->getTensorType(op.getType());
    Value src, srcTorch;
    if constexpr (std::is_same_v<OpTy, torch::AtenScatterValueOp> ||
                  std::is_same_v<OpTy, torch::AtenScatterValueReduceOp>) {
      src = adaptor.getValue();
      srcTorch = op.getValue();
    } else {
      src = adaptor.getSrc();
      srcTorch = op.getSrc();
    }
    ScatterArgs a;
    std::string why;
    if (failed(getScatterArgs(rewriter, op.getLoc(), op, adaptor, src,
                              srcTorch, type, a, why)))
      return this->fail(op, rewriter, why);
    a.kind = ScatterReduce::Assign;
    a.includeSelf = true;
    StringRef name = "scatter";
    if constexpr (std::is_same_v<OpTy, torch::AtenScatterAddOp>) {
      a.kind = ScatterReduce::Sum;
      name = "scatter_add";
    } else if constexpr (std::is_same_v<OpTy, torch::AtenScatterReduceOp> ||
                         std::is_same_v<OpTy, torch::AtenScatterValueReduceOp>) {
      std::optional<std::string> reduce = getConstantStr(op.getReduce());
      if (!reduce || (*reduce != "add" && *reduce != "multiply"))
        return this->fail(op, rewriter, "reduce must be 'add' or 'multiply'");
      a.kind = *parseReduce(*reduce);
    } else if constexpr (std::is_same_v<OpTy, torch::AtenScatterReduceTwoOp>) {
      std::optional<std::string> reduce = getConstantStr(op.getReduce());
      std::optional<ScatterReduce> kind;
      if (reduce && *reduce != "add" && *reduce != "multiply")
        kind = parseReduce(*reduce);
      if (!kind)
        return this->fail(op, rewriter,
                          "reduce must be sum, prod, mean, amax or amin");
      std::optional<bool> includeSelf = getConstantBool(op.getIncludeSelf());
      if (!includeSelf)
        return this->fail(op, rewriter, "include_self must be a constant");
      a.kind = *kind;
      a.includeSelf = *includeSelf;
      name = "scatter_reduce";
    }
    auto indexType = cast<RankedTensorType>(a.index.getType());
    Location loc = op.getLoc();
    if (indexType.getNumElements() == 0) {
      rewriter.replaceOp(op, adaptor.getSelf());
      return success();
    }
    if (cast<RankedTensorType>(a.self.getType()).getDimSize(a.dim) == 0)
      return this->fail(op, rewriter, "scatter into an empty dim (eager raises)");
    emitScatterBoundsCheck(rewriter, loc, a, name);
    return this->replaceOrFail(
        op, rewriter, createReshape(rewriter, loc, createScatter(rewriter, loc, a), type),
        "cannot reshape the result");
  }
};

} // namespace

void populateScatterPatterns(TorchTypeConverter &typeConverter,
                             RewritePatternSet &patterns) {
  patterns.add<ConvertScatterOp<torch::AtenScatterSrcOp>,
               ConvertScatterOp<torch::AtenScatterValueOp>,
               ConvertScatterOp<torch::AtenScatterReduceOp>,
               ConvertScatterOp<torch::AtenScatterValueReduceOp>,
               ConvertScatterOp<torch::AtenScatterAddOp>,
               ConvertScatterOp<torch::AtenScatterReduceTwoOp>>(
      typeConverter, patterns.getContext());
}

} // namespace ltc_mlir::torch_to_linalg
