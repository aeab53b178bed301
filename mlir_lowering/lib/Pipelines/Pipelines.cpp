//===- Pipelines.cpp - ltc_mlir pass pipelines ----------------------------===//
//
// The pipelines are spelled as text so that the exact sequence can be printed,
// documented and replayed with `ltc-mlir-opt --pass-pipeline=...`.
//
//===----------------------------------------------------------------------===//

#include "ltc_mlir/Pipelines/Pipelines.h"

#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;

std::string ltc_mlir::getTorchToLinalgPipeline(bool externalKernels) {
  return std::string("convert-torch-to-linalg{external-convolutions=") +
         (externalKernels ? "true" : "false") +
         "},canonicalize,cse,func.func(ltc-fuse-elementwise),canonicalize,cse";
}

std::string
ltc_mlir::getLinalgToLLVMPipeline(const LinalgToLLVMOptions &options) {
  unsigned bits = options.vectorBits ? options.vectorBits : getHostVectorBits();
  std::string s;
  llvm::raw_string_ostream os(s);
  // Tensor level: parallel + register tiles, vectorization, then keep the
  // matmul accumulators in vector registers across the K loop (in blocks of
  // K, see BlockAccumulation.cpp).
  os << "func.func(ltc-fold-zero-trip-loops),ltc-prepare-function-boundaries,"
     << "func.func(ltc-fold-transposes-into-contractions{external-gemm="
     << (options.externalGemm ? "true" : "false") << "}),"
     << "func.func(ltc-duplicate-shared-fills),"
     << (options.externalGemm ? "func.func(ltc-select-external-gemms)," : "")
     // Before tiling, while an elementwise update is still one op.
     << "ltc-mark-overwritable-inputs,"
     << "func.func(ltc-tile-and-vectorize{vector-bits=" << bits
     << " parallel=" << (options.parallelize ? "true" : "false")
     << " vectorize=" << (options.vectorize ? "true" : "false") << "}),"
     << "canonicalize,cse,"
     << "func.func(loop-invariant-subset-hoisting,loop-invariant-code-motion),"
     << "canonicalize,func.func(ltc-block-k-accumulation),";
  // Buffers: inputs are read-only PyTorch tensors (writable = false), results
  // are written straight into caller-allocated out-params.
  // (A partial vector write must not be taken for a full overwrite, or the
  // destination's other elements are never copied.)
  // The boundaries again: vectorization and CSE can merge two results into
  // one value (x and sum(x) of a 0-d x: two identical transfer_writes),
  // which buffer-results-to-out-params does not survive.
  os << "ltc-prepare-function-boundaries,"
     << "func.func(ltc-split-partial-transfer-writes),"
     << "eliminate-empty-tensors,"
     << "one-shot-bufferize{bufferize-function-boundaries "
        "function-boundary-type-conversion=identity-layout-map},"
     << "canonicalize,cse,canonicalize,"
     << "buffer-results-to-out-params{hoist-static-allocs "
        "modify-public-functions},"
     << "canonicalize,"
     << "func.func(scf-forall-to-parallel),"
     << "buffer-deallocation-pipeline,canonicalize,cse,";
  // Loops and vectors: serial loops inside tiles, outer scf.parallel -> omp.
  if (options.externalGemm)
    os << "ltc-lower-external-gemms{parallel="
       << (options.parallelize ? "true" : "false") << "},";
  // Strided copies bufferization inserted: loops, not memrefCopy calls.
  // Reductions along the vector (a row's max or sum: softmax, layer norm)
  // become one vector.reduction each, which LLVM computes as a tree of
  // vector ops; inner-parallel made them one scalar op per element (a
  // softmax row max of 64 floats: 64 dependent compare+selects).
  os << "func.func(ltc-expand-strided-copies,convert-linalg-to-loops,"
        "convert-vector-to-scf{full-unroll=true target-rank=1},"
        "lower-vector-multi-reduction{lowering-strategy=inner-reduction},"
        "lower-vector-mask),"
     // One function per large loop nest: what follows scales with function
     // size (see OutlineLoopNests.cpp).
     << "ltc-outline-loop-nests,"
     << "convert-scf-to-openmp,canonicalize,";
  // LLVM dialect. expand-strided-metadata emits affine.apply, so it runs
  // before lower-affine; memref must be finalized before scf-to-cf.
  // (ltc-unit-step-subviews: expand-strided-metadata crashes on some
  // rank-reducing subviews, see UnitStepSubviews.cpp.)
  os << "ltc-unit-step-subviews,expand-strided-metadata,lower-affine,finalize-memref-to-llvm{use-generic-functions=true},"
     << "convert-scf-to-cf,"
     // f16/bf16 math functions are computed in f32 (libm has none).
     << "math-extend-to-supported-types{target-type=f32},"
     // Vector f32 transcendental functions as polynomials, not per-lane
     // libm calls (ApproximateVectorMath.cpp).
     << "func.func(ltc-approximate-vector-math),"
     // Math before vectors: convert-math-to-libm unrolls a vector op with no
     // LLVM intrinsic (math.erf) into vector.extract/insert around scalar
     // libm calls, which convert-vector-to-llvm must still see.
     << "convert-math-to-llvm,convert-math-to-libm,"
     << "convert-vector-to-llvm{vector-contract-lowering=outerproduct},"
     // bf16 arithmetic in f32 (each op rounded to bf16, as c10::BFloat16
     // does), and bf16 <-> f32 as integer shifts with round-to-nearest-even:
     // no bf16 instruction (AVX512-BF16) nor libcall (__truncsfbf2) needed,
     // the same code and results on every x86 CPU.
     << "arith-emulate-unsupported-floats{source-types=bf16 target-type=f32},"
     << "arith-expand{include-bf16=true},"
     << "convert-arith-to-llvm,convert-index-to-llvm,convert-ub-to-llvm,"
     << "convert-cf-to-llvm,convert-func-to-llvm,convert-openmp-to-llvm,"
     << "reconcile-unrealized-casts,canonicalize,cse";
  return s;
}

