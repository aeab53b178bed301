//===- RuntimeCalls.cpp - calls from lowered code into the runtime --------===//

#include "RuntimeCalls.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/BuiltinOps.h"

using namespace mlir;

namespace ltc_mlir::torch_to_linalg {
namespace {

/// Numbers the to_buffer ops of runtime call operands (see callRuntime).
constexpr const char *kRuntimeOperandAttr = "ltc.runtime_operand";

/// memref<?x...xT, strided<[?, ...], offset: ?>>: the one type every entry
/// point's memref parameters have, whatever the layout at a call site.
MemRefType fullyDynamicMemRef(int64_t rank, Type elementType) {
  SmallVector<int64_t> dynamic(rank, ShapedType::kDynamic);
  auto layout = StridedLayoutAttr::get(elementType.getContext(),
                                       ShapedType::kDynamic, dynamic);
  return MemRefType::get(dynamic, elementType, layout);
}

} // namespace

func::FuncOp getOrDeclareFunction(OpBuilder &b, Operation *anchor,
                                  StringRef name, FunctionType type,
                                  bool cInterface) {
  auto module = anchor->getParentOfType<ModuleOp>();
  if (auto existing = module.lookupSymbol<func::FuncOp>(name))
    return existing;
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(module.getBody());
  auto callee = func::FuncOp::create(b, module.getLoc(), name, type);
  callee.setPrivate();
  if (cInterface)
    callee->setAttr(LLVM::LLVMDialect::getEmitCWrapperAttrName(),
                    b.getUnitAttr());
  return callee;
}

Value readAsRuntimeOperand(OpBuilder &b, Location loc, Value tensor) {
  // Each call reads its inputs through its own to_buffer, marked with a
  // number unique in the function: CSE would otherwise merge two calls'
  // to_buffers of one tensor into the first, and bufferization, which only
  // sees the tensor read at that first to_buffer, may let an in-place op
  // overwrite the buffer before the second call reads it.
  int64_t nextOperand = 0;
  Operation *scope = b.getInsertionBlock()->getParentOp();
  if (scope && !isa<func::FuncOp>(scope))
    if (auto func = scope->getParentOfType<func::FuncOp>())
      scope = func;
  if (scope)
    scope->walk([&](bufferization::ToBufferOp op) {
      if (op->hasAttr(kRuntimeOperandAttr))
        ++nextOperand;
    });
  auto type = cast<RankedTensorType>(tensor.getType());
  SmallVector<int64_t> strides(type.getRank(), ShapedType::kDynamic);
  auto anyLayout = MemRefType::get(
      type.getShape(), type.getElementType(),
      StridedLayoutAttr::get(b.getContext(), ShapedType::kDynamic, strides));
  auto toBuffer = bufferization::ToBufferOp::create(b, loc, anyLayout, tensor,
                                                    /*read_only=*/true);
  toBuffer->setAttr(kRuntimeOperandAttr, b.getI64IntegerAttr(nextOperand));
  return toBuffer;
}

SmallVector<Value> callRuntime(OpBuilder &b, Location loc, StringRef name,
                               ValueRange inputs,
                               ArrayRef<RankedTensorType> resultTypes,
                               ArrayRef<int64_t> scalars) {
  SmallVector<Value> args;
  for (Value input : inputs) {
    auto type = cast<RankedTensorType>(input.getType());
    args.push_back(memref::CastOp::create(
        b, loc, fullyDynamicMemRef(type.getRank(), type.getElementType()),
        readAsRuntimeOperand(b, loc, input)));
  }
  SmallVector<Value> buffers;
  for (RankedTensorType type : resultTypes) {
    Value buffer = memref::AllocOp::create(
        b, loc, MemRefType::get(type.getShape(), type.getElementType()));
    buffers.push_back(buffer);
    args.push_back(memref::CastOp::create(
        b, loc, fullyDynamicMemRef(type.getRank(), type.getElementType()),
        buffer));
  }
  for (int64_t v : scalars)
    args.push_back(arith::ConstantOp::create(b, loc, b.getI64IntegerAttr(v)));

  func::FuncOp callee = getOrDeclareFunction(
      b, b.getInsertionBlock()->getParentOp(), name,
      b.getFunctionType(ValueRange(args).getTypes(), {}), /*cInterface=*/true);
  func::CallOp::create(b, loc, callee, args);

  SmallVector<Value> results;
  for (auto [buffer, type] : llvm::zip(buffers, resultTypes))
    results.push_back(bufferization::ToTensorOp::create(
        b, loc, type, buffer, /*restrict=*/true, /*writable=*/true));
  return results;
}

} // namespace ltc_mlir::torch_to_linalg
