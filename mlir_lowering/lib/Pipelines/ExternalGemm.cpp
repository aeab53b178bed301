//===- ExternalGemm.cpp - large f32 contractions as runtime GEMM calls ----===//
//
// Generated register-tiled matmuls reach ~40-75% of the FMA peak and are
// the bulk of the machine code of a convolutional training step (every
// convolution, forward and both backwards, is a matmul over im2col). Large
// f32 contractions instead call `ltc_mlir_rt_sgemm` (runtime/gemm.h:
// oneDNN's sgemm, ~90-95% of peak on one core) once per output block:
//
//  1. `ltc-select-external-gemms` (func, linalg on tensors, before tiling)
//     marks the contractions the call handles with kExternalGemmAttr
//     (1: C += A*B; 0: C = A*B, when the init was a zero fill, which is
//     dropped) so that ltc-tile-and-vectorize leaves them alone.
//  2. `ltc-lower-external-gemms` (module, after bufferization) replaces each
//     marked op by a loop over output blocks (parallel: scf.parallel, later
//     OpenMP) whose body computes the blocks' addresses from the memrefs'
//     strided metadata and calls the runtime. The blocks are chosen here,
//     from the shapes only, and each runs on one thread: results do not
//     depend on the thread count.
// The epilogue (bias, activation) of such a contraction is no longer fused
// into its accumulators; it is tiled as an elementwise op of its own.
//
//===----------------------------------------------------------------------===//

#include "ltc_mlir/Pipelines/Pipelines.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/IR/LinalgInterfaces.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Pass/Pass.h"

using namespace mlir;

namespace {

constexpr const char *kGemmFunction = "ltc_mlir_rt_sgemm";
/// Below this many multiply-adds per matrix the generated kernel wins (the
/// call, oneDNN's packing and the lost epilogue fusion cost ~1-2 us).
constexpr int64_t kMinMacs = 64 * 32 * 32;
/// Smallest M, N, K the call takes (thin products stay generated).
constexpr int64_t kMinDim = 8;
/// Below this many multiply-adds in total the blocks run serially.
constexpr int64_t kMinParallelMacs = int64_t(1) << 18;
/// Blocks per contraction when parallel: enough for load balance on 2-8
/// threads, few enough that each block amortizes oneDNN's packing.
constexpr int64_t kTargetBlocks = 8;
/// Narrowest N panel and shortest M panel of a block. sgemm packs the whole
/// M x K rows of A for every N panel and the K x N panel of B for every M
/// panel: at 1 thread, 64x512x784 split into eight 64-wide panels ran at 57
/// GFLOP/s against 90-100 as one call or two 256-wide panels.
constexpr int64_t kMinPanelN = 256;
constexpr int64_t kMinPanelM = 128;

/// The single M, N, K dims and the batch dims of a contraction the runtime
/// call can compute, or failure.
FailureOr<linalg::ContractionDimensions> gemmDims(linalg::LinalgOp op) {
  if (!linalg::isaContractionOpInterface(op) || op.getNumDpsInputs() != 2 ||
      op.getNumDpsInits() != 1)
    return failure();
  FailureOr<linalg::ContractionDimensions> dims =
      linalg::inferContractionDims(op);
  if (failed(dims) || dims->m.size() != 1 || dims->n.size() != 1 ||
      dims->k.size() != 1)
    return failure();
  for (AffineMap map : op.getIndexingMapsArray())
    if (!map.isProjectedPermutation())
      return failure();
  return dims;
}

bool isF32Shaped(Type type) {
  auto shaped = llvm::dyn_cast<ShapedType>(type);
  return shaped && shaped.hasRank() && shaped.getElementType().isF32();
}

/// A dynamic size (code for every batch size) is taken to be at least this
/// when choosing the call: batches are rarely thinner.
constexpr int64_t kAssumedDynamicSize = 32;

} // namespace

