//===- Reduction.cpp - sum, mean, nansum, prod, any, all, count_nonzero ---===//
//
// A reduction is linalg.generic ops with reduction iterators whose result
// drops the reduced dims; keepdim re-inserts them with tensor.expand_shape
// (so that the generic keeps projected-permutation maps, which tiling and
// vectorization expect). Elements are cast to the result dtype and
// accumulated in it (the `dtype` argument is reflected in the result type),
// f16/bf16 in f32; float sums are blocked (see Summation.cpp). mean divides
// the sum by the number of reduced elements, like ATen. nansum skips NaNs;
// count_nonzero sums (x != 0) in int64; prod multiplies in the result dtype
// (half types in f32); any/all give 0/1 in a bool (or ui8, for ui8 input)
// result. The shared dim/keepdim helpers (ReductionUtils.h) live here.
//
//===----------------------------------------------------------------------===//

#include "ReductionUtils.h"

using namespace mlir;

namespace ltc_mlir::torch_to_linalg {

FailureOr<SmallVector<int64_t>> getReductionDims(Value dimOperand, int64_t rank,
                                                 std::string &why) {
  SmallVector<int64_t> dims;
  std::optional<SmallVector<int64_t>> list;
  if (!dimOperand || isNone(dimOperand)) {
    list.emplace();
  } else if (std::optional<int64_t> single = getConstantInt(dimOperand)) {
    list = SmallVector<int64_t>{*single};
  } else {
    list = getConstantIntList(dimOperand);
    if (!list) {
      why = "dim must be None or a constant int (list)";
      return failure();
    }
  }
  if (list->empty())
    return llvm::to_vector(llvm::seq<int64_t>(0, rank));
  for (int64_t dim : *list) {
    std::optional<int64_t> d = normalizeDim(dim, rank);
    if (!d) {
      why = "dim " + std::to_string(dim) + " out of range";
      return failure();
    }
    if (llvm::is_contained(dims, *d)) {
      why = "dim " + std::to_string(dim) + " appears multiple times";
      return failure();
    }
    dims.push_back(*d);
  }
  // A 0-d tensor accepts dim 0/-1 but has nothing to reduce.
  if (rank == 0)
    dims.clear();
  llvm::sort(dims);
  return dims;
}

SmallVector<int64_t> getReducedShape(ArrayRef<int64_t> shape,
                                     ArrayRef<int64_t> dims, bool keepdim) {
  SmallVector<int64_t> result;
  for (auto [d, size] : llvm::enumerate(shape)) {
    if (!llvm::is_contained(dims, int64_t(d)))
      result.push_back(size);
    else if (keepdim)
      result.push_back(1);
  }
  return result;
}

FailureOr<SmallVector<int64_t>>
getCheckedReductionDims(Value dimOperand, ArrayRef<int64_t> inputShape,
                        bool keepdim, ArrayRef<int64_t> resultShape,
                        std::string &why) {
  FailureOr<SmallVector<int64_t>> dims =
      getReductionDims(dimOperand, inputShape.size(), why);
  if (failed(dims))
    return failure();
  if (!llvm::equal(getReducedShape(inputShape, *dims, keepdim), resultShape)) {
    why = "result shape does not match the dims";
    return failure();
  }
  return dims;
}

LogicalResult replaceWithReshaped(Operation *op,
                                  ConversionPatternRewriter &rewriter,
                                  ArrayRef<Value> values,
                                  ArrayRef<RankedTensorType> types) {
  SmallVector<Value> shaped;
  for (auto [value, type] : llvm::zip_equal(values, types)) {
    FailureOr<Value> v = createReshape(rewriter, op->getLoc(), value, type);
    if (failed(v))
      return failure();
    shaped.push_back(*v);
  }
  rewriter.replaceOp(op, shaped);
  return success();
}

bool reducesEmptyDim(ArrayRef<int64_t> shape, ArrayRef<int64_t> dims) {
  return llvm::any_of(dims, [&](int64_t d) { return shape[d] == 0; });
}

SmallVector<Value> createMultiReduction(
    OpBuilder &b, Location loc, ValueRange inputs, ArrayRef<int64_t> dims,
    ValueRange inits,
    function_ref<SmallVector<Value>(OpBuilder &, Location, ValueRange,
                                    ValueRange)>
        combine) {
  MLIRContext *context = b.getContext();
  auto inputType = cast<RankedTensorType>(inputs.front().getType());
  int64_t rank = inputType.getRank();
  SmallVector<int64_t> shape = getReducedShape(inputType.getShape(), dims,
                                               /*keepdim=*/false);
  SmallVector<Type> resultTypes;
  SmallVector<Value> accs;
  for (Value init : inits) {
    auto type = RankedTensorType::get(shape, init.getType());
    resultTypes.push_back(type);
    accs.push_back(createFilledTensor(b, loc, type, init));
  }
  SmallVector<AffineMap> maps(inputs.size(), b.getMultiDimIdentityMap(rank));
  maps.append(inits.size(), getDropDimsMap(rank, dims, context));
  SmallVector<utils::IteratorType> iterators;
  for (int64_t d = 0; d < rank; ++d)
    iterators.push_back(llvm::is_contained(dims, d)
                            ? utils::IteratorType::reduction
                            : utils::IteratorType::parallel);
  size_t n = inputs.size();
  auto generic = linalg::GenericOp::create(
      b, loc, resultTypes, inputs, accs, maps, iterators,
      [&](OpBuilder &nb, Location nloc, ValueRange args) {
        linalg::YieldOp::create(
            nb, nloc, combine(nb, nloc, args.take_front(n), args.drop_front(n)));
      });
  return SmallVector<Value>(generic.getResults());
}

namespace {

/// Sum (or mean) of `input` over `dims`, shaped as `resultType`. Floats
/// are accumulated like ATen: f16/bf16 in f32 (rounded once at the end),
/// in blocks (createSum); mean divides the rounded sum in the result dtype.
FailureOr<Value> createSumOrMean(OpBuilder &b, Location loc, Value input,
                                 bool inputUnsigned, ArrayRef<int64_t> dims,
                                 RankedTensorType resultType, bool isMean) {
  Type elemType = resultType.getElementType();
  Type accType = getSumAccumulatorType(elemType);
  auto inputType = cast<RankedTensorType>(input.getType());
  // Elements are converted to the result dtype first (sum(dtype=f16) of an
  // f32 tensor rounds each element to f16), then to the accumulator's.
  Value sum =
      createSum(b, loc, inputType.getShape(), dims, input,
                b.getMultiDimIdentityMap(inputType.getRank()), accType,
                [&](OpBuilder &nb, Location nloc, ValueRange args,
                    LoopIndexFn) -> SmallVector<Value> {
                  Value x =
                      castScalar(nb, nloc, args[0], elemType, inputUnsigned);
                  return {castScalar(nb, nloc, x, accType)};
                })
          .front();
  sum = castTensor(b, loc, sum, elemType);
  if (isMean) {
    int64_t count = 1;
    for (int64_t d : dims)
      count *= inputType.getDimSize(d);
    Value divisor = createScalarConstant(b, loc, elemType, double(count));
    sum = *createElementwiseOp(
        b, loc, cast<RankedTensorType>(sum.getType()), sum,
        [&](OpBuilder &nb, Location nloc, ValueRange args) -> Value {
          return arith::DivFOp::create(nb, nloc, args[0], divisor);
        });
  }
  // keepdim: re-insert the reduced dims as size 1.
  return createReshape(b, loc, sum, resultType);
}

enum class ReduceKind { Sum, Mean, NanSum, Prod, Any, All, CountNonzero };

/// x != 0 as an i1 (NaN is nonzero).
Value createIsNonzero(OpBuilder &b, Location loc, Value x) {
  if (isa<FloatType>(x.getType()))
    return arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UNE, x,
                                 createScalarConstant(b, loc, x.getType(), 0));
  return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, x,
                               createIntConstant(b, loc, x.getType(), 0));
}

