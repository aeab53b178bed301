//===- AsStrided.cpp - as_strided_copy and as_strided_scatter -------------===//
//
// Both ops address self as a flat row-major storage (LTC tensors are
// contiguous with storage offset 0): element i of the strided view is
// flat(self)[offset + sum_k i_k * stride_k]. as_strided_copy reads the view
// (a reshape when it is all of self in order, a slice when it is a
// contiguous run, else a gather), and
// as_strided_scatter writes src into it (a contiguous run: one
// insert_slice; otherwise serial loops of tensor.insert into a copy of
// self: strided positions cannot be inverted into a gather in general). ltc_backend's as_strided kernel applies the ops to the tensor
// whose storage eager addresses, so row-major is right here. An offset
// known only at run time is checked by the code (runtime check).
//
//===----------------------------------------------------------------------===//

#include "ltc_mlir/Conversion/TorchToLinalg/Utils.h"

#include "mlir/Dialect/SCF/IR/SCF.h"

#include <string>
#include <type_traits>

using namespace mlir;

namespace ltc_mlir::torch_to_linalg {
namespace {

/// size, stride and storage offset of a strided view of a flat storage.
struct StridedView {
  SmallVector<int64_t> size;
  SmallVector<int64_t> stride;
  /// The offset when it is a constant (None is 0), else `offsetValue` (i64).
  std::optional<int64_t> offset;
  Value offsetValue;
  /// The largest element index of the view relative to the offset.
  int64_t span = 0;
  int64_t numElements = 1;
};

std::string joinInts(ArrayRef<int64_t> values) {
  std::string s;
  for (int64_t v : values)
    s += (s.empty() ? "" : ", ") + std::to_string(v);
  return "[" + s + "]";
}

/// Base of as_strided_copy and as_strided_scatter: reads the strided view
/// from the op's operands and emits its offset into the flat storage.
template <typename OpTy>
class ConvertStridedViewOp : public TorchConversionPattern<OpTy> {
public:
  using TorchConversionPattern<OpTy>::TorchConversionPattern;

protected:
  /// The view of a storage of `numel` elements; fails through `fail` when
  /// the operands are not constants or read out of bounds. `viewShape` is
  /// the shape the view must have (the copy's result, the scatter's src).
  FailureOr<StridedView> getView(OpTy op, typename OpTy::Adaptor adaptor,
                                 int64_t numel, ArrayRef<int64_t> viewShape,
                                 ConversionPatternRewriter &rewriter) const {
    StridedView view;
    std::optional<SmallVector<int64_t>> size = getConstantIntList(op.getSize());
    std::optional<SmallVector<int64_t>> stride =
        getConstantIntList(op.getStride());
    if (!size || !stride)
      return this->fail(op, rewriter,
                        "size and stride must be constant int lists");
    if (size->size() != stride->size())
      return this->fail(op, rewriter, "size and stride differ in length");
    if (!llvm::equal(*size, viewShape))
      return this->fail(op, rewriter, "size does not match the view's shape");
    if (llvm::any_of(*stride, [](int64_t s) { return s < 0; }))
      return this->fail(op, rewriter, "negative strides are not supported");
    view.size = *size;
    view.stride = *stride;
    if (isNone(op.getStorageOffset())) {
      view.offset = 0;
    } else {
      view.offset = getConstantInt(adaptor.getStorageOffset());
      if (!view.offset)
        view.offset = getConstantInt(op.getStorageOffset());
      if (!view.offset)
        view.offsetValue = adaptor.getStorageOffset();
    }
    if (view.offset && *view.offset < 0)
      return this->fail(op, rewriter, "negative storage offset");
    for (auto [s, st] : llvm::zip_equal(view.size, view.stride)) {
      view.numElements *= s;
      view.span += (s - 1) * st;
    }
    if (view.numElements != 0 &&
        (view.span >= numel || (view.offset && *view.offset + view.span >= numel)))
      return this->fail(op, rewriter,
                        "size, stride and storage offset reach out of the "
                        "bounds of self");
    return view;
  }

