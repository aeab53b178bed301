//===- TileAndVectorize.cpp - tile linalg ops for threads and SIMD --------===//
//
// Per linalg op on tensors:
//  1. outer tiles as `scf.forall` (later scf.parallel -> omp.wsloop), sized so
//     there are several chunks per thread and the K x NR panel of the vector
//     operand of a contraction stays in L2; ops too small to pay for waking
//     the OpenMP workers (min-parallel-work / min-parallel-macs) stay serial;
//  2. register tiles as `scf.for`: for contractions an MR x NR block over the
//     parallel dims (NR along the innermost dim of the result, whatever
//     inferContractionDims calls it) with K-step 1 inside (after hoisting, an
//     outer-product microkernel whose accumulators stay in registers); for
//     2-D transposes lanes x lanes blocks; for everything else a
//     1 x ... x V strip along the innermost loop;
//  3. `linalg::vectorize` of the register tile.
// Contractions are tiled together with their producers and consumers: the
// `linalg.fill` of the init is fused into both tile levels (the accumulators
// start as a constant vector), and a chain of elementwise consumers (bias +
// relu, gradient scaling, the SGD update) is fused too, tiled from its last
// op, so the epilogue runs on the accumulators before the only store
// (values of the chain that are also returned are yielded by the loops).
// Tile sizes are chosen to divide the loop ranges, so every tile is static
// and needs no masking. An op with dynamic loops (code for every batch size)
// is first tiled by 1 along them (peelDynamicDims); the static op inside is
// then planned as above, without parallel tiles of its own.
//
//===----------------------------------------------------------------------===//

#include "ltc_mlir/Pipelines/Pipelines.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/SCF/Transforms/TileUsingInterface.h"
#include "mlir/Dialect/Tensor/Transforms/Transforms.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Dialect/Vector/Transforms/LoweringPatterns.h"
#include "mlir/Dialect/Vector/Transforms/VectorRewritePatterns.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "mlir/Dialect/Linalg/Utils/Utils.h"
#include "llvm/TargetParser/Host.h"
#include <functional>

using namespace mlir;

unsigned ltc_mlir::getHostVectorBits() {
  llvm::StringMap<bool> features = llvm::sys::getHostCPUFeatures();
  if (features.lookup("avx512f"))
    return 512;
  if (features.lookup("avx2") || features.lookup("avx"))
    return 256;
  return 128;
}

namespace {

/// Tile sizes per loop of one op; 0 = not tiled at that level.
struct TilePlan {
  SmallVector<int64_t> parallel; ///< scf.forall tiles; empty = no forall
  SmallVector<int64_t> reg;      ///< register tiles (then vectorized)
  bool vectorize = false;
  /// Contractions: the register tile is MR x NR over the parallel dims (the
  /// init fill fused into it), then K by 1 inside; `reductionDims` are K.
  bool contraction = false;
  SmallVector<unsigned> reductionDims;
  /// Loop order of the register tiles (empty = dims order).
  SmallVector<int64_t> regInterchange;
};

/// Largest divisor of `n` that is <= `limit`, preferring multiples of
/// `multiple`, so that tiles stay static.
int64_t pickTile(int64_t n, int64_t limit, int64_t multiple) {
  if (n <= limit)
    return n;
  int64_t fallback = 1;
  for (int64_t t = limit; t > 1; --t) {
    if (n % t != 0)
      continue;
    if (t % multiple == 0)
      return t;
    if (fallback == 1)
      fallback = t;
  }
  return fallback;
}

/// Splits `range` (a multiple of `tile`) into at least `chunks` pieces (when
/// possible) that are multiples of `tile` and divide `range`.
int64_t pickChunk(int64_t range, int64_t tile, int64_t chunks) {
  int64_t n = range / tile;
  for (int64_t c = std::min(n, std::max<int64_t>(chunks, 1)); c <= n; ++c)
    if (n % c == 0)
      return range / c;
  return range;
}

int64_t product(ArrayRef<int64_t> xs) {
  int64_t p = 1;
  for (int64_t x : xs)
    p *= x;
  return p;
}

struct TileAndVectorizePass
    : PassWrapper<TileAndVectorizePass, OperationPass<func::FuncOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(TileAndVectorizePass)

