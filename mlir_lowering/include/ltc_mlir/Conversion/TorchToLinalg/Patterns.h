//===- Patterns.h - TorchToLinalg type converter and patterns --*- C++ -*-===//
//
// Internal interface of the TorchToLinalg conversion: the type converter the
// pass and all pattern families share, and one populate function per op family
// (lib/Conversion/TorchToLinalg/<Family>.cpp).
//
//===----------------------------------------------------------------------===//
#ifndef LTC_MLIR_CONVERSION_TORCHTOLINALG_PATTERNS_H
#define LTC_MLIR_CONVERSION_TORCHTOLINALG_PATTERNS_H

#include "mlir/Transforms/DialectConversion.h"
#include "llvm/ADT/DenseMap.h"

#include <string>

namespace ltc_mlir::torch_to_linalg {

/// Converts torch types to builtin types:
///   !torch.vtensor<[2,3],si64> -> tensor<2x3xi64> (signless integers),
///   !torch.int -> i64, !torch.float -> f64, !torch.bool -> i1,
///   !torch.vtensor<[n],i1> -> tensor<nxi8> holding 0/1: PyTorch stores a
///   bool per byte, while LLVM bit-packs vectors of i1 in memory.
/// !torch.list and !torch.none convert to themselves: they only feed
/// constant operands that patterns read from the IR, and their producers are
/// erased once unused.
///
/// It also keeps, per op, the last reason a pattern gave for not converting
/// it, so that the pass can report "unsupported op '<name>': <why>" (match
/// failure diagnostics are only forwarded by MLIR in debug builds). One
/// converter is used by one conversion at a time.
class TorchTypeConverter : public mlir::TypeConverter {
public:
  explicit TorchTypeConverter(mlir::MLIRContext *context);

