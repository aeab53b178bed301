//===- FoldZeroTripLoops.cpp - linalg ops with an empty iteration space ---===//
//
// A linalg op with a static size-0 loop (an empty tensor of the graph: a
// [0, 3] batch, the backward of a zero-size input) runs no iteration, so
// each of its results is its init operand unchanged: an empty result, or
// the neutral fill of a reduction over nothing (sum of [] is 0). Tiling such
// ops makes tensor.extract_slice ops at offset 0 of a size-0 dim, which
// MLIR 22's verifier rejects ("offset 0 is out-of-bounds"), so the graph
// fell back. This pass replaces the results by the inits before tiling.
//
//===----------------------------------------------------------------------===//

#include "ltc_mlir/Pipelines/Pipelines.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Pass/Pass.h"

using namespace mlir;

namespace {

struct FoldZeroTripLoopsPass
    : PassWrapper<FoldZeroTripLoopsPass, OperationPass<func::FuncOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(FoldZeroTripLoopsPass)

  StringRef getArgument() const final { return "ltc-fold-zero-trip-loops"; }
  StringRef getDescription() const final {
    return "Replace the results of linalg ops with a static size-0 loop by "
           "their init operands (no iteration runs)";
  }
  void runOnOperation() override {
    SmallVector<linalg::LinalgOp> empty;
    getOperation()->walk([&](linalg::LinalgOp op) {
      if (!op.hasPureTensorSemantics())
        return;
      if (llvm::is_contained(op.getStaticLoopRanges(), int64_t(0)))
        empty.push_back(op);
    });
    for (linalg::LinalgOp op : empty) {
      SmallVector<Value> inits;
      for (OpOperand &init : op.getDpsInitsMutable())
        inits.push_back(init.get());
      if (inits.size() != op->getNumResults())
        continue;
      op->replaceAllUsesWith(inits);
      op->erase();
    }
  }
};

} // namespace

std::unique_ptr<Pass> ltc_mlir::createFoldZeroTripLoopsPass() {
  return std::make_unique<FoldZeroTripLoopsPass>();
}
