//===- FoldTransposes.cpp - fold linalg.transpose into contractions -------===//
//
// Autograd emits matmuls surrounded by transposes: the backward of a Linear
// computes `t(mm(t(x), g))`, the forward `mm(x, t(W))`. Materializing them
// costs a full read + strided write of up to 512x784 per transpose (the
// strided write is slower than the matmul it feeds). A transpose of a
// contraction operand, or of its result, is only a permutation of that
// operand's indexing map, so this pass rewrites
//
//   %t  = linalg.transpose ins(%x : tensor<64x784xf32>) ... permutation = [1, 0]
//   %mm = linalg.matmul ins(%t, %g) outs(%fill : tensor<784x512xf32>)
//   %r  = linalg.transpose ins(%mm) outs(%e : tensor<512x784xf32>) [1, 0]
//
// into one contraction with permuted maps and no temporary:
//
//   %f = linalg.fill ins(%zero) outs(%e : tensor<512x784xf32>)
//   %r = linalg.generic {indexing_maps = [(d0,d1,d2) -> (d2,d0),
//                                         (d0,d1,d2) -> (d2,d1),
//                                         (d0,d1,d2) -> (d1,d0)], ...}
//          ins(%x, %g) outs(%f)
//
// Transposes are linalg.transpose ops or linalg.generic ops that only copy
// their input under a permutation (elementwise fusion turns some into
// those). A contraction the runtime GEMM will take (external-gemm=true and
// isExternalGemmCandidate) folds every transpose: oneDNN reads transposed
// operands and writes a transposed result in place. For generated kernels,
// a transpose is folded only if the result stays friendly to the outer-
// product microkernel of ltc-tile-and-vectorize: the vector dimension is the
// innermost dimension of the result, and an operand that has it must have it
// innermost too (contiguous vector loads); the other operand is read by
// scalar broadcasts, so its layout does not matter. Otherwise (e.g. the
// forward `mm(x, t(W))`, where W is only contiguous along K) the transpose
// stays: it is the packing step of that matmul, and its rows are padded by
// one cache line when their stride would make the matmul's loads conflict in
// L1 (see PadContractionOperand).
//
//===----------------------------------------------------------------------===//

#include "ltc_mlir/Pipelines/Pipelines.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/IR/LinalgInterfaces.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

using namespace mlir;