  /// The view's offset as an index (null for a constant 0). A run-time
  /// offset out of bounds fails a runtime check naming `opName`, and is
  /// clamped so that the (discarded) result stays memory-safe.
  static Value createOffset(OpBuilder &b, Location loc, const StridedView &view,
                            int64_t numel, StringRef opName) {
    if (view.offset)
      return *view.offset == 0
                 ? Value()
                 : arith::ConstantIndexOp::create(b, loc, *view.offset)
                       .getResult();
    int64_t last = numel - 1 - view.span;
    Value ok = arith::CmpIOp::create(
        b, loc, arith::CmpIPredicate::ule, view.offsetValue,
        createIntConstant(b, loc, b.getI64Type(), last));
    emitRuntimeCheck(b, loc, ok,
                     opName.str() +
                         ": storage offset is out of bounds for storage of "
                         "size " +
                         std::to_string(numel) + ": sizes " +
                         joinInts(view.size) + " and strides " +
                         joinInts(view.stride) +
                         " need a storage offset in [0, " +
                         std::to_string(last) +
                         "]. Check the storage_offset passed to as_strided.");
    Value off = arith::IndexCastOp::create(b, loc, b.getIndexType(),
                                           view.offsetValue);
    Value zero = arith::ConstantIndexOp::create(b, loc, 0);
    Value lastIndex = arith::ConstantIndexOp::create(b, loc, last);
    off = arith::MaxSIOp::create(b, loc, off, zero);
    return arith::MinSIOp::create(b, loc, off, lastIndex);
  }

