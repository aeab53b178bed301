//===- DataMovement.cpp - *_copy view ops, clone, detach ------------------===//
//
// LTC functionalizes views into value-semantic *_copy ops. Permutations
// become linalg.transpose, reshapes and squeezes tensor.collapse_shape/
// expand_shape (no data movement once bufferized), expand_copy a
// broadcasting linalg.generic, as_strided_copy a reshape or a gather from the
// flattened input, and identity ops forward their operand. IntImplicit (the
// 0-dim tensor -> int conversion feeding as_strided_copy's offset) is here
// too. Indexing (select/slice and their scatters, cat) becomes
// tensor.extract_slice/insert_slice; index_select a gather (linalg.generic
// with tensor.extract) behind a runtime bounds check.
//
//===----------------------------------------------------------------------===//

#include "ltc_mlir/Conversion/TorchToLinalg/Utils.h"

#include <algorithm>
#include <limits>
#include <type_traits>

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

/// The value of a 0-dim integer tensor constant (arith.constant or
/// torch.vtensor.literal, as the value or behind unrealized casts).
std::optional<int64_t> getConstantScalarTensor(Value tensor, bool isUnsigned) {
  tensor = lookThroughCasts(tensor);
  Attribute attr;
  if (auto c = tensor.getDefiningOp<arith::ConstantOp>())
    attr = c.getValue();
  else if (auto lit = tensor.getDefiningOp<torch::ValueTensorLiteralOp>())
    attr = lit.getValue();
  auto elements = dyn_cast_or_null<DenseIntElementsAttr>(attr);
  if (!elements || elements.getNumElements() != 1)
    return std::nullopt;
  APInt v = *elements.value_begin<APInt>();
  if (v.getBitWidth() == 1 || isUnsigned)
    return static_cast<int64_t>(v.getZExtValue());
  return v.getSExtValue();
}

/// IntImplicit(a): a.item() of a 0-dim integer tensor as an i64; a constant
/// (e.g. the `vtensor.literal 0` storage offset autograd emits) folds.
class ConvertIntImplicitOp
    : public TorchConversionPattern<torch::AtenIntImplicitOp> {
public:
  using Base::Base;
  LogicalResult
  matchAndRewrite(torch::AtenIntImplicitOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto inputType = cast<RankedTensorType>(adaptor.getA().getType());
    Type elemType = inputType.getElementType();
    if (inputType.getRank() != 0 || !isa<IntegerType>(elemType))
      return fail(op, rewriter, "expects a 0-dim integer tensor");
    bool isUnsigned = isUnsignedDtype(getTorchDtype(op.getA()));
    Location loc = op.getLoc();
    if (std::optional<int64_t> v =
            getConstantScalarTensor(adaptor.getA(), isUnsigned)) {
      rewriter.replaceOp(op, arith::ConstantOp::create(
                                 rewriter, loc, rewriter.getI64IntegerAttr(*v))
                                 .getResult());
      return success();
    }
    Value element =
        tensor::ExtractOp::create(rewriter, loc, adaptor.getA(), ValueRange{});
    rewriter.replaceOp(op, castScalar(rewriter, loc, element,
                                      rewriter.getI64Type(), isUnsigned));
    return success();
  }
};

