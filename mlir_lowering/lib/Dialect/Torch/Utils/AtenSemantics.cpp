//===- AtenSemantics.cpp - ATen rules shared by verifiers and lowerings ---===//

#include "ltc_mlir/Dialect/Torch/Utils/AtenSemantics.h"

#include "ltc_mlir/Dialect/Torch/IR/TorchOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/BuiltinOps.h"

using namespace mlir;

namespace ltc_mlir::torch {

std::optional<int64_t> normalizeDim(int64_t dim, int64_t rank) {
  int64_t wrapRank = std::max<int64_t>(rank, 1);
  if (dim < -wrapRank || dim >= wrapRank)
    return std::nullopt;
  return dim < 0 ? dim + wrapRank : dim;
}

bool isBroadcastableTo(ArrayRef<int64_t> from, ArrayRef<int64_t> to) {
  if (from.size() > to.size())
    return false;
  size_t lead = to.size() - from.size();
  for (auto [i, size] : llvm::enumerate(from))
    if (size != 1 && size != to[lead + i])
      return false;
  return true;
}

std::optional<AdvancedIndexing> getAdvancedIndexing(
    ArrayRef<int64_t> selfShape,
    ArrayRef<std::optional<ArrayRef<int64_t>>> indexShapes) {
  int64_t rank = selfShape.size();
  if (static_cast<int64_t>(indexShapes.size()) > rank)
    return std::nullopt;
  AdvancedIndexing r;
  SmallVector<int64_t> indexed;
  for (auto [k, shape] : llvm::enumerate(indexShapes)) {
    if (!shape)
      continue;
    indexed.push_back(k);
    // Broadcast r.broadcastShape with *shape (aligned at the trailing dims).
    SmallVector<int64_t> &b = r.broadcastShape;
    if (shape->size() > b.size())
      b.insert(b.begin(), shape->size() - b.size(), 1);
    size_t lead = b.size() - shape->size();
    for (auto [i, size] : llvm::enumerate(*shape)) {
      int64_t &out = b[lead + i];
      if (out == 1)
        out = size;
      else if (size != 1 && size != out)
        return std::nullopt;
    }
  }
  if (indexed.empty())
    return std::nullopt;
  bool adjacent = indexed.back() - indexed.front() + 1 ==
                  static_cast<int64_t>(indexed.size());
  r.broadcastStart = adjacent ? indexed.front() : 0;
  r.resultDimOfSelfDim.assign(rank, -1);
  int64_t numBroadcast = r.broadcastShape.size();
  int64_t next = adjacent ? 0 : numBroadcast;
  for (int64_t k = 0; k < rank; ++k) {
    bool isIndexed = k < static_cast<int64_t>(indexShapes.size()) &&
                     indexShapes[k].has_value();
    if (adjacent && k == indexed.front())
      next += numBroadcast;
    if (!isIndexed)
      r.resultDimOfSelfDim[k] = next++;
  }
  r.resultShape.assign(next, 0);
  for (int64_t k = 0; k < rank; ++k)
    if (r.resultDimOfSelfDim[k] >= 0)
      r.resultShape[r.resultDimOfSelfDim[k]] = selfShape[k];
  for (int64_t i = 0; i < numBroadcast; ++i)
    r.resultShape[r.broadcastStart + i] = r.broadcastShape[i];
  return r;
}

bool isBoolDtype(Type dtype) { return dtype && dtype.isSignlessInteger(1); }

bool isUnsignedDtype(Type dtype) {
  auto intType = dyn_cast_or_null<IntegerType>(dtype);
  return intType && (intType.isUnsigned() || intType.getWidth() == 1);
}

bool isFloatDtype(Type dtype) { return dtype && isa<mlir::FloatType>(dtype); }

bool isIntegralDtype(Type dtype, bool includeBool) {
  auto intType = dyn_cast_or_null<IntegerType>(dtype);
  return intType && (includeBool || intType.getWidth() > 1);
}

RankedTensorType getStorageTensorType(ValueTensorType type) {
  if (isBoolDtype(type.getDtype()))
    return RankedTensorType::get(type.getSizes(),
                                 IntegerType::get(type.getContext(), 8));
  return type.toBuiltinTensor();
}

Value lookThroughCasts(Value value) {
  while (auto cast = value.getDefiningOp<UnrealizedConversionCastOp>()) {
    if (cast.getInputs().size() != 1)
      break;
    value = cast.getInputs()[0];
  }
  return value;
}

/// The one element of the 0-dim `torch.vtensor.literal` that an
/// IntImplicit/ScalarImplicit reads: LTC passes a Scalar
/// argument that torch 2.x traced as a 0-dim tensor (var's correction, a
/// slice bound, as_strided's storage offset) this way.
static ElementsAttr getImplicitScalarLiteral(Value value,
                                             bool *isUnsigned = nullptr) {
  Operation *op = value.getDefiningOp();
  if (!op || !isa<AtenIntImplicitOp, AtenScalarImplicitOp>(op))
    return {};
  auto literal = op->getOperand(0).getDefiningOp<ValueTensorLiteralOp>();
  if (!literal)
    return {};
  auto elements = dyn_cast<ElementsAttr>(literal.getValueAttr());
  if (!elements || elements.getNumElements() != 1)
    return {};
  if (isUnsigned) // the builtin attribute is signless: the dtype tells
    *isUnsigned = isUnsignedDtype(literal.getType().getDtype()) ||
                  isBoolDtype(literal.getType().getDtype());
  return elements;
}

std::optional<int64_t> getConstantInt(Value value) {
  value = lookThroughCasts(value);
  if (auto op = value.getDefiningOp<ConstantIntOp>())
    return op.getValueAttr().getInt();
  bool isUnsigned = false;
  if (auto ints = dyn_cast_or_null<DenseIntElementsAttr>(
          getImplicitScalarLiteral(value, &isUnsigned))) {
    APInt v = *ints.value_begin<APInt>();
    return isUnsigned ? int64_t(v.getZExtValue()) : v.getSExtValue();
  }
  if (auto op = value.getDefiningOp<arith::ConstantOp>())
    if (auto attr = dyn_cast<IntegerAttr>(op.getValue());
        attr && attr.getType().isInteger(64))
      return attr.getInt();
  return std::nullopt;
}

std::optional<double> getConstantFloat(Value value) {
  value = lookThroughCasts(value);
  if (auto op = value.getDefiningOp<ConstantFloatOp>())
    return op.getValueAttr().getValueAsDouble();
  if (auto floats = dyn_cast_or_null<DenseFPElementsAttr>(
          getImplicitScalarLiteral(value)))
    return (*floats.value_begin<APFloat>()).convertToDouble();
  if (auto op = value.getDefiningOp<arith::ConstantOp>())
    if (auto attr = dyn_cast<FloatAttr>(op.getValue()))
      return attr.getValueAsDouble();
  return std::nullopt;
}

std::optional<bool> getConstantBool(Value value) {
  value = lookThroughCasts(value);
  if (auto op = value.getDefiningOp<ConstantBoolOp>())
    return op.getValue();
  if (auto op = value.getDefiningOp<arith::ConstantOp>())
    if (auto attr = dyn_cast<IntegerAttr>(op.getValue());
        attr && attr.getType().isInteger(1))
      return attr.getValue().getBoolValue();
  return std::nullopt;
}

std::optional<std::string> getConstantStr(Value value) {
  if (auto op = lookThroughCasts(value).getDefiningOp<ConstantStrOp>())
    return op.getValue().str();
  return std::nullopt;
}

/// The elements of a `torch.prim.ListConstruct` read with `get`.
template <typename T, typename GetFn>
static std::optional<SmallVector<T>> getConstantList(Value value, GetFn get) {
  auto list = lookThroughCasts(value).getDefiningOp<PrimListConstructOp>();
  if (!list)
    return std::nullopt;
  SmallVector<T> result;
  for (Value element : list.getElements()) {
    std::optional<T> v = get(element);
    if (!v)
      return std::nullopt;
    result.push_back(*v);
  }
  return result;
}

std::optional<SmallVector<int64_t>> getConstantIntList(Value value) {
  return getConstantList<int64_t>(value, getConstantInt);
}

std::optional<SmallVector<bool>> getConstantBoolList(Value value) {
  return getConstantList<bool>(value, getConstantBool);
}

bool isNone(Value value) {
  return isa<NoneType>(lookThroughCasts(value).getType());
}

} // namespace ltc_mlir::torch
