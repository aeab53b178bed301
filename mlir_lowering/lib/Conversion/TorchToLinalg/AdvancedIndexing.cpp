//===- AdvancedIndexing.cpp - index.Tensor, index_put with index tensors --===//
//
// Advanced indexing self[indices] with integer index tensors (`Tensor?[]`,
// a prim.ListConstruct of tensors and Nones): index tensor k picks
// positions along self's dim k; None keeps the whole dim. The index tensors
// broadcast together, and their broadcast shape replaces the indexed dims
// in the result (where the first indexed dim was when they are adjacent,
// else at the front: getAdvancedIndexing). Negative indices count from the
// end.
//
// - index.Tensor: a parallel linalg.generic over the result reading the
//   (broadcast) index tensors and gathering from self with tensor.extract.
// - index_put / _index_put_impl (x[i] = v, x[i] += v, index's backward):
//   an scf.for nest over the indexing result in row-major order carrying
//   the result tensor (tensor.extract / tensor.insert, in place after
//   bufferization), values broadcast to that shape. Sequential, so the
//   result is deterministic for any thread count: duplicate indices keep
//   the last value, or add up in index order with accumulate (f16/bf16 add
//   in f32 and round after each add, like ATen's CPU loop; bools or).
//
// Indices outside [-size, size) fail a runtime check with eager's wording
// ("index is out of bounds for dimension 0 with size 6") and are clamped to
// stay memory-safe. Bool/ui8 masks (data-dependent result shapes) are left
// to the eager fallback: ltc_backend does not record them as graph ops.
//
//===----------------------------------------------------------------------===//

#include "ltc_mlir/Compiler/Compiler.h"
#include "ltc_mlir/Conversion/TorchToLinalg/Utils.h"

#include "mlir/Dialect/SCF/IR/SCF.h"

#include <string>
#include <type_traits>

using namespace mlir;

