//===- WindowGather.h - builders shared by pooling and upsampling -*- C++ -*-===//
//
// Pooling, adaptive pooling and upsampling (forward and backward) all compute
// each result element from a small window of source elements per spatial dim.
// Two builders cover them:
//  - window slices (regular pools): one strided tensor.extract_slice of the
//    padded source per window offset, combined by an elementwise generic, or
//    accumulated into strided slices of a result (backward); every map is an
//    identity, so the ops vectorize;
//  - a table gather (irregular windows): per spatial dim and result position,
//    a compile-time list of source positions (and weights), read with
//    tensor.extract in a generic that reduces over the list.
// Internal to lib/Conversion/TorchToLinalg.
//
//===----------------------------------------------------------------------===//
#ifndef LTC_MLIR_LIB_CONVERSION_TORCHTOLINALG_WINDOWGATHER_H
#define LTC_MLIR_LIB_CONVERSION_TORCHTOLINALG_WINDOWGATHER_H

#include "ltc_mlir/Conversion/TorchToLinalg/Utils.h"

namespace ltc_mlir::torch_to_linalg {

/// The accumulation type of a float element type: f32 for f16/bf16 (as
/// ATen's opmath), else itself.
mlir::Type getAccumulatorType(mlir::Type elementType);

/// -inf for floats, the lowest value for signed integers.
mlir::Value createLowestValue(mlir::OpBuilder &b, mlir::Location loc,
                              mlir::Type type);

/// `input` padded with `padValue`: `low[d]` / `high[d]` elements before /
/// after each of its trailing `low.size()` dims (a fill of the padded shape
/// and a copy into its interior). Returns `input` when nothing is padded.
mlir::Value createPadded(mlir::OpBuilder &b, mlir::Location loc,
                         mlir::Value input, llvm::ArrayRef<int64_t> low,
                         llvm::ArrayRef<int64_t> high, mlir::Value padValue);

/// The strided slice of the trailing spatial dims of `source` starting at
/// `offsets`, with `sizes` elements `strides` apart (leading dims whole).
mlir::Value createSpatialSlice(mlir::OpBuilder &b, mlir::Location loc,
                               mlir::Value source,
                               llvm::ArrayRef<int64_t> offsets,
                               llvm::ArrayRef<int64_t> sizes,
                               llvm::ArrayRef<int64_t> strides);

/// Inserts `slice` back at the place createSpatialSlice took it from.
mlir::Value insertSpatialSlice(mlir::OpBuilder &b, mlir::Location loc,
                               mlir::Value slice, mlir::Value dest,
                               llvm::ArrayRef<int64_t> offsets,
                               llvm::ArrayRef<int64_t> strides);

/// Every window offset (k_1, ..., k_n) with 0 <= k_d < kernel[d], in
/// row-major order (the order ATen's kernels visit a window in).
llvm::SmallVector<llvm::SmallVector<int64_t>>
enumerateWindow(llvm::ArrayRef<int64_t> kernel);

/// The values of linalg.index for the dims [first, first + count) of the
/// enclosing linalg op, as `index` values.
llvm::SmallVector<mlir::Value> getLoopIndices(mlir::OpBuilder &b,
                                              mlir::Location loc,
                                              unsigned first, unsigned count);

/// One spatial dim of a table gather: for each result position i in
/// [0, size), up to `window` source positions `source[i * window + j]`
/// (-1 = no entry) with optional weights, visited in order j = 0, 1, ...
struct GatherDim {
  int64_t size = 0;
  int64_t window = 1;
  llvm::SmallVector<int64_t> source;
  llvm::SmallVector<double> weight; ///< empty, or one per source entry
};

/// One source position read by a window, with its weight (1 if unweighted);
/// a negative position is padding (no entry).
struct WindowEntry {
  int64_t position;
  double weight = 1.0;
};
/// The entries of the window of result position `o`, in visiting order.
using WindowFn = llvm::function_ref<llvm::SmallVector<WindowEntry>(int64_t o)>;

/// Forward table: result position o reads window(o) (padding dropped).
GatherDim getGatherTable(int64_t outSize, WindowFn window, bool weighted);
/// Transposed table: source position i of [0, inSize) receives from every o
/// whose window reads it, in increasing o (then window) order: the order in
/// which ATen's backward kernels scatter-add into i.
GatherDim getScatterTable(int64_t inSize, int64_t outSize, WindowFn window,
                          bool weighted);

/// The entries of the window of result position `o` of spatial dim `d`.
using DimWindowFn = llvm::function_ref<llvm::SmallVector<WindowEntry>(
    size_t d, int64_t o)>;
/// getGatherTable of every spatial dim d (outSizes[d] result positions).
llvm::SmallVector<GatherDim> getGatherTables(llvm::ArrayRef<int64_t> outSizes,
                                             DimWindowFn window,
                                             bool weighted);
/// getScatterTable of every spatial dim d (inSizes[d] source positions,
/// outSizes[d] result positions).
llvm::SmallVector<GatherDim>
getScatterTables(llvm::ArrayRef<int64_t> inSizes,
                 llvm::ArrayRef<int64_t> outSizes, DimWindowFn window,
                 bool weighted);

/// Body of a table gather: `batch` and `positions` (index values: the
/// leading dims, then one clamped source position per spatial dim), `valid`
/// (i1: every dim has an entry), the entry weights of the dims that have
/// them, and the accumulators; returns the new accumulators. Source tensors
/// are read with tensor.extract at the given positions (always in bounds).
using GatherBody = llvm::function_ref<llvm::SmallVector<mlir::Value>(
    mlir::OpBuilder &, mlir::Location, mlir::ValueRange batch,
    mlir::ValueRange positions, mlir::Value valid, mlir::ValueRange weights,
    mlir::ValueRange accs)>;

/// A linalg.generic over [batchShape..., dims[d].size..., dims[d].window...]
/// whose outputs `inits` (shape [batchShape..., sizes...]) are reduced over
/// the windows in row-major order by `body`. Weights are materialised as
/// `weightType` constants.
llvm::SmallVector<mlir::Value>
createTableGather(mlir::OpBuilder &b, mlir::Location loc,
                  llvm::ArrayRef<int64_t> batchShape,
                  llvm::ArrayRef<GatherDim> dims, mlir::ValueRange inits,
                  mlir::Type weightType, GatherBody body);

/// A table gather that copies, for each element of `resultType`, the one
/// entry of its window (`dims` from getGatherTable with single-entry
/// windows) from `input`.
mlir::Value createGatheredCopy(mlir::OpBuilder &b, mlir::Location loc,
                               mlir::Value input,
                               llvm::ArrayRef<int64_t> batchShape,
                               llvm::ArrayRef<GatherDim> dims,
                               mlir::RankedTensorType resultType);

/// Max pooling over table windows (`dims` from getGatherTable) of `input`
/// (trailing dims of sizes `inSizes`) with ATen's rules: the first entry of a
/// window is taken whatever its value, then an entry replaces the maximum
/// when greater or NaN; the index is its flat position in the input plane.
std::pair<mlir::Value, mlir::Value>
createGatheredMax(mlir::OpBuilder &b, mlir::Location loc, mlir::Value input,
                  llvm::ArrayRef<int64_t> batchShape,
                  llvm::ArrayRef<GatherDim> dims,
                  mlir::RankedTensorType valuesType,
                  mlir::RankedTensorType indicesType);

/// Backward of a max pooling: grad_input (of `resultType`, the input's shape
/// and the accumulation type) sums the grad_output elements of the outputs
/// listed by `dims` (getScatterTable) whose index is this input position.
mlir::Value createGatheredMaxBackward(mlir::OpBuilder &b, mlir::Location loc,
                                      mlir::Value grad, mlir::Value indices,
                                      llvm::ArrayRef<int64_t> batchShape,
                                      llvm::ArrayRef<GatherDim> dims,
                                      mlir::RankedTensorType resultType);

/// Sum over table windows of `source`'s elements (times the product of the
/// entry weights, in dim order, when `dims` have weights), converted to the
/// element type of `resultType` first, starting from 0.
mlir::Value createGatheredSum(mlir::OpBuilder &b, mlir::Location loc,
                              mlir::Value source,
                              llvm::ArrayRef<int64_t> batchShape,
                              llvm::ArrayRef<GatherDim> dims,
                              mlir::RankedTensorType resultType);

/// A regular N-d pooling window (ATen's pooling parameters, checked).
struct PoolGeometry {
  llvm::SmallVector<int64_t> batchShape; ///< leading dims ([N, C] or [C])
  llvm::SmallVector<int64_t> in, out, kernel, stride, padding, dilation;
  bool ceilMode = false;