  TileAndVectorizePass() = default;
  TileAndVectorizePass(const TileAndVectorizePass &other)
      : PassWrapper(other) {}

  StringRef getArgument() const final { return "ltc-tile-and-vectorize"; }
  StringRef getDescription() const final {
    return "Tile linalg ops into parallel (scf.forall) and register (scf.for) "
           "tiles and vectorize the register tiles";
  }
  void getDependentDialects(DialectRegistry &registry) const override {
    registry
        .insert<scf::SCFDialect, tensor::TensorDialect, vector::VectorDialect,
                arith::ArithDialect, affine::AffineDialect>();
  }

  Option<unsigned> vectorBits{*this, "vector-bits",
                              llvm::cl::desc("SIMD width in bits (0 = host)"),
                              llvm::cl::init(0)};
  Option<bool> parallel{*this, "parallel",
                        llvm::cl::desc("Create scf.forall outer tiles"),
                        llvm::cl::init(true)};
  Option<bool> vectorizeOps{*this, "vectorize",
                            llvm::cl::desc("Tile to registers and vectorize"),
                            llvm::cl::init(true)};
  Option<int64_t> minParallelWork{
      *this, "min-parallel-work",
      llvm::cl::desc("Iteration-space size below which ops stay serial "
                     "(waking the OpenMP workers costs more than the op)"),
      llvm::cl::init(1 << 15)};
  Option<int64_t> minParallelFlops{
      *this, "min-parallel-macs",
      llvm::cl::desc("Multiply-adds below which contractions stay serial"),
      llvm::cl::init(1 << 20)};
  Option<int64_t> panelBytes{
      *this, "panel-bytes",
      llvm::cl::desc("Target size of the K x N panel of the vector operand "
                     "per parallel tile (L2 resident)"),
      llvm::cl::init(256 * 1024)};

  void runOnOperation() override;

  unsigned lanesFor(linalg::LinalgOp op) const;
  std::optional<TilePlan> planContraction(linalg::LinalgOp op,
                                          ArrayRef<int64_t> ranges) const;
  TilePlan planGeneric(linalg::LinalgOp op, ArrayRef<int64_t> ranges) const;
  LogicalResult fuseEpilogue(RewriterBase &rewriter, linalg::LinalgOp root,
                             const struct EpilogueFusion &fusion) const;
  FailureOr<Operation *> peelDynamicDims(RewriterBase &rewriter,
                                         linalg::LinalgOp op);
};

struct EpilogueFusion {
  linalg::LinalgOp contraction;
  TilePlan plan;
  SmallVector<Operation *> chain; ///< elementwise consumers, root last
};

unsigned TileAndVectorizePass::lanesFor(linalg::LinalgOp op) const {
  unsigned bits =
      vectorBits ? unsigned(vectorBits) : ltc_mlir::getHostVectorBits();
  unsigned elementBits = 32;
  for (OpOperand &init : op.getDpsInitsMutable())
    if (auto type = llvm::dyn_cast<ShapedType>(init.get().getType()))
      if (type.getElementType().isIntOrFloat())
        elementBits =
            std::max(8u, type.getElementType().getIntOrFloatBitWidth());
  return std::max(1u, bits / elementBits);
}

