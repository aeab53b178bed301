//===- Indexing.cpp - select/slice copies and scatters, cat, stack --------===//
//
// Indexing and concatenation with constant indices become
// tensor.extract_slice/insert_slice (strided for steps > 1), which bufferize
// to views and copies: select_copy.int and slice_copy.Tensor extract a slice,
// select_scatter and slice_scatter insert src into self, cat and stack insert
// each tensor into a tensor.empty. index_select is a gather (linalg.generic
// with tensor.extract) behind a runtime bounds check.
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

/// The check that every index is in [0, size) (signed indices: unsigned
/// `i < size` also rejects i < 0), as a runtime check with `message`.
void emitIndexBoundsCheck(OpBuilder &b, Location loc, Value indices,
                          int64_t size, const std::string &message) {
  Type i64 = b.getI64Type();
  Value ok = createAllOf(b, loc, indices, [&](OpBuilder &nb, Location l,
                                              Value element) {
    return arith::CmpIOp::create(nb, l, arith::CmpIPredicate::ult,
                                 castScalar(nb, l, element, i64),
                                 createIntConstant(nb, l, i64, size))
        .getResult();
  });
  emitRuntimeCheck(b, loc, ok, message);
}

/// embedding(weight [V, D], indices): result[..., d] = weight[indices[...], d]
/// (a gather like index_select, behind the same bounds check).
class ConvertEmbeddingOp : public TorchConversionPattern<torch::AtenEmbeddingOp> {
public:
  using Base::Base;
  LogicalResult
  matchAndRewrite(torch::AtenEmbeddingOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    RankedTensorType type = getTensorType(op.getType());
    auto weightType = cast<RankedTensorType>(adaptor.getWeight().getType());
    auto indexType = cast<RankedTensorType>(adaptor.getIndices().getType());
    if (!type || type.getElementType() != weightType.getElementType())
      return fail(op, rewriter, "result type is not convertible");
    if (weightType.getRank() != 2 ||
        !isa<IntegerType>(indexType.getElementType()))
      return fail(op, rewriter, "needs a 2-D weight and integer indices");
    SmallVector<int64_t> shape(indexType.getShape());
    shape.push_back(weightType.getDimSize(1));
    if (!llvm::equal(shape, type.getShape()))
      return fail(op, rewriter, "result type does not match the indices");
    int64_t size = weightType.getDimSize(0);
    Location loc = op.getLoc();
    if (type.getNumElements() == 0) {
      rewriter.replaceOp(op, createEmptyTensor(rewriter, loc, type));
      return success();
    }
    if (size == 0)
      return fail(op, rewriter, "index out of range in self (empty weight)");
    emitIndexBoundsCheck(
        rewriter, loc, adaptor.getIndices(), size,
        "embedding: index out of range in self: every index must be in [0, " +
            std::to_string(size) + ") for a weight of " +
            std::to_string(size) +
            " rows. Check the indices passed to the embedding.");

    MLIRContext *ctx = rewriter.getContext();
    int64_t rank = type.getRank();
    SmallVector<AffineExpr> indexExprs;
    for (int64_t k = 0; k + 1 < rank; ++k)
      indexExprs.push_back(getAffineDimExpr(k, ctx));
    SmallVector<AffineMap> maps = {AffineMap::get(rank, 0, indexExprs, ctx),
                                   rewriter.getMultiDimIdentityMap(rank)};
    SmallVector<utils::IteratorType> iterators(rank,
                                               utils::IteratorType::parallel);
    Value weight = adaptor.getWeight();
    Type i64 = rewriter.getI64Type();
    auto generic = linalg::GenericOp::create(
        rewriter, loc, TypeRange{type}, ValueRange{adaptor.getIndices()},
        ValueRange{createEmptyTensor(rewriter, loc, type)}, maps, iterators,
        [&](OpBuilder &b, Location nloc, ValueRange args) {
          Value i = castScalar(b, nloc, args[0], i64);
          i = arith::MaxSIOp::create(b, nloc, i,
                                     createIntConstant(b, nloc, i64, 0));
          i = arith::MinSIOp::create(b, nloc, i,
                                     createIntConstant(b, nloc, i64, size - 1));
          Value row = arith::IndexCastOp::create(b, nloc, b.getIndexType(), i);
          Value col = linalg::IndexOp::create(b, nloc, rank - 1);
          Value element =
              tensor::ExtractOp::create(b, nloc, weight, ValueRange{row, col});
          linalg::YieldOp::create(b, nloc, element);
        });
    rewriter.replaceOp(op, generic.getResult(0));
    return success();
  }
};