  void noteFailure(mlir::Operation *op, const llvm::Twine &why) const;
  /// Empty when no pattern explained why `op` was not converted.
  llvm::StringRef getFailureReason(mlir::Operation *op) const;

private:
  mutable llvm::DenseMap<mlir::Operation *, std::string> failureReasons;
};

void populateElementwisePatterns(TorchTypeConverter &typeConverter,
                                 mlir::RewritePatternSet &patterns);
void populateActivationPatterns(TorchTypeConverter &typeConverter,
                                mlir::RewritePatternSet &patterns);
void populateFloatMathPatterns(TorchTypeConverter &typeConverter,
                               mlir::RewritePatternSet &patterns);
void populateLogicalPatterns(TorchTypeConverter &typeConverter,
                             mlir::RewritePatternSet &patterns);
void populateMaskedFillPatterns(TorchTypeConverter &typeConverter,
                                mlir::RewritePatternSet &patterns);
void populateRandomPatterns(TorchTypeConverter &typeConverter,
                            mlir::RewritePatternSet &patterns);
void populateTensorConstructorsPatterns(TorchTypeConverter &typeConverter,
                                        mlir::RewritePatternSet &patterns);
void populateLinearPatterns(TorchTypeConverter &typeConverter,
                            mlir::RewritePatternSet &patterns);
void populateDataMovementPatterns(TorchTypeConverter &typeConverter,
                                  mlir::RewritePatternSet &patterns);
void populateAsStridedPatterns(TorchTypeConverter &typeConverter,
                               mlir::RewritePatternSet &patterns);
void populateDiagonalPatterns(TorchTypeConverter &typeConverter,
                              mlir::RewritePatternSet &patterns);
void populateIndexingPatterns(TorchTypeConverter &typeConverter,
                              mlir::RewritePatternSet &patterns);
/// Called by populateIndexingPatterns (IndexSelect.cpp, AdvancedIndexing.cpp).
void populateIndexSelectPatterns(TorchTypeConverter &typeConverter,
                                 mlir::RewritePatternSet &patterns);
void populateAdvancedIndexingPatterns(TorchTypeConverter &typeConverter,
                                      mlir::RewritePatternSet &patterns);
void populateReductionPatterns(TorchTypeConverter &typeConverter,
                               mlir::RewritePatternSet &patterns);
void populateNormalizationPatterns(TorchTypeConverter &typeConverter,
                                   mlir::RewritePatternSet &patterns);
void populateLossPatterns(TorchTypeConverter &typeConverter,
                          mlir::RewritePatternSet &patterns);
void populateConvolutionPatterns(TorchTypeConverter &typeConverter,
                                 mlir::RewritePatternSet &patterns);
void populatePaddingPatterns(TorchTypeConverter &typeConverter,
                             mlir::RewritePatternSet &patterns);
void populatePoolingPatterns(TorchTypeConverter &typeConverter,
                             mlir::RewritePatternSet &patterns);
void populateAdaptivePoolingPatterns(TorchTypeConverter &typeConverter,
                                     mlir::RewritePatternSet &patterns);
void populateUpsamplePatterns(TorchTypeConverter &typeConverter,
                              mlir::RewritePatternSet &patterns);
void populateBatchNormPatterns(TorchTypeConverter &typeConverter,
                               mlir::RewritePatternSet &patterns);
void populateGroupNormPatterns(TorchTypeConverter &typeConverter,
                               mlir::RewritePatternSet &patterns);
void populateRepeatPatterns(TorchTypeConverter &typeConverter,
                            mlir::RewritePatternSet &patterns);
void populateScanPatterns(TorchTypeConverter &typeConverter,
                          mlir::RewritePatternSet &patterns);
void populateUnaryMathPatterns(TorchTypeConverter &typeConverter,
                               mlir::RewritePatternSet &patterns);
void populateBinaryMathPatterns(TorchTypeConverter &typeConverter,
                                mlir::RewritePatternSet &patterns);
void populateDivisionPatterns(TorchTypeConverter &typeConverter,
                              mlir::RewritePatternSet &patterns);
void populateShrinkPatterns(TorchTypeConverter &typeConverter,
                            mlir::RewritePatternSet &patterns);
void populateGatedPatterns(TorchTypeConverter &typeConverter,
                           mlir::RewritePatternSet &patterns);
void populateSpecialFunctionPatterns(TorchTypeConverter &typeConverter,
                                     mlir::RewritePatternSet &patterns);
void populateBesselFunctionPatterns(TorchTypeConverter &typeConverter,
                                    mlir::RewritePatternSet &patterns);
void populateOrthogonalPolynomialPatterns(TorchTypeConverter &typeConverter,
                                          mlir::RewritePatternSet &patterns);
void populateIntegerMathPatterns(TorchTypeConverter &typeConverter,
                                 mlir::RewritePatternSet &patterns);
// Reductions, indexing and linear algebra beyond the basics.
void populateMinMaxPatterns(TorchTypeConverter &typeConverter,
                            mlir::RewritePatternSet &patterns);
void populateVariancePatterns(TorchTypeConverter &typeConverter,
                              mlir::RewritePatternSet &patterns);
void populateNormsPatterns(TorchTypeConverter &typeConverter,
                           mlir::RewritePatternSet &patterns);
void populateGatherPatterns(TorchTypeConverter &typeConverter,
                            mlir::RewritePatternSet &patterns);
void populateScatterPatterns(TorchTypeConverter &typeConverter,
                             mlir::RewritePatternSet &patterns);
void populateMatrixVectorPatterns(TorchTypeConverter &typeConverter,
                                  mlir::RewritePatternSet &patterns);
void populateTriangularPatterns(TorchTypeConverter &typeConverter,
                                mlir::RewritePatternSet &patterns);
void populateSortingPatterns(TorchTypeConverter &typeConverter,
                             mlir::RewritePatternSet &patterns);
void populateIndexUpdatePatterns(TorchTypeConverter &typeConverter,
                                 mlir::RewritePatternSet &patterns);

} // namespace ltc_mlir::torch_to_linalg

#endif // LTC_MLIR_CONVERSION_TORCHTOLINALG_PATTERNS_H
