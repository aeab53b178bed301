//===- Pipelines.h - ltc_mlir pass pipelines --------------------*- C++ -*-===//
//
// The stages a torch-dialect module goes through (each is a named pipeline of
// ltc-mlir-opt, and the compiler dumps the IR between them):
//
//   ltc-torch-to-linalg   torch dialect -> linalg-on-tensors, elementwise
//   fusion ltc-linalg-to-llvm    tile + vectorize, bufferize, out-params,
//   OpenMP, LLVM ltc-torch-to-llvm     both
//
// Calling convention of the result: `@forward` keeps its inputs (memrefs with
// identity layout, never written: `bufferization.writable = false`) followed
// by one caller-allocated out-param memref per result, returns nothing, and
// carries `llvm.emit_c_interface` (so `_mlir_ciface_forward` exists). The
// caller may pass an input's buffer as a result's out-param where
// `ltc-mark-overwritable-inputs` allows it.
//
// Large f32 contractions are not tiled by `ltc-tile-and-vectorize`: they
// call the runtime's GEMM (`ltc_mlir_rt_sgemm`, runtime/gemm.h) once per
// output block, see ExternalGemm.cpp.
//
//===----------------------------------------------------------------------===//
#ifndef LTC_MLIR_PIPELINES_PIPELINES_H
#define LTC_MLIR_PIPELINES_PIPELINES_H

#include "llvm/Support/LogicalResult.h"
#include <memory>
#include <string>

namespace mlir {
class OpPassManager;
class Pass;
class RewritePatternSet;
namespace linalg {
class LinalgOp;
} // namespace linalg
} // namespace mlir