/// Contractions with one M and one N dim: MR x NR register blocks that fit
/// the register file (AVX2: 4-6 x 16 f32 -> 8-12 ymm accumulators; AVX-512:
/// 8 x 32 -> 16 zmm), K step 1.
std::optional<TilePlan>
TileAndVectorizePass::planContraction(linalg::LinalgOp op,
                                      ArrayRef<int64_t> ranges) const {
  if (!linalg::isaContractionOpInterface(op))
    return std::nullopt;
  FailureOr<linalg::ContractionDimensions> dims =
      linalg::inferContractionDims(op);
  if (failed(dims) || dims->m.size() != 1 || dims->n.size() != 1)
    return std::nullopt;
  // Microkernel hook (see Pipelines.h): return a plan without `vectorize`
  // here for the matmuls an external kernel should handle.
  unsigned lanes = lanesFor(op);
  unsigned m = dims->m.front(), n = dims->n.front();
  // The vector dim `n` is the innermost dim of the result (after transpose
  // folding it may be the "m" dim of inferContractionDims).
  AffineMap outMap = op.getIndexingMapMatchingResult(op->getResult(0));
  if (outMap.getNumResults() > 0)
    if (auto last = llvm::dyn_cast<AffineDimExpr>(outMap.getResults().back()))
      if (last.getPosition() == m)
        std::swap(m, n);
  int64_t mr = pickTile(ranges[m], lanes >= 16 ? 8 : 6, 1);
  int64_t nr = pickTile(ranges[n], 2 * lanes, lanes);

  TilePlan plan;
  plan.vectorize = true;
  plan.contraction = true;
  plan.reg.assign(ranges.size(), 0);
  plan.reg[m] = mr;
  plan.reg[n] = nr;
  for (unsigned b : dims->batch)
    plan.reg[b] = 1;
  for (unsigned k : dims->k)
    plan.reductionDims.push_back(k);
  // Register blocks: batch, then the broadcast dim M outer and the vector
  // dim N inner, so one MR x K block of A stays in L1 across the N strips.
  for (unsigned b : dims->batch)
    plan.regInterchange.push_back(b);
  plan.regInterchange.push_back(m);
  plan.regInterchange.push_back(n);
  for (unsigned k : dims->k)
    plan.regInterchange.push_back(k);

  int64_t kSize = 1;
  for (unsigned k : dims->k)
    kSize *= ranges[k];
  if (parallel && product(ranges) >= minParallelFlops) {
    plan.parallel.assign(ranges.size(), 0);
    for (unsigned b : dims->batch)
      plan.parallel[b] = 1;
    // Column panels of the vector operand (K x pn) that stay in L2, then
    // enough row blocks for ~8 chunks in total (load balance).
    int64_t elementBytes = 4;
    int64_t maxCols = std::max<int64_t>(nr, panelBytes / (kSize * elementBytes));
    int64_t pn = pickChunk(ranges[n], nr, (ranges[n] + maxCols - 1) / maxCols);
    int64_t chunks = ranges[n] / pn;
    for (unsigned b : dims->batch)
      chunks *= ranges[b];
    int64_t pm = pickChunk(ranges[m], mr, (8 + chunks - 1) / chunks);
    plan.parallel[m] = pm;
    plan.parallel[n] = pn;
  }
  return plan;
}

/// Everything else: strips of up to 4 vectors along the innermost loop.
TilePlan TileAndVectorizePass::planGeneric(linalg::LinalgOp op,
                                           ArrayRef<int64_t> ranges) const {
  TilePlan plan;
  unsigned lanes = lanesFor(op);
  size_t numLoops = ranges.size();
  plan.vectorize = true;
  plan.reg.assign(numLoops, 1);
  plan.reg.back() = pickTile(ranges.back(), 4 * lanes, lanes);
  // 2-D transposes: square lanes x lanes blocks, transposed in registers
  // (shuffles), instead of one strided element load per output element.
  if (llvm::isa<linalg::TransposeOp>(op.getOperation()) && numLoops == 2 &&
      ranges[0] % lanes == 0 && ranges[1] % lanes == 0 && lanes > 1) {
    plan.reg[0] = lanes;
    plan.reg[1] = lanes;
  }

  if (parallel && product(ranges) >= minParallelWork) {
    SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
    for (size_t d = 0; d < numLoops; ++d) {
      if (iterators[d] != utils::IteratorType::parallel ||
          ranges[d] / plan.reg[d] < 2)
        continue;
      plan.parallel.assign(numLoops, 0);
      plan.parallel[d] = pickChunk(ranges[d], plan.reg[d], 8);
      break;
    }
  }
  return plan;
}

