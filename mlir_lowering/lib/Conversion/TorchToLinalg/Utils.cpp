//===- Utils.cpp - helpers shared by the TorchToLinalg patterns -----------===//

#include "ltc_mlir/Conversion/TorchToLinalg/Utils.h"

#include "mlir/Dialect/Utils/ReshapeOpsUtils.h"
#include "mlir/Dialect/Utils/StructuredOpsUtils.h"
#include "ltc_mlir/Conversion/TorchToLinalg/TorchToLinalg.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/BuiltinOps.h"

using namespace mlir;

namespace ltc_mlir::torch_to_linalg {

//===----------------------------------------------------------------------===//
// TorchTypeConverter
//===----------------------------------------------------------------------===//

TorchTypeConverter::TorchTypeConverter(MLIRContext *context) {
  // Registered first, so tried last: builtin types, !torch.list and
  // !torch.none are kept as they are.
  addConversion([](Type type) { return type; });
  addConversion([](torch::ValueTensorType type) -> Type {
    if (!torch::isSupportedDtype(type.getDtype()))
      return nullptr; // a hard failure, not "try the identity"
    // Bool tensors hold i8 0/1 elements (see getStorageTensorType).
    return torch::getStorageTensorType(type);
  });
  addConversion([](torch::IntType type) -> Type {
    return IntegerType::get(type.getContext(), 64);
  });
  addConversion([](torch::FloatType type) -> Type {
    return Float64Type::get(type.getContext());
  });
  addConversion([](torch::BoolType type) -> Type {
    return IntegerType::get(type.getContext(), 1);
  });

  // A torch constant that stays legal (it is erased once unused) but is
  // also used as a value by a converted op becomes an arith.constant
  // instead of an unrealized cast.
  addTargetMaterialization([](OpBuilder &b, Type type, ValueRange inputs,
                              Location loc) -> Value {
    if (inputs.size() != 1)
      return UnrealizedConversionCastOp::create(b, loc, type, inputs)
          .getResult(0);
    if (type.isInteger(64))
      if (std::optional<int64_t> v = getConstantInt(inputs[0]))
        return arith::ConstantOp::create(b, loc, b.getI64IntegerAttr(*v));
    if (type.isF64())
      if (std::optional<double> v = getConstantFloat(inputs[0]))
        return arith::ConstantOp::create(b, loc, b.getF64FloatAttr(*v));
    if (type.isInteger(1))
      if (std::optional<bool> v = getConstantBool(inputs[0]))
        return arith::ConstantOp::create(b, loc, b.getBoolAttr(*v));
    return UnrealizedConversionCastOp::create(b, loc, type, inputs)
        .getResult(0);
  });
  // Only needed when some op is not converted (the pass then reports it and
  // fails): its converted operands are cast back to torch types.
  addSourceMaterialization([](OpBuilder &b, Type type, ValueRange inputs,
                              Location loc) -> Value {
    return UnrealizedConversionCastOp::create(b, loc, type, inputs)
        .getResult(0);
  });
}

void TorchTypeConverter::noteFailure(Operation *op, const Twine &why) const {
  failureReasons[op] = why.str();
}

StringRef TorchTypeConverter::getFailureReason(Operation *op) const {
  auto it = failureReasons.find(op);
  return it == failureReasons.end() ? StringRef() : StringRef(it->second);
}

//===----------------------------------------------------------------------===//
// Constants
//===----------------------------------------------------------------------===//

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

//===----------------------------------------------------------------------===//
// Types and scalars
//===----------------------------------------------------------------------===//

Type getTorchDtype(Value torchValue) {
  if (auto type = dyn_cast<torch::ValueTensorType>(torchValue.getType()))
    return type.getDtype();
  return nullptr;
}

Value castScalar(OpBuilder &b, Location loc, Value v, Type dstType,
                 bool srcUnsigned) {
  Type srcType = v.getType();
  if (srcType == dstType)
    return v;
  auto srcFloat = dyn_cast<FloatType>(srcType);
  auto dstFloat = dyn_cast<FloatType>(dstType);
  auto srcInt = dyn_cast<IntegerType>(srcType);
  auto dstInt = dyn_cast<IntegerType>(dstType);
  // bool(x) is x != 0 (true for NaN).
  if (dstInt && dstInt.getWidth() == 1) {
    Value zero = createScalarConstant(b, loc, srcType, 0.0);
    if (srcFloat)
      return arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UNE, v, zero);
    return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, v, zero);
  }
  if (srcFloat && dstFloat) {
    if (srcFloat.getWidth() == dstFloat.getWidth()) // f16 <-> bf16
      v = arith::ExtFOp::create(b, loc, b.getF32Type(), v);
    if (cast<FloatType>(v.getType()).getWidth() < dstFloat.getWidth())
      return arith::ExtFOp::create(b, loc, dstType, v);
    // c10::Half and c10::BFloat16 are built from a float: ATen rounds a
    // double to float first (and the code needs no f64 -> f16 libcall).
    if (dstFloat.getWidth() == 16 && v.getType().isF64())
      v = arith::TruncFOp::create(b, loc, b.getF32Type(), v);
    return arith::TruncFOp::create(b, loc, dstType, v);
  }
  if (srcInt && dstFloat) {
    if (srcUnsigned || srcInt.getWidth() == 1)
      return arith::UIToFPOp::create(b, loc, dstType, v);
    return arith::SIToFPOp::create(b, loc, dstType, v);
  }
  if (srcFloat && dstInt)
    return arith::FPToSIOp::create(b, loc, dstType, v);
  if (srcInt && dstInt) {
    if (srcInt.getWidth() > dstInt.getWidth())
      return arith::TruncIOp::create(b, loc, dstType, v);
    if (srcUnsigned || srcInt.getWidth() == 1)
      return arith::ExtUIOp::create(b, loc, dstType, v);
    return arith::ExtSIOp::create(b, loc, dstType, v);
  }
  llvm_unreachable("castScalar: only int and float types are supported");
}

