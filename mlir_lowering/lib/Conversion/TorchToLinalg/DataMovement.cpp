//===- DataMovement.cpp - *_copy view ops, clone, detach ------------------===//
//
// LTC functionalizes views into value-semantic *_copy ops. Permutations
// become linalg.transpose, reshapes tensor.collapse_shape/expand_shape (no
// data movement once bufferized), expand_copy a broadcasting linalg.generic,
// and identity ops forward their operand.
//
//===----------------------------------------------------------------------===//

#include "ltc_mlir/Conversion/TorchToLinalg/Utils.h"

using namespace mlir;

namespace ltc_mlir::torch_to_linalg {
namespace {

/// linalg.transpose of `input` with `permutation` (result dim i is input dim
/// permutation[i]); returns `input` itself for the identity.
Value createTranspose(OpBuilder &b, Location loc, Value input,
                      RankedTensorType resultType,
                      ArrayRef<int64_t> permutation) {
  if (llvm::equal(permutation, llvm::seq<int64_t>(0, permutation.size())))
    return input;
  Value init = createEmptyTensor(b, loc, resultType);
  return linalg::TransposeOp::create(b, loc, input, init, permutation)
      .getResult()[0];
}

/// Checks that the result type is the input type with dims permuted.
bool isPermutedType(RankedTensorType input, RankedTensorType result,
                    ArrayRef<int64_t> permutation) {
  if (input.getElementType() != result.getElementType() ||
      result.getRank() != static_cast<int64_t>(permutation.size()))
    return false;
  for (auto [i, p] : llvm::enumerate(permutation))
    if (result.getDimSize(i) != input.getDimSize(p))
      return false;
  return true;
}

class ConvertTCopyOp : public TorchConversionPattern<torch::AtenTCopyOp> {
public:
  using Base::Base;
  LogicalResult
  matchAndRewrite(torch::AtenTCopyOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    RankedTensorType type = getTensorType(op.getType());
    auto inputType = cast<RankedTensorType>(adaptor.getSelf().getType());
    if (!type)
      return fail(op, rewriter, "result type is not convertible");
    if (inputType.getRank() > 2)
      return fail(op, rewriter, "expects a tensor of rank <= 2");
    // t() of a 0-d or 1-d tensor is the tensor itself.
    SmallVector<int64_t> permutation =
        inputType.getRank() == 2 ? SmallVector<int64_t>{1, 0}
                                 : llvm::to_vector(llvm::seq<int64_t>(
                                       0, inputType.getRank()));
    if (!isPermutedType(inputType, type, permutation))
      return fail(op, rewriter, "result type does not match the transpose");
    rewriter.replaceOp(op, createTranspose(rewriter, op.getLoc(),
                                           adaptor.getSelf(), type,
                                           permutation));
    return success();
  }
};

class ConvertTransposeCopyIntOp
    : public TorchConversionPattern<torch::AtenTransposeCopyIntOp> {
public:
  using Base::Base;
  LogicalResult
  matchAndRewrite(torch::AtenTransposeCopyIntOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    RankedTensorType type = getTensorType(op.getType());
    auto inputType = cast<RankedTensorType>(adaptor.getSelf().getType());
    if (!type)
      return fail(op, rewriter, "result type is not convertible");
    std::optional<int64_t> dim0 = getConstantInt(op.getDim0());
    std::optional<int64_t> dim1 = getConstantInt(op.getDim1());
    if (!dim0 || !dim1)
      return fail(op, rewriter, "dim0 and dim1 must be constants");
    int64_t rank = inputType.getRank();
    std::optional<int64_t> d0 = normalizeDim(*dim0, rank);
    std::optional<int64_t> d1 = normalizeDim(*dim1, rank);
    if (!d0 || !d1)
      return fail(op, rewriter, "dim out of range");
    SmallVector<int64_t> permutation =
        llvm::to_vector(llvm::seq<int64_t>(0, rank));
    if (rank > 0)
      std::swap(permutation[*d0], permutation[*d1]);
    if (!isPermutedType(inputType, type, permutation))
      return fail(op, rewriter, "result type does not match the transpose");
    rewriter.replaceOp(op, createTranspose(rewriter, op.getLoc(),
                                           adaptor.getSelf(), type,
                                           permutation));
    return success();
  }
};

class ConvertPermuteCopyOp
    : public TorchConversionPattern<torch::AtenPermuteCopyOp> {
public:
  using Base::Base;
  LogicalResult
  matchAndRewrite(torch::AtenPermuteCopyOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    RankedTensorType type = getTensorType(op.getType());
    auto inputType = cast<RankedTensorType>(adaptor.getSelf().getType());
    if (!type)
      return fail(op, rewriter, "result type is not convertible");
    std::optional<SmallVector<int64_t>> dims = getConstantIntList(op.getDims());
    if (!dims)
      return fail(op, rewriter, "dims must be a constant int list");
    int64_t rank = inputType.getRank();
    if (static_cast<int64_t>(dims->size()) != rank)
      return fail(op, rewriter, "dims must have one entry per input dim");
    SmallVector<int64_t> permutation;
    SmallVector<bool> seen(rank, false);
    for (int64_t dim : *dims) {
      std::optional<int64_t> d = normalizeDim(dim, rank);
      if (!d || seen[*d])
        return fail(op, rewriter, "dims is not a permutation");
      seen[*d] = true;
      permutation.push_back(*d);
    }
    if (!isPermutedType(inputType, type, permutation))
      return fail(op, rewriter, "result type does not match the permutation");
    rewriter.replaceOp(op, createTranspose(rewriter, op.getLoc(),
                                           adaptor.getSelf(), type,
                                           permutation));
    return success();
  }
};

class ConvertViewCopyOp
    : public TorchConversionPattern<torch::AtenViewCopyOp> {
public:
  using Base::Base;
  LogicalResult
  matchAndRewrite(torch::AtenViewCopyOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    RankedTensorType type = getTensorType(op.getType());
    auto inputType = cast<RankedTensorType>(adaptor.getSelf().getType());
    if (!type)
      return fail(op, rewriter, "result type is not convertible");
    std::optional<SmallVector<int64_t>> size = getConstantIntList(op.getSize());
    if (!size)
      return fail(op, rewriter, "size must be a constant int list");
    // Infer a -1 entry from the element count, as ATen's infer_size.
    int64_t numElements = inputType.getNumElements();
    int64_t known = 1;
    std::optional<size_t> inferred;
    for (auto [i, s] : llvm::enumerate(*size)) {
      if (s == -1) {
        if (inferred)
          return fail(op, rewriter, "only one dimension can be inferred");
        inferred = i;
      } else if (s < 0) {
        return fail(op, rewriter, "invalid size " + Twine(s));
      } else {
        known *= s;
      }
    }
    if (inferred) {
      if (known == 0 || numElements % known != 0)
        return fail(op, rewriter, "size is invalid for the input's numel");
      (*size)[*inferred] = numElements / known;
    }
    if (!llvm::equal(*size, type.getShape()))
      return fail(op, rewriter, "result type does not match size");
    FailureOr<Value> result =
        createReshape(rewriter, op.getLoc(), adaptor.getSelf(), type);
    if (failed(result))
      return fail(op, rewriter, "size is invalid for the input's numel");
    rewriter.replaceOp(op, *result);
    return success();
  }
};

class ConvertUnsqueezeCopyOp
    : public TorchConversionPattern<torch::AtenUnsqueezeCopyOp> {
public:
  using Base::Base;
  LogicalResult
  matchAndRewrite(torch::AtenUnsqueezeCopyOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    RankedTensorType type = getTensorType(op.getType());
    auto inputType = cast<RankedTensorType>(adaptor.getSelf().getType());
    if (!type)
      return fail(op, rewriter, "result type is not convertible");
    std::optional<int64_t> dim = getConstantInt(op.getDim());
    if (!dim)
      return fail(op, rewriter, "dim must be a constant");
    // The new dim indexes the result: wrap with rank + 1.
    std::optional<int64_t> d = normalizeDim(*dim, inputType.getRank() + 1);
    if (!d)
      return fail(op, rewriter, "dim out of range");
    SmallVector<int64_t> shape(inputType.getShape());
    shape.insert(shape.begin() + *d, 1);
    if (!llvm::equal(shape, type.getShape()))
      return fail(op, rewriter, "result type does not match unsqueeze");
    FailureOr<Value> result =
        createReshape(rewriter, op.getLoc(), adaptor.getSelf(), type);
    if (failed(result))
      return fail(op, rewriter, "cannot reshape");
    rewriter.replaceOp(op, *result);
    return success();
  }
};

/// expand_copy(self, size, implicit): broadcast to `size`; -1 keeps an
/// existing dim, new dims are added in front.
class ConvertExpandCopyOp
    : public TorchConversionPattern<torch::AtenExpandCopyOp> {
public:
  using Base::Base;
  LogicalResult
  matchAndRewrite(torch::AtenExpandCopyOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    RankedTensorType type = getTensorType(op.getType());
    auto inputType = cast<RankedTensorType>(adaptor.getSelf().getType());
    if (!type)
      return fail(op, rewriter, "result type is not convertible");
    std::optional<SmallVector<int64_t>> size = getConstantIntList(op.getSize());
    if (!size)
      return fail(op, rewriter, "size must be a constant int list");
    int64_t rank = inputType.getRank();
    int64_t lead = static_cast<int64_t>(size->size()) - rank;
    if (lead < 0)
      return fail(op, rewriter, "size has fewer dims than the input");
    SmallVector<int64_t> shape;
    for (auto [i, s] : llvm::enumerate(*size)) {
      int64_t idx = static_cast<int64_t>(i);
      if (s == -1) {
        if (idx < lead)
          return fail(op, rewriter, "-1 is not allowed for a new leading dim");
        shape.push_back(inputType.getDimSize(idx - lead));
        continue;
      }
      if (s < 0)
        return fail(op, rewriter, "invalid size " + Twine(s));
      if (idx >= lead) {
        int64_t inSize = inputType.getDimSize(idx - lead);
        if (inSize != s && inSize != 1)
          return fail(op, rewriter, "a non-singleton dim cannot be expanded");
      }
      shape.push_back(s);
    }
    if (!llvm::equal(shape, type.getShape()))
      return fail(op, rewriter, "result type does not match size");
    if (type == inputType) {
      rewriter.replaceOp(op, adaptor.getSelf());
      return success();
    }
    FailureOr<Value> result = createElementwiseOp(
        rewriter, op.getLoc(), type, adaptor.getSelf(),
        [](OpBuilder &, Location, ValueRange args) { return args[0]; });
    if (failed(result))
      return fail(op, rewriter, "cannot broadcast to size");
    rewriter.replaceOp(op, *result);
    return success();
  }
};

/// detach_copy and clone: value semantics make them the identity.
template <typename OpTy>
class ConvertIdentityOp : public TorchConversionPattern<OpTy> {
public:
  using OpAdaptor = typename OpTy::Adaptor;
  using TorchConversionPattern<OpTy>::TorchConversionPattern;
  LogicalResult
  matchAndRewrite(OpTy op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    RankedTensorType type = this->getTensorType(op.getType());
    if (!type || type != adaptor.getSelf().getType())
      return this->fail(op, rewriter,
                        "result type differs from the input type");
    rewriter.replaceOp(op, adaptor.getSelf());
    return success();
  }
};

} // namespace

void populateDataMovementPatterns(TorchTypeConverter &typeConverter,
                                  RewritePatternSet &patterns) {
  patterns.add<ConvertTCopyOp, ConvertTransposeCopyIntOp, ConvertPermuteCopyOp,
               ConvertViewCopyOp, ConvertUnsqueezeCopyOp, ConvertExpandCopyOp,
               ConvertIdentityOp<torch::AtenDetachCopyOp>,
               ConvertIdentityOp<torch::AtenCloneOp>>(typeConverter,
                                                      patterns.getContext());
}

} // namespace ltc_mlir::torch_to_linalg