/// as_strided_copy(self, size, stride, storage_offset):
///   result[i...] = flat(self)[offset + sum_k i_k * stride_k].
/// The contiguous strides of a same-sized result with offset 0 (what
/// autograd emits when accumulating gradients) are a reshape; anything else
/// is a linalg.generic reading the collapsed 1-D self with tensor.extract.
class ConvertAsStridedCopyOp
    : public TorchConversionPattern<torch::AtenAsStridedCopyOp> {
public:
  using Base::Base;
  LogicalResult
  matchAndRewrite(torch::AtenAsStridedCopyOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    RankedTensorType type = getTensorType(op.getType());
    auto inputType = cast<RankedTensorType>(adaptor.getSelf().getType());
    if (!type || type.getElementType() != inputType.getElementType())
      return fail(op, rewriter, "result type is not convertible");
    std::optional<SmallVector<int64_t>> size = getConstantIntList(op.getSize());
    std::optional<SmallVector<int64_t>> stride =
        getConstantIntList(op.getStride());
    if (!size || !stride)
      return fail(op, rewriter, "size and stride must be constant int lists");
    if (size->size() != stride->size())
      return fail(op, rewriter, "size and stride differ in length");
    if (!llvm::equal(*size, type.getShape()))
      return fail(op, rewriter, "result type does not match size");
    if (llvm::any_of(*stride, [](int64_t s) { return s < 0; }))
      return fail(op, rewriter, "negative strides are not supported");

    // The storage offset: None (self's offset, 0), a constant, or a value
    // known only at run time.
    std::optional<int64_t> offset;
    Value offsetValue;
    if (isNone(op.getStorageOffset())) {
      offset = 0;
    } else {
      offset = getConstantInt(adaptor.getStorageOffset());
      auto implicit =
          op.getStorageOffset().getDefiningOp<torch::AtenIntImplicitOp>();
      if (!offset && implicit)
        offset = getConstantScalarTensor(
            implicit.getA(), isUnsignedDtype(getTorchDtype(implicit.getA())));
      if (!offset)
        offsetValue = adaptor.getStorageOffset();
    }
    if (offset && *offset < 0)
      return fail(op, rewriter, "negative storage offset");

    Location loc = op.getLoc();
    int64_t numel = inputType.getNumElements();
    if (type.getNumElements() == 0) {
      rewriter.replaceOp(op, createEmptyTensor(rewriter, loc, type));
      return success();
    }
    // The largest element index read, relative to the offset.
    int64_t span = 0;
    for (auto [s, st] : llvm::zip_equal(*size, *stride))
      span += (s - 1) * st;
    if (span >= numel || (offset && *offset + span >= numel))
      return fail(op, rewriter,
                  "size, stride and storage offset read out of "
                  "the bounds of self");

    // Fast path: the contiguous layout of all of self.
    if (offset == 0 && type.getNumElements() == numel &&
        isContiguous(*size, *stride))
      return replaceOrFail(
          op, rewriter, createReshape(rewriter, loc, adaptor.getSelf(), type),
          "cannot reshape");

    auto flatType = RankedTensorType::get({numel}, inputType.getElementType());
    FailureOr<Value> flat =
        createReshape(rewriter, loc, adaptor.getSelf(), flatType);
    if (failed(flat))
      return fail(op, rewriter, "cannot flatten self");
    Value base; // null for a zero offset
    if (offset) {
      if (*offset != 0)
        base = arith::ConstantIndexOp::create(rewriter, loc, *offset);
    } else {
      // A bad run-time offset fails a runtime check; the clamp into
      // [0, numel - 1 - span] only keeps the (discarded) result memory-safe.
      Value ok = arith::CmpIOp::create(
          rewriter, loc, arith::CmpIPredicate::ule, offsetValue,
          createIntConstant(rewriter, loc, rewriter.getI64Type(),
                            numel - 1 - span));
      auto join = [](ArrayRef<int64_t> v) {
        std::string s;
        for (int64_t x : v)
          s += (s.empty() ? "" : ", ") + std::to_string(x);
        return "[" + s + "]";
      };
      emitRuntimeCheck(
          rewriter, loc, ok,
          "as_strided_copy: storage offset is out of bounds for storage of "
          "size " +
              std::to_string(numel) + ": sizes " + join(*size) +
              " and strides " + join(*stride) +
              " need a storage offset in [0, " +
              std::to_string(numel - 1 - span) +
              "]. Check the storage_offset passed to as_strided.");
      Value off = arith::IndexCastOp::create(
          rewriter, loc, rewriter.getIndexType(), offsetValue);
      Value zero = arith::ConstantIndexOp::create(rewriter, loc, 0);
      Value last =
          arith::ConstantIndexOp::create(rewriter, loc, numel - 1 - span);
      off = arith::MaxSIOp::create(rewriter, loc, off, zero);
      base = arith::MinSIOp::create(rewriter, loc, off, last);
    }

    int64_t rank = type.getRank();
    SmallVector<AffineMap> maps = {rewriter.getMultiDimIdentityMap(rank)};
    SmallVector<utils::IteratorType> iterators(rank,
                                               utils::IteratorType::parallel);
    Value init = createEmptyTensor(rewriter, loc, type);
    auto generic = linalg::GenericOp::create(
        rewriter, loc, TypeRange{type}, ValueRange{}, ValueRange{init}, maps,
        iterators, [&](OpBuilder &b, Location nloc, ValueRange) {
          Value index = base;
          for (int64_t k = 0; k < rank; ++k) {
            if ((*size)[k] == 1 || (*stride)[k] == 0)
              continue;
            Value i = linalg::IndexOp::create(b, nloc, k);
            if ((*stride)[k] != 1)
              i = arith::MulIOp::create(
                  b, nloc, i,
                  arith::ConstantIndexOp::create(b, nloc, (*stride)[k]));
            index = index ? arith::AddIOp::create(b, nloc, index, i) : i;
          }
          if (!index)
            index = arith::ConstantIndexOp::create(b, nloc, 0);
          Value element =
              tensor::ExtractOp::create(b, nloc, *flat, ValueRange{index});
          linalg::YieldOp::create(b, nloc, element);
        });
    rewriter.replaceOp(op, generic.getResult(0));
    return success();
  }

private:
  /// ATen's is_contiguous: row-major strides, ignoring size-1 dims.
  static bool isContiguous(ArrayRef<int64_t> size, ArrayRef<int64_t> stride) {
    int64_t expected = 1;
    for (int64_t k = static_cast<int64_t>(size.size()) - 1; k >= 0; --k) {
      if (size[k] == 1)
        continue;
      if (stride[k] != expected)
        return false;
      expected *= size[k];
    }
    return true;
  }
};