bool ltc_mlir::isExternalGemmCandidate(linalg::LinalgOp op) {
  if (!op.hasPureTensorSemantics() || op->getNumResults() != 1 ||
      !llvm::all_of(op->getOperandTypes(), isF32Shaped))
    return false;
  FailureOr<linalg::ContractionDimensions> dims = gemmDims(op);
  if (failed(dims))
    return false;
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  for (int64_t &r : ranges)
    if (ShapedType::isDynamic(r))
      r = kAssumedDynamicSize;
  int64_t m = ranges[dims->m[0]], n = ranges[dims->n[0]],
          k = ranges[dims->k[0]];
  return m >= kMinDim && n >= kMinDim && k >= kMinDim && m * n * k >= kMinMacs;
}

namespace {

struct SelectExternalGemmsPass
    : PassWrapper<SelectExternalGemmsPass, OperationPass<func::FuncOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(SelectExternalGemmsPass)

  StringRef getArgument() const final { return "ltc-select-external-gemms"; }
  StringRef getDescription() const final {
    return "Mark large f32 linalg contractions on tensors for the runtime "
           "GEMM (ltc-lower-external-gemms); a zero-fill init is dropped";
  }

  void runOnOperation() override {
    SmallVector<linalg::LinalgOp> selected;
    getOperation().walk([&](linalg::LinalgOp op) {
      if (ltc_mlir::isExternalGemmCandidate(op))
        selected.push_back(op);
    });
    Builder builder(&getContext());
    for (linalg::LinalgOp op : selected) {
      int64_t accumulate = 1;
      OpOperand *init = op.getDpsInitOperand(0);
      if (auto fill = init->get().getDefiningOp<linalg::FillOp>()) {
        FloatAttr value;
        if (fill->hasOneUse() &&
            matchPattern(fill.getInputs()[0], m_Constant(&value)) &&
            value.getValue().isPosZero()) {
          init->set(fill.getOutputs()[0]);
          fill->erase();
          accumulate = 0;
        }
      }
      op->setAttr(ltc_mlir::kExternalGemmAttr,
                  builder.getI64IntegerAttr(accumulate));
    }
  }
};

/// Address (as index) and per-loop-dim strides of one operand of `op`.
struct OperandView {
  Value address; // byte address of the element at offset 0 of every dim
  SmallVector<Value> strideOfDim;
};

OperandView viewOf(OpBuilder &b, Location loc, linalg::LinalgOp op,
                   OpOperand &operand) {
  auto metadata =
      memref::ExtractStridedMetadataOp::create(b, loc, operand.get());
  Value pointer =
      memref::ExtractAlignedPointerAsIndexOp::create(b, loc, operand.get());
  Value elementBytes = arith::ConstantIndexOp::create(b, loc, 4);
  Value offsetBytes =
      arith::MulIOp::create(b, loc, metadata.getOffset(), elementBytes);
  OperandView view;
  view.address = arith::AddIOp::create(b, loc, pointer, offsetBytes);
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  view.strideOfDim.assign(op.getNumLoops(), zero);
  AffineMap map = op.getMatchingIndexingMap(&operand);
  for (unsigned i = 0; i < map.getNumResults(); ++i)
    view.strideOfDim[map.getDimPosition(i)] = metadata.getStrides()[i];
  return view;
}

/// Block size for `range` split into about `blocks` pieces, rounded up to a
/// multiple of `multiple` (SIMD-friendly panels), at most `range`.
int64_t blockSize(int64_t range, int64_t blocks, int64_t multiple) {
  int64_t size = (range + blocks - 1) / blocks;
  size = (size + multiple - 1) / multiple * multiple;
  return std::min(size, range);
}