Value createScalarConstant(OpBuilder &b, Location loc, Type type,
                           double value) {
  if (auto floatType = dyn_cast<FloatType>(type))
    return arith::ConstantOp::create(b, loc, b.getFloatAttr(floatType, value));
  return createIntConstant(b, loc, type, static_cast<int64_t>(value));
}

Value createIntConstant(OpBuilder &b, Location loc, Type type,
                        int64_t value) {
  // Wraps like a C++ cast to the narrower type.
  APInt bits(type.getIntOrFloatBitWidth(), static_cast<uint64_t>(value),
             /*isSigned=*/true, /*implicitTrunc=*/true);
  return arith::ConstantOp::create(b, loc, b.getIntegerAttr(type, bits));
}

Value createAdd(OpBuilder &b, Location loc, Value lhs, Value rhs) {
  if (isa<FloatType>(lhs.getType()))
    return arith::AddFOp::create(b, loc, lhs, rhs);
  return arith::AddIOp::create(b, loc, lhs, rhs);
}

Value createMul(OpBuilder &b, Location loc, Value lhs, Value rhs) {
  if (isa<FloatType>(lhs.getType()))
    return arith::MulFOp::create(b, loc, lhs, rhs);
  return arith::MulIOp::create(b, loc, lhs, rhs);
}

//===----------------------------------------------------------------------===//
// Tensor builders
//===----------------------------------------------------------------------===//

Value createEmptyTensor(OpBuilder &b, Location loc, RankedTensorType type) {
  return tensor::EmptyOp::create(b, loc, type.getShape(),
                                 type.getElementType());
}

Value createFilledTensor(OpBuilder &b, Location loc, RankedTensorType type,
                         Value scalar) {
  Value empty = createEmptyTensor(b, loc, type);
  return linalg::FillOp::create(b, loc, ValueRange{scalar}, ValueRange{empty})
      .getResult(0);
}

Value createZeroTensor(OpBuilder &b, Location loc, RankedTensorType type) {
  return createFilledTensor(
      b, loc, type, createScalarConstant(b, loc, type.getElementType(), 0.0));
}

FailureOr<AffineMap> getBroadcastMap(ArrayRef<int64_t> inShape,
                                     ArrayRef<int64_t> outShape,
                                     MLIRContext *context) {
  if (inShape.size() > outShape.size())
    return failure();
  size_t lead = outShape.size() - inShape.size();
  SmallVector<AffineExpr> exprs;
  for (auto [i, size] : llvm::enumerate(inShape)) {
    int64_t outSize = outShape[lead + i];
    if (size == outSize)
      exprs.push_back(getAffineDimExpr(lead + i, context));
    else if (size == 1)
      exprs.push_back(getAffineConstantExpr(0, context));
    else
      return failure();
  }
  return AffineMap::get(outShape.size(), 0, exprs, context);
}

