//===- ReductionUtils.h - dims and shapes of ATen reductions ----*- C++ -*-===//
//
// Shared by the reduction families (Reduction.cpp, MinMax.cpp,
// Variance.cpp, Norms.cpp): reading the `dim` operand of a reduction, the
// result shape with or without keepdim, and the keepdim reshape.
//
//===----------------------------------------------------------------------===//
#ifndef LTC_MLIR_CONVERSION_TORCHTOLINALG_REDUCTIONUTILS_H
#define LTC_MLIR_CONVERSION_TORCHTOLINALG_REDUCTIONUTILS_H

#include "ltc_mlir/Conversion/TorchToLinalg/Utils.h"

#include <string>

namespace ltc_mlir::torch_to_linalg {

/// The sorted dims of a `dim` operand: None (or a null value) or [] means
/// all dims; an int constant or an int list; negative dims wrap; duplicates
/// and out-of-range dims fail with `why`. A 0-d tensor accepts dim 0/-1 and
/// reduces nothing.
mlir::FailureOr<llvm::SmallVector<int64_t>>
getReductionDims(mlir::Value dimOperand, int64_t rank, std::string &why);

/// `shape` without `dims` (sorted), or with them set to 1 when `keepdim`.
llvm::SmallVector<int64_t> getReducedShape(llvm::ArrayRef<int64_t> shape,
                                           llvm::ArrayRef<int64_t> dims,
                                           bool keepdim);

/// getReductionDims for a reduction of `inputShape` (keepdim or not) into a
/// result of `resultShape`; also fails with `why` when that shape does not
/// match the dims.
mlir::FailureOr<llvm::SmallVector<int64_t>>
getCheckedReductionDims(mlir::Value dimOperand,
                        llvm::ArrayRef<int64_t> inputShape, bool keepdim,
                        llvm::ArrayRef<int64_t> resultShape, std::string &why);

/// Replaces `op` by `values`, each reshaped to its type in `types` (the
/// reduced shape with or without keepdim); fails when one of them cannot be
/// reshaped.
mlir::LogicalResult
replaceWithReshaped(mlir::Operation *op,
                    mlir::ConversionPatternRewriter &rewriter,
                    llvm::ArrayRef<mlir::Value> values,
                    llvm::ArrayRef<mlir::RankedTensorType> types);

/// True when one of `dims` of `shape` has size 0 (max/min/argmax raise
/// in eager: there is no identity).
bool reducesEmptyDim(llvm::ArrayRef<int64_t> shape,
                     llvm::ArrayRef<int64_t> dims);

/// linalg.generic reducing `inputs` (all of one shape) over `dims` into
/// accumulators filled with `inits`; `combine(elements, accs)` returns the
/// new accumulators. The reduced loops' indices are available through
/// linalg.index inside `combine`. Results drop the reduced dims.
llvm::SmallVector<mlir::Value> createMultiReduction(
    mlir::OpBuilder &b, mlir::Location loc, mlir::ValueRange inputs,
    llvm::ArrayRef<int64_t> dims, mlir::ValueRange inits,
    llvm::function_ref<llvm::SmallVector<mlir::Value>(
        mlir::OpBuilder &, mlir::Location, mlir::ValueRange elements,
        mlir::ValueRange accs)>
        combine);

} // namespace ltc_mlir::torch_to_linalg

#endif // LTC_MLIR_CONVERSION_TORCHTOLINALG_REDUCTIONUTILS_H
