//===- TorchOps.cpp - torch dialect ops, verifiers and folders ------------===//

#include "ltc_mlir/Dialect/Torch/IR/TorchOps.h"

#include "ltc_mlir/Dialect/Torch/Utils/AtenSemantics.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/STLExtras.h"

#include <type_traits>

using namespace mlir;

namespace ltc_mlir::torch {

//===----------------------------------------------------------------------===//
// Helpers
//===----------------------------------------------------------------------===//

static std::string shapeStr(ArrayRef<int64_t> sizes) {
  std::string s;
  llvm::raw_string_ostream os(s);
  os << "[";
  llvm::interleave(sizes, os, ",");
  os << "]";
  return s;
}

LogicalResult verifyElementwiseOp(Operation *op) {
  auto resultType = llvm::cast<ValueTensorType>(op->getResult(0).getType());
  for (OpOperand &operand : op->getOpOperands()) {
    auto type = llvm::dyn_cast<ValueTensorType>(operand.get().getType());
    if (type && !isBroadcastableTo(type.getSizes(), resultType.getSizes()))
      return op->emitOpError()
             << "operand #" << operand.getOperandNumber() << " of shape "
             << shapeStr(type.getSizes())
             << " is not broadcast-compatible with the result shape "
             << shapeStr(resultType.getSizes());
  }
  return success();
}

LogicalResult verifyComparisonOp(Operation *op) {
  if (failed(verifyElementwiseOp(op)))
    return failure();
  auto resultType = llvm::cast<ValueTensorType>(op->getResult(0).getType());
  if (!resultType.getDtype().isSignlessInteger(1))
    return op->emitOpError()
           << "expects a bool (i1) result dtype, got " << resultType.getDtype();
  return success();
}

/// Checks that `result` is `self` with some size-1 dims removed.
static LogicalResult verifySqueeze(Operation *op, ValueTensorType self,
                                   ValueTensorType result) {
  if (self.getDtype() != result.getDtype())
    return op->emitOpError() << "result dtype " << result.getDtype()
                             << " differs from self dtype " << self.getDtype();
  ArrayRef<int64_t> in = self.getSizes(), out = result.getSizes();
  size_t j = 0;
  bool ok = true;
  for (int64_t size : in) {
    if (j < out.size() && out[j] == size)
      ++j;
    else if (size != 1)
      ok = false;
  }
  if (!ok || j != out.size())
    return op->emitOpError()
           << "result shape " << shapeStr(out) << " is not self's shape "
           << shapeStr(in) << " with size-1 dims removed";
  return success();
}

/// Checks `[.., M, K] x [.., K, N] -> [.., M, N]` with `batchRank` leading
/// batch dims that must match exactly.
static LogicalResult verifyMatmulShapes(Operation *op, ValueTensorType lhs,
                                        ValueTensorType rhs,
                                        ValueTensorType result,
                                        int64_t batchRank, StringRef lhsName,
                                        StringRef rhsName) {
  int64_t rank = batchRank + 2;
  if (lhs.getRank() != rank || rhs.getRank() != rank)
    return op->emitOpError()
           << "expects " << lhsName << " and " << rhsName << " of rank " << rank
           << ", got " << shapeStr(lhs.getSizes()) << " and "
           << shapeStr(rhs.getSizes());
  ArrayRef<int64_t> a = lhs.getSizes(), b = rhs.getSizes();
  if (a.take_front(batchRank) != b.take_front(batchRank))
    return op->emitOpError()
           << "batch dimensions mismatch: " << lhsName << " is " << shapeStr(a)
           << " but " << rhsName << " is " << shapeStr(b);
  if (a[batchRank + 1] != b[batchRank])
    return op->emitOpError()
           << "inner dimensions mismatch: " << lhsName << " is " << shapeStr(a)
           << " but " << rhsName << " is " << shapeStr(b);
  SmallVector<int64_t> expected(a.take_front(batchRank + 1));
  expected.push_back(b[batchRank + 1]);
  if (result.getSizes() != ArrayRef<int64_t>(expected))
    return op->emitOpError()
           << "result shape " << shapeStr(result.getSizes())
           << " does not match the product shape " << shapeStr(expected);
  return success();
}

//===----------------------------------------------------------------------===//
// Constants and lists
//===----------------------------------------------------------------------===//

OpFoldResult ConstantIntOp::fold(FoldAdaptor) { return getValueAttr(); }
OpFoldResult ConstantFloatOp::fold(FoldAdaptor) { return getValueAttr(); }
OpFoldResult ConstantBoolOp::fold(FoldAdaptor) { return getValueAttr(); }
OpFoldResult ConstantStrOp::fold(FoldAdaptor) { return getValueAttr(); }
OpFoldResult ConstantDeviceOp::fold(FoldAdaptor) { return getValueAttr(); }
OpFoldResult ConstantNoneOp::fold(FoldAdaptor) {
  return UnitAttr::get(getContext());
}
OpFoldResult ValueTensorLiteralOp::fold(FoldAdaptor) { return getValueAttr(); }

LogicalResult ValueTensorLiteralOp::verify() {
  auto resultType = llvm::cast<ValueTensorType>(getType());
  auto valueType = llvm::dyn_cast<RankedTensorType>(getValue().getType());
  if (!valueType || valueType != resultType.toBuiltinTensor())
    return emitOpError("value of type ")
           << getValue().getType() << " does not match the result type "
           << resultType << " (expected " << resultType.toBuiltinTensor()
           << ")";
  return success();
}

LogicalResult PrimListConstructOp::verify() {
  Type elementType = getType().getElementType();
  // A tensor list's element type is only a representative: elements may
  // differ in shape and dtype, and a `Tensor?[]` (the indices of
  // aten.index.Tensor) mixes tensors and Nones (see the op description).
  bool tensorList = llvm::isa<ValueTensorType, NoneType>(elementType);
  for (auto [i, element] : llvm::enumerate(getElements()))
    if (tensorList
            ? !llvm::isa<ValueTensorType, NoneType>(element.getType())
            : element.getType() != elementType)
      return emitOpError() << "element #" << i << " has type "
                           << element.getType() << " but the list holds "
                           << elementType;
  return success();
}

//===----------------------------------------------------------------------===//
// Linear algebra and data movement
//===----------------------------------------------------------------------===//

LogicalResult AtenMmOp::verify() {
  return verifyMatmulShapes(*this, getSelf().getType(), getMat2().getType(),
                            getType(), /*batchRank=*/0, "self", "mat2");
}

LogicalResult AtenBmmOp::verify() {
  return verifyMatmulShapes(*this, getSelf().getType(), getMat2().getType(),
                            getType(), /*batchRank=*/1, "self", "mat2");
}

LogicalResult AtenAddmmOp::verify() {
  if (failed(verifyMatmulShapes(*this, getMat1().getType(), getMat2().getType(),
                                getType(),
                                /*batchRank=*/0, "mat1", "mat2")))
    return failure();
  ValueTensorType self = getSelf().getType();
  if (!isBroadcastableTo(self.getSizes(), getType().getSizes()))
    return emitOpError() << "self of shape " << shapeStr(self.getSizes())
                         << " is not broadcast-compatible with the result "
                            "shape "
                         << shapeStr(getType().getSizes());
  return success();
}

LogicalResult AtenViewCopyOp::verify() {
  ValueTensorType self = getSelf().getType();
  ValueTensorType result = getType();
  if (self.getNumElements() != result.getNumElements())
    return emitOpError() << "cannot view " << shapeStr(self.getSizes()) << " ("
                         << self.getNumElements() << " elements) as "
                         << shapeStr(result.getSizes()) << " ("
                         << result.getNumElements() << " elements)";
  return success();
}

LogicalResult AtenSqueezeCopyOp::verify() {
  ValueTensorType self = getSelf().getType();
  if (failed(verifySqueeze(*this, self, getType())))
    return failure();
  if (llvm::is_contained(getType().getSizes(), 1))
    return emitOpError() << "result shape " << shapeStr(getType().getSizes())
                         << " still has a size-1 dim";
  return success();
}

LogicalResult AtenSqueezeCopyDimOp::verify() {
  ValueTensorType self = getSelf().getType();
  if (failed(verifySqueeze(*this, self, getType())))
    return failure();
  if (self.getRank() - getType().getRank() > 1)
    return emitOpError() << "removes more than one dim";
  return success();
}

LogicalResult AtenAsStridedCopyOp::verify() {
  if (getSelf().getType().getDtype() != getType().getDtype())
    return emitOpError() << "result dtype " << getType().getDtype()
                         << " differs from self dtype "
                         << getSelf().getType().getDtype();
  return success();
}

LogicalResult AtenAsStridedScatterOp::verify() {
  if (getSelf().getType() != getType())
    return emitOpError() << "result type " << getType()
                         << " differs from self type " << getSelf().getType();
  return success();
}

//===----------------------------------------------------------------------===//
// Indexing and concatenation
//===----------------------------------------------------------------------===//

/// The constant `dim` wrapped into [0, rank); std::nullopt when `dim` is not
/// a constant, failure (with an error) when it is out of range.
static FailureOr<std::optional<int64_t>>
verifyDimOperand(Operation *op, Value dim, int64_t rank) {
  std::optional<int64_t> d = getConstantInt(dim);
  if (!d)
    return std::optional<int64_t>();
  // Unlike normalizeDim, a 0-dim tensor has no dim to index here.
  std::optional<int64_t> wrapped =
      rank == 0 ? std::nullopt : normalizeDim(*d, rank);
  if (!wrapped)
    return op->emitOpError()
           << "dim " << *d << " is out of range for rank " << rank;
  return wrapped;
}

/// Checks that `other` has `full`'s shape without dim `dim` (`name` is
/// other's name in the messages).
static LogicalResult verifyDimRemoved(Operation *op, ValueTensorType full,
                                      ValueTensorType other,
                                      std::optional<int64_t> dim,
                                      StringRef name) {
  if (other.getRank() + 1 != full.getRank())
    return op->emitOpError()
           << "expects " << name << " of rank " << full.getRank() - 1
           << ", got " << shapeStr(other.getSizes());
  if (!dim)
    return success();
  SmallVector<int64_t> expected(full.getSizes());
  expected.erase(expected.begin() + *dim);
  if (other.getSizes() != ArrayRef<int64_t>(expected))
    return op->emitOpError()
           << name << " shape " << shapeStr(other.getSizes())
           << " is not self's shape " << shapeStr(full.getSizes())
           << " without dim " << *dim;
  return success();
}

/// Checks that `other` has `full`'s rank and sizes except at `dim`.
static LogicalResult verifySameExceptDim(Operation *op, ValueTensorType full,
                                         ValueTensorType other,
                                         std::optional<int64_t> dim,
                                         StringRef name) {
  if (other.getRank() != full.getRank())
    return op->emitOpError()
           << "expects " << name << " of rank " << full.getRank() << ", got "
           << shapeStr(other.getSizes());
  if (!dim)
    return success();
  for (int64_t k = 0; k < full.getRank(); ++k)
    if (k != *dim && other.getSizes()[k] != full.getSizes()[k])
      return op->emitOpError()
             << name << " shape " << shapeStr(other.getSizes())
             << " differs from " << shapeStr(full.getSizes()) << " outside dim "
             << *dim;
  return success();
}

static LogicalResult verifySameDtype(Operation *op, ValueTensorType self,
                                     ValueTensorType result) {
  if (self.getDtype() != result.getDtype())
    return op->emitOpError() << "result dtype " << result.getDtype()
                             << " differs from self dtype " << self.getDtype();
  return success();
}

static LogicalResult verifySameType(Operation *op, ValueTensorType self,
                                    ValueTensorType result) {
  if (self != result)
    return op->emitOpError()
           << "result type " << result << " differs from self type " << self;
  return success();
}

/// The checks select_copy.int, slice_copy.Tensor and their scatters share:
/// a copy's result has self's dtype and a scatter's result self's type; a
/// constant dim is in range for self; the slice (a copy's result, a
/// scatter's src) has self's shape without dim (select) or with another
/// size at dim (slice). Returns the wrapped dim (see verifyDimOperand).
template <typename OpTy>
static FailureOr<std::optional<int64_t>> verifyDimSliceOp(OpTy op) {
  constexpr bool isSelect = std::is_same_v<OpTy, AtenSelectCopyIntOp> ||
                            std::is_same_v<OpTy, AtenSelectScatterOp>;
  constexpr bool isScatter = std::is_same_v<OpTy, AtenSelectScatterOp> ||
                             std::is_same_v<OpTy, AtenSliceScatterOp>;
  ValueTensorType self = op.getSelf().getType();
  ValueTensorType slice;
  StringRef sliceName;
  if constexpr (isScatter) {
    if (failed(verifySameType(op, self, op.getType())))
      return failure();
    slice = op.getSrc().getType();
    sliceName = "src";
  } else {
    if (failed(verifySameDtype(op, self, op.getType())))
      return failure();
    slice = op.getType();
    sliceName = "result";
  }
  FailureOr<std::optional<int64_t>> dim =
      verifyDimOperand(op, op.getDim(), self.getRank());
  if (failed(dim))
    return failure();
  if (failed(isSelect ? verifyDimRemoved(op, self, slice, *dim, sliceName)
                      : verifySameExceptDim(op, self, slice, *dim, sliceName)))
    return failure();
  return dim;
}

/// Checks that a constant slice `step` is positive.
static LogicalResult verifySliceStep(Operation *op, Value step) {
  if (std::optional<int64_t> s = getConstantInt(step); s && *s <= 0)
    return op->emitOpError() << "slice step must be positive, got " << *s;
  return success();
}

LogicalResult AtenSelectCopyIntOp::verify() {
  FailureOr<std::optional<int64_t>> dim = verifyDimSliceOp(*this);
  if (failed(dim))
    return failure();
  std::optional<int64_t> index = getConstantInt(getIndex());
  if (*dim && index) {
    int64_t size = getSelf().getType().getSizes()[**dim];
    if (*index < -size || *index >= size)
      return emitOpError() << "index " << *index << " is out of range for dim "
                           << **dim << " of size " << size;
  }
  return success();
}

LogicalResult AtenDiagonalCopyOp::verify() {
  if (getSelf().getType().getDtype() != getType().getDtype())
    return emitOpError() << "result dtype " << getType().getDtype()
                         << " differs from self dtype "
                         << getSelf().getType().getDtype();
  return success();
}

LogicalResult AtenDiagonalScatterOp::verify() {
  if (getSelf().getType() != getType())
    return emitOpError() << "result type " << getType()
                         << " differs from self type " << getSelf().getType();
  return success();
}

LogicalResult AtenSelectScatterOp::verify() { return verifyDimSliceOp(*this); }

LogicalResult AtenSliceCopyTensorOp::verify() {
  ValueTensorType self = getSelf().getType();
  FailureOr<std::optional<int64_t>> dim = verifyDimSliceOp(*this);
  if (failed(dim))
    return failure();
  if (*dim && getType().getSizes()[**dim] > self.getSizes()[**dim])
    return emitOpError() << "result shape " << shapeStr(getType().getSizes())
                         << " is larger than self's "
                         << shapeStr(self.getSizes()) << " at dim " << **dim;
  return verifySliceStep(*this, getStep());
}

LogicalResult AtenSliceScatterOp::verify() {
  if (failed(verifyDimSliceOp(*this)))
    return failure();
  return verifySliceStep(*this, getStep());
}

/// What cat and stack check first: `tensors` is a list of tensors and a
/// constant dim is in range for the result. `list` is left null when the
/// list's elements are not known here (nothing more can be checked); `dim`
/// is the wrapped dim (see verifyDimOperand).
template <typename OpTy>
static LogicalResult verifyTensorList(OpTy op, PrimListConstructOp &list,
                                      std::optional<int64_t> &dim) {
  if (!llvm::isa<ValueTensorType>(
          llvm::cast<ListType>(op.getTensors().getType()).getElementType()))
    return op.emitOpError("expects a list of tensors");
  list = op.getTensors().template getDefiningOp<PrimListConstructOp>();
  if (!list)
    return success();
  FailureOr<std::optional<int64_t>> d =
      verifyDimOperand(op, op.getDim(), op.getType().getRank());
  if (failed(d))
    return failure();
  dim = *d;
  return success();
}

LogicalResult AtenCatOp::verify() {
  PrimListConstructOp list;
  std::optional<int64_t> dim;
  if (failed(verifyTensorList(*this, list, dim)))
    return failure();
  if (!list)
    return success();
  ValueTensorType result = getType();
  int64_t total = 0;
  for (auto [i, element] : llvm::enumerate(list.getElements())) {
    auto type = llvm::dyn_cast<ValueTensorType>(element.getType());
    if (!type)
      return emitOpError() << "tensor #" << i << " is None";
    // ATen skips 1-D empty tensors (legacy behaviour).
    if (type.getRank() == 1 && type.getSizes()[0] == 0 && result.getRank() != 1)
      continue;
    if (failed(verifySameExceptDim(*this, result, type, dim,
                                   "tensor #" + std::to_string(i))))
      return failure();
    if (dim)
      total += type.getSizes()[*dim];
  }
  if (dim && total != result.getSizes()[*dim])
    return emitOpError() << "the tensors' sizes at dim " << *dim
                         << " add up to " << total << ", but the result is "
                         << shapeStr(result.getSizes());
  return success();
}

LogicalResult AtenStackOp::verify() {
  PrimListConstructOp list;
  std::optional<int64_t> dim;
  if (failed(verifyTensorList(*this, list, dim)))
    return failure();
  if (!list)
    return success();
  ValueTensorType result = getType();
  for (auto [i, element] : llvm::enumerate(list.getElements())) {
    auto type = llvm::dyn_cast<ValueTensorType>(element.getType());
    if (!type)
      return emitOpError() << "tensor #" << i << " is None";
    if (failed(verifyDimRemoved(*this, result, type, dim,
                                "tensor #" + std::to_string(i))))
      return failure();
  }
  if (dim && result.getSizes()[*dim] !=
                 static_cast<int64_t>(list.getElements().size()))
    return emitOpError() << "stacks " << list.getElements().size()
                         << " tensors, but the result is "
                         << shapeStr(result.getSizes());
  return success();
}

LogicalResult AtenIndexSelectOp::verify() {
  ValueTensorType self = getSelf().getType();
  ValueTensorType index = getIndex().getType();
  if (failed(verifySameDtype(*this, self, getType())))
    return failure();
  if (index.getRank() > 1)
    return emitOpError() << "index must be 0-d or 1-D, got shape "
                         << shapeStr(index.getSizes());
  if (!index.getDtype().isSignedInteger(64) &&
      !index.getDtype().isSignedInteger(32))
    return emitOpError() << "index dtype must be si64 or si32, got "
                         << index.getDtype();
  // A 0-d self takes dim 0 or -1 and gives a 0-d result.
  FailureOr<std::optional<int64_t>> dim =
      verifyDimOperand(*this, getDim(), std::max<int64_t>(self.getRank(), 1));
  if (failed(dim))
    return failure();
  if (self.getRank() == 0)
    return getType().getRank() == 0
               ? success()
               : emitOpError("expects a 0-d result for a 0-d self");
  if (failed(verifySameExceptDim(*this, self, getType(), *dim, "result")))
    return failure();
  if (*dim && getType().getSizes()[**dim] != index.getNumElements())
    return emitOpError() << "result size " << getType().getSizes()[**dim]
                         << " at dim " << **dim << " differs from the "
                         << index.getNumElements() << " indices";
  return success();
}

//===----------------------------------------------------------------------===//
// Elementwise ops with extra checks
//===----------------------------------------------------------------------===//

LogicalResult AtenClampOp::verify() {
  if (failed(verifyElementwiseOp(*this)))
    return failure();
  if (llvm::isa<NoneType>(getMin().getType()) &&
      llvm::isa<NoneType>(getMax().getType()))
    return emitOpError("at least one of min and max must not be None");
  if (getType().getDtype().isSignlessInteger(1))
    return emitOpError("is not supported for bool tensors");
  return success();
}

//===----------------------------------------------------------------------===//
// Scalar conversions
//===----------------------------------------------------------------------===//

LogicalResult AtenIntImplicitOp::verify() {
  ValueTensorType a = getA().getType();
  if (a.getRank() != 0)
    return emitOpError() << "expects a 0-dim tensor, got shape "
                         << shapeStr(a.getSizes());
  if (!isIntegralDtype(a.getDtype(), /*includeBool=*/false))
    return emitOpError() << "expects an integer tensor, got dtype "
                         << a.getDtype();
  return success();
}

OpFoldResult AtenIntImplicitOp::fold(FoldAdaptor adaptor) {
  auto elements = llvm::dyn_cast_or_null<DenseIntElementsAttr>(adaptor.getA());
  if (!elements || elements.getNumElements() != 1)
    return {};
  APInt value = *elements.value_begin<APInt>();
  bool isUnsigned = getA().getType().getDtype().isUnsignedInteger();
  int64_t v = isUnsigned ? static_cast<int64_t>(value.getZExtValue())
                         : value.getSExtValue();
  return IntegerAttr::get(IntegerType::get(getContext(), 64), v);
}

//===----------------------------------------------------------------------===//
// Layer norm and embedding
//===----------------------------------------------------------------------===//

/// Checks the layer-norm operands that both directions share: input ends
/// with a constant normalized_shape, weight/bias (if tensors) have that
/// shape, mean/rstd have input's leading dims then size-1 dims.
static LogicalResult verifyLayerNormOperands(Operation *op,
                                             ValueTensorType input,
                                             Value normalizedShape,
                                             ArrayRef<Value> params,
                                             ArrayRef<Type> stats) {
  std::optional<SmallVector<int64_t>> shape =
      getConstantIntList(normalizedShape);
  if (!shape)
    return success(); // checked by the lowering
  ArrayRef<int64_t> sizes = input.getSizes();
  int64_t n = shape->size();
  if (n == 0 || n > input.getRank() ||
      sizes.take_back(n) != ArrayRef<int64_t>(*shape))
    return op->emitOpError()
           << "normalized_shape " << shapeStr(*shape)
           << " is not a non-empty suffix of the input shape "
           << shapeStr(sizes);
  for (Value param : params)
    if (auto type = llvm::dyn_cast<ValueTensorType>(param.getType()))
      if (type.getSizes() != ArrayRef<int64_t>(*shape))
        return op->emitOpError()
               << "weight/bias shape " << shapeStr(type.getSizes())
               << " differs from normalized_shape " << shapeStr(*shape);
  SmallVector<int64_t> statShape(sizes.drop_back(n));
  statShape.append(n, 1);
  for (Type stat : stats)
    if (llvm::cast<ValueTensorType>(stat).getSizes() !=
        ArrayRef<int64_t>(statShape))
      return op->emitOpError()
             << "mean/rstd shape "
             << shapeStr(llvm::cast<ValueTensorType>(stat).getSizes())
             << " is not " << shapeStr(statShape);
  return success();
}

LogicalResult AtenNativeLayerNormOp::verify() {
  ValueTensorType input = getInput().getType();
  if (failed(verifySameType(*this, input, getOut().getType())))
    return failure();
  return verifyLayerNormOperands(*this, input, getNormalizedShape(),
                                 {getWeight(), getBias()},
                                 {getMean().getType(), getRstd().getType()});
}

/// Whether `output_mask[index]` may be true: false only for a constant
/// list whose element is a constant false.
static bool mayBeWanted(Value outputMask, unsigned index) {
  auto list = outputMask.getDefiningOp<PrimListConstructOp>();
  if (!list || index >= list.getElements().size())
    return true;
  auto flag = list.getElements()[index].getDefiningOp<ConstantBoolOp>();
  return !flag || flag.getValue();
}

LogicalResult AtenNativeLayerNormBackwardOp::verify() {
  ValueTensorType input = getInput().getType();
  if (getGradOut().getType().getSizes() != input.getSizes())
    return emitOpError() << "grad_out shape "
                         << shapeStr(getGradOut().getType().getSizes())
                         << " differs from the input shape "
                         << shapeStr(input.getSizes());
  // An unwanted gradient is an undefined tensor: LTC gives it shape [].
  if (mayBeWanted(getOutputMask(), 0) &&
      getGradInput().getType().getSizes() != input.getSizes())
    return emitOpError() << "grad_input shape "
                         << shapeStr(getGradInput().getType().getSizes())
                         << " differs from the input shape "
                         << shapeStr(input.getSizes());
  return verifyLayerNormOperands(*this, input, getNormalizedShape(),
                                 {getWeight(), getBias()},
                                 {getMean().getType(), getRstd().getType()});
}

static LogicalResult verifyEmbeddingIndices(Operation *op,
                                            ValueTensorType indices) {
  if (!indices.getDtype().isSignedInteger(64) &&
      !indices.getDtype().isSignedInteger(32))
    return op->emitOpError() << "indices dtype must be si64 or si32, got "
                             << indices.getDtype();
  return success();
}

/// `rows` (embedding result / grad_output) has indices.shape + [dim].
static LogicalResult verifyEmbeddingRows(Operation *op, ValueTensorType rows,
                                         ValueTensorType indices, int64_t dim,
                                         StringRef name) {
  SmallVector<int64_t> expected(indices.getSizes());
  expected.push_back(dim);
  if (rows.getSizes() != ArrayRef<int64_t>(expected))
    return op->emitOpError() << name << " shape " << shapeStr(rows.getSizes())
                             << " is not indices.shape + [" << dim
                             << "] = " << shapeStr(expected);
  return success();
}

LogicalResult AtenEmbeddingOp::verify() {
  ValueTensorType weight = getWeight().getType();
  if (weight.getRank() != 2)
    return emitOpError() << "weight must be 2-D, got shape "
                         << shapeStr(weight.getSizes());
  if (failed(verifySameDtype(*this, weight, getType())) ||
      failed(verifyEmbeddingIndices(*this, getIndices().getType())))
    return failure();
  return verifyEmbeddingRows(*this, getType(), getIndices().getType(),
                             weight.getSizes()[1], "result");
}

LogicalResult AtenEmbeddingDenseBackwardOp::verify() {
  ValueTensorType result = getType();
  if (result.getRank() != 2)
    return emitOpError() << "result must be 2-D, got shape "
                         << shapeStr(result.getSizes());
  if (failed(verifySameDtype(*this, getGradOutput().getType(), result)) ||
      failed(verifyEmbeddingIndices(*this, getIndices().getType())))
    return failure();
  if (std::optional<int64_t> n = getConstantInt(getNumWeights());
      n && *n != result.getSizes()[0])
    return emitOpError() << "result has " << result.getSizes()[0]
                         << " rows but num_weights is " << *n;
  return verifyEmbeddingRows(*this, getGradOutput().getType(),
                             getIndices().getType(), result.getSizes()[1],
                             "grad_output");
}

} // namespace ltc_mlir::torch

#define GET_OP_CLASSES
#include "ltc_mlir/Dialect/Torch/IR/TorchOps.cpp.inc"