/// Tiles `op` with `sizes` (0 = untiled) and returns the tiled op, or `op`
/// itself when nothing is tiled. With `fuseFills`, linalg.fill producers of
/// the inits are fused into the tiles (only valid when no reduction dim is
/// tiled); their tiled clones are appended to `fused`.
using FusionFilter = std::function<bool(Operation *)>;

FailureOr<Operation *> tile(RewriterBase &rewriter, Operation *op,
                            ArrayRef<int64_t> sizes, bool forall,
                            bool fuseFills = false,
                            ArrayRef<int64_t> interchange = {},
                            SmallVectorImpl<Operation *> *fused = nullptr,
                            FusionFilter fuseAlso = nullptr) {
  auto tileable = llvm::dyn_cast<TilingInterface>(op);
  if (!tileable)
    return failure();
  if (llvm::all_of(sizes, [](int64_t s) { return s == 0; }))
    return op;
  scf::SCFTilingOptions options;
  options.setLoopType(forall ? scf::SCFTilingOptions::LoopType::ForallOp
                             : scf::SCFTilingOptions::LoopType::ForOp);
  options.setTileSizes(getAsIndexOpFoldResult(op->getContext(), sizes));
  if (!interchange.empty())
    options.setInterchange(interchange);
  rewriter.setInsertionPoint(op);
  if (fuseFills) {
    scf::SCFTileAndFuseOptions fuseOptions;
    fuseOptions.setTilingOptions(options);
    fuseOptions.setFusionControlFn(
        [&](tensor::ExtractSliceOp, OpResult producer, bool isDestination)
            -> std::optional<scf::SCFTileAndFuseOptions::ControlFnResult> {
          Operation *owner = producer.getOwner();
          // Fills are recomputed per tile, never yielded (they are the
          // init of the consumer or, in an epilogue chain, of the fused
          // contraction).
          if (llvm::isa<linalg::FillOp>(owner))
            return scf::SCFTileAndFuseOptions::ControlFnResult{};
          if (fuseAlso && fuseAlso(owner)) {
            // Results also used outside the fused chain (returned) are
            // yielded by the loops.
            scf::SCFTileAndFuseOptions::ControlFnResult r;
            // (Its other users are the slice being fused and the chain's
            // untiled ops, which the loops replace.)
            r.yieldProducerReplacement =
                llvm::any_of(producer.getUsers(), [](Operation *user) {
                  return !llvm::isa<tensor::ExtractSliceOp, linalg::LinalgOp>(
                      user);
                });
            return r;
          }
          return std::nullopt;
        });
    FailureOr<scf::SCFTileAndFuseResult> result =
        scf::tileConsumerAndFuseProducersUsingSCF(rewriter, tileable,
                                                  fuseOptions);
    if (failed(result) || result->tiledAndFusedOps.empty())
      return failure();
    SmallVector<Operation *> producers(result->fusedProducers.begin(),
                                       result->fusedProducers.end());
    for (auto [from, to] : result->replacements)
      rewriter.replaceAllUsesWith(from, to);
    rewriter.eraseOp(op);
    // Producers whose every use moved into the tiles are dead now.
    for (bool changed = true; changed;) {
      changed = false;
      for (Operation *&producer : producers)
        if (producer && producer->use_empty()) {
          rewriter.eraseOp(producer);
          producer = nullptr;
          changed = true;
        }
    }
    if (fused)
      for (Operation *t : llvm::drop_begin(result->tiledAndFusedOps))
        fused->push_back(t);
    return result->tiledAndFusedOps.front();
  }
  if (!forall) {
    // Reduction loops are tiled too (each tile accumulates into the init).
    SmallVector<unsigned> reductionDims;
    auto linalgOp = llvm::cast<linalg::LinalgOp>(op);
    linalgOp.getReductionDims(reductionDims);
    options.setReductionDims(reductionDims);
  }
  FailureOr<scf::SCFTilingResult> result =
      scf::tileUsingSCF(rewriter, tileable, options);
  if (failed(result) || result->tiledOps.size() != 1)
    return failure();
  rewriter.replaceOp(op, result->replacements);
  return result->tiledOps.front();
}