  /// offset + sum_k index(k) * stride[k] (index type); `indexOf(k)` is
  /// only called for the dims that move.
  static Value createFlatIndex(OpBuilder &b, Location loc,
                               const StridedView &view, Value offset,
                               function_ref<Value(int64_t)> indexOf) {
    Value index = offset;
    for (int64_t k = 0, e = view.size.size(); k < e; ++k) {
      if (view.size[k] == 1 || view.stride[k] == 0)
        continue;
      Value i = indexOf(k);
      Value term = i;
      if (view.stride[k] != 1)
        term = arith::MulIOp::create(
            b, loc, i, arith::ConstantIndexOp::create(b, loc, view.stride[k]));
      index = index ? arith::AddIOp::create(b, loc, index, term).getResult()
                    : term;
    }
    return index ? index : arith::ConstantIndexOp::create(b, loc, 0);
  }
};

/// ATen's is_contiguous: row-major strides, ignoring size-1 dims.
bool isContiguous(ArrayRef<int64_t> size, ArrayRef<int64_t> stride) {
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

/// The view is one run of consecutive elements of a storage of `numel`
/// elements, at a constant offset.
bool isContiguousRun(const StridedView &view, int64_t numel) {
  return view.offset && *view.offset >= 0 &&
         *view.offset + view.numElements <= numel &&
         isContiguous(view.size, view.stride);
}

/// as_strided_copy(self, size, stride, storage_offset):
///   result[i...] = flat(self)[offset + sum_k i_k * stride_k].
/// The contiguous strides of a same-sized result with offset 0 (what
/// autograd emits when accumulating gradients) are a reshape, a contiguous
/// run at a constant offset a slice; anything else is a linalg.generic
/// reading the collapsed 1-D self with tensor.extract.
class ConvertAsStridedCopyOp
    : public ConvertStridedViewOp<torch::AtenAsStridedCopyOp> {
public:
  using ConvertStridedViewOp::ConvertStridedViewOp;
  LogicalResult
  matchAndRewrite(torch::AtenAsStridedCopyOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    RankedTensorType type = getTensorType(op.getType());
    auto inputType = cast<RankedTensorType>(adaptor.getSelf().getType());
    if (!type || type.getElementType() != inputType.getElementType())
      return fail(op, rewriter, "result type is not convertible");
    int64_t numel = inputType.getNumElements();
    FailureOr<StridedView> view =
        getView(op, adaptor, numel, type.getShape(), rewriter);
    if (failed(view))
      return failure();
    Location loc = op.getLoc();
    if (view->numElements == 0) {
      rewriter.replaceOp(op, createEmptyTensor(rewriter, loc, type));
      return success();
    }
    // Fast path: the contiguous layout of all of self.
    if (view->offset == 0 && view->numElements == numel &&
        isContiguous(view->size, view->stride))
      return replaceOrFail(
          op, rewriter, createReshape(rewriter, loc, adaptor.getSelf(), type),
          "cannot reshape");

    auto flatType = RankedTensorType::get({numel}, inputType.getElementType());
    FailureOr<Value> flat =
        createReshape(rewriter, loc, adaptor.getSelf(), flatType);
    if (failed(flat))
      return fail(op, rewriter, "cannot flatten self");
    // A contiguous run at a constant offset (a view of a DDP bucket, a
    // narrow): a slice, then a reshape.
    if (isContiguousRun(*view, numel)) {
      Value slice = tensor::ExtractSliceOp::create(
          rewriter, loc, *flat,
          ArrayRef<OpFoldResult>{rewriter.getIndexAttr(*view->offset)},
          ArrayRef<OpFoldResult>{rewriter.getIndexAttr(view->numElements)},
          ArrayRef<OpFoldResult>{rewriter.getIndexAttr(1)});
      return replaceOrFail(op, rewriter, createReshape(rewriter, loc, slice, type),
                           "cannot reshape the slice");
    }
    Value offset = createOffset(rewriter, loc, *view, numel, "as_strided_copy");
    int64_t rank = type.getRank();
    SmallVector<AffineMap> maps = {rewriter.getMultiDimIdentityMap(rank)};
    SmallVector<utils::IteratorType> iterators(rank,
                                               utils::IteratorType::parallel);
    Value init = createEmptyTensor(rewriter, loc, type);
    auto generic = linalg::GenericOp::create(
        rewriter, loc, TypeRange{type}, ValueRange{}, ValueRange{init}, maps,
        iterators, [&](OpBuilder &b, Location nloc, ValueRange) {
          Value index =
              createFlatIndex(b, nloc, *view, offset, [&](int64_t k) -> Value {
                return linalg::IndexOp::create(b, nloc, k);
              });
          Value element =
              tensor::ExtractOp::create(b, nloc, *flat, ValueRange{index});
          linalg::YieldOp::create(b, nloc, element);
        });
    rewriter.replaceOp(op, generic.getResult(0));
    return success();
  }
};

/// as_strided_scatter(self, src, size, stride, storage_offset): self with
/// the strided view replaced by src (converted to self's dtype), i.e.
///   flat(result)[offset + sum_k i_k * stride_k] = src[i...].
/// Where positions repeat (a stride of 0) the last element in row-major
/// order of src wins, as in ATen's serial copy. Serial loops over src, each
/// a tensor.insert into the flattened self (bufferized in place into one
/// copy of self); all of self in order is just src.
class ConvertAsStridedScatterOp
    : public ConvertStridedViewOp<torch::AtenAsStridedScatterOp> {
public:
  using ConvertStridedViewOp::ConvertStridedViewOp;
  LogicalResult
  matchAndRewrite(torch::AtenAsStridedScatterOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    RankedTensorType type = getTensorType(op.getType());
    auto selfType = cast<RankedTensorType>(adaptor.getSelf().getType());
    auto srcType = cast<RankedTensorType>(adaptor.getSrc().getType());
    if (!type || type != selfType)
      return fail(op, rewriter, "result type differs from self's");
    Type selfDtype = getTorchDtype(op.getSelf());
    Type srcDtype = getTorchDtype(op.getSrc());
    if (selfDtype != srcDtype &&
        (isBoolDtype(selfDtype) || isBoolDtype(srcDtype)))
      return fail(op, rewriter, "cannot convert src to self's dtype");
    int64_t numel = selfType.getNumElements();
    FailureOr<StridedView> view =
        getView(op, adaptor, numel, srcType.getShape(), rewriter);
    if (failed(view))
      return failure();
    Location loc = op.getLoc();
    if (view->numElements == 0) {
      rewriter.replaceOp(op, adaptor.getSelf());
      return success();
    }
    Type elemType = selfType.getElementType();
    Value src = castTensor(rewriter, loc, adaptor.getSrc(), elemType,
                           isUnsignedDtype(srcDtype));
    if (view->offset == 0 && view->numElements == numel &&
        isContiguous(view->size, view->stride))
      return replaceOrFail(op, rewriter,
                           createReshape(rewriter, loc, src, type),
                           "cannot reshape src");

    auto flatType = RankedTensorType::get({numel}, elemType);
    FailureOr<Value> flat =
        createReshape(rewriter, loc, adaptor.getSelf(), flatType);
    if (failed(flat))
      return fail(op, rewriter, "cannot flatten self");
    // A contiguous run of the storage at a constant offset (DDP writing a
    // gradient into its bucket, a narrow): one slice insertion, which
    // bufferization does in place when self is not read afterwards,
    // instead of element-by-element inserts into a copy.
    if (isContiguousRun(*view, numel)) {
      FailureOr<Value> srcFlat = createReshape(
          rewriter, loc, src,
          RankedTensorType::get({view->numElements}, elemType));
      if (failed(srcFlat))
        return fail(op, rewriter, "cannot flatten src");
      Value inserted = tensor::InsertSliceOp::create(
          rewriter, loc, *srcFlat, *flat,
          ArrayRef<OpFoldResult>{rewriter.getIndexAttr(*view->offset)},
          ArrayRef<OpFoldResult>{rewriter.getIndexAttr(view->numElements)},
          ArrayRef<OpFoldResult>{rewriter.getIndexAttr(1)});
      return replaceOrFail(op, rewriter,
                           createReshape(rewriter, loc, inserted, type),
                           "cannot reshape the result");
    }
    Value offset =
        createOffset(rewriter, loc, *view, numel, "as_strided_scatter");
    int64_t rank = srcType.getRank();
    Value zero = arith::ConstantIndexOp::create(rewriter, loc, 0);
    Value one = arith::ConstantIndexOp::create(rewriter, loc, 1);
    SmallVector<Value> lbs(rank, zero), steps(rank, one), ubs;
    for (int64_t s : view->size)
      ubs.push_back(arith::ConstantIndexOp::create(rewriter, loc, s));
    scf::LoopNest loops = scf::buildLoopNest(
        rewriter, loc, lbs, ubs, steps, ValueRange{*flat},
        [&](OpBuilder &b, Location nloc, ValueRange ivs,
            ValueRange args) -> scf::ValueVector {
          Value element = tensor::ExtractOp::create(b, nloc, src, ivs);
          Value index = createFlatIndex(
              b, nloc, *view, offset, [&](int64_t k) { return ivs[k]; });
          return {tensor::InsertOp::create(b, nloc, element, args[0],
                                           ValueRange{index})
                      .getResult()};
        });
    return replaceOrFail(
        op, rewriter, createReshape(rewriter, loc, loops.results[0], type),
        "cannot reshape the result");
  }
};

} // namespace

void populateAsStridedPatterns(TorchTypeConverter &typeConverter,
                               RewritePatternSet &patterns) {
  patterns.add<ConvertAsStridedCopyOp, ConvertAsStridedScatterOp>(
      typeConverter, patterns.getContext());
}

} // namespace ltc_mlir::torch_to_linalg
