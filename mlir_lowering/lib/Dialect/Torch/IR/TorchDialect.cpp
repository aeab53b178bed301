//===- TorchDialect.cpp - torch dialect registration and ATen op syntax ---===//

#include "ltc_mlir/Dialect/Torch/IR/TorchDialect.h"

#include "ltc_mlir/Dialect/Torch/IR/TorchOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"

using namespace mlir;

#include "ltc_mlir/Dialect/Torch/IR/TorchDialect.cpp.inc"

namespace ltc_mlir::torch {

void TorchDialect::initialize() {
  registerTypes();
  addOperations<
#define GET_OP_LIST
#include "ltc_mlir/Dialect/Torch/IR/TorchOps.cpp.inc"
      >();
  registerGeneratedOpShards(*this);
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
  if (llvm::isa<StringType>(type))
    if (auto attr = llvm::dyn_cast<StringAttr>(value))
      return ConstantStrOp::create(builder, loc, type, attr);
  if (llvm::isa<DeviceType>(type))
    if (auto attr = llvm::dyn_cast<StringAttr>(value))
      return ConstantDeviceOp::create(builder, loc, type, attr);
  if (llvm::isa<NoneType>(type) && llvm::isa<UnitAttr>(value))
    return ConstantNoneOp::create(builder, loc, type);
  if (llvm::isa<ValueTensorType>(type))
    if (auto attr = llvm::dyn_cast<ElementsAttr>(value))
      return ValueTensorLiteralOp::create(builder, loc, type, attr);
  return nullptr;
}

ParseResult parseAtenOp(OpAsmParser &parser, OperationState &result) {
  SmallVector<OpAsmParser::UnresolvedOperand> operands;
  FunctionType type;
  SMLoc loc = parser.getCurrentLocation();
  if (parser.parseOperandList(operands) ||
      parser.parseOptionalAttrDict(result.attributes) ||
      parser.parseColonType(type) ||
      parser.resolveOperands(operands, type.getInputs(), loc, result.operands))
    return failure();
  result.addTypes(type.getResults());
  return success();
}

void printAtenOp(OpAsmPrinter &printer, Operation *op) {
  if (op->getNumOperands() != 0)
    printer << ' ';
  printer.printOperands(op->getOperands());
  printer.printOptionalAttrDict(op->getAttrs());
  printer << " : ";
  printer.printFunctionalType(op);
}

} // namespace ltc_mlir::torch
