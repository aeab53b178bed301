//===- DenseLinearAlgebra.h - shared by the dense linalg lowerings -*- C++ -*-===//
//
// Helpers of the dense factorizations and solves (DenseLinearAlgebra.cpp:
// triangular solves and Cholesky; LUFactorization.cpp: LU, its solves,
// inverse and determinants). Matrices are handled batched: every operand is
// broadcast to the result's batch dims and collapsed to [B, rows, cols];
// the algorithms are scf.for loops over the batch and the factorization
// steps with scalar tensor.extract/tensor.insert inside (the tensors are
// loop-carried, so bufferization updates them in place).
//
// The patterns match ops by name (`torch.aten.<op>`): these ops need no
// verifier, so they stay in the generated ODS shards.
//
//===----------------------------------------------------------------------===//
#ifndef LTC_MLIR_LIB_CONVERSION_TORCHTOLINALG_DENSELINEARALGEBRA_H
#define LTC_MLIR_LIB_CONVERSION_TORCHTOLINALG_DENSELINEARALGEBRA_H

#include "ltc_mlir/Conversion/TorchToLinalg/Utils.h"

#include "mlir/Dialect/SCF/IR/SCF.h"

namespace ltc_mlir::torch_to_linalg::dense_la {

/// A pattern for the op named `torch.aten.<name>`, with TorchConversionPattern's
/// failure reporting.
class NamedTorchPattern : public mlir::ConversionPattern {
public:
  NamedTorchPattern(const TorchTypeConverter &typeConverter,
                    llvm::StringRef opName, mlir::MLIRContext *context)
      : mlir::ConversionPattern(typeConverter, opName, /*benefit=*/1, context),
        converter(typeConverter) {}

protected:
  mlir::LogicalResult fail(mlir::Operation *op,
                           mlir::ConversionPatternRewriter &rewriter,
                           const llvm::Twine &why) const {
    converter.noteFailure(op, why);
    return rewriter.notifyMatchFailure(op, why);
  }
  mlir::RankedTensorType getTensorType(mlir::Type torchType) const {
    return llvm::dyn_cast_or_null<mlir::RankedTensorType>(
        converter.convertType(torchType));
  }
  /// The result types, all converted to static ranked tensors, or failure.
  mlir::FailureOr<llvm::SmallVector<mlir::RankedTensorType>>
  getResultTypes(mlir::Operation *op) const;
  /// Empty matrices (some zero dim): replaces `op` by empty results and, for
  /// the non-empty ones, tensors filled with `fills[i]` (info 0, det 1, ...);
  /// fails when a non-empty result has no fill value.
  mlir::LogicalResult
  replaceEmptyCase(mlir::Operation *op,
                   mlir::ConversionPatternRewriter &rewriter,
                   llvm::ArrayRef<mlir::RankedTensorType> types,
                   llvm::ArrayRef<std::optional<double>> fills) const;