/// nansum, prod, any/all and count_nonzero of `input` over `dims`, not
/// yet reshaped for keepdim.
Value createOtherReduction(OpBuilder &b, Location loc, ReduceKind kind,
                           Value input, bool inputUnsigned,
                           ArrayRef<int64_t> dims, Type elemType) {
  auto inputType = cast<RankedTensorType>(input.getType());
  AffineMap identity = b.getMultiDimIdentityMap(inputType.getRank());
  switch (kind) {
  case ReduceKind::NanSum: {
    Type accType = getSumAccumulatorType(elemType);
    Value sum =
        createSum(b, loc, inputType.getShape(), dims, input, identity, accType,
                  [&](OpBuilder &nb, Location nloc, ValueRange args,
                      LoopIndexFn) -> SmallVector<Value> {
                    Value x =
                        castScalar(nb, nloc, args[0], elemType, inputUnsigned);
                    x = castScalar(nb, nloc, x, accType);
                    if (isa<FloatType>(accType)) {
                      Value isNan = arith::CmpFOp::create(
                          nb, nloc, arith::CmpFPredicate::UNO, x, x);
                      x = arith::SelectOp::create(
                          nb, nloc, isNan,
                          createScalarConstant(nb, nloc, accType, 0), x);
                    }
                    return {x};
                  })
            .front();
    return castTensor(b, loc, sum, elemType);
  }
  case ReduceKind::CountNonzero: {
    Type i64 = b.getI64Type();
    return createSum(b, loc, inputType.getShape(), dims, input, identity, i64,
                     [&](OpBuilder &nb, Location nloc, ValueRange args,
                         LoopIndexFn) -> SmallVector<Value> {
                       return {arith::ExtUIOp::create(
                           nb, nloc, i64, createIsNonzero(nb, nloc, args[0]))};
                     })
        .front();
  }
  case ReduceKind::Prod: {
    // Products are not blocked (no cancellation to guard against); half
    // types multiply in f32 like ATen's opmath.
    Type accType = isa<FloatType>(elemType)
                       ? getOpmathType(cast<FloatType>(elemType))
                       : elemType;
    Value prod = createReduction(
        b, loc, input, dims, createScalarConstant(b, loc, accType, 1),
        [&](OpBuilder &nb, Location nloc, Value x, Value acc) -> Value {
          x = castScalar(nb, nloc, x, elemType, inputUnsigned);
          x = castScalar(nb, nloc, x, accType);
          return createMul(nb, nloc, x, acc);
        });
    return castTensor(b, loc, prod, elemType);
  }
  case ReduceKind::Any:
  case ReduceKind::All: {
    bool isAll = kind == ReduceKind::All;
    Type i8 = b.getI8Type();
    return createReduction(
        b, loc, input, dims, createIntConstant(b, loc, i8, isAll ? 1 : 0),
        [&](OpBuilder &nb, Location nloc, Value x, Value acc) -> Value {
          Value bit =
              arith::ExtUIOp::create(nb, nloc, i8, createIsNonzero(nb, nloc, x));
          if (isAll)
            return arith::AndIOp::create(nb, nloc, acc, bit);
          return arith::OrIOp::create(nb, nloc, acc, bit);
        });
  }
  case ReduceKind::Sum:
  case ReduceKind::Mean:
    break;
  }
  llvm_unreachable("sum and mean go through createSumOrMean");
}