namespace ltc_mlir::torch_to_linalg {
namespace {

using torch::AdvancedIndexing;

/// The checked operands of an advanced indexing op.
struct IndexOperands {
  Value self; // builtin tensor
  /// Per self dim: the converted index tensor, or null (not indexed).
  SmallVector<Value> indices;
  AdvancedIndexing layout;
};

/// Reads the `Tensor?[]` operand; fails (with `why`) for masks, index
/// lists that are not a prim.ListConstruct, and shapes that do not
/// broadcast.
FailureOr<IndexOperands> getIndexOperands(Value indicesList, Value self,
                                          ConversionPatternRewriter &rewriter,
                                          std::string &why) {
  auto list = indicesList.getDefiningOp<torch::PrimListConstructOp>();
  if (!list) {
    why = "indices must be a prim.ListConstruct";
    return failure();
  }
  auto selfType = cast<RankedTensorType>(self.getType());
  IndexOperands r;
  r.self = self;
  SmallVector<std::optional<ArrayRef<int64_t>>> shapes;
  for (Value element : list.getElements()) {
    if (isa<torch::NoneType>(element.getType())) {
      r.indices.push_back(Value());
      shapes.push_back(std::nullopt);
      continue;
    }
    Type dtype = getTorchDtype(element);
    if (!dtype || !isa<IntegerType>(dtype) || isUnsignedDtype(dtype)) {
      why = "indices must be integer tensors (bool/uint8 masks have a "
            "data-dependent shape)";
      return failure();
    }
    Value converted = rewriter.getRemappedValue(element);
    if (!converted || !isa<RankedTensorType>(converted.getType())) {
      why = "cannot convert an index tensor";
      return failure();
    }
    r.indices.push_back(converted);
    shapes.push_back(cast<torch::ValueTensorType>(element.getType()).getSizes());
  }
  std::optional<AdvancedIndexing> layout =
      torch::getAdvancedIndexing(selfType.getShape(), shapes);
  if (!layout) {
    why = "needs at most rank(self) indices, at least one index tensor, and "
          "index shapes that broadcast together";
    return failure();
  }
  r.layout = std::move(*layout);
  r.indices.resize(selfType.getRank());
  for (auto [k, index] : llvm::enumerate(r.indices))
    if (index && selfType.getDimSize(k) == 0) {
      why = "an index into a dim of size 0 (eager raises)";
      return failure();
    }
  return r;
}

/// Checks every index of every index tensor against [-size, size) of its
/// dim (eager: "index 10 is out of bounds for dimension 0 with size 6").
void emitIndexChecks(OpBuilder &b, Location loc, const IndexOperands &ops,
                     StringRef what) {
  auto selfType = cast<RankedTensorType>(ops.self.getType());
  Type i64 = b.getI64Type();
  for (auto [k, index] : llvm::enumerate(ops.indices)) {
    if (!index || cast<RankedTensorType>(index.getType()).getNumElements() == 0)
      continue;
    int64_t size = selfType.getDimSize(k);
    Value ok = createAllOf(
        b, loc, index, [&](OpBuilder &nb, Location l, Value element) {
          Value i = castScalar(nb, l, element, i64);
          Value geLow =
              arith::CmpIOp::create(nb, l, arith::CmpIPredicate::sge, i,
                                    createIntConstant(nb, l, i64, -size));
          Value ltHigh =
              arith::CmpIOp::create(nb, l, arith::CmpIPredicate::slt, i,
                                    createIntConstant(nb, l, i64, size));
          return arith::AndIOp::create(nb, l, geLow, ltHigh).getResult();
        });
    std::string s = std::to_string(size);
    emitRuntimeCheck(b, loc, ok,
                     std::string(kIndexErrorTag) +
                         "index is out of bounds for dimension " +
                         std::to_string(k) + " with size " + s + " (" +
                         what.str() + " needs every index in [-" + s + ", " +
                         s + ")). Check the index tensors.");
  }
}

/// An index element as a position along a dim of `size` > 0: negative
/// values count from the end; out-of-range values (already reported by
/// the runtime check) are clamped.
Value createPosition(OpBuilder &b, Location loc, Value element, int64_t size) {
  Type i64 = b.getI64Type();
  Value i = castScalar(b, loc, element, i64);
  Value zero = createIntConstant(b, loc, i64, 0);
  Value negative = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, i, zero);
  Value wrapped =
      arith::AddIOp::create(b, loc, i, createIntConstant(b, loc, i64, size));
  i = arith::SelectOp::create(b, loc, negative, wrapped, i);
  i = arith::MaxSIOp::create(b, loc, i, zero);
  i = arith::MinSIOp::create(b, loc, i, createIntConstant(b, loc, i64, size - 1));
  return arith::IndexCastOp::create(b, loc, b.getIndexType(), i);
}

/// The affine exprs of a tensor of `shape` read at the trailing dims of
/// the iteration dims [start, start + broadcastRank) (ATen broadcasting:
/// size-1 dims read position 0).
SmallVector<AffineExpr> getBroadcastExprs(ArrayRef<int64_t> shape,
                                          int64_t start, int64_t broadcastRank,
                                          MLIRContext *ctx) {
  SmallVector<AffineExpr> exprs;
  int64_t rank = shape.size();
  for (int64_t j = 0; j < rank; ++j)
    exprs.push_back(shape[j] == 1
                        ? getAffineConstantExpr(0, ctx)
                        : getAffineDimExpr(start + broadcastRank - rank + j, ctx));
  return exprs;
}

/// The coordinates of a tensor of `shape` broadcast to the trailing dims of
/// `ivs` (loop indices).
SmallVector<Value> getBroadcastCoords(OpBuilder &b, Location loc,
                                      ArrayRef<int64_t> shape,
                                      ArrayRef<Value> ivs) {
  SmallVector<Value> coords;
  int64_t rank = shape.size(), lead = ivs.size() - rank;
  for (int64_t j = 0; j < rank; ++j)
    coords.push_back(shape[j] == 1 ? arith::ConstantIndexOp::create(b, loc, 0)
                                         .getResult()
                                   : ivs[lead + j]);
  return coords;
}

/// index.Tensor(self, indices) -> self[indices].
class ConvertIndexTensorOp
    : public TorchConversionPattern<torch::AtenIndexTensorOp> {
public:
  using Base::Base;
  LogicalResult
  matchAndRewrite(torch::AtenIndexTensorOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    RankedTensorType type = getTensorType(op.getType());
    auto selfType = cast<RankedTensorType>(adaptor.getSelf().getType());
    if (!type || type.getElementType() != selfType.getElementType())
      return fail(op, rewriter, "result type is not convertible");
    std::string why;
    FailureOr<IndexOperands> ops =
        getIndexOperands(op.getIndices(), adaptor.getSelf(), rewriter, why);
    if (failed(ops))
      return fail(op, rewriter, why);
    const AdvancedIndexing &layout = ops->layout;
    if (!llvm::equal(layout.resultShape, type.getShape()))
      return fail(op, rewriter, "result type does not match the indices");
    Location loc = op.getLoc();
    if (type.getNumElements() == 0) {
      rewriter.replaceOp(op, createEmptyTensor(rewriter, loc, type));
      return success();
    }
    emitIndexChecks(rewriter, loc, *ops, "x[indices]");

    MLIRContext *ctx = rewriter.getContext();
    int64_t rank = type.getRank();
    int64_t broadcastRank = layout.broadcastShape.size();
    SmallVector<Value> inputs;
    SmallVector<int64_t> inputDims; // self dim of each input
    SmallVector<AffineMap> maps;
    for (auto [k, index] : llvm::enumerate(ops->indices)) {
      if (!index)
        continue;
      ArrayRef<int64_t> shape =
          cast<RankedTensorType>(index.getType()).getShape();
      inputs.push_back(index);
      inputDims.push_back(k);
      maps.push_back(AffineMap::get(
          rank, 0,
          getBroadcastExprs(shape, layout.broadcastStart, broadcastRank, ctx),
          ctx));
    }
    maps.push_back(rewriter.getMultiDimIdentityMap(rank));
    SmallVector<utils::IteratorType> iterators(rank,
                                               utils::IteratorType::parallel);
    Value self = ops->self;
    auto generic = linalg::GenericOp::create(
        rewriter, loc, TypeRange{type}, inputs,
        ValueRange{createEmptyTensor(rewriter, loc, type)}, maps, iterators,
        [&](OpBuilder &b, Location l, ValueRange args) {
          SmallVector<Value> coords(selfType.getRank());
          for (auto [i, k] : llvm::enumerate(inputDims))
            coords[k] = createPosition(b, l, args[i], selfType.getDimSize(k));
          for (int64_t k = 0; k < selfType.getRank(); ++k)
            if (!coords[k])
              coords[k] =
                  linalg::IndexOp::create(b, l, layout.resultDimOfSelfDim[k]);
          linalg::YieldOp::create(
              b, l, tensor::ExtractOp::create(b, l, self, coords).getResult());
        });
    rewriter.replaceOp(op, generic.getResult(0));
    return success();
  }
};

/// old + v for index_put's accumulate: floats in ATen's opmath type
/// (f16/bf16 add in f32 and round), bools (i8 0/1) or, ints wrap.
Value createAccumulate(OpBuilder &b, Location loc, Value old, Value v,
                       bool isBool) {
  if (auto floatType = dyn_cast<FloatType>(old.getType())) {
    Type opmath = getOpmathType(floatType);
    Value sum = arith::AddFOp::create(b, loc, castScalar(b, loc, old, opmath),
                                      castScalar(b, loc, v, opmath));
    return castScalar(b, loc, sum, floatType);
  }
  if (isBool)
    return arith::OrIOp::create(b, loc, old, v);
  return arith::AddIOp::create(b, loc, old, v);
}

/// index_put(self, indices, values, accumulate) and
/// _index_put_impl(self, indices, values, accumulate, unsafe).
template <typename OpTy>
class ConvertIndexPutOp : public TorchConversionPattern<OpTy> {
public:
  using OpAdaptor = typename OpTy::Adaptor;
  using TorchConversionPattern<OpTy>::TorchConversionPattern;

