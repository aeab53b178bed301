//===- ApproximateVectorMath.cpp - vector f32 math as polynomials ---------===//
//
// LLVM has no vector form of exp or erf on x86: a vectorized
// softmax or GELU calls libm once per lane (`__expf`, `__erff`: ~5% of a
// nanoGPT training step, with the call overhead and spills around each).
// MLIR's polynomial approximations compute them with vector arithmetic
// only. They are applied to f32 vector ops (f16/bf16 were widened to f32
// before), the ones the tiles vectorized; scalar ops keep libm.
//
//===----------------------------------------------------------------------===//

#include "ltc_mlir/Pipelines/Pipelines.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Math/Transforms/Approximation.h"
#include "mlir/Dialect/Math/Transforms/Passes.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

using namespace mlir;

namespace {

/// The functions approximated. Measured against float64 over their ranges
/// (2026-11-23): exp <= 5.1 ulp (mean 0.27), expm1 2.3, log1p 1.9, erf 4.1
/// (eager's Sleef kernels: <= 1 ulp), NaN, infinities and the
/// overflow/underflow limits as libm. Not log: its polynomial flushes
/// subnormal inputs (log(1e-45) gave -87.3 instead of -103.3). Not tanh: it
/// saturates to +-1 from |x| ~ 7.9, so 1 + tanh(x) in the tanh-GELU
/// gradient became 0 where eager has ~2e-6.
bool isApproximated(StringRef name) {
  return llvm::is_contained({"math.exp", "math.expm1", "math.log1p", "math.erf"},
                            name);
}

struct ApproximateVectorMathPass
    : PassWrapper<ApproximateVectorMathPass, OperationPass<func::FuncOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(ApproximateVectorMathPass)

  StringRef getArgument() const final { return "ltc-approximate-vector-math"; }
  StringRef getDescription() const final {
    return "Replace f32 vector exp/expm1/log1p/erf by MLIR's "
           "polynomial approximations (no per-lane libm calls)";
  }
  void getDependentDialects(DialectRegistry &registry) const override {
    registry.insert<arith::ArithDialect, math::MathDialect,
                    vector::VectorDialect>();
  }

  void runOnOperation() override {
    SmallVector<Operation *> ops;
    getOperation().walk([&](Operation *op) {
      if (op->getNumResults() != 1 ||
          !isApproximated(op->getName().getStringRef()))
        return;
      auto type = llvm::dyn_cast<VectorType>(op->getResult(0).getType());
      if (type && type.getElementType().isF32())
        ops.push_back(op);
    });
    if (ops.empty())
      return;
    // erf is odd but its polynomial gives +0 for -0: the sign of x is put
    // back on the result.
    for (Operation *op : ops)
      if (auto erf = llvm::dyn_cast<math::ErfOp>(op)) {
        OpBuilder b(erf->getContext());
        b.setInsertionPointAfter(erf);
        auto signed_ = math::CopySignOp::create(b, erf.getLoc(), erf.getResult(),
                                                erf.getOperand());
        erf.getResult().replaceAllUsesExcept(signed_.getResult(), signed_);
      }
    RewritePatternSet patterns(&getContext());
    populateMathPolynomialApproximationPatterns(patterns, isApproximated);
    GreedyRewriteConfig config;
    config.setStrictness(GreedyRewriteStrictness::ExistingOps);
    // (Not converging only means some op had no approximation.)
    (void)applyOpPatternsGreedily(ops, std::move(patterns), config);
  }
};

} // namespace

std::unique_ptr<Pass> ltc_mlir::createApproximateVectorMathPass() {
  return std::make_unique<ApproximateVectorMathPass>();
}
