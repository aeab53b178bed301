//===- DenseLinearAlgebraPatterns.h - populate the dense linalg ops -*- C++ -*-===//
//
// Internal to lib/Conversion/TorchToLinalg, like PointwiseLoss.h (kept out
// of Patterns.h, which every pattern file includes through Utils.h).
//
//===----------------------------------------------------------------------===//
#ifndef LTC_MLIR_LIB_CONVERSION_TORCHTOLINALG_DENSELINEARALGEBRAPATTERNS_H
#define LTC_MLIR_LIB_CONVERSION_TORCHTOLINALG_DENSELINEARALGEBRAPATTERNS_H

#include "ltc_mlir/Conversion/TorchToLinalg/Patterns.h"

namespace ltc_mlir::torch_to_linalg {

/// linalg_solve_triangular, linalg_cholesky_ex, _cholesky_solve_helper,
/// cholesky_inverse (DenseLinearAlgebra.cpp).
void populateDenseLinearAlgebraPatterns(TorchTypeConverter &typeConverter,
                                        mlir::RewritePatternSet &patterns);
/// linalg_lu_factor_ex, lu_unpack, linalg_lu, linalg_lu_solve
/// (LUFactorization.cpp).
void populateLUFactorizationPatterns(TorchTypeConverter &typeConverter,
                                     mlir::RewritePatternSet &patterns);
/// linalg_inv_ex, _linalg_solve_ex, _linalg_det, _linalg_slogdet
/// (LUSolvers.cpp).
void populateLUSolverPatterns(TorchTypeConverter &typeConverter,
                              mlir::RewritePatternSet &patterns);
/// _linalg_svd, _linalg_eigh, linalg_qr through the runtime's LAPACK calls
/// (LapackDecompositions.cpp).
void populateLapackDecompositionPatterns(TorchTypeConverter &typeConverter,
                                         mlir::RewritePatternSet &patterns);

} // namespace ltc_mlir::torch_to_linalg

#endif // LTC_MLIR_LIB_CONVERSION_TORCHTOLINALG_DENSELINEARALGEBRAPATTERNS_H
