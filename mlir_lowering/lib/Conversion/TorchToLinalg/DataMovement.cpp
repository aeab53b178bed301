//===- DataMovement.cpp - *_copy view ops, clone, detach ------------------===//
//
// LTC functionalizes views into value-semantic *_copy ops. Permutations
// become linalg.transpose, reshapes and squeezes tensor.collapse_shape/
// expand_shape (no data movement once bufferized), expand_copy a
// broadcasting linalg.generic, and identity ops forward their operand.
// IntImplicit (the 0-dim tensor -> int conversion feeding as_strided_copy's
// offset) is here too. as_strided_copy and as_strided_scatter are in
// AsStrided.cpp; indexing (select/slice and their scatters, cat, stack,
// index_select) is in Indexing.cpp.
//
//===----------------------------------------------------------------------===//

#include "ltc_mlir/Conversion/TorchToLinalg/Utils.h"

#include <type_traits>
#include <utility>

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

/// Base of the ops that only permute the dims of `self`: the derived pattern
/// reads the permutation from the op's constant operands, the base checks
/// the result type against it and builds the linalg.transpose.
template <typename OpTy>
class ConvertPermutationOp : public TorchConversionPattern<OpTy> {
public:
  using OpAdaptor = typename OpTy::Adaptor;
  using TorchConversionPattern<OpTy>::TorchConversionPattern;

  LogicalResult
  matchAndRewrite(OpTy op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const final {
    RankedTensorType type = this->getTensorType(op.getType());
    auto inputType = cast<RankedTensorType>(adaptor.getSelf().getType());
    if (!type)
      return this->fail(op, rewriter, "result type is not convertible");
    FailureOr<SmallVector<int64_t>> permutation =
        getPermutation(op, inputType.getRank(), rewriter);
    if (failed(permutation))
      return failure();
    if (!isPermutedType(inputType, type, *permutation))
      return this->fail(op, rewriter, getMismatchReason());
    rewriter.replaceOp(op,
                       createTranspose(rewriter, op.getLoc(), adaptor.getSelf(),
                                       type, *permutation));
    return success();
  }

protected:
  /// Result dim i is input dim permutation[i] (for an input of `rank`
  /// dims); fails through `fail` when the operands give no permutation.
  virtual FailureOr<SmallVector<int64_t>>
  getPermutation(OpTy op, int64_t rank,
                 ConversionPatternRewriter &rewriter) const = 0;
  virtual StringRef getMismatchReason() const {
    return "result type does not match the transpose";
  }
};

class ConvertTCopyOp : public ConvertPermutationOp<torch::AtenTCopyOp> {
public:
  using ConvertPermutationOp::ConvertPermutationOp;

protected:
  FailureOr<SmallVector<int64_t>>
  getPermutation(torch::AtenTCopyOp op, int64_t rank,
                 ConversionPatternRewriter &rewriter) const override {
    if (rank > 2)
      return fail(op, rewriter, "expects a tensor of rank <= 2");
    // t() of a 0-d or 1-d tensor is the tensor itself.
    return rank == 2 ? SmallVector<int64_t>{1, 0}
                     : llvm::to_vector(llvm::seq<int64_t>(0, rank));
  }
};

class ConvertTransposeCopyIntOp
    : public ConvertPermutationOp<torch::AtenTransposeCopyIntOp> {
public:
  using ConvertPermutationOp::ConvertPermutationOp;

protected:
  FailureOr<SmallVector<int64_t>>
  getPermutation(torch::AtenTransposeCopyIntOp op, int64_t rank,
                 ConversionPatternRewriter &rewriter) const override {
    std::optional<int64_t> dim0 = getConstantInt(op.getDim0());
    std::optional<int64_t> dim1 = getConstantInt(op.getDim1());
    if (!dim0 || !dim1)
      return fail(op, rewriter, "dim0 and dim1 must be constants");
    std::optional<int64_t> d0 = normalizeDim(*dim0, rank);
    std::optional<int64_t> d1 = normalizeDim(*dim1, rank);
    if (!d0 || !d1)
      return fail(op, rewriter, "dim out of range");
    SmallVector<int64_t> permutation =
        llvm::to_vector(llvm::seq<int64_t>(0, rank));
    if (rank > 0)
      std::swap(permutation[*d0], permutation[*d1]);
    return permutation;
  }
};

class ConvertPermuteCopyOp
    : public ConvertPermutationOp<torch::AtenPermuteCopyOp> {
public:
  using ConvertPermutationOp::ConvertPermutationOp;

protected:
  FailureOr<SmallVector<int64_t>>
  getPermutation(torch::AtenPermuteCopyOp op, int64_t rank,
                 ConversionPatternRewriter &rewriter) const override {
    std::optional<SmallVector<int64_t>> dims = getConstantIntList(op.getDims());
    if (!dims)
      return fail(op, rewriter, "dims must be a constant int list");
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
    return permutation;
  }
  StringRef getMismatchReason() const override {
    return "result type does not match the permutation";
  }
};

/// Base of the view ops whose result shape follows from constant operands:
/// the derived pattern computes that shape, the base checks the result type
/// against it and creates the result, by default a reshape of `self`
/// (tensor.collapse_shape/expand_shape).
template <typename OpTy>
class ConvertViewOp : public TorchConversionPattern<OpTy> {
public:
  using OpAdaptor = typename OpTy::Adaptor;
  using TorchConversionPattern<OpTy>::TorchConversionPattern;

