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
// Upstream fuses a producer with several users by recomputing it in each
// (its result still written for the others), which saves no memory
// traffic, so a producer is fused only into its single user. One more
// pattern fuses an elementwise producer whose other users all come after
// an elementwise consumer into one op that writes both results: the
// momentum buffer of SGD, returned from the graph and read by the
// parameter update, is then read and written in the same loop as the
// parameter.
//
//===----------------------------------------------------------------------===//

#include "ltc_mlir/Pipelines/Pipelines.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Interfaces/LoopLikeInterface.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

using namespace mlir;

namespace {

bool isAllParallel(Operation *op) {
  auto linalgOp = dyn_cast_or_null<linalg::LinalgOp>(op);
  return linalgOp && linalgOp.getNumLoops() == linalgOp.getNumParallelLoops();
}

/// Fuses an all-parallel producer with several users into an all-parallel
/// consumer when every other user comes after the consumer in its block:
/// the fused op, at the consumer's place, yields the producer's results too
/// and those users read them there.
struct FuseIntoLaterMultiUseConsumer
    : public OpRewritePattern<linalg::GenericOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(linalg::GenericOp consumer,
                                PatternRewriter &rewriter) const override {
    if (!isAllParallel(consumer))
      return failure();
    for (OpOperand *operand : consumer.getDpsInputOperands()) {
      auto producer = operand->get().getDefiningOp<linalg::GenericOp>();
      // Not a broadcast operand: a smaller producer (BN's per-channel
      // coefficients) would be recomputed for every element.
      if (!producer || !isAllParallel(producer) ||
          producer->getBlock() != consumer->getBlock() ||
          !consumer.getMatchingIndexingMap(operand).isPermutation() ||
          !linalg::areElementwiseOpsFusable(operand))
        continue;
      // The consumer reads the producer through this operand only: the
      // fused op would keep any other one, and reading its own preserved
      // result there would make it use itself.
      if (llvm::count_if(consumer->getOperands(), [&](Value v) {
            return v.getDefiningOp() == producer.getOperation();
          }) != 1)
        continue;
      bool otherUsers = false, usersLater = true;
      for (Operation *user : producer->getUsers()) {
        if (user == consumer)
          continue;
        otherUsers = true;
        usersLater &= user->getBlock() == consumer->getBlock() &&
                      consumer->isBeforeInBlock(user);
      }
      if (!otherUsers || !usersLater)
        continue;
      FailureOr<linalg::ElementwiseOpFusionResult> fused =
          linalg::fuseElementwiseOps(rewriter, operand);
      if (failed(fused))
        continue;
      for (auto [original, replacement] : fused->replacements)
        rewriter.replaceAllUsesWith(original, replacement);
      rewriter.eraseOp(consumer);
      if (producer->use_empty())
        rewriter.eraseOp(producer);
      return success();
    }
    return failure();
  }
};

/// An all-parallel op that reads its init (a 0-d sum of a 0-d tensor:
/// `out + in`) reads it as an input instead. Fused into a consumer that
/// broadcasts its result, upstream keeps such an init as an output of the
/// fused op, indexed by the broadcast map: every iteration then read what
/// the previous one wrote (x.sum().expand(2) / y gave [v, 2v]). Not inside
/// loops: there the init is the loop's carried value, which bufferization
/// updates in place (a scan's step must write its iter_arg).
void moveReadInitsToInputs(func::FuncOp func) {
  SmallVector<Operation *> candidates;
  func.walk([&](linalg::GenericOp op) {
    if (!isAllParallel(op) || op->getParentOfType<LoopLikeOpInterface>())
      return;
    for (OpOperand &init : op.getDpsInitsMutable())
      if (op.payloadUsesValueFromOperand(&init)) {
        candidates.push_back(op);
        return;
      }
  });
  if (candidates.empty())
    return;
  RewritePatternSet patterns(func.getContext());
  linalg::populateMoveInitOperandsToInputPattern(patterns);
  (void)applyOpPatternsGreedily(
      candidates, std::move(patterns),
      GreedyRewriteConfig().setStrictness(GreedyRewriteStrictness::ExistingOps));
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
    moveReadInitsToInputs(getOperation());
    linalg::populateElementwiseOpsFusionPatterns(patterns, singleUse);
    patterns.add<FuseIntoLaterMultiUseConsumer>(context);
    linalg::populateFoldReshapeOpsByExpansionPatterns(patterns,
                                                      reshapeIntoElementwise);
    // MLIR 22's constant folding of a rank-0 linalg op (a 0-d copy of a
    // constant: x[0].zero_() on a 1-d x) crashes (APFloat of an empty
    // iteration space); rank-0 ops are left to the loops.
    linalg::ControlFusionFn foldableConstant = [singleUse](OpOperand *fused) {
      auto type = dyn_cast<ShapedType>(fused->get().getType());
      return type && type.getRank() > 0 && singleUse(fused);
    };
    linalg::populateConstantFoldLinalgOperations(patterns, foldableConstant);
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
