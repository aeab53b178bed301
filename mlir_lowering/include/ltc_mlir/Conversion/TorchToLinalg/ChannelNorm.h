//===- ChannelNorm.h - shared pieces of batch and group norm ---*- C++ -*-===//
//
// native_batch_norm and native_group_norm (and their backwards) normalize a
// static loop nest over the input, viewed so that the statistics and the
// per-channel parameters are plain loop dims:
//   batch_norm: [N, C, *S]     statistics per C (summed over N and S),
//                              weight/bias per C;
//   group_norm: [N, G, D, *S]  statistics per (N, G) (summed over D and S),
//                              weight/bias per (G, D) (C = G * D).
// Statistics and parameters are read through projected-permutation maps, so
// every elementwise generic stays vectorizable and fusable (ReLU after
// BatchNorm fuses into the normalization generic). Internal to
// lib/Conversion/TorchToLinalg (BatchNorm.cpp, GroupNorm.cpp).
//
//===----------------------------------------------------------------------===//
#ifndef LTC_MLIR_CONVERSION_TORCHTOLINALG_CHANNELNORM_H
#define LTC_MLIR_CONVERSION_TORCHTOLINALG_CHANNELNORM_H

#include "ltc_mlir/Conversion/TorchToLinalg/Utils.h"

namespace ltc_mlir::torch_to_linalg {

/// The loop nest of a normalization.
struct NormLoops {
  /// `statDims`: the loops a statistic varies along (the others are
  /// summed); `paramDims`: the loops weight/bias vary along.
  NormLoops(mlir::MLIRContext *context, llvm::ArrayRef<int64_t> shape,
            llvm::ArrayRef<int64_t> statDims,
            llvm::ArrayRef<int64_t> paramDims);

  llvm::SmallVector<int64_t> shape;
  llvm::SmallVector<int64_t> statDims, reducedDims, paramDims;
  /// Values per statistic: the product of the reduced loops.
  int64_t count;
  mlir::AffineMap full, stat, param;

  mlir::RankedTensorType fullType(mlir::Type elementType) const;
  mlir::RankedTensorType statType(mlir::Type elementType) const;
  mlir::RankedTensorType paramType(mlir::Type elementType) const;
  /// The map reading a tensor indexed by `dims` (in loop order).
  mlir::AffineMap dimsMap(llvm::ArrayRef<int64_t> dims) const;
};

/// Per-element body of the generics below: the payload values of the
/// inputs, returns the value to yield (or add).
using NormBodyFn = llvm::function_ref<mlir::Value(
    mlir::OpBuilder &, mlir::Location, mlir::ValueRange)>;
using NormSumsFn = llvm::function_ref<llvm::SmallVector<mlir::Value>(
    mlir::OpBuilder &, mlir::Location, mlir::ValueRange)>;

/// Sums `terms` over `reducedDims` of `loops` (blocked: createSum), one
/// result per accumulator type, shaped as the loops that are not reduced.
llvm::SmallVector<mlir::Value>
sumOverLoops(mlir::OpBuilder &b, mlir::Location loc,
             llvm::ArrayRef<int64_t> shape, llvm::ArrayRef<int64_t> reducedDims,
             mlir::ValueRange inputs, llvm::ArrayRef<mlir::AffineMap> maps,
             mlir::TypeRange accTypes, NormSumsFn terms);

/// The mean and the biased variance of `x` (a tensor of `loops.shape`) per
/// statistic, in `accType`, in two passes as ATen's CPU kernels: mean =
/// sum(x) / count, var = sum((x - mean)^2) / count.
std::pair<mlir::Value, mlir::Value>
computeMeanAndVar(mlir::OpBuilder &b, mlir::Location loc,
                  const NormLoops &loops, mlir::Value x, mlir::Type accType);

/// One parallel generic over the whole nest producing `elementType`.
mlir::Value mapFull(mlir::OpBuilder &b, mlir::Location loc,
                    const NormLoops &loops, mlir::Type elementType,
                    mlir::ValueRange inputs,
                    llvm::ArrayRef<mlir::AffineMap> maps, NormBodyFn body);

/// mapFull with one result per value `body` returns (element types
/// `resultTypes`); see mapSameMulti for why several results.
llvm::SmallVector<mlir::Value>
mapFullMulti(mlir::OpBuilder &b, mlir::Location loc, const NormLoops &loops,
             mlir::TypeRange resultTypes, mlir::ValueRange inputs,
             llvm::ArrayRef<mlir::AffineMap> maps, NormSumsFn body);

/// Elementwise over tensors of one small shape (statistics, parameters).
mlir::Value mapSame(mlir::OpBuilder &b, mlir::Location loc,
                    mlir::RankedTensorType resultType, mlir::ValueRange inputs,
                    NormBodyFn body);

/// One parallel generic over `inputs` (all of `type`'s shape) with one
/// result of `type` per value `body` returns (the element types of
/// `resultTypes`). For per-channel coefficients read by one per-element
/// generic: the pipeline's elementwise fusion inlines a single-use producer
/// into its consumer, so a coefficient computed alone (a square root, say)
/// would be recomputed for every element; an op with several used results
/// stays apart.
llvm::SmallVector<mlir::Value> mapSameMulti(mlir::OpBuilder &b,
                                            mlir::Location loc,
                                            mlir::TypeRange resultTypes,
                                            mlir::ValueRange inputs,
                                            NormSumsFn body);

/// The f64 scalar 1 / sqrt(var + eps) (var of any float type), rounded to
/// `type`: ATen computes invstd in accscalar_t (f64).
mlir::Value createInvStdScalar(mlir::OpBuilder &b, mlir::Location loc,
                               mlir::Value var, mlir::Value epsF64,
                               mlir::Type type);

/// 1 / sqrt(var + eps) with the sum and the square root in f64 (ATen's
/// accscalar_t), rounded to var's element type.
mlir::Value createInvStd(mlir::OpBuilder &b, mlir::Location loc,
                         mlir::Value var, mlir::Value epsF64);

/// The eps operand (converted: a constant or a run-time f64) as an f64.
mlir::Value getEpsF64(mlir::OpBuilder &b, mlir::Location loc,
                      mlir::Value convertedEps);

/// An optional tensor operand (converted) reshaped to `type`'s shape and
/// cast to its element type. A null Value for None; failure when the
/// element count differs.
mlir::FailureOr<mlir::Value> getOptionalOperand(mlir::OpBuilder &b,
                                                mlir::Location loc,
                                                mlir::Value converted,
                                                mlir::RankedTensorType type);

/// A result of `type`: `value` reshaped and cast to it, or zeros when it is
/// not wanted or `type` has no elements (ATen leaves such outputs empty or
/// undefined). Failure when the element counts differ.
mlir::FailureOr<mlir::Value>
createResult(mlir::OpBuilder &b, mlir::Location loc, bool wanted,
             mlir::RankedTensorType type,
             llvm::function_ref<mlir::Value()> compute);

} // namespace ltc_mlir::torch_to_linalg

#endif // LTC_MLIR_CONVERSION_TORCHTOLINALG_CHANNELNORM_H
