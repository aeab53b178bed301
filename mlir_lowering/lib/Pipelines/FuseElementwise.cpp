//===- FuseElementwise.cpp - elementwise fusion that keeps contractions ----===//
//
// Upstream `linalg-fuse-elementwise-ops` also moves every
// tensor.expand_shape / collapse_shape next to a linalg op into the op, by
// splitting its loops: a matmul whose result is viewed as [B, T, C], or the
// im2col matmul of a convolution (its operand a collapsed [G, C*K, N*H*W]
// tensor), becomes a linalg.generic with several M or N loops, which
// ltc-tile-and-vectorize no longer treats as a matmul (it needs one M and
// one N loop): the convolution of a ResNet layer ran 140x slower.
//
// This pass applies the same patterns (producer/consumer fusion of
// elementwise generics, reshape folding by expansion, the linalg and
// reshape canonicalizations, constant folding) but folds a reshape only
// into a linalg op whose loops are all parallel; contractions and
// reductions keep their shape and the reshape stays a view next to them.
//
//===----------------------------------------------------------------------===//

#include "ltc_mlir/Pipelines/Pipelines.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

using namespace mlir;

namespace {

bool isAllParallel(Operation *op) {
  auto linalgOp = dyn_cast_or_null<linalg::LinalgOp>(op);
  return linalgOp && linalgOp.getNumLoops() == linalgOp.getNumParallelLoops();
}

struct FuseElementwisePass
    : PassWrapper<FuseElementwisePass, OperationPass<func::FuncOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(FuseElementwisePass)

  StringRef getArgument() const final { return "ltc-fuse-elementwise"; }
  StringRef getDescription() const final {
    return "Fuse elementwise linalg ops and fold reshapes into them (not "
           "into contractions or reductions)";
  }
  void getDependentDialects(DialectRegistry &registry) const override {
    registry.insert<affine::AffineDialect, linalg::LinalgDialect,
                    tensor::TensorDialect>();
  }
  void runOnOperation() override {
    MLIRContext *context = &getContext();
    RewritePatternSet patterns(context);
    // A producer is fused (recomputed) only into its single user.
    linalg::ControlFusionFn singleUse = [](OpOperand *fused) {
      Operation *producer = fused->get().getDefiningOp();
      return producer && producer->hasOneUse();
    };
    // The reshape is the producer of the linalg op's operand, or the
    // consumer of its result (then `fused` is the reshape's source).
    linalg::ControlFusionFn reshapeIntoElementwise = [](OpOperand *fused) {
      Operation *producer = fused->get().getDefiningOp();
      if (!producer || !producer->hasOneUse())
        return false;
      Operation *owner = fused->getOwner();
      return isAllParallel(isa<linalg::LinalgOp>(owner) ? owner : producer);
    };
    linalg::populateElementwiseOpsFusionPatterns(patterns, singleUse);
    linalg::populateFoldReshapeOpsByExpansionPatterns(patterns,
                                                      reshapeIntoElementwise);
    linalg::populateConstantFoldLinalgOperations(patterns, singleUse);
    affine::AffineApplyOp::getCanonicalizationPatterns(patterns, context);
    linalg::GenericOp::getCanonicalizationPatterns(patterns, context);
    tensor::ExpandShapeOp::getCanonicalizationPatterns(patterns, context);
    tensor::CollapseShapeOp::getCanonicalizationPatterns(patterns, context);
    context->getLoadedDialect<linalg::LinalgDialect>()
        ->getCanonicalizationPatterns(patterns);
    if (failed(applyPatternsGreedily(
            getOperation(), std::move(patterns),
            GreedyRewriteConfig().setUseTopDownTraversal(true))))
      return signalPassFailure();
  }
};

} // namespace

std::unique_ptr<Pass> ltc_mlir::createFuseElementwisePass() {
  return std::make_unique<FuseElementwisePass>();
}