template <typename OpTy, ReduceKind Kind, bool HasDims, bool HasKeepdim = HasDims>
class ConvertReductionOp : public TorchConversionPattern<OpTy> {
public:
  using OpAdaptor = typename OpTy::Adaptor;
  using TorchConversionPattern<OpTy>::TorchConversionPattern;

  LogicalResult
  matchAndRewrite(OpTy op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    RankedTensorType type = this->getTensorType(op.getType());
    if (!type)
      return this->fail(op, rewriter, "result type is not convertible");
    Type elemType = type.getElementType();
    // A bool sum (sum(dtype=torch.bool), nansum) adds in bool: any; a bool
    // product: all.
    ReduceKind kind = Kind;
    if (isBoolDtype(getTorchDtype(op.getResult()))) {
      if (Kind == ReduceKind::Sum || Kind == ReduceKind::NanSum)
        kind = ReduceKind::Any;
      else if (Kind == ReduceKind::Prod)
        kind = ReduceKind::All;
    }
    bool isLogical = kind == ReduceKind::Any || kind == ReduceKind::All;
    if (Kind == ReduceKind::Mean && !isa<FloatType>(elemType))
      return this->fail(op, rewriter,
                        "mean needs a floating-point result dtype");
    // Bool tensors are stored as i8 (see TorchTypeConverter): only any/all
    // produce them (0/1).
    if (isLogical ? !elemType.isInteger(8)
                  : isBoolDtype(getTorchDtype(op.getResult())))
      return this->fail(op, rewriter, "bool result dtype is not supported");
    if (Kind == ReduceKind::CountNonzero && !elemType.isInteger(64))
      return this->fail(op, rewriter, "count_nonzero gives int64");
    auto inputType = cast<RankedTensorType>(adaptor.getSelf().getType());

    Value dimOperand;
    bool keepdim = false;
    if constexpr (HasDims)
      dimOperand = op.getDim();
    if constexpr (HasKeepdim) {
      std::optional<bool> k = getConstantBool(op.getKeepdim());
      if (!k)
        return this->fail(op, rewriter, "keepdim must be a constant");
      keepdim = *k;
    }
    std::string why;
    FailureOr<SmallVector<int64_t>> dims = getCheckedReductionDims(
        dimOperand, inputType.getShape(), keepdim, type.getShape(), why);
    if (failed(dims))
      return this->fail(op, rewriter, why);

    Location loc = op.getLoc();
    bool inputUnsigned = isUnsignedDtype(getTorchDtype(op.getSelf())) ||
                         isBoolDtype(getTorchDtype(op.getSelf()));
    if (kind == ReduceKind::Sum || kind == ReduceKind::Mean) {
      return this->replaceOrFail(
          op, rewriter,
          createSumOrMean(rewriter, loc, adaptor.getSelf(), inputUnsigned,
                          *dims, type, Kind == ReduceKind::Mean),
          "cannot reshape the result");
    } else {
      Value result =
          createOtherReduction(rewriter, loc, kind, adaptor.getSelf(),
                               inputUnsigned, *dims, elemType);
      return this->replaceOrFail(op, rewriter,
                                 createReshape(rewriter, loc, result, type),
                                 "cannot reshape the result");
    }
  }
};

} // namespace

