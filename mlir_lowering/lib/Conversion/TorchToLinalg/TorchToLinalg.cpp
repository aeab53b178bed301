//===- TorchToLinalg.cpp - the convert-torch-to-linalg pass ---------------===//
//
// Only the pass: the patterns live in one file per op family.
//
//===----------------------------------------------------------------------===//

#include "ltc_mlir/Conversion/TorchToLinalg/TorchToLinalg.h"

#include "ltc_mlir/Conversion/TorchToLinalg/Patterns.h"
#include "Collectives.h"
#include "CtcLoss.h"
#include "ExternalConvolution.h"
#include "DenseLinearAlgebraPatterns.h"
#include "Elementwise.h"
#include "Normalization.h"
#include "PointwiseLoss.h"
#include "ltc_mlir/Dialect/Torch/IR/TorchDialect.h"
#include "ltc_mlir/Dialect/Torch/IR/TorchOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Func/Transforms/FuncConversions.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Iterators.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Transforms/DialectConversion.h"

namespace ltc_mlir {
#define GEN_PASS_DECL_CONVERTTORCHTOLINALG
#define GEN_PASS_DEF_CONVERTTORCHTOLINALG
#include "ltc_mlir/Conversion/Passes.h.inc"
} // namespace ltc_mlir

using namespace mlir;
using namespace ltc_mlir;
using namespace ltc_mlir::torch_to_linalg;

