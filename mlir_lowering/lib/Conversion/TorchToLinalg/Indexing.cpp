//===- Indexing.cpp - select/slice copies and scatters, cat, stack --------===//
//
// Indexing and concatenation with constant indices become
// tensor.extract_slice/insert_slice (strided for steps > 1), which bufferize
// to views and copies: select_copy.int and slice_copy.Tensor extract a slice,
// select_scatter and slice_scatter insert src into self, cat and stack insert
// each tensor into a tensor.empty. (The family's gathers are in
// IndexSelect.cpp and AdvancedIndexing.cpp.)
//
//===----------------------------------------------------------------------===//

#include "ltc_mlir/Conversion/TorchToLinalg/Utils.h"

#include <algorithm>
#include <limits>
#include <string>
#include <type_traits>

using namespace mlir;

namespace ltc_mlir::torch_to_linalg {
namespace {

/// A constant int operand: a torch/arith constant (original or converted
/// value), or `aten.IntImplicit` of a 0-dim literal (how LTC passes slice
/// bounds), which getConstantInt reads on the original value.
std::optional<int64_t> getConstantIntOperand(Value original, Value converted) {
  if (std::optional<int64_t> v = getConstantInt(converted))
    return v;
  return getConstantInt(original);
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

/// Base of select_copy.int, slice_copy.Tensor and their scatters, which
/// read or write one slice of self along a constant dim: one index of it
/// (select, which drops the dim) or a strided range (slice).
template <typename OpTy>
class ConvertDimSliceOp : public TorchConversionPattern<OpTy> {
public:
  using TorchConversionPattern<OpTy>::TorchConversionPattern;
  static constexpr bool isSelect =
      std::is_same_v<OpTy, torch::AtenSelectCopyIntOp> ||
      std::is_same_v<OpTy, torch::AtenSelectScatterOp>;

protected:
  /// The slice of self (of `selfShape`) `op` reads or writes; fails through
  /// `fail` when the operands give none, or with `mismatch` when its shape
  /// is not `sliceShape` (the copy's result, the scatter's src).
  FailureOr<DimSlice> getSlice(OpTy op, typename OpTy::Adaptor adaptor,
                               ArrayRef<int64_t> selfShape,
                               ArrayRef<int64_t> sliceShape, StringRef mismatch,
                               ConversionPatternRewriter &rewriter) const {
    std::string why;
    FailureOr<DimSlice> slice = failure();
    if constexpr (isSelect)
      slice = getSelectSlice(op, adaptor, selfShape, why);
    else
      slice = getSliceSlice(op, adaptor, selfShape, why);
    if (failed(slice))
      return this->fail(op, rewriter, why);
    if (!llvm::equal(getSliceShape(selfShape, *slice, isSelect), sliceShape))
      return this->fail(op, rewriter, mismatch);
    return slice;
  }
};

/// select_copy.int and slice_copy.Tensor: a tensor.extract_slice (rank
/// reducing for select).
template <typename OpTy>
class ConvertSliceCopyOp : public ConvertDimSliceOp<OpTy> {
public:
  using OpAdaptor = typename OpTy::Adaptor;
  using ConvertDimSliceOp<OpTy>::ConvertDimSliceOp;

  LogicalResult
  matchAndRewrite(OpTy op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    RankedTensorType type = this->getTensorType(op.getType());
    auto inputType = cast<RankedTensorType>(adaptor.getSelf().getType());
    if (!type || type.getElementType() != inputType.getElementType())
      return this->fail(op, rewriter, "result type is not convertible");
    FailureOr<DimSlice> slice =
        this->getSlice(op, adaptor, inputType.getShape(), type.getShape(),
                       "result type does not match the slice", rewriter);
    if (failed(slice))
      return failure();
    rewriter.replaceOp(op, createExtractSlice(rewriter, op.getLoc(),
                                              adaptor.getSelf(), type, *slice));
    return success();
  }
};

/// select_scatter and slice_scatter: a tensor.insert_slice of src into self.
template <typename OpTy>
class ConvertSliceScatterOp : public ConvertDimSliceOp<OpTy> {
public:
  using OpAdaptor = typename OpTy::Adaptor;
  using ConvertDimSliceOp<OpTy>::ConvertDimSliceOp;

  LogicalResult
  matchAndRewrite(OpTy op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    RankedTensorType type = this->getTensorType(op.getType());
    auto selfType = cast<RankedTensorType>(adaptor.getSelf().getType());
    auto srcType = cast<RankedTensorType>(adaptor.getSrc().getType());
    if (!type || type != selfType)
      return this->fail(op, rewriter, "result type differs from self's");
    FailureOr<DimSlice> slice =
        this->getSlice(op, adaptor, selfType.getShape(), srcType.getShape(),
                       "src shape does not match the slice", rewriter);
    if (failed(slice))
      return failure();
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

/// One tensor of a cat/stack list and the slice of the result it fills.
struct ListPiece {
  Value tensor;
  DimSlice slice;
  bool isUnsigned; // the tensor is ui8/bool
};

/// Base of cat and stack: each tensor of a prim.ListConstruct (converted to
/// the result dtype) is inserted into a tensor.empty along a constant dim.
/// The derived pattern checks the tensors and says where each one goes.
template <typename OpTy>
class ConvertTensorListOp : public TorchConversionPattern<OpTy> {
public:
  using OpAdaptor = typename OpTy::Adaptor;
  using TorchConversionPattern<OpTy>::TorchConversionPattern;

  LogicalResult
  matchAndRewrite(OpTy op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const final {
    RankedTensorType type = this->getTensorType(op.getType());
    if (!type)
      return this->fail(op, rewriter, "result type is not convertible");
    auto list =
        op.getTensors().template getDefiningOp<torch::PrimListConstructOp>();
    if (!list)
      return this->fail(op, rewriter, "tensors must be a prim.ListConstruct");
    std::optional<int64_t> dim = getConstantInt(adaptor.getDim());
    if (!dim)
      return this->fail(op, rewriter, "dim must be a constant");
    std::optional<int64_t> d = normalizeDim(*dim, type.getRank());
    if (!d || type.getRank() == 0)
      return this->fail(op, rewriter, "dim out of range");
    FailureOr<SmallVector<ListPiece>> pieces =
        getPieces(op, list, type, *d, rewriter);
    if (failed(pieces))
      return failure();
    Location loc = op.getLoc();
    Value result = createEmptyTensor(rewriter, loc, type);
    for (const ListPiece &piece : *pieces)
      result = createInsertSlice(rewriter, loc, piece.tensor, result,
                                 piece.slice, piece.isUnsigned);
    rewriter.replaceOp(op, result);
    return success();
  }

protected:
  /// The converted tensors of `list` and the slices of the result (of
  /// `type`) along dim `d` they fill; fails through `fail` when the tensors
  /// do not fit the result.
  virtual FailureOr<SmallVector<ListPiece>>
  getPieces(OpTy op, torch::PrimListConstructOp list, RankedTensorType type,
            int64_t d, ConversionPatternRewriter &rewriter) const = 0;
};

/// stack(tensors, dim): tensor i goes to index i of the new dim (a
/// rank-expanding tensor.insert_slice, like select_scatter).
class ConvertStackOp : public ConvertTensorListOp<torch::AtenStackOp> {
public:
  using ConvertTensorListOp::ConvertTensorListOp;

protected:
  FailureOr<SmallVector<ListPiece>>
  getPieces(torch::AtenStackOp op, torch::PrimListConstructOp list,
            RankedTensorType type, int64_t d,
            ConversionPatternRewriter &rewriter) const override {
    if (type.getDimSize(d) != static_cast<int64_t>(list.getElements().size()))
      return fail(op, rewriter, "result type does not match the list length");
    SmallVector<Value> tensors;
    if (failed(rewriter.getRemappedValues(list.getElements(), tensors)))
      return fail(op, rewriter, "cannot convert the tensors");
    SmallVector<int64_t> shape(type.getShape());
    shape.erase(shape.begin() + d);
    Type resultDtype = getTorchDtype(op.getResult());
    SmallVector<ListPiece> pieces;
    for (auto [i, original, tensor] :
         llvm::enumerate(list.getElements(), tensors)) {
      auto tensorType = dyn_cast<RankedTensorType>(tensor.getType());
      if (!tensorType || !llvm::equal(tensorType.getShape(), shape))
        return fail(op, rewriter, "tensors do not match the result shape");
      Type dtype = getTorchDtype(original);
      if (dtype != resultDtype &&
          (isBoolDtype(dtype) || isBoolDtype(resultDtype)))
        return fail(op, rewriter, "cannot convert bool tensors");
      pieces.push_back({tensor, DimSlice{d, static_cast<int64_t>(i), 1, 1},
                        isUnsignedDtype(dtype)});
    }
    return pieces;
  }
};

/// cat(tensors, dim): each tensor goes to its offset along dim.
class ConvertCatOp : public ConvertTensorListOp<torch::AtenCatOp> {
public:
  using ConvertTensorListOp::ConvertTensorListOp;

protected:
  FailureOr<SmallVector<ListPiece>>
  getPieces(torch::AtenCatOp op, torch::PrimListConstructOp list,
            RankedTensorType type, int64_t d,
            ConversionPatternRewriter &rewriter) const override {
    SmallVector<Value> tensors;
    if (failed(rewriter.getRemappedValues(list.getElements(), tensors)))
      return fail(op, rewriter, "cannot convert the tensors");
    Type resultDtype = getTorchDtype(op.getResult());
    SmallVector<ListPiece> pieces;
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
        if (k != d && tensorType.getDimSize(k) != type.getDimSize(k))
          return fail(op, rewriter,
                      "tensors differ from the result outside dim");
      Type dtype = getTorchDtype(original);
      if (dtype != resultDtype &&
          (isBoolDtype(dtype) || isBoolDtype(resultDtype)))
        return fail(op, rewriter, "cannot convert bool tensors");
      int64_t size = tensorType.getDimSize(d);
      pieces.push_back(
          {tensor, DimSlice{d, offset, size, 1}, isUnsignedDtype(dtype)});
      offset += size;
    }
    if (offset != type.getDimSize(d))
      return fail(op, rewriter,
                  "the tensors' sizes at dim do not add up to the result's");
    return pieces;
  }
};

} // namespace

void populateIndexingPatterns(TorchTypeConverter &typeConverter,
                              RewritePatternSet &patterns) {
  patterns.add<ConvertSliceCopyOp<torch::AtenSelectCopyIntOp>,
               ConvertSliceCopyOp<torch::AtenSliceCopyTensorOp>,
               ConvertSliceScatterOp<torch::AtenSelectScatterOp>,
               ConvertSliceScatterOp<torch::AtenSliceScatterOp>, ConvertCatOp,
               ConvertStackOp>(typeConverter, patterns.getContext());
  // The rest of the family: gathers along one dim and advanced indexing.
  populateIndexSelectPatterns(typeConverter, patterns);
  populateAdvancedIndexingPatterns(typeConverter, patterns);
}

} // namespace ltc_mlir::torch_to_linalg
