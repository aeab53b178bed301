//===- BlockAccumulation.cpp - K blocks for contraction accumulators ------===//
//
// After ltc-tile-and-vectorize and hoisting, the register tile of a
// contraction is an scf.for over K whose iter_args are its accumulators
// (the acc operands of vector.contract): each output element adds all of K
// in order, so a long K loses precision like any sequential sum (a weight
// gradient sums over the whole batch). This pass splits such a loop into
// blocks of at most kMaxBlock iterations whose accumulators start at zero
// and are added to the running sums after each block, as a BLAS kernel does
// per K panel:
//
//   %r = scf.for %k = %c0 to %c784 step %c1 iter_args(%acc = %init) {
//     %c = vector.contract ... %a, %b, %acc ; scf.yield %c
//   }
// becomes
//   %r = scf.for %kb = %c0 to %c784 step %c196 iter_args(%sum = %init) {
//     %end = arith.addi %kb, %c196
//     %p = scf.for %k = %kb to %end step %c1 iter_args(%acc = %zero) {...}
//     %s = arith.addf %sum, %p ; scf.yield %s
//   }
//
// The block divides the trip count when a divisor of at least half the
// maximum exists (static inner bounds), else the last block is shorter.
// Only loops whose every iter_arg is a float vector used once, as the acc of
// an additive vector.contract whose result is yielded in its place, are
// rewritten (their results are sums of the iterations' products, so
// reassociating them is valid). The block size depends on K only: the same
// results for any thread count.
//
//===----------------------------------------------------------------------===//

#include "ltc_mlir/Pipelines/Pipelines.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Pass/Pass.h"

using namespace mlir;

namespace {

/// Products one accumulator adds before its block sum joins the total.
constexpr int64_t kMaxBlock = 256;

/// Whether iter_arg `index` of `loop` only accumulates vector.contract
/// products: used once, as the acc of an additive contraction whose result
/// is yielded at `index` (and used nowhere else).
bool isContractionAccumulator(scf::ForOp loop, unsigned index) {
  BlockArgument arg = loop.getRegionIterArgs()[index];
  auto type = dyn_cast<VectorType>(arg.getType());
  if (!type || !isa<FloatType>(type.getElementType()) || !arg.hasOneUse())
    return false;
  auto contract = dyn_cast<vector::ContractionOp>(*arg.getUsers().begin());
  if (!contract || contract.getAcc() != arg ||
      contract.getKind() != vector::CombiningKind::ADD ||
      contract->getBlock() != loop.getBody() || !contract->hasOneUse())
    return false;
  auto yield = cast<scf::YieldOp>(loop.getBody()->getTerminator());
  return yield.getOperand(index) == contract.getResult();
}

/// The block: a divisor of `tripCount` close to kMaxBlock, else kMaxBlock.
int64_t pickBlock(int64_t tripCount) {
  for (int64_t b = kMaxBlock; b * 2 > kMaxBlock; --b)
    if (tripCount % b == 0)
      return b;
  return kMaxBlock;
}

void blockLoop(scf::ForOp loop) {
  std::optional<int64_t> lb = getConstantIntValue(loop.getLowerBound());
  std::optional<int64_t> ub = getConstantIntValue(loop.getUpperBound());
  std::optional<int64_t> step = getConstantIntValue(loop.getStep());
  if (!lb || !ub || !step || *step <= 0 || loop.getNumRegionIterArgs() == 0)
    return;
  int64_t tripCount = (*ub - *lb + *step - 1) / *step;
  if (tripCount <= kMaxBlock)
    return;
  for (unsigned i = 0; i < loop.getNumRegionIterArgs(); ++i)
    if (!isContractionAccumulator(loop, i))
      return;

  int64_t block = pickBlock(tripCount);
  bool exact = tripCount % block == 0;
  OpBuilder b(loop);
  Location loc = loop.getLoc();
  Value blockSpan = arith::ConstantIndexOp::create(b, loc, block * *step);
  SmallVector<Value> zeros;
  for (Value init : loop.getInitArgs())
    zeros.push_back(arith::ConstantOp::create(
        b, loc, b.getZeroAttr(init.getType())));
  auto outer = scf::ForOp::create(
      b, loc, loop.getLowerBound(), loop.getUpperBound(), blockSpan,
      loop.getInitArgs(),
      [&](OpBuilder &nb, Location nloc, Value blockStart, ValueRange sums) {
        Value end = arith::AddIOp::create(nb, nloc, blockStart, blockSpan);
        if (!exact)
          end = arith::MinSIOp::create(nb, nloc, end, loop.getUpperBound());
        auto inner = cast<scf::ForOp>(nb.clone(*loop.getOperation()));
        inner.getLowerBoundMutable().assign(blockStart);
        inner.getUpperBoundMutable().assign(end);
        inner.getInitArgsMutable().assign(zeros);
        SmallVector<Value> next;
        for (auto [sum, partial] : llvm::zip(sums, inner.getResults()))
          next.push_back(arith::AddFOp::create(nb, nloc, sum, partial));
        scf::YieldOp::create(nb, nloc, next);
      });
  loop.replaceAllUsesWith(outer.getResults());
  loop.erase();
}

struct BlockAccumulationPass
    : PassWrapper<BlockAccumulationPass, OperationPass<func::FuncOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(BlockAccumulationPass)

  StringRef getArgument() const final { return "ltc-block-k-accumulation"; }
  StringRef getDescription() const final {
    return "Split long contraction loops into K blocks with fresh "
           "accumulators added to the running sums (precision of long K)";
  }
  void getDependentDialects(DialectRegistry &registry) const override {
    registry.insert<arith::ArithDialect, scf::SCFDialect>();
  }

  void runOnOperation() override {
    SmallVector<scf::ForOp> loops;
    getOperation().walk([&](scf::ForOp loop) { loops.push_back(loop); });
    for (scf::ForOp loop : loops)
      blockLoop(loop);
  }
};

} // namespace

std::unique_ptr<Pass> ltc_mlir::createBlockAccumulationPass() {
  return std::make_unique<BlockAccumulationPass>();
}