//===----------------------------------------------------------------------===//
// Indexing and concatenation: tensor.extract_slice / tensor.insert_slice
// (strided for steps > 1), which bufferize to views and copies.
//===----------------------------------------------------------------------===//

/// A constant int operand: a torch/arith constant (original or converted
/// value) or `aten.IntImplicit` of a 0-dim literal (how LTC passes slice
/// bounds).
std::optional<int64_t> getConstantIntOperand(Value original, Value converted) {
  if (std::optional<int64_t> v = getConstantInt(converted))
    return v;
  if (std::optional<int64_t> v = getConstantInt(original))
    return v;
  if (auto implicit = original.getDefiningOp<torch::AtenIntImplicitOp>())
    return getConstantScalarTensor(
        implicit.getA(), isUnsignedDtype(getTorchDtype(implicit.getA())));
  return std::nullopt;
}

/// One dim of a slice: result[.., i, ..] = self[.., offset + i * step, ..]
/// for i in [0, size).
struct DimSlice {
  int64_t dim;
  int64_t offset;
  int64_t size;
  int64_t step;
};

/// Offsets, sizes and strides of `slice` in a tensor of `shape`.
void getSliceParams(OpBuilder &b, ArrayRef<int64_t> shape, DimSlice slice,
                    SmallVectorImpl<OpFoldResult> &offsets,
                    SmallVectorImpl<OpFoldResult> &sizes,
                    SmallVectorImpl<OpFoldResult> &strides) {
  for (auto [k, size] : llvm::enumerate(shape)) {
    bool atDim = static_cast<int64_t>(k) == slice.dim;
    offsets.push_back(b.getIndexAttr(atDim ? slice.offset : 0));
    sizes.push_back(b.getIndexAttr(atDim ? slice.size : size));
    strides.push_back(b.getIndexAttr(atDim ? slice.step : 1));
  }
}

