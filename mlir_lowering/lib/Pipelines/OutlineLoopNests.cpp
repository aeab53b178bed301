//===- OutlineLoopNests.cpp - one function per top-level loop nest --------===//
//
// After bufferization a graph is one function whose body is a sequence of
// loop nests (one per fused linalg op) over memrefs. LLVM's loop passes
// (IndVarSimplify, LoopRotate) and MLIR's scf-to-cf conversion scale worse
// than linearly with the size of a function: a ResNet-18 training step was
// one 100k-line LLVM function that took ~16 s in the LLVM optimizer and 9 s
// in scf-to-cf. Each large top-level nest becomes a private function called
// from the original one; later per-function passes see small functions (and
// may run on several threads). The JIT marks these functions noinline
// (see kOutlinedNestPrefix), or LLVM's inliner would undo the split.
//
// A nest's operands and the values its body uses from outside become the
// function's arguments; constants are cloned into it instead (they fold
// there). Its results are returned.
//
//===----------------------------------------------------------------------===//

#include "ltc_mlir/Pipelines/Pipelines.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/LoopLikeInterface.h"
#include "mlir/Pass/Pass.h"
#include "llvm/ADT/SetVector.h"

using namespace mlir;

namespace {

/// Loops are outlined whatever their size (LLVM's IndVarSimplify cost grows
/// with the number of loops in a function); other ops with regions (scf.if
/// of a runtime check) only from this many nested ops.
constexpr int64_t kMinOpsToOutline = 24;

int64_t countNestedOps(Operation *op) {
  int64_t count = 0;
  op->walk([&](Operation *) { ++count; });
  return count;
}

bool isConstantWithoutOperands(Operation *op) {
  return op && op->getNumOperands() == 0 && op->getNumRegions() == 0 &&
         op->hasTrait<OpTrait::ConstantLike>();
}

/// Values used inside `nest` (its operands included) that are defined
/// outside it, in first-use order.
llvm::SetVector<Value> externalValues(Operation *nest) {
  llvm::SetVector<Value> values;
  nest->walk([&](Operation *inner) {
    for (Value operand : inner->getOperands()) {
      Region *region = operand.getParentRegion();
      if (!nest->isProperAncestor(region->getParentOp()) &&
          region->getParentOp() != nest)
        values.insert(operand);
    }
  });
  return values;
}

struct OutlineLoopNestsPass
    : PassWrapper<OutlineLoopNestsPass, OperationPass<ModuleOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(OutlineLoopNestsPass)

  StringRef getArgument() const final { return "ltc-outline-loop-nests"; }
  StringRef getDescription() const final {
    return "Move each large top-level loop nest of the public functions into "
           "its own private function (LLVM and scf-to-cf scale badly with "
           "function size)";
  }

  void runOnOperation() override {
    ModuleOp module = getOperation();
    SymbolTable symbols(module);
    SmallVector<func::FuncOp> publicFunctions;
    for (auto function : module.getOps<func::FuncOp>())
      if (function.isPublic() && !function.isExternal())
        publicFunctions.push_back(function);
    for (func::FuncOp function : publicFunctions) {
      if (!function.getBody().hasOneBlock())
        continue;
      SmallVector<Operation *> nests;
      for (Operation &op : function.getBody().front())
        if (isa<LoopLikeOpInterface>(op) ||
            (op.getNumRegions() > 0 && countNestedOps(&op) >= kMinOpsToOutline))
          nests.push_back(&op);
      // One nest alone gains nothing from a split.
      if (nests.size() < 2)
        continue;
      unsigned index = 0;
      for (Operation *nest : nests)
        outline(nest, function, symbols, index++);
    }
  }

  void outline(Operation *nest, func::FuncOp parent, SymbolTable &symbols,
               unsigned index) {
    llvm::SetVector<Value> external = externalValues(nest);
    SmallVector<Value> arguments;
    SmallVector<Operation *> constants;
    for (Value value : external) {
      Operation *definingOp = value.getDefiningOp();
      if (isConstantWithoutOperands(definingOp))
        constants.push_back(definingOp);
      else
        arguments.push_back(value);
    }

    OpBuilder builder(parent);
    auto type = builder.getFunctionType(ValueRange(arguments).getTypes(),
                                        nest->getResultTypes());
    std::string name = (Twine(ltc_mlir::kOutlinedNestPrefix) +
                        parent.getSymName() + "_" + Twine(index))
                           .str();
    auto outlined = func::FuncOp::create(builder, nest->getLoc(), name, type);
    outlined.setPrivate();
    symbols.insert(outlined);

    Block *body = outlined.addEntryBlock();
    OpBuilder inner = OpBuilder::atBlockBegin(body);
    IRMapping mapping;
    for (auto [value, argument] : llvm::zip(arguments, body->getArguments()))
      mapping.map(value, argument);
    for (Operation *constant : constants)
      inner.clone(*constant, mapping);
    Operation *copy = inner.clone(*nest, mapping);
    func::ReturnOp::create(inner, nest->getLoc(), copy->getResults());

    OpBuilder callBuilder(nest);
    auto call = func::CallOp::create(callBuilder, nest->getLoc(), outlined,
                                     arguments);
    nest->replaceAllUsesWith(call.getResults());
    nest->erase();
  }
};

} // namespace

std::unique_ptr<Pass> ltc_mlir::createOutlineLoopNestsPass() {
  return std::make_unique<OutlineLoopNestsPass>();
}