static LogicalResult addPipeline(OpPassManager &pm, StringRef text) {
  std::string error;
  llvm::raw_string_ostream os(error);
  if (succeeded(parsePassPipeline(text, pm, os)))
    return success();
  llvm::errs() << "ltc_mlir: invalid pipeline: " << error << "\n";
  return failure();
}

LogicalResult ltc_mlir::buildTorchToLinalgPipeline(OpPassManager &pm,
                                                   bool externalKernels) {
  return addPipeline(pm, getTorchToLinalgPipeline(externalKernels));
}

LogicalResult
ltc_mlir::buildLinalgToLLVMPipeline(OpPassManager &pm,
                                    const LinalgToLLVMOptions &options) {
  return addPipeline(pm, getLinalgToLLVMPipeline(options));
}

LogicalResult
ltc_mlir::buildTorchToLLVMPipeline(OpPassManager &pm,
                                   const LinalgToLLVMOptions &options) {
  if (failed(buildTorchToLinalgPipeline(pm)))
    return failure();
  return buildLinalgToLLVMPipeline(pm, options);
}

namespace {
struct PrepareFunctionBoundariesPass
    : PassWrapper<PrepareFunctionBoundariesPass, OperationPass<ModuleOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(PrepareFunctionBoundariesPass)

  StringRef getArgument() const final {
    return "ltc-prepare-function-boundaries";
  }
  StringRef getDescription() const final {
    return "Mark public function arguments read-only for bufferization and "
           "request C-interface wrappers";
  }
  void getDependentDialects(DialectRegistry &registry) const override {
    registry.insert<bufferization::BufferizationDialect, LLVM::LLVMDialect>();
  }

  void runOnOperation() override {
    MLIRContext *ctx = &getContext();
    for (auto func : getOperation().getOps<func::FuncOp>()) {
      if (func.isExternal() || !func.isPublic())
        continue;
      // The inputs are live PyTorch tensors: bufferization must copy rather
      // than write into them.
      for (unsigned i = 0, e = func.getNumArguments(); i < e; ++i)
        if (llvm::isa<TensorType>(func.getArgument(i).getType()))
          func.setArgAttr(
              i, bufferization::BufferizationDialect::kWritableAttrName,
              BoolAttr::get(ctx, false));
      func->setAttr(LLVM::LLVMDialect::getEmitCWrapperAttrName(),
                    UnitAttr::get(ctx));
      freshZeroSizeResults(func);
      copyRepeatedResults(func);
    }
  }

  // A zero-element result has no data, but lowering may return the same
  // tensor.empty that also serves as another op's init (backward through
  // zero-size tensors): after bufferization two results share one buffer
  // and buffer-results-to-out-params crashes. Each such result gets its own
  // allocation (alloc_tensor: not merged by CSE).
  static void freshZeroSizeResults(func::FuncOp func) {
    func.walk([](func::ReturnOp ret) {
      OpBuilder builder(ret);
      for (OpOperand &operand : ret->getOpOperands()) {
        auto type = llvm::dyn_cast<RankedTensorType>(operand.get().getType());
        if (!type || !type.hasStaticShape() || type.getNumElements() != 0)
          continue;
        operand.set(bufferization::AllocTensorOp::create(
            builder, ret.getLoc(), type, /*dynamicSizes=*/ValueRange()));
      }
    });
  }