/// Copies `src` into `init` (same shape), converting the elements to
/// init's element type (`srcUnsigned`: src is ui8/bool): a linalg.copy, or
/// a linalg.generic when the element types differ. Slices are copied
/// explicitly rather than left to bufferization: a memref.copy between
/// strided views lowers to a call to MLIR's runtime library (memrefCopy),
/// which the JIT does not link, while linalg ops become plain loops. (An
/// identity linalg.generic would not do: canonicalization erases it.)
Value createCopy(OpBuilder &b, Location loc, Value src, Value init,
                 bool srcUnsigned) {
  auto type = cast<RankedTensorType>(init.getType());
  if (cast<RankedTensorType>(src.getType()).getElementType() ==
      type.getElementType())
    return linalg::CopyOp::create(b, loc, src, init).getResult(0);
  int64_t rank = type.getRank();
  SmallVector<AffineMap> maps(2, b.getMultiDimIdentityMap(rank));
  SmallVector<utils::IteratorType> iterators(rank,
                                             utils::IteratorType::parallel);
  Type elemType = type.getElementType();
  return linalg::GenericOp::create(
             b, loc, TypeRange{type}, ValueRange{src}, ValueRange{init}, maps,
             iterators,
             [&](OpBuilder &nb, Location nloc, ValueRange args) {
               linalg::YieldOp::create(
                   nb, nloc,
                   castScalar(nb, nloc, args[0], elemType, srcUnsigned));
             })
      .getResult(0);
}

/// The elements of `slice` of `source` as a new tensor of `resultType`
/// (which may drop the sliced dim: select): a tensor.extract_slice copied
/// into a tensor.empty. An empty slice is just the tensor.empty.
Value createExtractSlice(OpBuilder &b, Location loc, Value source,
                         RankedTensorType resultType, DimSlice slice) {
  auto sourceType = cast<RankedTensorType>(source.getType());
  if (resultType == sourceType && slice.offset == 0 && slice.step == 1)
    return source;
  Value init = createEmptyTensor(b, loc, resultType);
  if (resultType.getNumElements() == 0)
    return init;
  SmallVector<OpFoldResult> offsets, sizes, strides;
  getSliceParams(b, sourceType.getShape(), slice, offsets, sizes, strides);
  Value view = tensor::ExtractSliceOp::create(b, loc, resultType, source,
                                              offsets, sizes, strides);
  return createCopy(b, loc, view, init, /*srcUnsigned=*/false);
}

/// `dest` with `slice` replaced by `source` (which may lack the sliced dim:
/// select), converted to dest's element type. Destination-passing style:
/// the copy writes into tensor.extract_slice(dest) and is inserted back at
/// the same place, so bufferization writes straight into dest's buffer.
Value createInsertSlice(OpBuilder &b, Location loc, Value source, Value dest,
                        DimSlice slice, bool srcUnsigned) {
  auto destType = cast<RankedTensorType>(dest.getType());
  auto sourceType = cast<RankedTensorType>(source.getType());
  if (slice.size == 0 || destType.getNumElements() == 0)
    return dest;
  if (sourceType.getShape() == destType.getShape() && slice.offset == 0 &&
      slice.step == 1) {
    if (sourceType == destType)
      return source;
    return createCopy(b, loc, source, createEmptyTensor(b, loc, destType),
                      srcUnsigned);
  }
  SmallVector<OpFoldResult> offsets, sizes, strides;
  getSliceParams(b, destType.getShape(), slice, offsets, sizes, strides);
  auto sliceType =
      RankedTensorType::get(sourceType.getShape(), destType.getElementType());
  Value view = tensor::ExtractSliceOp::create(b, loc, sliceType, dest, offsets,
                                              sizes, strides);
  Value copied = createCopy(b, loc, source, view, srcUnsigned);
  return tensor::InsertSliceOp::create(b, loc, copied, dest, offsets, sizes,
                                       strides);
}

/// The slice of select_copy.int / select_scatter(dim, index) in a tensor
/// of `shape`: index wraps like ATen's select.
template <typename OpTy, typename AdaptorTy>
FailureOr<DimSlice> getSelectSlice(OpTy op, AdaptorTy adaptor,
                                   ArrayRef<int64_t> shape, std::string &why) {
  std::optional<int64_t> dim = getConstantInt(adaptor.getDim());
  std::optional<int64_t> index =
      getConstantIntOperand(op.getIndex(), adaptor.getIndex());
  if (!dim || !index) {
    why = "dim and index must be constants";
    return failure();
  }
  int64_t rank = shape.size();
  if (rank == 0 || *dim < -rank || *dim >= rank) {
    why = "dim out of range";
    return failure();
  }
  int64_t d = *dim < 0 ? *dim + rank : *dim;
  int64_t size = shape[d];
  if (*index < -size || *index >= size) {
    why = "index out of range";
    return failure();
  }
  return DimSlice{d, *index < 0 ? *index + size : *index, 1, 1};
}

