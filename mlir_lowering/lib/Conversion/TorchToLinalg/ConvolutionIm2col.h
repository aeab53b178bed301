//===- ConvolutionIm2col.h - im2col and the convolution matmuls -*- C++ -*-===//
//
// The building blocks of Convolution.cpp (see its overview): the im2col
// tensor col[g, c * T + t, n * P + p] of an input for a given geometry, and
// the batched matmuls that turn it into an output or a weight gradient.
// Internal to lib/Conversion/TorchToLinalg.
//
//===----------------------------------------------------------------------===//
#ifndef LTC_MLIR_LIB_CONVERSION_TORCHTOLINALG_CONVOLUTIONIM2COL_H
#define LTC_MLIR_LIB_CONVERSION_TORCHTOLINALG_CONVOLUTIONIM2COL_H

#include "ltc_mlir/Conversion/TorchToLinalg/Utils.h"

namespace ltc_mlir::torch_to_linalg {

/// a / b rounded towards negative infinity.
int64_t floorDiv(int64_t a, int64_t b);

/// How im2col reads one spatial dim. Output position o and kernel tap k
/// read the virtual position v = o * stride + k' * dilation - padLow (k' =
/// K - 1 - k when `flip`), where input element j sits at j * inputDilation;
/// a position on no element (padding, or between spread-out elements)
/// reads 0. At most one of stride and inputDilation is above 1.
struct SpatialDim {
  int64_t inSize, outSize, kernel, stride, dilation, padLow;
  int64_t inputDilation = 1;
  bool flip = false;
};

/// col[g, c * T + t, n * P + p] of `input` [N, G * Cg, S...] (see
/// SpatialDim), as [G, Cg * T, N * P].
mlir::Value createIm2col(mlir::OpBuilder &b, mlir::Location loc,
                         mlir::Value input, int64_t groups,
                         llvm::ArrayRef<SpatialDim> dims);

/// result[n, g * Fo + f, o...] = bias[g * Fo + f] +
///   sum_k w3[g, f, k] * col[g, k, n * P + p], for w3 [G, Fo, Cg * T],
/// col [G, Cg * T, N * P] and `resultType` [N, G * Fo, O...].
mlir::Value createConvolution(mlir::OpBuilder &b, mlir::Location loc,
                              mlir::Value col, mlir::Value w3, mlir::Value bias,
                              mlir::RankedTensorType resultType);

/// dw[g * Fo + f, c, k...] = sum_{n, p} gradOut[n, g * Fo + f, p] *
///   col[g, c * T + t, n * P + p], for gradOut [N, G * Fo, O...] and
/// `weightType` [G * Fo, Cg, K...].
mlir::Value createWeightGrad(mlir::OpBuilder &b, mlir::Location loc,
                             mlir::Value col, mlir::Value gradOut, int64_t groups,
                             mlir::RankedTensorType weightType);

/// w3 [G, Fo, Cg * T] of a regular weight [G * Fo, Cg, K...].
mlir::Value getRegularWeight(mlir::OpBuilder &b, mlir::Location loc,
                             mlir::Value weight, int64_t groups);

/// w3 [G, Co, Ci * T] of a weight [G * Ci, Co, K...] used the other way
/// round (transposed convolution, input gradient): w3[g, co, ci * T + t] =
/// weight[g * Ci + ci, co, t].
mlir::Value getSwappedWeight(mlir::OpBuilder &b, mlir::Location loc,
                             mlir::Value weight, int64_t groups);

} // namespace ltc_mlir::torch_to_linalg

#endif // LTC_MLIR_LIB_CONVERSION_TORCHTOLINALG_CONVOLUTIONIM2COL_H