void vectorizeOp(RewriterBase &rewriter, Operation *op) {
  auto linalgOp = llvm::dyn_cast<linalg::LinalgOp>(op);
  if (!linalgOp || failed(linalg::vectorizeOpPrecondition(op)))
    return;
  rewriter.setInsertionPoint(op);
  FailureOr<linalg::VectorizationResult> vectorized =
      linalg::vectorize(rewriter, op);
  if (succeeded(vectorized))
    rewriter.replaceOp(op, vectorized->replacements);
}

/// Tiles `root` (the last op of the contraction's epilogue chain) with the
/// contraction's plan mapped through the contraction's output map, fusing
/// the chain, the contraction and its fill at the parallel and at the
/// register level, then tiles K by 1 and vectorizes every fused op.
LogicalResult
TileAndVectorizePass::fuseEpilogue(RewriterBase &rewriter,
                                   linalg::LinalgOp root,
                                   const EpilogueFusion &fusion) const {
  const TilePlan &plan = fusion.plan;
  linalg::LinalgOp contraction = fusion.contraction;
  AffineMap outMap =
      contraction.getIndexingMapMatchingResult(contraction->getResult(0));
  unsigned rank = outMap.getNumResults();
  if (root.getNumLoops() != rank || !outMap.isProjectedPermutation())
    return failure();
  SmallVector<int64_t> par(rank, 0), reg(rank, 0), interchange;
  for (unsigned i = 0; i < rank; ++i) {
    unsigned d = outMap.getDimPosition(i);
    if (!plan.parallel.empty())
      par[i] = plan.parallel[d];
    reg[i] = plan.reg[d];
  }
  for (int64_t d : plan.regInterchange)
    for (unsigned i = 0; i < rank; ++i)
      if (outMap.getDimPosition(i) == d)
        interchange.push_back(i);

  llvm::DenseSet<Operation *> fusable(fusion.chain.begin(),
                                      fusion.chain.end());
  fusable.insert(fusion.contraction);
  FusionFilter inChain = [&](Operation *o) { return fusable.contains(o); };

  Operation *current = root;
  if (llvm::any_of(par, [](int64_t s) { return s != 0; })) {
    SmallVector<Operation *> fused;
    FailureOr<Operation *> tiled = tile(rewriter, current, par,
                                        /*forall=*/true, /*fuseFills=*/true,
                                        {}, &fused, inChain);
    if (failed(tiled))
      return failure();
    current = *tiled;
    fusable.clear();
    fusable.insert(fused.begin(), fused.end());
  }
  SmallVector<int64_t> tileRanges =
      llvm::cast<linalg::LinalgOp>(current).getStaticLoopRanges();
  for (auto [size, range] : llvm::zip(reg, tileRanges))
    if (size >= range || ShapedType::isDynamic(range))
      size = 0;
  SmallVector<Operation *> regFused;
  FailureOr<Operation *> tiled =
      tile(rewriter, current, reg, /*forall=*/false, /*fuseFills=*/true,
           interchange, &regFused, inChain);
  if (failed(tiled))
    return success(); // the forall tiles stay scalar loops, still correct
  current = *tiled;

  for (Operation *fused : regFused) {
    auto linalgOp = llvm::dyn_cast<linalg::LinalgOp>(fused);
    if (!linalgOp || linalgOp.getNumReductionLoops() == 0) {
      vectorizeOp(rewriter, fused);
      continue;
    }
    SmallVector<int64_t> ranges = linalgOp.getStaticLoopRanges();
    SmallVector<int64_t> kTiles(ranges.size(), 0);
    SmallVector<unsigned> reductionDims;
    linalgOp.getReductionDims(reductionDims);
    for (unsigned k : reductionDims)
      if (ranges[k] > 1)
        kTiles[k] = 1;
    FailureOr<Operation *> kTiled =
        tile(rewriter, fused, kTiles, /*forall=*/false);
    if (succeeded(kTiled))
      vectorizeOp(rewriter, *kTiled);
  }
  vectorizeOp(rewriter, current);
  return success();
}