/// embedding_dense_backward: result[v, d] = sum over n (in order) of
/// grad[n, d] where indices[n] == v != padding_idx: one linalg.generic with
/// the indices as a reduction dim (V * N * D work, no scatter). Rows of an
/// out-of-range index match no v (and fail the runtime check).
class ConvertEmbeddingDenseBackwardOp
    : public TorchConversionPattern<torch::AtenEmbeddingDenseBackwardOp> {
public:
  using Base::Base;
  LogicalResult
  matchAndRewrite(torch::AtenEmbeddingDenseBackwardOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    RankedTensorType type = getTensorType(op.getType());
    auto gradType = cast<RankedTensorType>(adaptor.getGradOutput().getType());
    auto indexType = cast<RankedTensorType>(adaptor.getIndices().getType());
    if (!type || type.getRank() != 2 ||
        !isa<FloatType>(type.getElementType()))
      return fail(op, rewriter, "needs a 2-D floating-point result");
    if (!isa<IntegerType>(indexType.getElementType()))
      return fail(op, rewriter, "indices must be integers");
    std::optional<bool> scale = getConstantBool(op.getScaleGradByFreq());
    if (!scale || *scale)
      return fail(op, rewriter, "scale_grad_by_freq=True is not supported");
    int64_t numWeights = type.getDimSize(0), dim = type.getDimSize(1);
    int64_t numIndices = indexType.getNumElements();
    if (gradType.getNumElements() != numIndices * dim)
      return fail(op, rewriter, "grad_output does not match the indices");
    Location loc = op.getLoc();
    Value zeros = createZeroTensor(rewriter, loc, type);
    if (type.getNumElements() == 0 || numIndices == 0) {
      rewriter.replaceOp(op, zeros);
      return success();
    }
    Type indexElem = indexType.getElementType();
    FailureOr<Value> indices = createReshape(
        rewriter, loc, adaptor.getIndices(),
        RankedTensorType::get({numIndices}, indexElem));
    FailureOr<Value> grad = createReshape(
        rewriter, loc, adaptor.getGradOutput(),
        RankedTensorType::get({numIndices, dim}, gradType.getElementType()));
    if (failed(indices) || failed(grad))
      return fail(op, rewriter, "cannot flatten the indices");
    emitIndexBoundsCheck(
        rewriter, loc, *indices, numWeights,
        "embedding_dense_backward: index out of range in self: every index "
        "must be in [0, " +
            std::to_string(numWeights) +
            "). Check the indices passed to the embedding.");

    MLIRContext *ctx = rewriter.getContext();
    AffineExpr v = getAffineDimExpr(0, ctx), d = getAffineDimExpr(1, ctx),
               n = getAffineDimExpr(2, ctx);
    SmallVector<AffineMap> maps = {AffineMap::get(3, 0, {n}, ctx),
                                   AffineMap::get(3, 0, {n, d}, ctx),
                                   AffineMap::get(3, 0, {v, d}, ctx)};
    using IT = utils::IteratorType;
    SmallVector<IT> iterators = {IT::parallel, IT::parallel, IT::reduction};
    Type i64 = rewriter.getI64Type();
    Value padding = castScalar(rewriter, loc, adaptor.getPaddingIdx(), i64);
    Type elemType = type.getElementType();
    auto generic = linalg::GenericOp::create(
        rewriter, loc, TypeRange{type}, ValueRange{*indices, *grad},
        ValueRange{zeros}, maps, iterators,
        [&](OpBuilder &b, Location nloc, ValueRange args) {
          Value i = castScalar(b, nloc, args[0], i64);
          Value row = arith::IndexCastOp::create(
              b, nloc, i64, linalg::IndexOp::create(b, nloc, 0));
          Value match = arith::AndIOp::create(
              b, nloc,
              arith::CmpIOp::create(b, nloc, arith::CmpIPredicate::eq, i, row),
              arith::CmpIOp::create(b, nloc, arith::CmpIPredicate::ne, i,
                                    padding));
          Value g = castScalar(b, nloc, args[1], elemType);
          Value sum = arith::AddFOp::create(b, nloc, args[2], g);
          linalg::YieldOp::create(
              b, nloc,
              arith::SelectOp::create(b, nloc, match, sum, args[2]).getResult());
        });
    rewriter.replaceOp(op, generic.getResult(0));
    return success();
  }
};

} // namespace

void populateIndexingPatterns(TorchTypeConverter &typeConverter,
                              RewritePatternSet &patterns) {
  patterns.add<ConvertSliceCopyOp<torch::AtenSelectCopyIntOp>,
               ConvertSliceCopyOp<torch::AtenSliceCopyTensorOp>,
               ConvertSliceScatterOp<torch::AtenSelectScatterOp>,
               ConvertSliceScatterOp<torch::AtenSliceScatterOp>, ConvertCatOp,
               ConvertStackOp, ConvertIndexSelectOp, ConvertEmbeddingOp,
               ConvertEmbeddingDenseBackwardOp>(typeConverter,
                                                     patterns.getContext());
}

} // namespace ltc_mlir::torch_to_linalg