/// The slice of slice_copy.Tensor / slice_scatter(dim, start, end, step) in
/// a tensor of `shape`, with ATen's clamping of start and end.
template <typename OpTy, typename AdaptorTy>
FailureOr<DimSlice> getSliceSlice(OpTy op, AdaptorTy adaptor,
                                  ArrayRef<int64_t> shape, std::string &why) {
  std::optional<int64_t> dim = getConstantInt(adaptor.getDim());
  std::optional<int64_t> step =
      getConstantIntOperand(op.getStep(), adaptor.getStep());
  std::optional<int64_t> start =
      isNone(op.getStart())
          ? std::optional<int64_t>(0)
          : getConstantIntOperand(op.getStart(), adaptor.getStart());
  std::optional<int64_t> end =
      isNone(op.getEnd())
          ? std::optional<int64_t>(std::numeric_limits<int64_t>::max())
          : getConstantIntOperand(op.getEnd(), adaptor.getEnd());
  if (!dim || !step || !start || !end) {
    why = "dim, start, end and step must be constants";
    return failure();
  }
  int64_t rank = shape.size();
  if (rank == 0 || *dim < -rank || *dim >= rank) {
    why = "dim out of range";
    return failure();
  }
  if (*step <= 0) {
    why = "slice step must be positive";
    return failure();
  }
  int64_t d = *dim < 0 ? *dim + rank : *dim;
  int64_t size = shape[d];
  // at::native::slice: wrap negative bounds once, then clamp.
  int64_t s = *start, e = *end;
  if (s < 0)
    s += size;
  if (e < 0)
    e += size;
  s = std::clamp<int64_t>(s, 0, size);
  e = std::clamp<int64_t>(e, s, size);
  int64_t length = (e - s + *step - 1) / *step;
  return DimSlice{d, s, length, *step};
}

/// The result shape of extracting `slice` (`dropDim`: select).
SmallVector<int64_t> getSliceShape(ArrayRef<int64_t> shape, DimSlice slice,
                                   bool dropDim) {
  SmallVector<int64_t> result(shape);
  if (dropDim)
    result.erase(result.begin() + slice.dim);
  else
    result[slice.dim] = slice.size;
  return result;
}

/// select_copy.int and slice_copy.Tensor: a tensor.extract_slice (rank
/// reducing for select).
template <typename OpTy>
class ConvertSliceCopyOp : public TorchConversionPattern<OpTy> {
public:
  using OpAdaptor = typename OpTy::Adaptor;
  using TorchConversionPattern<OpTy>::TorchConversionPattern;
  static constexpr bool isSelect =
      std::is_same_v<OpTy, torch::AtenSelectCopyIntOp>;

  LogicalResult
  matchAndRewrite(OpTy op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    RankedTensorType type = this->getTensorType(op.getType());
    auto inputType = cast<RankedTensorType>(adaptor.getSelf().getType());
    if (!type || type.getElementType() != inputType.getElementType())
      return this->fail(op, rewriter, "result type is not convertible");
    std::string why;
    FailureOr<DimSlice> slice = failure();
    if constexpr (isSelect)
      slice = getSelectSlice(op, adaptor, inputType.getShape(), why);
    else
      slice = getSliceSlice(op, adaptor, inputType.getShape(), why);
    if (failed(slice))
      return this->fail(op, rewriter, why);
    if (!llvm::equal(getSliceShape(inputType.getShape(), *slice, isSelect),
                     type.getShape()))
      return this->fail(op, rewriter, "result type does not match the slice");
    rewriter.replaceOp(op, createExtractSlice(rewriter, op.getLoc(),
                                              adaptor.getSelf(), type, *slice));
    return success();
  }
};

/// select_scatter and slice_scatter: a tensor.insert_slice of src into self.
template <typename OpTy>
class ConvertSliceScatterOp : public TorchConversionPattern<OpTy> {
public:
  using OpAdaptor = typename OpTy::Adaptor;
  using TorchConversionPattern<OpTy>::TorchConversionPattern;
  static constexpr bool isSelect =
      std::is_same_v<OpTy, torch::AtenSelectScatterOp>;