void populateReductionPatterns(TorchTypeConverter &typeConverter,
                               RewritePatternSet &patterns) {
  using K = ReduceKind;
  patterns.add<
      ConvertReductionOp<torch::AtenSumOp, K::Sum, /*HasDims=*/false>,
      ConvertReductionOp<torch::AtenSumDimIntListOp, K::Sum, true>,
      ConvertReductionOp<torch::AtenMeanOp, K::Mean, false>,
      ConvertReductionOp<torch::AtenMeanDimOp, K::Mean, true>,
      ConvertReductionOp<torch::AtenNansumOp, K::NanSum, true>,
      ConvertReductionOp<torch::AtenProdOp, K::Prod, false>,
      ConvertReductionOp<torch::AtenProdDimIntOp, K::Prod, true>,
      ConvertReductionOp<torch::AtenAnyOp, K::Any, false>,
      ConvertReductionOp<torch::AtenAnyDimOp, K::Any, true>,
      ConvertReductionOp<torch::AtenAllOp, K::All, false>,
      ConvertReductionOp<torch::AtenAllDimOp, K::All, true>,
      ConvertReductionOp<torch::AtenCountNonzeroDimIntListOp, K::CountNonzero,
                         true, /*HasKeepdim=*/false>>(typeConverter,
                                                      patterns.getContext());
}

} // namespace ltc_mlir::torch_to_linalg