AffineMap getDropDimsMap(unsigned rank, ArrayRef<int64_t> droppedDims,
                         MLIRContext *context) {
  SmallVector<AffineExpr> exprs;
  for (unsigned d = 0; d < rank; ++d)
    if (!llvm::is_contained(droppedDims, d))
      exprs.push_back(getAffineDimExpr(d, context));
  return AffineMap::get(rank, 0, exprs, context);
}

FailureOr<Value> createElementwiseOp(OpBuilder &b, Location loc,
                                     RankedTensorType resultType,
                                     ValueRange inputs,
                                     ScalarBodyBuilder body) {
  MLIRContext *context = b.getContext();
  SmallVector<AffineMap> maps;
  for (Value input : inputs) {
    FailureOr<AffineMap> map = getBroadcastMap(
        cast<RankedTensorType>(input.getType()).getShape(),
        resultType.getShape(), context);
    if (failed(map))
      return failure();
    maps.push_back(*map);
  }
  maps.push_back(b.getMultiDimIdentityMap(resultType.getRank()));
  SmallVector<utils::IteratorType> iterators(resultType.getRank(),
                                             utils::IteratorType::parallel);
  Value init = createEmptyTensor(b, loc, resultType);
  auto generic = linalg::GenericOp::create(
      b, loc, TypeRange{resultType}, inputs, ValueRange{init}, maps,
      iterators, [&](OpBuilder &nb, Location nloc, ValueRange args) {
        Value result = body(nb, nloc, args.drop_back());
        linalg::YieldOp::create(nb, nloc, result);
      });
  return generic.getResult(0);
}

Value castTensor(OpBuilder &b, Location loc, Value tensor, Type elementType,
                 bool srcUnsigned) {
  auto type = cast<RankedTensorType>(tensor.getType());
  if (type.getElementType() == elementType)
    return tensor;
  auto resultType = type.clone(elementType);
  // Same shape, so the broadcast maps are identities and cannot fail.
  return *createElementwiseOp(
      b, loc, resultType, tensor,
      [&](OpBuilder &nb, Location nloc, ValueRange args) {
        return castScalar(nb, nloc, args[0], elementType, srcUnsigned);
      });
}

FailureOr<Value> createReshape(OpBuilder &b, Location loc, Value tensor,
                               RankedTensorType resultType) {
  auto srcType = cast<RankedTensorType>(tensor.getType());
  if (srcType.getNumElements() != resultType.getNumElements() ||
      srcType.getElementType() != resultType.getElementType())
    return failure();
  if (srcType == resultType)
    return tensor;
  ArrayRef<int64_t> srcShape = srcType.getShape();
  ArrayRef<int64_t> dstShape = resultType.getShape();
  if (srcShape.size() > dstShape.size())
    if (auto reassociation =
            getReassociationIndicesForCollapse(srcShape, dstShape))
      return tensor::CollapseShapeOp::create(b, loc, resultType, tensor,
                                             *reassociation)
          .getResult();
  if (srcShape.size() < dstShape.size())
    if (auto reassociation =
            getReassociationIndicesForCollapse(dstShape, srcShape))
      return tensor::ExpandShapeOp::create(b, loc, resultType, tensor,
                                           *reassociation)
          .getResult();
  // General case (e.g. [2,3] -> [3,2]): collapse to 1-D and expand again.
  // Both ranks are >= 1 here, since reshapes from/to 0-d are unit-dim
  // collapses/expansions handled above.
  if (srcShape.empty() || dstShape.empty())
    return failure();
  auto flatType =
      RankedTensorType::get({srcType.getNumElements()}, srcType.getElementType());
  Value flat = tensor;
  if (srcShape.size() != 1) {
    ReassociationIndices all =
        llvm::to_vector(llvm::seq<int64_t>(0, srcShape.size()));
    flat = tensor::CollapseShapeOp::create(b, loc, flatType, tensor,
                                           ArrayRef<ReassociationIndices>{all});
  }
  if (dstShape.size() == 1)
    return flat;
  ReassociationIndices all =
      llvm::to_vector(llvm::seq<int64_t>(0, dstShape.size()));
  return tensor::ExpandShapeOp::create(b, loc, resultType, flat,
                                       ArrayRef<ReassociationIndices>{all})
      .getResult();
}