/// The elementwise ops that consume a contraction's result one after the
/// other (bias + relu, the gradient scaling and the SGD update): each reads
/// the previous value with the identity map, and every other use of the
/// chain's values is a return (those are yielded by the fused loops).
SmallVector<Operation *> findEpilogue(linalg::LinalgOp contraction) {
  SmallVector<Operation *> chain;
  if (contraction->getNumResults() != 1)
    return chain;
  Value value = contraction->getResult(0);
  Type type = value.getType();
  while (true) {
    linalg::LinalgOp next;
    for (Operation *user : value.getUsers()) {
      if (llvm::isa<func::ReturnOp>(user))
        continue;
      auto linalgUser = llvm::dyn_cast<linalg::LinalgOp>(user);
      if (!linalgUser || (next && next != linalgUser))
        return chain;
      next = linalgUser;
    }
    if (!next || !next.hasPureTensorSemantics() ||
        !linalg::isElementwise(next) || next.getNumDpsInits() != 1 ||
        next->getNumResults() != 1 || next->getResult(0).getType() != type ||
        next.getDpsInitOperand(0)->get() == value ||
        !next.getIndexingMapMatchingResult(next->getResult(0)).isIdentity() ||
        next->getBlock() != contraction->getBlock())
      return chain;
    for (OpOperand &operand : next->getOpOperands())
      if (operand.get() == value &&
          !next.getMatchingIndexingMap(&operand).isIdentity())
        return chain;
    // Later users of the root's result are fine (the loop result replaces
    // it in place); users of intermediate values must be returns, checked
    // above when `value` becomes one.
    chain.push_back(next);
    value = next->getResult(0);
    // From here on the value is an intermediate if the chain grows: allow
    // only returns besides the next op (the loop above enforces it).
    bool onlyOneLinalgUser = true;
    for (Operation *user : value.getUsers())
      if (!llvm::isa<func::ReturnOp, linalg::LinalgOp>(user))
        onlyOneLinalgUser = false;
    if (!onlyOneLinalgUser)
      return chain;
  }
}

/// Whether some result of `map` decreases as a loop index grows.
static bool hasNegativeCoefficient(AffineMap map) {
  bool negative = false;
  for (AffineExpr result : map.getResults())
    result.walk([&](AffineExpr e) {
      auto mul = dyn_cast<AffineBinaryOpExpr>(e);
      if (!mul || mul.getKind() != AffineExprKind::Mul)
        return;
      for (AffineExpr side : {mul.getLHS(), mul.getRHS()})
        if (auto c = dyn_cast<AffineConstantExpr>(side); c && c.getValue() < 0)
          negative = true;
    });
  return negative;
}

/// Tiles the dynamic dims of `op` by 1: its parallel ones as one
/// scf.forall (when parallel), then its reduction ones as scf.for. Returns
/// the op inside, whose dynamic dims are now 1.
FailureOr<Operation *>
TileAndVectorizePass::peelDynamicDims(RewriterBase &rewriter,
                                      linalg::LinalgOp op) {
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
  SmallVector<int64_t> outer(ranges.size(), 0), inner(ranges.size(), 0);
  for (auto [d, range] : llvm::enumerate(ranges)) {
    if (!ShapedType::isDynamic(range))
      continue;
    if (iterators[d] == utils::IteratorType::parallel)
      outer[d] = 1;
    else
      inner[d] = 1;
  }
  Operation *current = op;
  for (auto [sizes, forall] :
       {std::make_pair(outer, bool(parallel)), std::make_pair(inner, false)}) {
    FailureOr<Operation *> tiled = tile(rewriter, current, sizes, forall);
    if (failed(tiled))
      return failure();
    current = *tiled;
  }
  return current;
}