  // buffer-results-to-out-params (with hoisted allocs) crashes in MLIR 22
  // when one value is returned twice, which happens whenever lowering folds
  // e.g. `x` and `detach_copy(x)` together. Give every repeat its own copy.
  static void copyRepeatedResults(func::FuncOp func) {
    func.walk([](func::ReturnOp ret) {
      llvm::SmallPtrSet<Value, 8> seen;
      OpBuilder builder(ret);
      for (OpOperand &operand : ret->getOpOperands()) {
        Value v = operand.get();
        auto type = llvm::dyn_cast<RankedTensorType>(v.getType());
        if (!type || seen.insert(v).second)
          continue;
        Value copy = bufferization::AllocTensorOp::create(
            builder, ret.getLoc(), type, /*dynamicSizes=*/ValueRange(),
            /*copy=*/v);
        operand.set(copy);
      }
    });
  }
};
} // namespace

std::unique_ptr<Pass> ltc_mlir::createPrepareFunctionBoundariesPass() {
  return std::make_unique<PrepareFunctionBoundariesPass>();
}

namespace {
struct LinalgToLLVMPipelineOptions
    : PassPipelineOptions<LinalgToLLVMPipelineOptions> {
  Option<unsigned> vectorBits{*this, "vector-bits",
                              llvm::cl::desc("SIMD width in bits (0 = host)"),
                              llvm::cl::init(0)};
  Option<bool> parallel{*this, "parallel",
                        llvm::cl::desc("Emit OpenMP parallel loops"),
                        llvm::cl::init(true)};
  Option<bool> vectorize{*this, "vectorize",
                         llvm::cl::desc("Tile and vectorize linalg ops"),
                         llvm::cl::init(true)};
  Option<bool> externalGemm{
      *this, "external-gemm",
      llvm::cl::desc("Large f32 contractions call the runtime GEMM"),
      llvm::cl::init(true)};

  ltc_mlir::LinalgToLLVMOptions get() const {
    ltc_mlir::LinalgToLLVMOptions options;
    options.vectorBits = vectorBits;
    options.parallelize = parallel;
    options.vectorize = vectorize;
    options.externalGemm = externalGemm;
    return options;
  }
};
} // namespace

void ltc_mlir::registerPipelines() {
  registerPass(createPrepareFunctionBoundariesPass);
  registerPass(createTileAndVectorizePass);
  registerPass(createFoldTransposesIntoContractionsPass);
  registerPass(createBlockAccumulationPass);
  registerPass(createSplitPartialTransferWritesPass);
  registerPass(createFuseElementwisePass);
  registerPass(createUnitStepSubviewsPass);
  registerPass(createFoldZeroTripLoopsPass);
  registerPass(createDuplicateSharedFillsPass);
  registerPass(createMarkOverwritableInputsPass);
  registerPass(createOutlineLoopNestsPass);
  registerPass(createSelectExternalGemmsPass);
  registerPass(createLowerExternalGemmsPass);
  registerPass(createExpandStridedCopiesPass);
  registerPass(createApproximateVectorMathPass);
  registerPass(createTestGeneralizeBatchPass);

  PassPipelineRegistration<>(
      "ltc-torch-to-linalg", "torch dialect -> fused linalg-on-tensors",
      [](OpPassManager &pm) { (void)buildTorchToLinalgPipeline(pm); });
  PassPipelineRegistration<LinalgToLLVMPipelineOptions>(
      "ltc-linalg-to-llvm",
      "linalg-on-tensors -> tiled, vectorized, OpenMP-parallel LLVM dialect",
      [](OpPassManager &pm, const LinalgToLLVMPipelineOptions &options) {
        (void)buildLinalgToLLVMPipeline(pm, options.get());
      });
  PassPipelineRegistration<LinalgToLLVMPipelineOptions>(
      "ltc-torch-to-llvm", "ltc-torch-to-linalg then ltc-linalg-to-llvm",
      [](OpPassManager &pm, const LinalgToLLVMPipelineOptions &options) {
        (void)buildTorchToLLVMPipeline(pm, options.get());
      });
}
