//===- Elementwise.h - shared by the elementwise op files -------*- C++ -*-===//
//
// Scalar helpers of Elementwise.cpp (arithmetic, activations, _to_copy) that
// Comparison.cpp (comparisons, where.self, clamp) uses too, and the
// populate function of Comparison.cpp. Internal to
// lib/Conversion/TorchToLinalg (kept out of Patterns.h, which every pattern
// file includes through Utils.h).
//
//===----------------------------------------------------------------------===//
#ifndef LTC_MLIR_LIB_CONVERSION_TORCHTOLINALG_ELEMENTWISE_H
#define LTC_MLIR_LIB_CONVERSION_TORCHTOLINALG_ELEMENTWISE_H

#include "ltc_mlir/Conversion/TorchToLinalg/Utils.h"

namespace ltc_mlir::torch_to_linalg {

/// max/min of two values of the same int or float type. The float forms
/// propagate NaN, like torch.maximum/minimum and clamp.
mlir::Value createMax(mlir::OpBuilder &b, mlir::Location loc, mlir::Value lhs,
                      mlir::Value rhs, bool isUnsigned);
mlir::Value createMin(mlir::OpBuilder &b, mlir::Location loc, mlir::Value lhs,
                      mlir::Value rhs, bool isUnsigned);

/// Casts a torch scalar operand (!torch.int/!torch.float, `converted` is
/// its i64/f64 value) to `elemType` like ATen's Scalar::to<T>. Constant
/// scalars are materialized directly in the element type (so that e.g.
/// alpha == 1 is visible to the compute function).
mlir::Value castScalarOperand(mlir::OpBuilder &b, mlir::Location loc,
                              mlir::Value original, mlir::Value converted,
                              mlir::Type elemType);

/// gt/lt/ge/le/eq/ne (.Tensor, .Scalar), where.self, clamp (Comparison.cpp).
void populateComparisonPatterns(TorchTypeConverter &typeConverter,
                                mlir::RewritePatternSet &patterns);

} // namespace ltc_mlir::torch_to_linalg

#endif // LTC_MLIR_LIB_CONVERSION_TORCHTOLINALG_ELEMENTWISE_H
