//===- Reduction.cpp - sum, mean (all dims or a dim list) -----------------===//
//
// A reduction is linalg.generic ops with reduction iterators whose result
// drops the reduced dims; keepdim re-inserts them with tensor.expand_shape
// (so that the generic keeps projected-permutation maps, which tiling and
// vectorization expect). Elements are cast to the result dtype and
// accumulated in it (the `dtype` argument is reflected in the result type),
// f16/bf16 in f32; float sums are blocked (see Summation.cpp). mean divides
// the sum by the number of reduced elements, like ATen.
//
//===----------------------------------------------------------------------===//

#include "ltc_mlir/Conversion/TorchToLinalg/Utils.h"

using namespace mlir;

namespace ltc_mlir::torch_to_linalg {
namespace {

/// The sorted dims of a `dim` operand: None or [] means all dims; negative
/// dims wrap; duplicates are an error (as in ATen).
FailureOr<SmallVector<int64_t>> getReductionDims(Value dimOperand, int64_t rank,
                                                 std::string &why) {
  SmallVector<int64_t> dims;
  std::optional<SmallVector<int64_t>> list;
  if (!dimOperand || isNone(dimOperand)) {
    list.emplace();
  } else {
    list = getConstantIntList(dimOperand);
    if (!list) {
      why = "dim must be None or a constant int list";
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

template <typename OpTy, bool IsMean, bool HasDims>
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
    if (IsMean && !isa<FloatType>(elemType))
      return this->fail(op, rewriter,
                        "mean needs a floating-point result dtype");
    // Bool tensors are stored as i8 (see TorchTypeConverter).
    if (isBoolDtype(getTorchDtype(op.getResult())))
      return this->fail(op, rewriter, "bool result dtype is not supported");
    auto inputType = cast<RankedTensorType>(adaptor.getSelf().getType());
    int64_t rank = inputType.getRank();

    Value dimOperand;
    bool keepdim = false;
    if constexpr (HasDims) {
      dimOperand = op.getDim();
      std::optional<bool> k = getConstantBool(op.getKeepdim());
      if (!k)
        return this->fail(op, rewriter, "keepdim must be a constant");
      keepdim = *k;
    }
    std::string why;
    FailureOr<SmallVector<int64_t>> dims =
        getReductionDims(dimOperand, rank, why);
    if (failed(dims))
      return this->fail(op, rewriter, why);

    SmallVector<int64_t> expected;
    for (int64_t d = 0; d < rank; ++d) {
      if (!llvm::is_contained(*dims, d))
        expected.push_back(inputType.getDimSize(d));
      else if (keepdim)
        expected.push_back(1);
    }
    if (!llvm::equal(expected, type.getShape()))
      return this->fail(op, rewriter, "result shape does not match the dims");

    return this->replaceOrFail(
        op, rewriter,
        createSumOrMean(rewriter, op.getLoc(), adaptor.getSelf(),
                        isUnsignedDtype(getTorchDtype(op.getSelf())), *dims,
                        type, IsMean),
        "cannot reshape the result");
  }
};

} // namespace

void populateReductionPatterns(TorchTypeConverter &typeConverter,
                               RewritePatternSet &patterns) {
  patterns.add<
      ConvertReductionOp<torch::AtenSumOp, /*IsMean=*/false, /*HasDims=*/false>,
      ConvertReductionOp<torch::AtenSumDimIntListOp, false, true>,
      ConvertReductionOp<torch::AtenMeanOp, true, false>,
      ConvertReductionOp<torch::AtenMeanDimOp, true, true>>(
      typeConverter, patterns.getContext());
}

} // namespace ltc_mlir::torch_to_linalg