namespace {

/// The map reading the input of `transpose` in terms of `resultMap`, the map
/// reading its result: result[i] = input[...] with input dim perm[i] = i.
AffineMap mapThroughTranspose(AffineMap resultMap, ArrayRef<int64_t> perm) {
  SmallVector<AffineExpr> exprs(resultMap.getNumResults());
  for (auto [i, p] : llvm::enumerate(perm))
    exprs[p] = resultMap.getResult(i);
  return AffineMap::get(resultMap.getNumDims(), 0, exprs,
                        resultMap.getContext());
}

/// The map writing the result of `transpose` given `inputMap`, the map
/// writing its input: result[i] = input[perm[i]].
AffineMap mapOfTransposeResult(AffineMap inputMap, ArrayRef<int64_t> perm) {
  SmallVector<AffineExpr> exprs;
  for (int64_t p : perm)
    exprs.push_back(inputMap.getResult(p));
  return AffineMap::get(inputMap.getNumDims(), 0, exprs,
                        inputMap.getContext());
}

/// Whether a contraction with these maps suits the outer-product kernel: the
/// innermost result dim is the vector dim, and every input that indexes it
/// has it innermost.
bool isKernelFriendly(ArrayRef<AffineMap> maps) {
  AffineMap out = maps.back();
  if (out.getNumResults() == 0)
    return false;
  auto vec = llvm::dyn_cast<AffineDimExpr>(out.getResults().back());
  if (!vec)
    return false;
  for (AffineMap in : maps.drop_back()) {
    if (!in.isFunctionOfDim(vec.getPosition()))
      continue;
    if (in.getNumResults() == 0 || in.getResults().back() != vec)
      return false;
  }
  return true;
}

/// A linalg.transpose, or a linalg.generic that only copies its input
/// under a permutation (what elementwise fusion makes of one):
/// result dim i is input dim `permutation[i]`.
struct Transpose {
  Operation *op = nullptr;
  Value input, init;
  SmallVector<int64_t> permutation;
  explicit operator bool() const { return op != nullptr; }
};

Transpose asTranspose(Operation *op) {
  Transpose t;
  if (!op)
    return t;
  if (auto transpose = llvm::dyn_cast<linalg::TransposeOp>(op)) {
    t.op = op;
    t.input = transpose.getInput();
    t.init = transpose.getInit();
    t.permutation.assign(transpose.getPermutation().begin(),
                         transpose.getPermutation().end());
    return t;
  }
  auto generic = llvm::dyn_cast<linalg::GenericOp>(op);
  if (!generic || !generic.hasPureTensorSemantics() ||
      generic.getNumDpsInputs() != 1 || generic.getNumDpsInits() != 1 ||
      generic.getNumLoops() != generic.getNumParallelLoops())
    return t;
  Block &body = generic.getRegion().front();
  auto yield = llvm::dyn_cast<linalg::YieldOp>(body.getTerminator());
  if (body.getOperations().size() != 1 || !yield ||
      yield.getNumOperands() != 1 || yield.getOperand(0) != body.getArgument(0))
    return t;
  AffineMap inMap = generic.getIndexingMapsArray()[0];
  AffineMap outMap = generic.getIndexingMapsArray()[1];
  if (!inMap.isPermutation() || !outMap.isPermutation())
    return t;
  // result[i] indexes loop dim outMap[i]; the input dim reading that loop
  // dim is the transpose's source of result dim i.
  for (AffineExpr e : outMap.getResults()) {
    unsigned dim = llvm::cast<AffineDimExpr>(e).getPosition();
    t.permutation.push_back(*inMap.getResultPosition(
        getAffineDimExpr(dim, generic.getContext())));
  }
  t.op = op;
  t.input = generic.getDpsInputs()[0];
  t.init = generic.getDpsInits()[0];
  return t;
}

struct FoldTransposesIntoContraction
    : OpInterfaceRewritePattern<linalg::LinalgOp> {
  FoldTransposesIntoContraction(MLIRContext *context, bool externalGemm)
      : OpInterfaceRewritePattern(context), externalGemm(externalGemm) {}
  /// Contractions for the runtime GEMM take any layout (transposed operands
  /// and result are read and written in place).
  bool externalGemm;

  LogicalResult matchAndRewrite(linalg::LinalgOp op,
                                PatternRewriter &rewriter) const override {
    if (!op.hasPureTensorSemantics() || op.getNumDpsInputs() != 2 ||
        op.getNumDpsInits() != 1 || !linalg::isaContractionOpInterface(op))
      return rewriter.notifyMatchFailure(op, "not a 2-input contraction");
    if (!op.hasOnlyProjectedPermutations())
      return rewriter.notifyMatchFailure(op, "non-permutation maps");

    SmallVector<AffineMap> maps = op.getIndexingMapsArray();
    // Candidate folds: input transposes (0, 1) and the result transpose (2).
    Transpose inT[2];
    for (int i = 0; i < 2; ++i)
      inT[i] = asTranspose(op.getDpsInputOperand(i)->get().getDefiningOp());
    Transpose outT;
    linalg::FillOp outFill;
    Value result = op->getResult(0);
    if (result.hasOneUse())
      if (Transpose t = asTranspose(*result.user_begin()))
        if ((outFill =
                 op.getDpsInitOperand(0)->get().getDefiningOp<linalg::FillOp>()))
          outT = t;

    // Pick the largest set of folds that keeps the kernel-friendly layout.
    bool anyLayout = externalGemm && ltc_mlir::isExternalGemmCandidate(op);
    int bestMask = 0, bestCount = 0;
    SmallVector<AffineMap> bestMaps;
    for (int mask = 1; mask < 8; ++mask) {
      if (((mask & 1) && !inT[0]) || ((mask & 2) && !inT[1]) ||
          ((mask & 4) && !outT))
        continue;
      SmallVector<AffineMap> m(maps);
      for (int i = 0; i < 2; ++i)
        if (mask & (1 << i))
          m[i] = mapThroughTranspose(m[i], inT[i].permutation);
      if (mask & 4)
        m[2] = mapOfTransposeResult(m[2], outT.permutation);
      int count = llvm::popcount(unsigned(mask));
      if (count > bestCount && (anyLayout || isKernelFriendly(m))) {
        bestMask = mask;
        bestCount = count;
        bestMaps = m;
      }
    }
    if (!bestMask)
      return rewriter.notifyMatchFailure(op, "no layout-preserving fold");

    SmallVector<Value> inputs;
    for (int i = 0; i < 2; ++i)
      inputs.push_back((bestMask & (1 << i)) ? inT[i].input
                                             : op.getDpsInputs()[i]);
    Operation *anchor = (bestMask & 4) ? outT.op : op.getOperation();
    rewriter.setInsertionPoint(anchor);
    Value init = op.getDpsInits()[0];
    if (bestMask & 4)
      init = linalg::FillOp::create(rewriter, outFill.getLoc(),
                                    outFill.getInputs(), outT.init)
                 .getResult(0);
    auto generic = linalg::GenericOp::create(
        rewriter, op.getLoc(), TypeRange{init.getType()}, inputs,
        ValueRange{init}, bestMaps, op.getIteratorTypesArray());
    rewriter.cloneRegionBefore(op->getRegion(0), generic.getRegion(),
                               generic.getRegion().begin());
    if (bestMask & 4) {
      rewriter.replaceOp(outT.op, generic->getResults());
      rewriter.eraseOp(op);
    } else {
      rewriter.replaceOp(op, generic->getResults());
    }
    return success();
  }
};

/// A contraction operand computed by the step itself (a transpose that
/// stays, the packing step of the matmul it feeds, or an elementwise
/// gradient) is read K rows at a time. With a row stride that is a multiple
/// of 512 bytes (e.g. 512 f32) those rows all map to the same few L1 sets
/// and the loads keep missing; one extra cache line per row spreads them:
///
///   %e = tensor.empty() : tensor<784x512xf32>
/// becomes
///   %p = tensor.empty() : tensor<784x528xf32>
///   %e = tensor.extract_slice %p[0, 0] [784, 512] [1, 1]
///
/// Only for elementwise producers (the init is not read) whose result is not
/// returned (it would need a copy into the out-param).
struct PadContractionOperand
    : OpInterfaceRewritePattern<linalg::LinalgOp> {
  using OpInterfaceRewritePattern::OpInterfaceRewritePattern;

  LogicalResult matchAndRewrite(linalg::LinalgOp op,
                                PatternRewriter &rewriter) const override {
    if (!op.hasPureTensorSemantics() || op.getNumDpsInits() != 1 ||
        op.getNumReductionLoops() != 0 ||
        op.payloadUsesValueFromOperand(op.getDpsInitOperand(0)))
      return rewriter.notifyMatchFailure(op, "not an elementwise producer");
    OpOperand *initOperand = op.getDpsInitOperand(0);
    auto empty = initOperand->get().getDefiningOp<tensor::EmptyOp>();
    auto type = llvm::dyn_cast<RankedTensorType>(initOperand->get().getType());
    if (!empty || !type || !type.hasStaticShape() || type.getRank() < 2 ||
        !type.getElementType().isIntOrFloat())
      return rewriter.notifyMatchFailure(op, "not a static tensor.empty init");
    int64_t elementBytes =
        std::max<int64_t>(1, type.getElementType().getIntOrFloatBitWidth() / 8);
    int64_t inner = type.getShape().back();
    if ((inner * elementBytes) % 512 != 0 || 64 % elementBytes != 0)
      return rewriter.notifyMatchFailure(op, "row stride does not conflict");
    Value result = op->getResult(0);
    bool feedsContraction = false;
    for (Operation *user : result.getUsers()) {
      if (llvm::isa<func::ReturnOp>(user))
        return rewriter.notifyMatchFailure(op, "result is returned");
      auto linalgOp = llvm::dyn_cast<linalg::LinalgOp>(user);
      if (linalgOp && linalg::isaContractionOpInterface(linalgOp) &&
          llvm::is_contained(linalgOp.getDpsInputs(), result))
        feedsContraction = true;
    }
    if (!feedsContraction)
      return rewriter.notifyMatchFailure(op, "does not feed a contraction");

    SmallVector<int64_t> padded(type.getShape());
    padded.back() += 64 / elementBytes;
    rewriter.setInsertionPoint(op);
    Value big = tensor::EmptyOp::create(rewriter, empty.getLoc(), padded,
                                        type.getElementType());
    SmallVector<OpFoldResult> offsets(type.getRank(), rewriter.getIndexAttr(0));
    SmallVector<OpFoldResult> sizes, strides(type.getRank(),
                                             rewriter.getIndexAttr(1));
    for (int64_t d : type.getShape())
      sizes.push_back(rewriter.getIndexAttr(d));
    Value slice = tensor::ExtractSliceOp::create(rewriter, empty.getLoc(), type,
                                                 big, offsets, sizes, strides);
    rewriter.modifyOpInPlace(op, [&] { initOperand->set(slice); });
    return success();
  }
};

struct FoldTransposesPass
    : PassWrapper<FoldTransposesPass, OperationPass<func::FuncOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(FoldTransposesPass)
  FoldTransposesPass() = default;
  FoldTransposesPass(const FoldTransposesPass &other) : PassWrapper(other) {}

  Option<bool> externalGemm{
      *this, "external-gemm",
      llvm::cl::desc("Fold every transpose of contractions that "
                     "ltc-select-external-gemms will take"),
      llvm::cl::init(false)};

  StringRef getArgument() const final {
    return "ltc-fold-transposes-into-contractions";
  }
  StringRef getDescription() const final {
    return "Fold linalg.transpose producers and consumers of contractions "
           "into the contraction's indexing maps when the result stays "
           "contiguous along the vector dimension";
  }
  void getDependentDialects(DialectRegistry &registry) const override {
    registry.insert<linalg::LinalgDialect, tensor::TensorDialect>();
  }
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<FoldTransposesIntoContraction>(&getContext(), externalGemm);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      return signalPassFailure();
    // Then pad what is left (only once the folds are decided).
    RewritePatternSet padPatterns(&getContext());
    padPatterns.add<PadContractionOperand>(&getContext());
    if (failed(applyPatternsGreedily(getOperation(), std::move(padPatterns))))
      return signalPassFailure();
  }
};

} // namespace

std::unique_ptr<Pass> ltc_mlir::createFoldTransposesIntoContractionsPass() {
  return std::make_unique<FoldTransposesPass>();
}