namespace {

bool isTorchOp(Operation *op) {
  return isa<torch::TorchDialect>(op->getDialect());
}

/// Constants and lists are read by the patterns of their users and erased
/// afterwards; they are never the reason a graph cannot be lowered.
bool isTorchConstantLike(Operation *op) {
  return isa<torch::ConstantIntOp, torch::ConstantFloatOp,
             torch::ConstantBoolOp, torch::ConstantNoneOp,
             torch::ConstantStrOp, torch::ConstantDeviceOp,
             torch::PrimListConstructOp>(op);
}

/// A type of `op` the converter cannot handle, or null.
Type findUnconvertibleType(const TypeConverter &converter, Operation *op) {
  for (Type type : llvm::concat<const Type>(op->getOperandTypes(),
                                            op->getResultTypes()))
    if (!converter.convertType(type))
      return type;
  return nullptr;
}

struct ConvertTorchToLinalgPass
    : public ltc_mlir::impl::ConvertTorchToLinalgBase<
          ConvertTorchToLinalgPass> {
  using ConvertTorchToLinalgBase::ConvertTorchToLinalgBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    MLIRContext *context = &getContext();
    TorchTypeConverter typeConverter(context);

    // A signature the converter cannot handle would only produce a generic
    // "failed to legalize func.func" later: say which type it is.
    bool badSignature = false;
    module.walk([&](func::FuncOp func) {
      for (Type type : llvm::concat<const Type>(func.getArgumentTypes(),
                                                func.getResultTypes()))
        if (!typeConverter.convertType(type)) {
          func.emitError() << "unsupported type " << type
                           << " in the signature of @" << func.getSymName();
          badSignature = true;
        }
    });
    if (badSignature)
      return signalPassFailure();

    ConversionTarget target(*context);
    // scf.if (and func.call below) carry the runtime checks; bufferization
    // and memref ops the calls into the runtime (LapackDecompositions.cpp).
    target.addLegalDialect<arith::ArithDialect, bufferization::BufferizationDialect,
                           linalg::LinalgDialect, math::MathDialect,
                           memref::MemRefDialect, scf::SCFDialect,
                           tensor::TensorDialect>();
    // Kept until their users are converted, erased below once unused.
    target.addLegalOp<torch::ConstantIntOp, torch::ConstantFloatOp,
                      torch::ConstantBoolOp, torch::ConstantNoneOp,
                      torch::ConstantStrOp, torch::ConstantDeviceOp,
                      torch::PrimListConstructOp>();
    target.addDynamicallyLegalOp<func::FuncOp>([&](func::FuncOp op) {
      return typeConverter.isSignatureLegal(op.getFunctionType()) &&
             typeConverter.isLegal(&op.getBody());
    });
    target.addDynamicallyLegalOp<func::ReturnOp, func::CallOp>(
        [&](Operation *op) { return typeConverter.isLegal(op); });
    // The other torch ops are left "unknown": a partial conversion then
    // converts what it can and collects the rest instead of stopping at
    // the first failure, so every unsupported op gets reported.

    RewritePatternSet patterns(context);
    populateFunctionOpInterfaceTypeConversionPattern<func::FuncOp>(
        patterns, typeConverter);
    populateReturnOpTypeConversionPattern(patterns, typeConverter);
    populateCallOpTypeConversionPattern(patterns, typeConverter);
    populateElementwisePatterns(typeConverter, patterns);
    populateComparisonPatterns(typeConverter, patterns);
    populateActivationPatterns(typeConverter, patterns);
    populateFloatMathPatterns(typeConverter, patterns);
    populateMaskedFillPatterns(typeConverter, patterns);
    populateLogicalPatterns(typeConverter, patterns);
    populateRandomPatterns(typeConverter, patterns);
    populateTensorConstructorsPatterns(typeConverter, patterns);
    populateLinearPatterns(typeConverter, patterns);
    populateDataMovementPatterns(typeConverter, patterns);
    populateAsStridedPatterns(typeConverter, patterns);
    populateDiagonalPatterns(typeConverter, patterns);
    populateIndexingPatterns(typeConverter, patterns);
    populateReductionPatterns(typeConverter, patterns);
    populateNormalizationPatterns(typeConverter, patterns);
    populateLayerNormPatterns(typeConverter, patterns);
    populateLossPatterns(typeConverter, patterns);
    populatePointwiseLossPatterns(typeConverter, patterns);
    populateConvolutionPatterns(typeConverter, patterns);
    if (externalConvolutions)
      populateExternalConvolutionPatterns(typeConverter, patterns);
    populatePaddingPatterns(typeConverter, patterns);
    populatePoolingPatterns(typeConverter, patterns);
    populateAdaptivePoolingPatterns(typeConverter, patterns);
    populateUpsamplePatterns(typeConverter, patterns);
    populateBatchNormPatterns(typeConverter, patterns);
    populateGroupNormPatterns(typeConverter, patterns);
    populateRepeatPatterns(typeConverter, patterns);
    populateScanPatterns(typeConverter, patterns);
    populateUnaryMathPatterns(typeConverter, patterns);
    populateBinaryMathPatterns(typeConverter, patterns);
    populateDivisionPatterns(typeConverter, patterns);
    populateShrinkPatterns(typeConverter, patterns);
    populateGatedPatterns(typeConverter, patterns);
    populateSpecialFunctionPatterns(typeConverter, patterns);
    populateBesselFunctionPatterns(typeConverter, patterns);
    populateOrthogonalPolynomialPatterns(typeConverter, patterns);
    populateIntegerMathPatterns(typeConverter, patterns);
    populateMinMaxPatterns(typeConverter, patterns);
    populateVariancePatterns(typeConverter, patterns);
    populateNormsPatterns(typeConverter, patterns);
    populateGatherPatterns(typeConverter, patterns);
    populateScatterPatterns(typeConverter, patterns);
    populateMatrixVectorPatterns(typeConverter, patterns);
    populateTriangularPatterns(typeConverter, patterns);
    populateDenseLinearAlgebraPatterns(typeConverter, patterns);
    populateLUFactorizationPatterns(typeConverter, patterns);
    populateLUSolverPatterns(typeConverter, patterns);
    populateLapackDecompositionPatterns(typeConverter, patterns);
    populateSortingPatterns(typeConverter, patterns);
    populateCtcLossPatterns(typeConverter, patterns);
    populateCollectivePatterns(typeConverter, patterns);
    populateIndexUpdatePatterns(typeConverter, patterns);

    module.walk([](func::FuncOp func) { scheduleCollectivesEarly(func); });
    if (failed(applyPartialConversion(module, target, std::move(patterns))))
      return signalPassFailure();

    // Drop constants, lists and casts nobody uses anymore (users first).
    module.walk<WalkOrder::PostOrder, ReverseIterator>([](Operation *op) {
      if ((isTorchOp(op) ||
           isa<UnrealizedConversionCastOp, arith::ConstantOp>(op)) &&
          isOpTriviallyDead(op))
        op->erase();
    });

    bool reported = false;
    SmallVector<Operation *> leftovers;
    module.walk([&](Operation *op) {
      if (!isTorchOp(op))
        return;
      leftovers.push_back(op);
      if (isTorchConstantLike(op))
        return;
      std::string why = typeConverter.getFailureReason(op).str();
      if (why.empty()) {
        if (Type type = findUnconvertibleType(typeConverter, op))
          llvm::raw_string_ostream(why) << "unsupported type " << type;
        else
          why = "no lowering to linalg";
      }
      op->emitError() << "unsupported op '" << op->getName() << "': " << why;
      reported = true;
    });
    if (!leftovers.empty()) {
      // Only constants are left (e.g. feeding an op of another dialect).
      if (!reported)
        for (Operation *op : leftovers)
          op->emitError() << "unsupported op '" << op->getName()
                          << "': its users could not be converted";
      return signalPassFailure();
    }
  }
};

} // namespace

std::unique_ptr<Pass> ltc_mlir::createConvertTorchToLinalgPass() {
  return std::make_unique<ConvertTorchToLinalgPass>();
}