struct LowerExternalGemmsPass
    : PassWrapper<LowerExternalGemmsPass, OperationPass<ModuleOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(LowerExternalGemmsPass)
  LowerExternalGemmsPass() = default;
  LowerExternalGemmsPass(const LowerExternalGemmsPass &other)
      : PassWrapper(other) {}

  Option<bool> parallel{*this, "parallel",
                        llvm::cl::desc("Spread the blocks over an "
                                       "scf.parallel loop (OpenMP)"),
                        llvm::cl::init(true)};

  StringRef getArgument() const final { return "ltc-lower-external-gemms"; }
  StringRef getDescription() const final {
    return "Replace the linalg contractions on memrefs marked by "
           "ltc-select-external-gemms by calls of the runtime GEMM, one per "
           "output block";
  }
  void getDependentDialects(DialectRegistry &registry) const override {
    registry.insert<arith::ArithDialect, func::FuncDialect,
                    memref::MemRefDialect, scf::SCFDialect>();
  }

  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<linalg::LinalgOp> marked;
    module.walk([&](linalg::LinalgOp op) {
      if (op->hasAttr(ltc_mlir::kExternalGemmAttr) &&
          op.hasPureBufferSemantics())
        marked.push_back(op);
    });
    if (marked.empty())
      return;
    func::FuncOp callee = declareGemm(module);
    for (linalg::LinalgOp op : marked)
      if (failed(lower(op, callee))) {
        op->emitOpError("cannot lower the external GEMM");
        return signalPassFailure();
      }
  }

  func::FuncOp declareGemm(ModuleOp module) {
    if (auto existing = module.lookupSymbol<func::FuncOp>(kGemmFunction))
      return existing;
    OpBuilder b = OpBuilder::atBlockBegin(module.getBody());
    SmallVector<Type> args(13, b.getIndexType());
    auto callee = func::FuncOp::create(b, module.getLoc(), kGemmFunction,
                                       b.getFunctionType(args, {}));
    callee.setPrivate();
    return callee;
  }

  LogicalResult lower(linalg::LinalgOp op, func::FuncOp callee) {
    FailureOr<linalg::ContractionDimensions> dims = gemmDims(op);
    if (failed(dims))
      return failure();
    SmallVector<int64_t> ranges = op.getStaticLoopRanges();
    unsigned mDim = dims->m[0], nDim = dims->n[0], kDim = dims->k[0];
    // Dynamic sizes (code for every batch size) are read at run time; the
    // blocks along them have a fixed size and their count is computed.
    const bool dynamicM = ShapedType::isDynamic(ranges[mDim]);
    const bool dynamicN = ShapedType::isDynamic(ranges[nDim]);
    const bool anyDynamic = llvm::any_of(ranges, ShapedType::isDynamic);
    SmallVector<int64_t> planned(ranges);
    for (int64_t &r : planned)
      if (ShapedType::isDynamic(r))
        r = kAssumedDynamicSize;
    int64_t m = planned[mDim], n = planned[nDim], k = planned[kDim];
    int64_t batchCount = 1;
    for (unsigned d : dims->batch)
      batchCount *= planned[d];
    int64_t accumulate =
        llvm::cast<IntegerAttr>(op->getAttr(ltc_mlir::kExternalGemmAttr))
            .getInt();

    // Output blocks: panels of N first (a K x bn panel of B is packed once
    // per block), then rows of M, up to kTargetBlocks with the batch.
    bool spread =
        parallel && (anyDynamic || batchCount * m * n * k >= kMinParallelMacs);
    int64_t want = spread ? (kTargetBlocks + batchCount - 1) / batchCount : 1;
    int64_t nBlocks = std::min(want, std::max<int64_t>(1, n / kMinPanelN));
    int64_t mBlocks = std::min((want + nBlocks - 1) / nBlocks,
                               std::max<int64_t>(1, m / kMinPanelM));
    // A large product still gets two blocks (two threads) when both panels
    // would be narrower than the minimum.
    if (spread && batchCount * nBlocks * mBlocks < 2) {
      if (n >= 128)
        nBlocks = 2;
      else if (m >= 64)
        mBlocks = 2;
    }
    int64_t bn = dynamicN ? kMinPanelN : blockSize(n, nBlocks, 16);
    int64_t bm = dynamicM ? kMinPanelM : blockSize(m, mBlocks, 8);
    nBlocks = (n + bn - 1) / bn;
    mBlocks = (m + bm - 1) / bm;

    OpBuilder b(op);
    Location loc = op.getLoc();
    // The loop ranges as values (constants where static).
    SmallVector<Value> size;
    for (Range r : op.createLoopRanges(b, loc))
      size.push_back(getValueOrCreateConstantIndexOp(b, loc, r.size));
    auto blocksOf = [&](unsigned dim, int64_t block, int64_t count) -> Value {
      if (!ShapedType::isDynamic(ranges[dim]))
        return arith::ConstantIndexOp::create(b, loc, count);
      return arith::CeilDivUIOp::create(
          b, loc, size[dim], arith::ConstantIndexOp::create(b, loc, block));
    };
    OperandView a = viewOf(b, loc, op, *op.getDpsInputOperand(0));
    OperandView bv = viewOf(b, loc, op, *op.getDpsInputOperand(1));
    OperandView c = viewOf(b, loc, op, *op.getDpsInitOperand(0));
    auto cst = [&](int64_t v) -> Value {
      return arith::ConstantIndexOp::create(b, loc, v);
    };

    // Loop dims: the batch dims, then the M and N blocks.
    SmallVector<Value> lbs, ubs, steps;
    for (unsigned d : dims->batch) {
      lbs.push_back(cst(0));
      ubs.push_back(size[d]);
      steps.push_back(cst(1));
    }
    lbs.append({cst(0), cst(0)});
    ubs.append({blocksOf(mDim, bm, mBlocks), blocksOf(nDim, bn, nBlocks)});
    steps.append({cst(1), cst(1)});

    auto body = [&](OpBuilder &ib, Location l, ValueRange ivs) {
      auto icst = [&](int64_t v) -> Value {
        return arith::ConstantIndexOp::create(ib, l, v);
      };
      auto mul = [&](Value x, Value y) -> Value {
        return arith::MulIOp::create(ib, l, x, y);
      };
      auto add = [&](Value x, Value y) -> Value {
        return arith::AddIOp::create(ib, l, x, y);
      };
      // Element index of (batch ivs, m0, n0) in each operand, in bytes.
      Value m0 = mul(ivs[dims->batch.size()], icst(bm));
      Value n0 = mul(ivs[dims->batch.size() + 1], icst(bn));
      auto address = [&](const OperandView &v) {
        Value index = mul(m0, v.strideOfDim[mDim]);
        index = add(index, mul(n0, v.strideOfDim[nDim]));
        for (auto [iv, d] : llvm::zip(ivs, dims->batch))
          index = add(index, mul(iv, v.strideOfDim[d]));
        return add(v.address, mul(index, icst(4)));
      };
      Value mSize = arith::MinSIOp::create(
          ib, l, icst(bm), arith::SubIOp::create(ib, l, size[mDim], m0));
      Value nSize = arith::MinSIOp::create(
          ib, l, icst(bn), arith::SubIOp::create(ib, l, size[nDim], n0));
      SmallVector<Value> args = {mSize,
                                 nSize,
                                 size[kDim],
                                 address(a),
                                 a.strideOfDim[mDim],
                                 a.strideOfDim[kDim],
                                 address(bv),
                                 bv.strideOfDim[kDim],
                                 bv.strideOfDim[nDim],
                                 address(c),
                                 c.strideOfDim[mDim],
                                 c.strideOfDim[nDim],
                                 icst(accumulate)};
      func::CallOp::create(ib, l, callee, args);
    };

    if (spread) {
      scf::ParallelOp::create(b, loc, lbs, ubs, steps,
                              [&](OpBuilder &ib, Location l, ValueRange ivs) {
                                body(ib, l, ivs);
                                // (scf.parallel's builder adds the reduce.)
                              });
    } else {
      scf::buildLoopNest(b, loc, lbs, ubs, steps,
                         [&](OpBuilder &ib, Location l, ValueRange ivs) {
                           body(ib, l, ivs);
                         });
    }
    op->erase();
    return success();
  }
};

} // namespace

std::unique_ptr<Pass> ltc_mlir::createSelectExternalGemmsPass() {
  return std::make_unique<SelectExternalGemmsPass>();
}

std::unique_ptr<Pass> ltc_mlir::createLowerExternalGemmsPass() {
  return std::make_unique<LowerExternalGemmsPass>();
}