  LogicalResult
  matchAndRewrite(OpTy op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    RankedTensorType type = this->getTensorType(op.getType());
    auto selfType = cast<RankedTensorType>(adaptor.getSelf().getType());
    auto srcType = cast<RankedTensorType>(adaptor.getSrc().getType());
    if (!type || type != selfType)
      return this->fail(op, rewriter, "result type differs from self's");
    std::string why;
    FailureOr<DimSlice> slice = failure();
    if constexpr (isSelect)
      slice = getSelectSlice(op, adaptor, selfType.getShape(), why);
    else
      slice = getSliceSlice(op, adaptor, selfType.getShape(), why);
    if (failed(slice))
      return this->fail(op, rewriter, why);
    if (!llvm::equal(getSliceShape(selfType.getShape(), *slice, isSelect),
                     srcType.getShape()))
      return this->fail(op, rewriter, "src shape does not match the slice");
    Type selfDtype = getTorchDtype(op.getSelf());
    Type srcDtype = getTorchDtype(op.getSrc());
    if (selfDtype != srcDtype &&
        (isBoolDtype(selfDtype) || isBoolDtype(srcDtype)))
      return this->fail(op, rewriter, "cannot convert src to self's dtype");
    rewriter.replaceOp(op,
                       createInsertSlice(rewriter, op.getLoc(),
                                         adaptor.getSrc(), adaptor.getSelf(),
                                         *slice, isUnsignedDtype(srcDtype)));
    return success();
  }
};