  LogicalResult
  matchAndRewrite(OpTy op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    RankedTensorType type = this->getTensorType(op.getType());
    Value self = adaptor.getSelf(), values = adaptor.getValues();
    auto selfType = cast<RankedTensorType>(self.getType());
    auto valuesType = dyn_cast<RankedTensorType>(values.getType());
    if (!type || type != selfType)
      return this->fail(op, rewriter, "result type differs from self's");
    Type dtype = getTorchDtype(op.getSelf());
    if (!valuesType || getTorchDtype(op.getValues()) != dtype)
      return this->fail(op, rewriter, "values must have self's dtype");
    std::optional<bool> accumulate = getConstantBool(op.getAccumulate());
    if (!accumulate)
      return this->fail(op, rewriter, "accumulate must be a constant");
    std::string why;
    FailureOr<IndexOperands> ops =
        getIndexOperands(op.getIndices(), self, rewriter, why);
    if (failed(ops))
      return this->fail(op, rewriter, why);
    const AdvancedIndexing &layout = ops->layout;
    if (!torch::isBroadcastableTo(valuesType.getShape(), layout.resultShape))
      return this->fail(op, rewriter,
                        "values do not broadcast to the indexing result "
                        "(eager raises)");
    Location loc = op.getLoc();
    int64_t numUpdates = 1;
    for (int64_t s : layout.resultShape)
      numUpdates *= s;
    if (numUpdates == 0) {
      rewriter.replaceOp(op, self);
      return success();
    }
    emitIndexChecks(rewriter, loc, *ops,
                    *accumulate ? "index_put_ with accumulate=True"
                                : "x[indices] = values");

    SmallVector<Value> lbs, ubs, steps;
    for (int64_t s : layout.resultShape) {
      lbs.push_back(arith::ConstantIndexOp::create(rewriter, loc, 0));
      ubs.push_back(arith::ConstantIndexOp::create(rewriter, loc, s));
      steps.push_back(arith::ConstantIndexOp::create(rewriter, loc, 1));
    }
    int64_t broadcastRank = layout.broadcastShape.size();
    bool isBool = isBoolDtype(dtype);
    scf::LoopNest nest = scf::buildLoopNest(
        rewriter, loc, lbs, ubs, steps, ValueRange{self},
        [&](OpBuilder &b, Location l, ValueRange ivs,
            ValueRange args) -> scf::ValueVector {
          SmallVector<Value> broadcastIvs(
              ivs.begin() + layout.broadcastStart,
              ivs.begin() + layout.broadcastStart + broadcastRank);
          SmallVector<Value> coords;
          for (auto [k, index] : llvm::enumerate(ops->indices)) {
            if (!index) {
              coords.push_back(ivs[layout.resultDimOfSelfDim[k]]);
              continue;
            }
            ArrayRef<int64_t> shape =
                cast<RankedTensorType>(index.getType()).getShape();
            Value element = tensor::ExtractOp::create(
                b, l, index, getBroadcastCoords(b, l, shape, broadcastIvs));
            coords.push_back(
                createPosition(b, l, element, selfType.getDimSize(k)));
          }
          SmallVector<Value> allIvs(ivs.begin(), ivs.end());
          Value v = tensor::ExtractOp::create(
              b, l, values,
              getBroadcastCoords(b, l, valuesType.getShape(), allIvs));
          if (*accumulate)
            v = createAccumulate(
                b, l, tensor::ExtractOp::create(b, l, args[0], coords), v,
                isBool);
          return {tensor::InsertOp::create(b, l, v, args[0], coords)
                      .getResult()};
        });
    rewriter.replaceOp(op, nest.results.front());
    return success();
  }
};

} // namespace

void populateAdvancedIndexingPatterns(TorchTypeConverter &typeConverter,
                                      RewritePatternSet &patterns) {
  patterns.add<ConvertIndexTensorOp,
               ConvertIndexPutOp<torch::AtenIndexPutOp>,
               ConvertIndexPutOp<torch::AtenIndexPutImplOp>>(
      typeConverter, patterns.getContext());
}

} // namespace ltc_mlir::torch_to_linalg