  size_t rank() const { return in.size(); }
  int64_t windowSize() const;
  /// Padding after each dim so that every window lies in the padded input.
  llvm::SmallVector<int64_t> highPadding() const;
  /// batchShape followed by `spatial`.
  llvm::SmallVector<int64_t> resultShape(llvm::ArrayRef<int64_t> spatial) const;
  /// The input positions of the window of output `o` along dim `d`
  /// (negative or >= in[d] in the padding).
  llvm::SmallVector<WindowEntry> window(size_t d, int64_t o) const;
};

/// The strided slices of `padded` (the input padded by `g.padding` and
/// `g.highPadding()`), one per window offset in row-major order: slice k
/// holds, at each output position, that output's k-th window element.
llvm::SmallVector<mlir::Value> getWindowSlices(mlir::OpBuilder &b,
                                               mlir::Location loc,
                                               mlir::Value padded,
                                               const PoolGeometry &g);

/// A pooling backward without scatter: for every window offset, in reverse
/// row-major order, an elementwise generic over the output positions adds
/// `contribution(args, offset)` into the strided slice of a zero padded
/// accumulator of `accType` holding each output's window element at that
/// offset (`args`: the elements of `inputs`, shaped like the output). The
/// reverse order makes every input element receive its contributions in
/// raster order of the outputs, like ATen's kernels. Returns the interior
/// (the input's shape) of the accumulator.
using ContributionFn = llvm::function_ref<mlir::Value(
    mlir::OpBuilder &, mlir::Location, mlir::ValueRange args,
    llvm::ArrayRef<int64_t> offset)>;
mlir::Value createUnrolledBackward(mlir::OpBuilder &b, mlir::Location loc,
                                   const PoolGeometry &g,
                                   mlir::ValueRange inputs, mlir::Type accType,
                                   ContributionFn contribution);

/// The flat position sum_d positions[d] * prod_{e>d} sizes[e] as i64 (the
/// indices max pooling returns: positions in the input plane).
mlir::Value createFlatPosition(mlir::OpBuilder &b, mlir::Location loc,
                               mlir::ValueRange positions,
                               llvm::ArrayRef<int64_t> sizes);

/// `v > cur || isnan(v)` for floats (ATen's max pooling update: the first
/// maximum wins, a NaN always replaces), `v > cur` for integers.
mlir::Value createMaxPoolTakes(mlir::OpBuilder &b, mlir::Location loc,
                               mlir::Value v, mlir::Value cur);

} // namespace ltc_mlir::torch_to_linalg

#endif // LTC_MLIR_LIB_CONVERSION_TORCHTOLINALG_WINDOWGATHER_H