/// stack(tensors, dim): tensor i (converted to the result dtype) inserted
/// into a tensor.empty at index i of the new dim (a rank-expanding
/// tensor.insert_slice, like select_scatter).
class ConvertStackOp : public TorchConversionPattern<torch::AtenStackOp> {
public:
  using Base::Base;
  LogicalResult
  matchAndRewrite(torch::AtenStackOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    RankedTensorType type = getTensorType(op.getType());
    if (!type)
      return fail(op, rewriter, "result type is not convertible");
    auto list = op.getTensors().getDefiningOp<torch::PrimListConstructOp>();
    if (!list)
      return fail(op, rewriter, "tensors must be a prim.ListConstruct");
    std::optional<int64_t> dim = getConstantInt(adaptor.getDim());
    if (!dim)
      return fail(op, rewriter, "dim must be a constant");
    std::optional<int64_t> d = normalizeDim(*dim, type.getRank());
    if (!d || type.getRank() == 0)
      return fail(op, rewriter, "dim out of range");
    if (type.getDimSize(*d) != static_cast<int64_t>(list.getElements().size()))
      return fail(op, rewriter, "result type does not match the list length");
    SmallVector<Value> tensors;
    if (failed(rewriter.getRemappedValues(list.getElements(), tensors)))
      return fail(op, rewriter, "cannot convert the tensors");
    SmallVector<int64_t> shape(type.getShape());
    shape.erase(shape.begin() + *d);
    Type resultDtype = getTorchDtype(op.getResult());
    for (auto [original, tensor] :
         llvm::zip_equal(list.getElements(), tensors)) {
      auto tensorType = dyn_cast<RankedTensorType>(tensor.getType());
      if (!tensorType || !llvm::equal(tensorType.getShape(), shape))
        return fail(op, rewriter, "tensors do not match the result shape");
      Type dtype = getTorchDtype(original);
      if (dtype != resultDtype &&
          (isBoolDtype(dtype) || isBoolDtype(resultDtype)))
        return fail(op, rewriter, "cannot convert bool tensors");
    }
    Location loc = op.getLoc();
    Value result = createEmptyTensor(rewriter, loc, type);
    for (auto [i, original, tensor] :
         llvm::enumerate(list.getElements(), tensors))
      result = createInsertSlice(rewriter, loc, tensor, result,
                                 DimSlice{*d, static_cast<int64_t>(i), 1, 1},
                                 isUnsignedDtype(getTorchDtype(original)));
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// cat(tensors, dim): each tensor (converted to the result dtype) inserted
/// into a tensor.empty at its offset along dim.
class ConvertCatOp : public TorchConversionPattern<torch::AtenCatOp> {
public:
  using Base::Base;
  LogicalResult
  matchAndRewrite(torch::AtenCatOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    RankedTensorType type = getTensorType(op.getType());
    if (!type)
      return fail(op, rewriter, "result type is not convertible");
    auto list = op.getTensors().getDefiningOp<torch::PrimListConstructOp>();
    if (!list)
      return fail(op, rewriter, "tensors must be a prim.ListConstruct");
    std::optional<int64_t> dim = getConstantInt(adaptor.getDim());
    if (!dim)
      return fail(op, rewriter, "dim must be a constant");
    std::optional<int64_t> d = normalizeDim(*dim, type.getRank());
    if (!d || type.getRank() == 0)
      return fail(op, rewriter, "dim out of range");
    SmallVector<Value> tensors;
    if (failed(rewriter.getRemappedValues(list.getElements(), tensors)))
      return fail(op, rewriter, "cannot convert the tensors");

    Location loc = op.getLoc();
    Type resultDtype = getTorchDtype(op.getResult());
    struct Piece {
      Value tensor;
      int64_t offset, size;
      bool isUnsigned;
    };
    SmallVector<Piece> pieces;
    int64_t offset = 0;
    for (auto [original, tensor] :
         llvm::zip_equal(list.getElements(), tensors)) {
      auto tensorType = dyn_cast<RankedTensorType>(tensor.getType());
      if (!tensorType)
        return fail(op, rewriter, "cannot convert the tensors");
      // ATen skips 1-D empty tensors (legacy behaviour).
      if (tensorType.getRank() == 1 && tensorType.getDimSize(0) == 0 &&
          type.getRank() != 1)
        continue;
      if (tensorType.getRank() != type.getRank())
        return fail(op, rewriter, "tensors differ in rank from the result");
      for (int64_t k = 0; k < type.getRank(); ++k)
        if (k != *d && tensorType.getDimSize(k) != type.getDimSize(k))
          return fail(op, rewriter,
                      "tensors differ from the result outside dim");
      Type dtype = getTorchDtype(original);
      if (dtype != resultDtype &&
          (isBoolDtype(dtype) || isBoolDtype(resultDtype)))
        return fail(op, rewriter, "cannot convert bool tensors");
      pieces.push_back(
          {tensor, offset, tensorType.getDimSize(*d), isUnsignedDtype(dtype)});
      offset += tensorType.getDimSize(*d);
    }
    if (offset != type.getDimSize(*d))
      return fail(op, rewriter,
                  "the tensors' sizes at dim do not add up to the result's");

    Value result = createEmptyTensor(rewriter, loc, type);
    for (const Piece &piece : pieces)
      result = createInsertSlice(rewriter, loc, piece.tensor, result,
                                 DimSlice{*d, piece.offset, piece.size, 1},
                                 piece.isUnsigned);
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// index_select(self, dim, index): result[.., i, ..] = self[.., index[i], ..],
/// a linalg.generic over the result reading index and gathering from self
/// with tensor.extract. Indices outside [0, size) fail a runtime check (eager:
/// "index out of range in self") and are clamped to stay memory-safe.
class ConvertIndexSelectOp
    : public TorchConversionPattern<torch::AtenIndexSelectOp> {
public:
  using Base::Base;
  LogicalResult
  matchAndRewrite(torch::AtenIndexSelectOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    RankedTensorType type = getTensorType(op.getType());
    auto selfType = cast<RankedTensorType>(adaptor.getSelf().getType());
    auto indexType = cast<RankedTensorType>(adaptor.getIndex().getType());
    if (!type || type.getElementType() != selfType.getElementType())
      return fail(op, rewriter, "result type is not convertible");
    int64_t rank = selfType.getRank();
    if (rank == 0)
      return fail(op, rewriter, "a 0-d self is not supported");
    if (indexType.getRank() > 1 ||
        !isa<IntegerType>(indexType.getElementType()))
      return fail(op, rewriter, "index must be a 0-d or 1-D integer tensor");
    std::optional<int64_t> dim = getConstantInt(adaptor.getDim());
    if (!dim)
      return fail(op, rewriter, "dim must be a constant");
    std::optional<int64_t> d = normalizeDim(*dim, rank);
    if (!d)
      return fail(op, rewriter, "dim out of range");
    int64_t numIndices = indexType.getNumElements();
    SmallVector<int64_t> shape(selfType.getShape());
    shape[*d] = numIndices;
    if (!llvm::equal(shape, type.getShape()))
      return fail(op, rewriter, "result type does not match the indices");
    int64_t size = selfType.getDimSize(*d);
    Location loc = op.getLoc();
    if (type.getNumElements() == 0) {
      rewriter.replaceOp(op, createEmptyTensor(rewriter, loc, type));
      return success();
    }
    if (size == 0)
      return fail(op, rewriter, "index out of range in self (dim has size 0)");

    Value index = adaptor.getIndex();
    if (indexType.getRank() == 0) {
      FailureOr<Value> flat =
          createReshape(rewriter, loc, index,
                        RankedTensorType::get({1}, indexType.getElementType()));
      if (failed(flat))
        return fail(op, rewriter, "cannot reshape the index");
      index = *flat;
    }
    Type i64 = rewriter.getI64Type();
    // Signed indices (si64/si32): unsigned `i < size` also rejects i < 0.
    Value ok = createAllOf(
        rewriter, loc, index, [&](OpBuilder &b, Location l, Value element) {
          return arith::CmpIOp::create(b, l, arith::CmpIPredicate::ult,
                                       castScalar(b, l, element, i64),
                                       createIntConstant(b, l, i64, size))
              .getResult();
        });
    emitRuntimeCheck(rewriter, loc, ok,
                     "index_select: index out of range in self: every index "
                     "must be in [0, " +
                         std::to_string(size) + ") for dim " +
                         std::to_string(*d) + " of size " +
                         std::to_string(size) +
                         ". Check the indices passed to index_select.");

    MLIRContext *ctx = rewriter.getContext();
    SmallVector<AffineMap> maps = {
        AffineMap::get(rank, 0, getAffineDimExpr(*d, ctx)),
        rewriter.getMultiDimIdentityMap(rank)};
    SmallVector<utils::IteratorType> iterators(rank,
                                               utils::IteratorType::parallel);
    Value self = adaptor.getSelf();
    auto generic = linalg::GenericOp::create(
        rewriter, loc, TypeRange{type}, ValueRange{index},
        ValueRange{createEmptyTensor(rewriter, loc, type)}, maps, iterators,
        [&](OpBuilder &b, Location nloc, ValueRange args) {
          Value i = castScalar(b, nloc, args[0], i64);
          i = arith::MaxSIOp::create(b, nloc, i,
                                     createIntConstant(b, nloc, i64, 0));
          i = arith::MinSIOp::create(b, nloc, i,
                                     createIntConstant(b, nloc, i64, size - 1));
          SmallVector<Value> coords;
          for (int64_t k = 0; k < rank; ++k)
            coords.push_back(
                k == *d
                    ? arith::IndexCastOp::create(b, nloc, b.getIndexType(), i)
                          .getResult()
                    : linalg::IndexOp::create(b, nloc, k).getResult());
          Value element = tensor::ExtractOp::create(b, nloc, self, coords);
          linalg::YieldOp::create(b, nloc, element);
        });
    rewriter.replaceOp(op, generic.getResult(0));
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
               ConvertSqueezeCopyOp<torch::AtenSqueezeCopyOp>,
               ConvertSqueezeCopyOp<torch::AtenSqueezeCopyDimOp>,
               ConvertIntImplicitOp, ConvertAsStridedCopyOp,
               ConvertSliceCopyOp<torch::AtenSelectCopyIntOp>,
               ConvertSliceCopyOp<torch::AtenSliceCopyTensorOp>,
               ConvertSliceScatterOp<torch::AtenSelectScatterOp>,
               ConvertSliceScatterOp<torch::AtenSliceScatterOp>, ConvertCatOp,
               ConvertStackOp, ConvertIndexSelectOp,
               ConvertIdentityOp<torch::AtenDetachCopyOp>,
               ConvertIdentityOp<torch::AtenCloneOp>>(typeConverter,
                                                      patterns.getContext());
}

} // namespace ltc_mlir::torch_to_linalg