  LogicalResult
  matchAndRewrite(OpTy op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const final {
    RankedTensorType type = this->getTensorType(op.getType());
    auto inputType = cast<RankedTensorType>(adaptor.getSelf().getType());
    if (!type)
      return this->fail(op, rewriter, "result type is not convertible");
    FailureOr<SmallVector<int64_t>> shape =
        getResultShape(op, inputType, rewriter);
    if (failed(shape))
      return failure();
    if (!llvm::equal(*shape, type.getShape()))
      return this->fail(op, rewriter, getMismatchReason());
    return this->replaceOrFail(
        op, rewriter,
        createResult(rewriter, op.getLoc(), adaptor.getSelf(), type),
        getCreateFailureReason());
  }

protected:
  /// The result shape for `inputType`; fails through `fail` when the
  /// operands give none.
  virtual FailureOr<SmallVector<int64_t>>
  getResultShape(OpTy op, RankedTensorType inputType,
                 ConversionPatternRewriter &rewriter) const = 0;
  virtual StringRef getMismatchReason() const = 0;
  virtual FailureOr<Value> createResult(OpBuilder &b, Location loc, Value self,
                                        RankedTensorType type) const {
    return createReshape(b, loc, self, type);
  }
  virtual StringRef getCreateFailureReason() const { return "cannot reshape"; }
};

class ConvertViewCopyOp : public ConvertViewOp<torch::AtenViewCopyOp> {
public:
  using ConvertViewOp::ConvertViewOp;

protected:
  FailureOr<SmallVector<int64_t>>
  getResultShape(torch::AtenViewCopyOp op, RankedTensorType inputType,
                 ConversionPatternRewriter &rewriter) const override {
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
    return *size;
  }
  StringRef getMismatchReason() const override {
    return "result type does not match size";
  }
  StringRef getCreateFailureReason() const override {
    return "size is invalid for the input's numel";
  }
};

class ConvertUnsqueezeCopyOp
    : public ConvertViewOp<torch::AtenUnsqueezeCopyOp> {
public:
  using ConvertViewOp::ConvertViewOp;

protected:
  FailureOr<SmallVector<int64_t>>
  getResultShape(torch::AtenUnsqueezeCopyOp op, RankedTensorType inputType,
                 ConversionPatternRewriter &rewriter) const override {
    std::optional<int64_t> dim = getConstantInt(op.getDim());
    if (!dim)
      return fail(op, rewriter, "dim must be a constant");
    // The new dim indexes the result: wrap with rank + 1.
    std::optional<int64_t> d = normalizeDim(*dim, inputType.getRank() + 1);
    if (!d)
      return fail(op, rewriter, "dim out of range");
    SmallVector<int64_t> shape(inputType.getShape());
    shape.insert(shape.begin() + *d, 1);
    return shape;
  }
  StringRef getMismatchReason() const override {
    return "result type does not match unsqueeze";
  }
};

/// expand_copy(self, size, implicit): broadcast to `size`; -1 keeps an
/// existing dim, new dims are added in front.
class ConvertExpandCopyOp : public ConvertViewOp<torch::AtenExpandCopyOp> {
public:
  using ConvertViewOp::ConvertViewOp;

protected:
  FailureOr<SmallVector<int64_t>>
  getResultShape(torch::AtenExpandCopyOp op, RankedTensorType inputType,
                 ConversionPatternRewriter &rewriter) const override {
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
    return shape;
  }
  StringRef getMismatchReason() const override {
    return "result type does not match size";
  }
  FailureOr<Value> createResult(OpBuilder &b, Location loc, Value self,
                                RankedTensorType type) const override {
    if (type == self.getType())
      return self;
    return createElementwiseOp(
        b, loc, type, self,
        [](OpBuilder &, Location, ValueRange args) { return args[0]; });
  }
  StringRef getCreateFailureReason() const override {
    return "cannot broadcast to size";
  }
};

/// squeeze_copy (every size-1 dim) and squeeze_copy.dim (that dim if its
/// size is 1, else the identity): a tensor.collapse_shape.
template <typename OpTy>
class ConvertSqueezeCopyOp : public ConvertViewOp<OpTy> {
public:
  using ConvertViewOp<OpTy>::ConvertViewOp;

protected:
  FailureOr<SmallVector<int64_t>>
  getResultShape(OpTy op, RankedTensorType inputType,
                 ConversionPatternRewriter &rewriter) const override {
    SmallVector<int64_t> shape;
    if constexpr (std::is_same_v<OpTy, torch::AtenSqueezeCopyDimOp>) {
      std::optional<int64_t> dim = getConstantInt(op.getDim());
      if (!dim)
        return this->fail(op, rewriter, "dim must be a constant");
      std::optional<int64_t> d = normalizeDim(*dim, inputType.getRank());
      if (!d)
        return this->fail(op, rewriter, "dim out of range");
      shape.assign(inputType.getShape().begin(), inputType.getShape().end());
      // A 0-dim tensor stays 0-dim; a dim of size != 1 is kept.
      if (inputType.getRank() > 0 && shape[*d] == 1)
        shape.erase(shape.begin() + *d);
    } else {
      for (int64_t size : inputType.getShape())
        if (size != 1)
          shape.push_back(size);
    }
    return shape;
  }
  StringRef getMismatchReason() const override {
    return "result type does not match squeeze";
  }
};

/// IntImplicit(a) and ScalarImplicit(a): a.item() of a 0-dim tensor as
/// the scalar the result type says (i64 or f64). LTC passes the Python
/// numbers of an op (alpha, a learning rate) as 0-dim graph inputs read
/// this way; a constant (e.g. the `vtensor.literal 0` storage offset
/// autograd emits) folds.
template <typename OpTy>
class ConvertTensorToScalarOp : public TorchConversionPattern<OpTy> {
public:
  using OpAdaptor = typename OpTy::Adaptor;
  using TorchConversionPattern<OpTy>::TorchConversionPattern;
  LogicalResult
  matchAndRewrite(OpTy op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto inputType = cast<RankedTensorType>(adaptor.getA().getType());
    Type elemType = inputType.getElementType();
    Type resultType = this->getTypeConverter()->convertType(op.getType());
    if (inputType.getRank() != 0 || !resultType ||
        !isa<IntegerType, FloatType>(elemType))
      return this->fail(op, rewriter, "expects a 0-dim int or float tensor");
    if (isa<IntegerType>(resultType) && !isa<IntegerType>(elemType))
      return this->fail(op, rewriter, "an int result needs an integer tensor");
    bool isUnsigned = isUnsignedDtype(getTorchDtype(op.getA()));
    Location loc = op.getLoc();
    if (isa<IntegerType>(resultType))
      if (std::optional<int64_t> v =
              getConstantScalarTensor(adaptor.getA(), isUnsigned)) {
        rewriter.replaceOp(op, arith::ConstantOp::create(
                                   rewriter, loc, rewriter.getI64IntegerAttr(*v))
                                   .getResult());
        return success();
      }
    Value element =
        tensor::ExtractOp::create(rewriter, loc, adaptor.getA(), ValueRange{});
    rewriter.replaceOp(
        op, castScalar(rewriter, loc, element, resultType, isUnsigned));
    return success();
  }
};

/// detach_copy, alias_copy and clone: value semantics make them the
/// identity.
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
               ConvertSqueezeCopyOp<torch::AtenSqueezeCopyOp>,
               ConvertSqueezeCopyOp<torch::AtenSqueezeCopyDimOp>,
               ConvertTensorToScalarOp<torch::AtenIntImplicitOp>,
               ConvertTensorToScalarOp<torch::AtenScalarImplicitOp>,
               ConvertIdentityOp<torch::AtenDetachCopyOp>,
               ConvertIdentityOp<torch::AtenAliasCopyOp>,
               ConvertIdentityOp<torch::AtenCloneOp>>(typeConverter,
                                                      patterns.getContext());
}

} // namespace ltc_mlir::torch_to_linalg
