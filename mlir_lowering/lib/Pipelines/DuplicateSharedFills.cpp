//===- DuplicateSharedFills.cpp - one linalg.fill per written use --------===//
//
// CSE merges identical fills (a zero tensor of one shape), so that one fill
// result can be the destination of several ops: the outs of two
// contractions, or the start of two insert_slice chains (the im2col of a
// convolution's forward and of its backward). Only one of them can write
// the fill's buffer in place; one-shot bufferization gives every other one
// an allocation plus a memref.copy of the filled buffer, and in an
// insert_slice chain the copies cascade (MobileNetV2: a 9.4 MB copy per
// depthwise im2col). A fill is cheaper than that copy (it only writes), so
// before tiling each further destination use gets its own clone of the
// fill into a bufferization.alloc_tensor (which CSE leaves alone), placed
// next to the original (never inside a loop). Uses that only read the fill
// keep the original. Runs before ltc-select-external-gemms, which can then
// drop the zero fill of every GEMM it had been shared by.
//
//===----------------------------------------------------------------------===//

#include "ltc_mlir/Pipelines/Pipelines.h"

#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Interfaces/DestinationStyleOpInterface.h"
#include "mlir/Interfaces/LoopLikeInterface.h"
#include "mlir/Pass/Pass.h"

using namespace mlir;

namespace {

/// Whether `use` may write into the buffer of the value it uses (a
/// destination-style init, an insert_slice destination, a loop init).
bool isDestinationUse(OpOperand &use) {
  Operation *user = use.getOwner();
  if (auto dps = llvm::dyn_cast<DestinationStyleOpInterface>(user))
    return dps.isDpsInit(&use);
  if (auto loop = llvm::dyn_cast<LoopLikeOpInterface>(user))
    return llvm::is_contained(
        llvm::make_pointer_range(loop.getInitsMutable()), &use);
  return false;
}

struct DuplicateSharedFillsPass
    : PassWrapper<DuplicateSharedFillsPass, OperationPass<func::FuncOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(DuplicateSharedFillsPass)

  StringRef getArgument() const final { return "ltc-duplicate-shared-fills"; }
  StringRef getDescription() const final {
    return "Give every further destination use of a shared linalg.fill on "
           "tensors its own clone (a fill instead of a bufferization copy)";
  }
  void getDependentDialects(DialectRegistry &registry) const override {
    registry.insert<bufferization::BufferizationDialect, linalg::LinalgDialect,
                    tensor::TensorDialect>();
  }

  void runOnOperation() override {
    SmallVector<linalg::FillOp> fills;
    // Program order, so that the first destination keeps the original
    // whatever the order of the use list.
    llvm::DenseMap<Operation *, unsigned> position;
    getOperation().walk<WalkOrder::PreOrder>([&](Operation *op) {
      position[op] = position.size();
      auto fill = llvm::dyn_cast<linalg::FillOp>(op);
      if (fill && fill.hasPureTensorSemantics() &&
          !fill->getResult(0).hasOneUse())
        fills.push_back(fill);
    });
    for (linalg::FillOp fill : fills) {
      Value result = fill->getResult(0);
      SmallVector<OpOperand *> destinations;
      bool hasReads = false;
      for (OpOperand &use : result.getUses()) {
        if (isDestinationUse(use))
          destinations.push_back(&use);
        else
          hasReads = true;
      }
      llvm::stable_sort(destinations, [&](OpOperand *a, OpOperand *b) {
        return position.lookup(a->getOwner()) < position.lookup(b->getOwner());
      });
      // The original keeps the reads, or else the first destination.
      size_t first = hasReads ? 0 : 1;
      if (destinations.size() <= first)
        continue;
      auto type = llvm::dyn_cast<RankedTensorType>(result.getType());
      if (!type || !type.hasStaticShape())
        continue;
      OpBuilder b(fill);
      b.setInsertionPointAfter(fill);
      for (size_t i = first; i < destinations.size(); ++i) {
        // alloc_tensor, not tensor.empty: the CSE runs that follow must not
        // merge the clones again.
        Value init = bufferization::AllocTensorOp::create(
            b, fill.getLoc(), type, ValueRange{});
        IRMapping mapping;
        mapping.map(fill.getOutputs()[0], init);
        Operation *clone = b.clone(*fill, mapping);
        destinations[i]->set(clone->getResult(0));
      }
    }
  }
};

} // namespace

std::unique_ptr<Pass> ltc_mlir::createDuplicateSharedFillsPass() {
  return std::make_unique<DuplicateSharedFillsPass>();
}