Value createReduction(
    OpBuilder &b, Location loc, Value input, ArrayRef<int64_t> dims,
    Value init,
    function_ref<Value(OpBuilder &, Location, Value, Value)> combine) {
  MLIRContext *context = b.getContext();
  auto inputType = cast<RankedTensorType>(input.getType());
  int64_t rank = inputType.getRank();
  SmallVector<int64_t> resultShape;
  for (int64_t d = 0; d < rank; ++d)
    if (!llvm::is_contained(dims, d))
      resultShape.push_back(inputType.getDimSize(d));
  auto resultType = RankedTensorType::get(resultShape, init.getType());
  Value acc = createFilledTensor(b, loc, resultType, init);

  SmallVector<AffineMap> maps = {b.getMultiDimIdentityMap(rank),
                                 getDropDimsMap(rank, dims, context)};
  SmallVector<utils::IteratorType> iterators;
  for (int64_t d = 0; d < rank; ++d)
    iterators.push_back(llvm::is_contained(dims, d)
                            ? utils::IteratorType::reduction
                            : utils::IteratorType::parallel);
  auto generic = linalg::GenericOp::create(
      b, loc, TypeRange{resultType}, ValueRange{input}, ValueRange{acc}, maps,
      iterators, [&](OpBuilder &nb, Location nloc, ValueRange args) {
        linalg::YieldOp::create(nb, nloc, combine(nb, nloc, args[0], args[1]));
      });
  return generic.getResult(0);
}

void emitRuntimeCheck(OpBuilder &b, Location loc, Value ok,
                      StringRef message) {
  auto module =
      b.getInsertionBlock()->getParentOp()->getParentOfType<ModuleOp>();
  assert(module && "runtime checks are emitted inside a module");
  MLIRContext *context = b.getContext();

  // The message table: index = position in the module's string array.
  SmallVector<Attribute> messages;
  if (auto existing = module->getAttrOfType<ArrayAttr>(kRuntimeChecksAttrName))
    messages.assign(existing.begin(), existing.end());
  auto text = StringAttr::get(context, message);
  int64_t index = llvm::find(messages, text) - messages.begin();
  if (index == static_cast<int64_t>(messages.size())) {
    messages.push_back(text);
    module->setAttr(kRuntimeChecksAttrName, ArrayAttr::get(context, messages));
  }

  auto callee = module.lookupSymbol<func::FuncOp>(kRuntimeCheckFailedFuncName);
  if (!callee) {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(module.getBody());
    callee = func::FuncOp::create(
        b, module.getLoc(), kRuntimeCheckFailedFuncName,
        b.getFunctionType({b.getI64Type()}, {}));
    callee.setPrivate();
  }

  Value isFalse = arith::CmpIOp::create(
      b, loc, arith::CmpIPredicate::eq, ok,
      arith::ConstantOp::create(b, loc, b.getBoolAttr(false)));
  scf::IfOp::create(b, loc, isFalse, [&](OpBuilder &nb, Location nloc) {
    Value i = arith::ConstantOp::create(nb, nloc, nb.getI64IntegerAttr(index));
    func::CallOp::create(nb, nloc, callee, ValueRange{i});
    scf::YieldOp::create(nb, nloc);
  });
}

Value createAllOf(OpBuilder &b, Location loc, Value tensor,
                  function_ref<Value(OpBuilder &, Location, Value)> isValid) {
  auto type = cast<RankedTensorType>(tensor.getType());
  SmallVector<int64_t> dims =
      llvm::to_vector(llvm::seq<int64_t>(0, type.getRank()));
  Value init = arith::ConstantOp::create(b, loc, b.getBoolAttr(true));
  Value all = createReduction(
      b, loc, tensor, dims, init,
      [&](OpBuilder &nb, Location nloc, Value element, Value acc) -> Value {
        return arith::AndIOp::create(nb, nloc, isValid(nb, nloc, element),
                                     acc);
      });
  return tensor::ExtractOp::create(b, loc, all, ValueRange{});
}

Type getOpmathType(FloatType elemType) {
  return elemType.getWidth() < 32
             ? Type(Float32Type::get(elemType.getContext()))
             : Type(elemType);
}

} // namespace ltc_mlir::torch_to_linalg
