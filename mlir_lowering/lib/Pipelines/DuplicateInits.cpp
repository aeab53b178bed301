//===- DuplicateInits.cpp - one init tensor per destination-style use -----===//
//
// TorchToLinalg (and CSE) share one `tensor.empty`, or one zero
// `linalg.fill`, between every op of the same shape. One-shot bufferization
// then sees several ops writing into the same buffer while earlier results
// are still live (e.g. returned), and resolves each conflict with a fresh
// allocation plus a `memref.copy` of the shared buffer: for the MLP step,
// three 512x784 copies into freshly mmap'ed memory (page faults included).
//
// This pass gives every use its own clone, created right before the user:
//
//   %e = tensor.empty() : tensor<512xf32>
//   %f = linalg.fill ins(%zero) outs(%e)
//   return %f, ...                     (a zero gradient)
//   %r = linalg.generic ... outs(%f)   (a reduction)
//
// becomes
//
//   %e0 = tensor.empty()  %f0 = linalg.fill ins(%zero) outs(%e0)
//   %e1 = tensor.empty()  %f1 = linalg.fill ins(%zero) outs(%e1)
//   %r = linalg.generic ... outs(%f1)
//   return %f0, ...
//
// so that each init bufferizes in place (into the out-param of a returned
// result), and a fill right before its consumer can be fused into its tiles.
// Fills are cheap to recompute; a copy reads and writes.
//
//===----------------------------------------------------------------------===//

#include "ltc_mlir/Pipelines/Pipelines.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Pass/Pass.h"

using namespace mlir;

namespace {

/// A fill of a constant scalar into a tensor.empty: free to duplicate.
bool isDuplicableFill(linalg::FillOp fill) {
  if (!fill.hasPureTensorSemantics())
    return false;
  Value value = fill.getInputs()[0];
  bool constantValue = value.getParentBlock() == fill->getBlock() ||
                       llvm::isa<BlockArgument>(value) ||
                       value.getDefiningOp<arith::ConstantOp>();
  return constantValue &&
         fill.getOutputs()[0].getDefiningOp<tensor::EmptyOp>() != nullptr;
}

struct DuplicateInitsPass
    : PassWrapper<DuplicateInitsPass, OperationPass<func::FuncOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(DuplicateInitsPass)

  StringRef getArgument() const final { return "ltc-duplicate-inits"; }
  StringRef getDescription() const final {
    return "Give every use of a tensor.empty or of a constant linalg.fill its "
           "own clone, so that bufferization needs no copies";
  }
  void getDependentDialects(DialectRegistry &registry) const override {
    registry.insert<linalg::LinalgDialect, tensor::TensorDialect>();
  }

  void runOnOperation() override {
    IRRewriter rewriter(&getContext());
    // Fills first (their clones need their own empties), then empties.
    SmallVector<linalg::FillOp> fills;
    getOperation().walk([&](linalg::FillOp fill) {
      if (isDuplicableFill(fill) && !fill->getResult(0).hasOneUse())
        fills.push_back(fill);
    });
    for (linalg::FillOp fill : fills) {
      auto empty = fill.getOutputs()[0].getDefiningOp<tensor::EmptyOp>();
      SmallVector<OpOperand *> uses = llvm::to_vector(llvm::map_range(
          fill->getResult(0).getUses(), [](OpOperand &use) { return &use; }));
      // The first use keeps the original.
      for (OpOperand *use : llvm::drop_begin(uses)) {
        Operation *user = use->getOwner();
        // Only clone where the fill value dominates the user's block.
        if (user->getBlock() != fill->getBlock())
          continue;
        rewriter.setInsertionPoint(user);
        Operation *newEmpty = rewriter.clone(*empty);
        IRMapping mapping;
        mapping.map(empty->getResult(0), newEmpty->getResult(0));
        Operation *newFill = rewriter.clone(*fill, mapping);
        rewriter.modifyOpInPlace(
            user, [&] { use->set(newFill->getResult(0)); });
      }
    }

    SmallVector<tensor::EmptyOp> empties;
    getOperation().walk([&](tensor::EmptyOp empty) {
      if (!empty->getResult(0).hasOneUse() && empty.getDynamicSizes().empty())
        empties.push_back(empty);
    });
    for (tensor::EmptyOp empty : empties) {
      SmallVector<OpOperand *> uses = llvm::to_vector(llvm::map_range(
          empty->getResult(0).getUses(), [](OpOperand &use) { return &use; }));
      for (OpOperand *use : llvm::drop_begin(uses)) {
        Operation *user = use->getOwner();
        rewriter.setInsertionPoint(user);
        Operation *clone = rewriter.clone(*empty);
        rewriter.modifyOpInPlace(user,
                                 [&] { use->set(clone->getResult(0)); });
      }
    }
  }
};

} // namespace

std::unique_ptr<Pass> ltc_mlir::createDuplicateInitsPass() {
  return std::make_unique<DuplicateInitsPass>();
}