  const TorchTypeConverter &converter;
};

/// True for f32 and f64 (the dtypes lowered here).
bool isRealFloat(mlir::Type type);
/// Whether some of `types` has a zero dim.
bool hasZeroDim(llvm::ArrayRef<mlir::RankedTensorType> types);

mlir::Value indexConst(mlir::OpBuilder &b, mlir::Location loc, int64_t v);

/// Body of a loop: gets the induction variable and the loop-carried values,
/// returns the values to carry on.
using LoopBody = llvm::function_ref<llvm::SmallVector<mlir::Value>(
    mlir::OpBuilder &, mlir::Location, mlir::Value iv, mlir::ValueRange)>;
/// scf.for iv in [lb, ub) carrying `iterArgs`; returns the final values.
llvm::SmallVector<mlir::Value> createLoop(mlir::OpBuilder &b,
                                          mlir::Location loc, mlir::Value lb,
                                          mlir::Value ub,
                                          mlir::ValueRange iterArgs,
                                          LoopBody body);

/// `x` of shape [..., r, c] broadcast to [batch..., r, c] and collapsed to
/// [prod(batch), r, c] (B = 1 without batch dims).
mlir::FailureOr<mlir::Value> toBatched(mlir::OpBuilder &b, mlir::Location loc,
                                       mlir::Value x,
                                       llvm::ArrayRef<int64_t> batch,
                                       unsigned matrixRank = 2);
/// The collapsed [B, ...] tensor `x` reshaped to `type` (same elements).
mlir::FailureOr<mlir::Value> fromBatched(mlir::OpBuilder &b,
                                         mlir::Location loc, mlir::Value x,
                                         mlir::RankedTensorType type);
/// Swaps the last two dims of a [B, r, c] tensor.
mlir::Value transposeMatrices(mlir::OpBuilder &b, mlir::Location loc,
                              mlir::Value x);

/// x[bi, dst, j] -= factor * x[bi, src, j] for j in [lo, hi): a row update
/// of matrix `bi` of the batched `x` ([B, r, c]), as an scf.for; returns x.
mlir::Value subtractScaledRow(mlir::OpBuilder &b, mlir::Location loc,
                              mlir::Value x, mlir::Value bi, mlir::Value dst,
                              mlir::Value src, mlir::Value factor,
                              mlir::Value lo, mlir::Value hi);
/// Swaps rows `r` and `p` (columns [0, cols)) of matrix `bi` of the batched
/// `x` ([B, r, c]), as an scf.for; returns x.
mlir::Value swapRows(mlir::OpBuilder &b, mlir::Location loc, mlir::Value x,
                     mlir::Value bi, mlir::Value r, mlir::Value p,
                     mlir::Value cols);

/// Solves op(A) X = X0 in place of `x` ([B, n, m]) for `a` ([B, n, n]),
/// where op(A) = A, or A^T when `transA`, and only the lower (`lower`) or
/// upper triangle of op(A) is read; `unit`: its diagonal is taken as ones.
mlir::Value solveTriangular(mlir::OpBuilder &b, mlir::Location loc,
                            mlir::Value a, mlir::Value x, bool lower,
                            bool transA, bool unit);

/// [B, n, n] identity matrices of `type`.
mlir::Value createIdentity(mlir::OpBuilder &b, mlir::Location loc,
                           mlir::RankedTensorType type);

/// Keeps the lower (or upper) triangle of [B, r, c] `x`, with ones on the
/// diagonal when `unitDiagonal`, zeros elsewhere; the result has `type`
/// (rows and cols at most those of x).
mlir::Value extractTriangle(mlir::OpBuilder &b, mlir::Location loc,
                            mlir::Value x, mlir::RankedTensorType type,
                            bool lower, bool unitDiagonal);

//===----------------------------------------------------------------------===//
// LU (LUFactorization.cpp), shared with LUSolvers.cpp
//===----------------------------------------------------------------------===//

struct LUResult {
  mlir::Value lu;     // [B, m, n]
  mlir::Value pivots; // [B, min(m, n)] i32, 1-based
  mlir::Value info;   // [B] i32
};

/// LU with partial pivoting of every [m, n] matrix of `a` ([B, m, n]).
LUResult createLU(mlir::OpBuilder &b, mlir::Location loc, mlir::Value a);
/// Factors `a` (operand, [..., m, n]) with its batch broadcast to `batch`,
/// or its transpose when `transposed`.
mlir::FailureOr<LUResult> factorBatched(mlir::OpBuilder &b, mlir::Location loc,
                                        mlir::Value a,
                                        llvm::ArrayRef<int64_t> batch,
                                        bool transposed = false);
/// Solves A X = B (or A^T X = B when `adjoint`) for A = P L U given as
/// batched `lu` ([B, n, n]) and `pivots`, in place of `x` ([B, n, c]).
mlir::Value luSolve(mlir::OpBuilder &b, mlir::Location loc, mlir::Value lu,
                    mlir::Value pivots, mlir::Value x, bool adjoint);
/// Solves with batched lu/pivots for `rhs` (operand, [..., n, c] or, when
/// !left, [..., c, n]) broadcast to `batch`: left/adjoint as linalg_lu_solve.
mlir::FailureOr<mlir::Value> solveWithLU(mlir::OpBuilder &b,
                                         mlir::Location loc, mlir::Value lu,
                                         mlir::Value pivots, mlir::Value rhs,
                                         llvm::ArrayRef<int64_t> batch,
                                         bool left, bool adjoint);
/// Static result types with a real float matrix operand `a` (rank >= 2) of
/// the dtype of result `floatResult`, or failure.
mlir::FailureOr<llvm::SmallVector<mlir::RankedTensorType>>
checkTypes(mlir::FailureOr<llvm::SmallVector<mlir::RankedTensorType>> types,
           mlir::Value a, unsigned floatResult);
/// Whether the op works on empty matrices: `a` or a result has a zero dim.
bool isEmptyCase(llvm::ArrayRef<mlir::RankedTensorType> types, mlir::Value a);

} // namespace ltc_mlir::torch_to_linalg::dense_la

#endif // LTC_MLIR_LIB_CONVERSION_TORCHTOLINALG_DENSELINEARALGEBRA_H