namespace ltc_mlir {

struct LinalgToLLVMOptions {
  /// Tile and vectorize linalg ops (off: plain loops, for debugging).
  bool vectorize = true;
  /// Turn the outer tiles into OpenMP worksharing loops.
  bool parallelize = true;
  /// SIMD register width in bits used to size tiles; 0 = the host's.
  unsigned vectorBits = 0;
  /// Large f32 contractions call the runtime GEMM (off: generated kernels).
  bool externalGemm = true;
};

/// The textual pipelines (without a `builtin.module(...)` anchor), useful for
/// messages and for replaying with ltc-mlir-opt --pass-pipeline.
/// `externalKernels`: f32 convolutions call oneDNN through the runtime.
std::string getTorchToLinalgPipeline(bool externalKernels = true);
std::string getLinalgToLLVMPipeline(const LinalgToLLVMOptions &options = {});

/// Append the stages to a module-level pass manager. They fail only if a
/// pass is not registered (registerAllPasses() registers everything).
llvm::LogicalResult buildTorchToLinalgPipeline(mlir::OpPassManager &pm,
                                               bool externalKernels = true);
llvm::LogicalResult
buildLinalgToLLVMPipeline(mlir::OpPassManager &pm,
                          const LinalgToLLVMOptions &options = {});
llvm::LogicalResult
buildTorchToLLVMPipeline(mlir::OpPassManager &pm,
                         const LinalgToLLVMOptions &options = {});

/// `ltc-prepare-function-boundaries` (module): marks the arguments of every
/// public function `bufferization.writable = false` and the functions
/// `llvm.emit_c_interface`.
std::unique_ptr<mlir::Pass> createPrepareFunctionBoundariesPass();

/// `ltc-fuse-elementwise` (func): upstream linalg elementwise fusion, but
/// reshapes are folded only into all-parallel linalg ops, so that
/// contractions keep one M and one N loop.
std::unique_ptr<mlir::Pass> createFuseElementwisePass();

/// `ltc-fold-transposes-into-contractions{external-gemm=false}` (func):
/// folds linalg.transpose operands and results of contractions into the
/// contraction's indexing maps (a linalg.generic) when the vector dim stays
/// contiguous; with external-gemm, every transpose of a contraction the
/// runtime GEMM will take (isExternalGemmCandidate): it reads and writes
/// transposed matrices in place.
std::unique_ptr<mlir::Pass> createFoldTransposesIntoContractionsPass();

/// `ltc-tile-and-vectorize` (func): tiles linalg ops on tensors into
/// scf.forall (parallel outer tiles) + scf.for (register tiles) and
/// vectorizes the register tiles; contractions are fused with their init
/// fill and their chain of elementwise consumers.
std::unique_ptr<mlir::Pass> createTileAndVectorizePass();

/// `ltc-select-external-gemms` (func): marks large f32 linalg contractions
/// on tensors (one M, N and K dim, any batch dims) with kExternalGemmAttr so
/// that they are not tiled; a zero-fill init is dropped (attribute 0: C is
/// overwritten; 1: accumulated into).
std::unique_ptr<mlir::Pass> createSelectExternalGemmsPass();
/// `ltc-lower-external-gemms{parallel=true}` (module): replaces the marked
/// contractions, once bufferized, by a loop over output blocks calling
/// `ltc_mlir_rt_sgemm` (declared privately in the module).
std::unique_ptr<mlir::Pass> createLowerExternalGemmsPass();
inline constexpr const char *kExternalGemmAttr = "ltc.external_gemm";
/// Whether ltc-select-external-gemms takes `op` (a large static f32
/// contraction on tensors with one M, N and K dim). Depends on the shapes
/// and maps' kind only, so folding a transpose into the op keeps the answer.
bool isExternalGemmCandidate(mlir::linalg::LinalgOp op);

/// `ltc-expand-strided-copies` (func): static-shaped memref.copy ops that
/// are not contiguous row-major on both sides become linalg.copy (compiled
/// loops) instead of calls of the element-by-element `memrefCopy`.
std::unique_ptr<mlir::Pass> createExpandStridedCopiesPass();

/// `ltc-approximate-vector-math` (func): f32 vector exp, expm1, log1p and
/// erf become MLIR's polynomial approximations (LLVM would call
/// libm once per lane).
std::unique_ptr<mlir::Pass> createApproximateVectorMathPass();
/// Test pass over Compiler/GeneralizeShapes.h (ltc-test-generalize-batch).
std::unique_ptr<mlir::Pass> createTestGeneralizeBatchPass();

/// `ltc-block-k-accumulation` (func): splits the K loop of vectorized
/// contraction tiles (vector accumulators as iter_args) into blocks of at
/// most 256 iterations whose accumulators start at zero and are added to the
/// running sums after each block (precision of long K, as BLAS panels).
std::unique_ptr<mlir::Pass> createBlockAccumulationPass();

/// `ltc-split-partial-transfer-writes` (func): rewrites vector.transfer_write
/// ops that write only part of their destination tensor, but that MLIR 22's
/// bufferization treats as full overwrites (rank-reduced or permuted
/// writes), into extract_slice / transfer_write / insert_slice, so the
/// elements not written keep the destination's values. Runs right before
/// bufferization.
std::unique_ptr<mlir::Pass> createSplitPartialTransferWritesPass();

/// `ltc-unit-step-subviews` (any op): sets the step of size-1 dims of
/// rank-reducing memref.subview ops to 1 (MLIR 22's getDroppedDims, called
/// by expand-strided-metadata, crashes on them), casting back to the
/// original type.
std::unique_ptr<mlir::Pass> createUnitStepSubviewsPass();

/// `ltc-fold-zero-trip-loops` (func): the results of a linalg op with a
/// static size-0 loop are its init operands (no iteration runs); tiling
/// such ops makes slices MLIR 22 rejects.
std::unique_ptr<mlir::Pass> createFoldZeroTripLoopsPass();

/// `ltc-mark-overwritable-inputs` (module): records, per result of the
/// public `@forward`, the arguments whose buffer the caller may pass as that
/// result's out-param (an elementwise update that is the argument's only
/// reader, see OverwritableInputs.cpp), as kOverwritableInputsAttrName on
/// the module: an array with one DenseI64ArrayAttr per result.
std::unique_ptr<mlir::Pass> createMarkOverwritableInputsPass();
inline constexpr const char *kOverwritableInputsAttrName =
    "ltc.overwritable_inputs";

/// `ltc-duplicate-shared-fills` (func): every further destination use
/// (init, insert_slice dest, loop init) of a linalg.fill on tensors gets its
/// own clone of the fill (into a bufferization.alloc_tensor), so that
/// bufferization allocates and fills instead of copying the shared buffer.
std::unique_ptr<mlir::Pass> createDuplicateSharedFillsPass();

/// `ltc-outline-loop-nests` (module): each large top-level loop nest of a
/// public function becomes a private function named kOutlinedNestPrefix +
/// the function's name + "_" + n, called in its place (LLVM's loop passes
/// and scf-to-cf scale badly with function size). The JIT marks these
/// functions noinline.
std::unique_ptr<mlir::Pass> createOutlineLoopNestsPass();
inline constexpr const char *kOutlinedNestPrefix = "ltc_nest_";

/// vector.contract ops with a unit reduction dim indexed by only one operand
/// (which MLIR 22's broadcast folding creates and the verifier rejects) lose
/// that dim. Used with the reduction-to-contract patterns.
void populateDropOneSidedUnitReductionPatterns(mlir::RewritePatternSet &patterns);

/// SIMD width (bits) of the host CPU: 512 (AVX-512), 256 (AVX2), else 128.
unsigned getHostVectorBits();

/// Registers the passes and the three pipelines above.
void registerPipelines();

} // namespace ltc_mlir

#endif // LTC_MLIR_PIPELINES_PIPELINES_H