void TileAndVectorizePass::runOnOperation() {
  func::FuncOp func = getOperation();
  MLIRContext *ctx = &getContext();

  SmallVector<linalg::LinalgOp> candidates;
  func.walk([&](linalg::LinalgOp op) {
    // Contractions marked for the runtime GEMM stay whole.
    if (op.hasPureTensorSemantics() &&
        !op->hasAttr(ltc_mlir::kExternalGemmAttr))
      candidates.push_back(op);
  });

  // Consumers first, so that a fill is fused into the contractions it
  // initializes before it would be tiled on its own; fills erased on the
  // way are skipped.
  struct ErasureListener : RewriterBase::Listener {
    llvm::DenseSet<Operation *> erased;
    void notifyOperationErased(Operation *op) override { erased.insert(op); }
  } listener;
  IRRewriter rewriter(ctx, &listener);
  llvm::DenseSet<Operation *> &erased = listener.erased;

  // Contractions followed by elementwise ops are tiled from the last of
  // those (the root), with the contraction, its fill and the chain fused
  // into the same tiles: the epilogue runs on the accumulators while they
  // are in registers, without a pass over memory or a parallel region each.
  llvm::DenseMap<Operation *, EpilogueFusion> epilogueRoots;
  for (linalg::LinalgOp op : candidates) {
    SmallVector<int64_t> ranges = op.getStaticLoopRanges();
    if (ranges.empty() || llvm::any_of(ranges, [](int64_t r) {
          return ShapedType::isDynamic(r) || r == 0;
        }))
      continue;
    std::optional<TilePlan> plan = planContraction(op, ranges);
    if (!plan || failed(linalg::vectorizeOpPrecondition(op)))
      continue;
    SmallVector<Operation *> chain = findEpilogue(op);
    if (chain.empty())
      continue;
    EpilogueFusion fusion;
    fusion.contraction = op;
    fusion.plan = *plan;
    fusion.chain = chain;
    epilogueRoots[chain.back()] = fusion;
  }
  for (linalg::LinalgOp op : llvm::reverse(candidates)) {
    if (erased.contains(op.getOperation()))
      continue;
    if (llvm::isa<linalg::FillOp>(op.getOperation()) && op->use_empty()) {
      rewriter.eraseOp(op);
      continue;
    }
    SmallVector<int64_t> ranges = op.getStaticLoopRanges();
    if (llvm::is_contained(ranges, 0))
      continue;
    // Tiling computes each operand's slice from its indexing map at the
    // tile's bounds, which assumes maps that grow with every loop; a map
    // with a negative coefficient (the flipped-kernel im2col of a
    // convolution's input gradient, `oh - kh + K - 1`) got a slice too small
    // and failed verification. Such ops stay whole (serial loops).
    if (llvm::any_of(op.getIndexingMapsArray(), hasNegativeCoefficient))
      continue;
    // Dynamic sizes (code for every batch size): loops of unit tiles over
    // the dynamic dims leave a static op inside, planned as any other but
    // without parallel tiles of its own.
    bool peeled = false;
    if (llvm::any_of(ranges, ShapedType::isDynamic)) {
      FailureOr<Operation *> inner = peelDynamicDims(rewriter, op);
      if (failed(inner))
        continue;
      op = llvm::cast<linalg::LinalgOp>(*inner);
      ranges = op.getStaticLoopRanges();
      if (llvm::any_of(ranges, ShapedType::isDynamic))
        continue;
      peeled = true;
    }
    if (ranges.empty()) {
      // 0-d ops: nothing to tile, vectorize as is.
      if (vectorizeOps)
        vectorizeOp(rewriter, op);
      continue;
    }

    if (auto it = epilogueRoots.find(op.getOperation());
        it != epilogueRoots.end() && vectorizeOps &&
        succeeded(fuseEpilogue(rewriter, op, it->second)))
      continue;

    std::optional<TilePlan> contraction = planContraction(op, ranges);
    TilePlan plan = contraction ? *contraction : planGeneric(op, ranges);
    if (peeled)
      plan.parallel.clear();
    if (!vectorizeOps || failed(linalg::vectorizeOpPrecondition(op)))
      plan.vectorize = false;
    // Fills feeding a contraction are fused into its tiles: no separate
    // pass over the result, and the accumulators start at the fill value.
    bool fuse = plan.contraction;

    Operation *current = op;
    SmallVector<Operation *> fusedOps;
    if (!plan.parallel.empty()) {
      FailureOr<Operation *> tiled =
          tile(rewriter, current, plan.parallel, /*forall=*/true, fuse, {},
               &fusedOps);
      if (failed(tiled))
        continue;
      current = *tiled;
    }
    if (!plan.vectorize)
      continue;

    // Register tiles relative to the (possibly forall-tiled) op.
    SmallVector<int64_t> tileRanges =
        llvm::cast<linalg::LinalgOp>(current).getStaticLoopRanges();
    SmallVector<int64_t> reg(plan.reg);
    for (auto [size, range] : llvm::zip(reg, tileRanges))
      if (size >= range || ShapedType::isDynamic(range))
        size = 0;
    if (plan.contraction) {
      // MR x NR over the parallel dims with the fill fused, then K by 1.
      SmallVector<Operation *> regFused;
      FailureOr<Operation *> tiled =
          tile(rewriter, current, reg, /*forall=*/false, /*fuseFills=*/true,
               plan.regInterchange, &regFused);
      if (failed(tiled))
        continue;
      current = *tiled;
      // The forall-level fills were re-fused into the register tiles; tile()
      // already erased the ones left dead (fusedOps may dangle now: a loop
      // over it here read freed ops, found by ASan).
      fusedOps = regFused;
      SmallVector<int64_t> kTiles(reg.size(), 0);
      for (unsigned k : plan.reductionDims)
        if (tileRanges[k] > 1)
          kTiles[k] = 1;
      tiled = tile(rewriter, current, kTiles, /*forall=*/false);
      if (failed(tiled))
        continue;
      current = *tiled;
    } else {
      FailureOr<Operation *> tiled =
          tile(rewriter, current, reg, /*forall=*/false);
      if (failed(tiled))
        continue;
      current = *tiled;
    }
    for (Operation *f : fusedOps)
      vectorizeOp(rewriter, f);
    vectorizeOp(rewriter, current);
  }

  // Fold the slices into the transfers and turn mul+reduce into contract.
  // Broadcasting transfer maps become explicit broadcasts first, which the
  // contraction patterns then fold (giving MR x 1 and 1 x NR operands).
  RewritePatternSet patterns(ctx);
  vector::populateVectorTransferPermutationMapLoweringPatterns(patterns);
  vector::populateVectorReductionToContractPatterns(patterns);
  ltc_mlir::populateDropOneSidedUnitReductionPatterns(patterns);
  vector::populateSinkVectorOpsPatterns(patterns);
  tensor::populateFoldTensorSubsetIntoVectorTransferPatterns(patterns);
  vector::TransferReadOp::getCanonicalizationPatterns(patterns, ctx);
  vector::TransferWriteOp::getCanonicalizationPatterns(patterns, ctx);
  if (failed(applyPatternsGreedily(func, std::move(patterns))))
    return signalPassFailure();
}

} // namespace

std::unique_ptr<Pass> ltc_mlir::createTileAndVectorizePass() {
  return std::make_unique<TileAndVectorizePass>();
}
