//===- TorchOps.cpp - torch dialect ops, verifiers and folders ------------===//

#include "ltc_mlir/Dialect/Torch/IR/TorchOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/STLExtras.h"

using namespace mlir;

#include "ltc_mlir/Dialect/Torch/IR/TorchDialect.cpp.inc"

namespace ltc_mlir::torch {

//===----------------------------------------------------------------------===//
// Dialect
//===----------------------------------------------------------------------===//

void TorchDialect::initialize() {
  registerTypes();
  addOperations<
#define GET_OP_LIST
#include "ltc_mlir/Dialect/Torch/IR/TorchOps.cpp.inc"
      >();
}

Operation *TorchDialect::materializeConstant(OpBuilder &builder,
                                             Attribute value, Type type,
                                             Location loc) {
  if (llvm::isa<IntType>(type))
    if (auto attr = llvm::dyn_cast<IntegerAttr>(value))
      return ConstantIntOp::create(builder, loc, type, attr);
  if (llvm::isa<FloatType>(type))
    if (auto attr = llvm::dyn_cast<FloatAttr>(value))
      return ConstantFloatOp::create(builder, loc, type, attr);
  if (llvm::isa<BoolType>(type))
    if (auto attr = llvm::dyn_cast<BoolAttr>(value))
      return ConstantBoolOp::create(builder, loc, type, attr);
  if (llvm::isa<NoneType>(type) && llvm::isa<UnitAttr>(value))
    return ConstantNoneOp::create(builder, loc, type);
  if (llvm::isa<ValueTensorType>(type))
    if (auto attr = llvm::dyn_cast<ElementsAttr>(value))
      return ValueTensorLiteralOp::create(builder, loc, type, attr);
  return nullptr;
}

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

/// ATen broadcasting, aligned at the trailing dims: each operand dim equals
/// the result dim or is 1, and the operand has no more dims than the result.
static bool broadcastsTo(ArrayRef<int64_t> from, ArrayRef<int64_t> to) {
  if (from.size() > to.size())
    return false;
  size_t lead = to.size() - from.size();
  for (auto [i, size] : llvm::enumerate(from))
    if (size != 1 && size != to[lead + i])
      return false;
  return true;
}

LogicalResult verifyElementwiseOp(Operation *op) {
  auto resultType = llvm::cast<ValueTensorType>(op->getResult(0).getType());
  for (OpOperand &operand : op->getOpOperands()) {
    auto type = llvm::dyn_cast<ValueTensorType>(operand.get().getType());
    if (type && !broadcastsTo(type.getSizes(), resultType.getSizes()))
      return op->emitOpError()
             << "operand #" << operand.getOperandNumber() << " of shape "
             << shapeStr(type.getSizes())
             << " is not broadcast-compatible with the result shape "
             << shapeStr(resultType.getSizes());
  }
  return success();
}

/// Elementwise broadcasting plus a bool result (comparisons).
static LogicalResult verifyComparisonOp(Operation *op) {
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
  for (auto [i, element] : llvm::enumerate(getElements()))
    if (element.getType() != elementType)
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
  if (!broadcastsTo(self.getSizes(), getType().getSizes()))
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

/// Integer dtypes other than bool (ATen's isIntegralType(includeBool=false)).
static bool isIntegralNonBool(Type dtype) {
  auto intType = llvm::dyn_cast<IntegerType>(dtype);
  return intType && intType.getWidth() > 1;
}

LogicalResult AtenIntImplicitOp::verify() {
  ValueTensorType a = getA().getType();
  if (a.getRank() != 0)
    return emitOpError() << "expects a 0-dim tensor, got shape "
                         << shapeStr(a.getSizes());
  if (!isIntegralNonBool(a.getDtype()))
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

} // namespace ltc_mlir::torch

#define GET_OP_CLASSES
#include "ltc_mlir/Dialect/Torch/IR/TorchOps.cpp.inc"
