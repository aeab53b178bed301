//===- ConvolutionIm2col.cpp - im2col and the batched matmuls of a conv --===//
//
// See ConvolutionIm2col.h and the overview in Convolution.cpp.
//
//===----------------------------------------------------------------------===//

#include "ConvolutionIm2col.h"
#include "WindowGather.h"

using namespace mlir;

namespace ltc_mlir::torch_to_linalg {

int64_t floorDiv(int64_t a, int64_t b) {
  return a / b - ((a % b != 0) && ((a < 0) != (b < 0)));
}

namespace {

int64_t ceilDiv(int64_t a, int64_t b) { return -floorDiv(-a, b); }

/// The output positions one tap reads in bounds: `count` positions from
/// dstOffset by dstStride, reading the input from srcOffset by srcStride.
struct TapRange {
  int64_t count = 0, srcOffset = 0, srcStride = 1, dstOffset = 0,
          dstStride = 1;
};

TapRange getTapRange(const SpatialDim &d, int64_t k) {
  int64_t shift = (d.flip ? d.kernel - 1 - k : k) * d.dilation - d.padLow;
  TapRange r;
  if (d.inputDilation == 1) {
    // 0 <= o * stride + shift <= inSize - 1, 0 <= o < outSize.
    int64_t lo = std::max<int64_t>(0, ceilDiv(-shift, d.stride));
    int64_t hi =
        std::min(d.outSize - 1, floorDiv(d.inSize - 1 - shift, d.stride));
    if (hi >= lo) {
      r.count = hi - lo + 1;
      r.srcOffset = lo * d.stride + shift;
      r.srcStride = d.stride;
      r.dstOffset = lo;
    }
    return r;
  }
  // stride 1: o + shift = j * inputDilation for 0 <= j < inSize and
  // 0 <= o < outSize; iterate over j.
  int64_t u = d.inputDilation;
  int64_t lo = std::max<int64_t>(0, ceilDiv(shift, u));
  int64_t hi = std::min(d.inSize - 1, floorDiv(d.outSize - 1 + shift, u));
  if (hi >= lo) {
    r.count = hi - lo + 1;
    r.srcOffset = lo;
    r.dstOffset = lo * u - shift;
    r.dstStride = u;
  }
  return r;
}

SmallVector<utils::IteratorType> parallelIterators(unsigned n) {
  return SmallVector<utils::IteratorType>(n, utils::IteratorType::parallel);
}

/// A parallel linalg.generic writing `init` (identity map) from `inputs`
/// read through `inputMaps`; `body` gets the inputs' payload arguments.
Value createPermutingGeneric(OpBuilder &b, Location loc, Value init,
                             ValueRange inputs, ArrayRef<AffineMap> inputMaps,
                             ScalarBodyBuilder body) {
  auto type = cast<RankedTensorType>(init.getType());
  SmallVector<AffineMap> maps(inputMaps);
  maps.push_back(b.getMultiDimIdentityMap(type.getRank()));
  return linalg::GenericOp::create(
             b, loc, TypeRange{type}, inputs, ValueRange{init}, maps,
             parallelIterators(type.getRank()),
             [&](OpBuilder &nb, Location nloc, ValueRange args) {
               linalg::YieldOp::create(nb, nloc,
                                       body(nb, nloc, args.drop_back()));
             })
      .getResult(0);
}

/// (d0 .. d{rank-1}) -> (d{perm[0]}, ..., d{perm[k]}).
AffineMap getPermutationMap(unsigned rank, ArrayRef<unsigned> perm,
                            MLIRContext *ctx) {
  SmallVector<AffineExpr> exprs;
  for (unsigned p : perm)
    exprs.push_back(getAffineDimExpr(p, ctx));
  return AffineMap::get(rank, 0, exprs, ctx);
}

Value collapse(OpBuilder &b, Location loc, Value v, ArrayRef<int64_t> shape) {
  auto type = cast<RankedTensorType>(v.getType());
  return *createReshape(b, loc, v,
                        RankedTensorType::get(shape, type.getElementType()));
}

int64_t product(ArrayRef<int64_t> xs) {
  int64_t p = 1;
  for (int64_t x : xs)
    p *= x;
  return p;
}

/// Kernels with more taps build im2col with createIm2colSingleCopy.
constexpr int64_t kMaxTapsCopiedPerTap = 9;

/// createIm2col as one linalg.generic over a zero-padded copy of the input,
/// for the common case (no input dilation, no negative padding): a
/// compile-time cost independent of the number of taps (a 7x7 depthwise
/// convolution's per-tap copies were 49 kernels each for the forward and
/// the input gradient). Its read map (o * stride + k * dilation) is not a
/// permutation, so it is not vectorized by the pipeline; it is a copy.
/// Returns null when the dims need the per-tap form.
Value createIm2colSingleCopy(OpBuilder &b, Location loc, Value grouped,
                             ArrayRef<SpatialDim> dims, ArrayRef<int64_t> colShape) {
  MLIRContext *ctx = b.getContext();
  auto type = cast<RankedTensorType>(grouped.getType());
  unsigned nd = dims.size();
  SmallVector<int64_t> low, high;
  for (const SpatialDim &d : dims) {
    if (d.inputDilation != 1 || d.padLow < 0 || d.stride < 1 || d.dilation < 1)
      return nullptr;
    int64_t needed = (d.outSize - 1) * d.stride + (d.kernel - 1) * d.dilation + 1;
    low.push_back(d.padLow);
    high.push_back(std::max<int64_t>(0, needed - d.inSize - d.padLow));
  }
  Type elemType = type.getElementType();
  Value zero = arith::ConstantOp::create(b, loc, b.getZeroAttr(elemType));
  Value padded = createPadded(b, loc, grouped, low, high, zero);
  // Loops (g, c, k..., n, o...) = col's dims; the padded input
  // [N, G, Cg, S...] is read at (n, g, c, o * stride + k' * dilation).
  unsigned loops = 3 + 2 * nd;
  SmallVector<AffineExpr> exprs = {getAffineDimExpr(2 + nd, ctx),
                                   getAffineDimExpr(0, ctx),
                                   getAffineDimExpr(1, ctx)};
  for (unsigned i = 0; i < nd; ++i) {
    const SpatialDim &d = dims[i];
    AffineExpr k = getAffineDimExpr(2 + i, ctx);
    AffineExpr tap = d.flip ? (d.kernel - 1 - k) : k;
    exprs.push_back(getAffineDimExpr(3 + nd + i, ctx) * d.stride +
                    tap * d.dilation);
  }
  AffineMap readMap = AffineMap::get(loops, 0, exprs, ctx);
  Value init = createEmptyTensor(b, loc, RankedTensorType::get(colShape, elemType));
  return createPermutingGeneric(
      b, loc, init, padded, readMap,
      [](OpBuilder &, Location, ValueRange args) { return args[0]; });
}

/// Zero-filled accumulator of `shape` and a batch matmul into it.
Value createBatchMatmul(OpBuilder &b, Location loc, Value lhs, Value rhs,
                        ArrayRef<int64_t> shape, Type accType) {
  Value init = createZeroTensor(b, loc, RankedTensorType::get(shape, accType));
  return linalg::BatchMatmulOp::create(
             b, loc, TypeRange{init.getType()}, ValueRange{lhs, rhs},
             ValueRange{init})
      .getResult(0);
}

} // namespace

/// col[g, c * T + t, n * P + p] of `input` [N, G * Cg, S...] (see
/// SpatialDim), as [G, Cg * T, N * P].
Value createIm2col(OpBuilder &b, Location loc, Value input, int64_t groups,
                   ArrayRef<SpatialDim> dims) {
  MLIRContext *ctx = b.getContext();
  auto inType = cast<RankedTensorType>(input.getType());
  Type elemType = inType.getElementType();
  int64_t n = inType.getDimSize(0), cg = inType.getDimSize(1) / groups;
  unsigned nd = dims.size();
  SmallVector<int64_t> kernel, outSizes;
  for (const SpatialDim &d : dims) {
    kernel.push_back(d.kernel);
    outSizes.push_back(d.outSize);
  }
  int64_t taps = product(kernel), positions = product(outSizes);

  // [G, Cg, T, N, O...]: the per-tap slices are [G, Cg, N, O...] boxes.
  SmallVector<int64_t> colShape = {groups, cg, taps, n};
  colShape.append(outSizes);
  auto colType = RankedTensorType::get(colShape, elemType);
  SmallVector<int64_t> resultShape = {groups, cg * taps, n * positions};
  if (colType.getNumElements() == 0)
    return createEmptyTensor(b, loc,
                             RankedTensorType::get(resultShape, elemType));

  // The input as [N, G, Cg, S...].
  SmallVector<int64_t> groupedShape = {n, groups, cg};
  groupedShape.append(inType.getShape().begin() + 2, inType.getShape().end());

  // Up to 3x3 the per-tap copies are vectorized and measurably faster at
  // run time (ResNet-18 training ~9%); beyond, their number dominates the
  // compile time (a 7x7 depthwise convolution: 4.9 s -> 0.7 s).
  if (taps > kMaxTapsCopiedPerTap) {
    // [G, Cg, K..., N, O...]: the same element order as colShape.
    SmallVector<int64_t> unrolledShape = {groups, cg};
    unrolledShape.append(kernel);
    unrolledShape.push_back(n);
    unrolledShape.append(outSizes);
    if (Value col = createIm2colSingleCopy(b, loc, collapse(b, loc, input, groupedShape),
                                           dims, unrolledShape))
      return collapse(b, loc, col, resultShape);
  }

  SmallVector<SmallVector<TapRange>> ranges;
  bool coversAll = true;
  for (int64_t t = 0; t < taps; ++t) {
    SmallVector<TapRange> tap(nd);
    for (int64_t i = nd - 1, rest = t; i >= 0; --i) {
      tap[i] = getTapRange(dims[i], rest % kernel[i]);
      rest /= kernel[i];
      coversAll &= tap[i].count == dims[i].outSize && tap[i].dstStride == 1;
    }
    ranges.push_back(tap);
  }
  Value col = coversAll ? createEmptyTensor(b, loc, colType)
                        : createZeroTensor(b, loc, colType);
  Value grouped = collapse(b, loc, input, groupedShape);

  // Copy loops (g, c, n, o...) read the input slice at (n, g, c, o...).
  unsigned loops = 3 + nd;
  SmallVector<unsigned> srcPerm = {2, 0, 1};
  for (unsigned i = 0; i < nd; ++i)
    srcPerm.push_back(3 + i);
  AffineMap srcMap = getPermutationMap(loops, srcPerm, ctx);
  auto one = b.getIndexAttr(1), zero = b.getIndexAttr(0);
  for (auto [t, tap] : llvm::enumerate(ranges)) {
    if (llvm::any_of(tap, [](const TapRange &r) { return r.count == 0; }))
      continue;
    SmallVector<OpFoldResult> srcOffsets(3, zero), srcSizes, srcStrides(3, one);
    srcSizes = {b.getIndexAttr(n), b.getIndexAttr(groups), b.getIndexAttr(cg)};
    SmallVector<OpFoldResult> dstOffsets = {zero, zero, b.getIndexAttr(t),
                                            zero};
    SmallVector<OpFoldResult> dstSizes = {b.getIndexAttr(groups),
                                          b.getIndexAttr(cg), one,
                                          b.getIndexAttr(n)};
    SmallVector<OpFoldResult> dstStrides(4, one);
    SmallVector<int64_t> srcShape = {n, groups, cg}, dstShape = {groups, cg, n};
    for (const TapRange &r : tap) {
      srcOffsets.push_back(b.getIndexAttr(r.srcOffset));
      srcSizes.push_back(b.getIndexAttr(r.count));
      srcStrides.push_back(b.getIndexAttr(r.srcStride));
      dstOffsets.push_back(b.getIndexAttr(r.dstOffset));
      dstSizes.push_back(b.getIndexAttr(r.count));
      dstStrides.push_back(b.getIndexAttr(r.dstStride));
      srcShape.push_back(r.count);
      dstShape.push_back(r.count);
    }
    Value src = tensor::ExtractSliceOp::create(
        b, loc, RankedTensorType::get(srcShape, elemType), grouped, srcOffsets,
        srcSizes, srcStrides);
    // Rank-reduced (the tap dim dropped); written in place into col.
    Value dst = tensor::ExtractSliceOp::create(
        b, loc, RankedTensorType::get(dstShape, elemType), col, dstOffsets,
        dstSizes, dstStrides);
    Value copied = createPermutingGeneric(
        b, loc, dst, src, srcMap,
        [](OpBuilder &, Location, ValueRange args) { return args[0]; });
    col = tensor::InsertSliceOp::create(b, loc, copied, col, dstOffsets,
                                        dstSizes, dstStrides);
  }
  return collapse(b, loc, col, resultShape);
}

/// result[n, g * Fo + f, o...] = bias[g * Fo + f] +
///   sum_k w3[g, f, k] * col[g, k, n * P + p], for w3 [G, Fo, Cg * T],
/// col [G, Cg * T, N * P] and `resultType` [N, G * Fo, O...].
Value createConvolution(OpBuilder &b, Location loc, Value col, Value w3,
                        Value bias, RankedTensorType resultType) {
  MLIRContext *ctx = b.getContext();
  auto wType = cast<RankedTensorType>(w3.getType());
  Type elemType = resultType.getElementType();
  Type accType = getAccumulatorType(elemType);
  int64_t groups = wType.getDimSize(0), fo = wType.getDimSize(1);
  int64_t np = cast<RankedTensorType>(col.getType()).getDimSize(2);
  Value prod = createBatchMatmul(b, loc, w3, col, {groups, fo, np}, accType);

  int64_t n = resultType.getDimSize(0);
  ArrayRef<int64_t> outSizes = resultType.getShape().drop_front(2);
  // [G, Fo, 1, P] is already [1, G * Fo, P] in memory.
  if (!bias && accType == elemType && n == 1)
    return collapse(b, loc, prod, resultType.getShape());

  // Loops (n, g, f, o...) over [N, G, Fo, O...].
  unsigned nd = outSizes.size(), loops = 3 + nd;
  SmallVector<int64_t> prodShape = {groups, fo, n};
  prodShape.append(outSizes.begin(), outSizes.end());
  SmallVector<int64_t> outShape = {n, groups, fo};
  outShape.append(outSizes.begin(), outSizes.end());
  SmallVector<unsigned> prodPerm = {1, 2, 0};
  for (unsigned i = 0; i < nd; ++i)
    prodPerm.push_back(3 + i);
  SmallVector<Value> inputs = {collapse(b, loc, prod, prodShape)};
  SmallVector<AffineMap> maps = {getPermutationMap(loops, prodPerm, ctx)};
  if (bias) {
    inputs.push_back(collapse(b, loc, bias, {groups, fo}));
    maps.push_back(getPermutationMap(loops, {1, 2}, ctx));
  }
  Value out = createPermutingGeneric(
      b, loc, createEmptyTensor(b, loc, RankedTensorType::get(outShape, elemType)),
      inputs, maps, [&](OpBuilder &nb, Location l, ValueRange args) {
        Value v = args[0];
        if (bias) {
          Value bv = castScalar(nb, l, args[1], accType);
          v = isa<FloatType>(accType) ? arith::AddFOp::create(nb, l, v, bv).getResult()
                                      : arith::AddIOp::create(nb, l, v, bv).getResult();
        }
        return castScalar(nb, l, v, elemType);
      });
  return collapse(b, loc, out, resultType.getShape());
}

/// dw[g * Fo + f, c, k...] = sum_{n, p} gradOut[n, g * Fo + f, p] *
///   col[g, c * T + t, n * P + p], for gradOut [N, G * Fo, O...] and
/// `weightType` [G * Fo, Cg, K...].
Value createWeightGrad(OpBuilder &b, Location loc, Value col, Value gradOut,
                       int64_t groups, RankedTensorType weightType) {
  MLIRContext *ctx = b.getContext();
  auto gType = cast<RankedTensorType>(gradOut.getType());
  Type elemType = weightType.getElementType();
  Type accType = getAccumulatorType(elemType);
  int64_t n = gType.getDimSize(0), fo = gType.getDimSize(1) / groups;
  ArrayRef<int64_t> outSizes = gType.getShape().drop_front(2);
  int64_t np = n * product(outSizes);
  int64_t k = cast<RankedTensorType>(col.getType()).getDimSize(1);

  // gradOut^T [G, N, O..., Fo] (loops in that order), read at (n, g, f, o...).
  unsigned nd = outSizes.size(), loops = 3 + nd;
  SmallVector<int64_t> groupedShape = {n, groups, fo};
  groupedShape.append(outSizes.begin(), outSizes.end());
  SmallVector<int64_t> transposedShape = {groups, n};
  transposedShape.append(outSizes.begin(), outSizes.end());
  transposedShape.push_back(fo);
  SmallVector<unsigned> perm = {1, 0, loops - 1};
  for (unsigned i = 0; i < nd; ++i)
    perm.push_back(2 + i);
  Value gT = createPermutingGeneric(
      b, loc,
      createEmptyTensor(b, loc,
                        RankedTensorType::get(transposedShape, elemType)),
      collapse(b, loc, gradOut, groupedShape),
      getPermutationMap(loops, perm, ctx),
      [](OpBuilder &, Location, ValueRange args) { return args[0]; });
  Value prod = createBatchMatmul(b, loc, col,
                                 collapse(b, loc, gT, {groups, np, fo}),
                                 {groups, k, fo}, accType);
  // [G, Cg * T, Fo] -> [G, Fo, Cg * T].
  Value dw = createPermutingGeneric(
      b, loc,
      createEmptyTensor(b, loc,
                        RankedTensorType::get({groups, fo, k}, elemType)),
      prod, getPermutationMap(3, {0, 2, 1}, ctx),
      [&](OpBuilder &nb, Location l, ValueRange args) {
        return castScalar(nb, l, args[0], elemType);
      });
  return collapse(b, loc, dw, weightType.getShape());
}

/// w3 [G, Fo, Cg * T] of a regular weight [G * Fo, Cg, K...].
Value getRegularWeight(OpBuilder &b, Location loc, Value weight,
                       int64_t groups) {
  auto type = cast<RankedTensorType>(weight.getType());
  int64_t k = product(type.getShape().drop_front(2));
  return collapse(b, loc, weight,
                  {groups, type.getDimSize(0) / groups, type.getDimSize(1) * k});
}

/// w3 [G, Co, Ci * T] of a weight [G * Ci, Co, K...] used the other way
/// round (transposed convolution, input gradient): w3[g, co, ci * T + t] =
/// weight[g * Ci + ci, co, t].
Value getSwappedWeight(OpBuilder &b, Location loc, Value weight,
                       int64_t groups) {
  auto type = cast<RankedTensorType>(weight.getType());
  int64_t ci = type.getDimSize(0) / groups, co = type.getDimSize(1);
  int64_t t = product(type.getShape().drop_front(2));
  if (ci == 1 || co == 1) // the same order in memory
    return collapse(b, loc, weight, {groups, co, ci * t});
  Value w4 = collapse(b, loc, weight, {groups, ci, co, t});
  Value swapped = createPermutingGeneric(
      b, loc,
      createEmptyTensor(
          b, loc, RankedTensorType::get({groups, co, ci, t}, type.getElementType())),
      w4, getPermutationMap(4, {0, 2, 1, 3}, b.getContext()),
      [](OpBuilder &, Location, ValueRange args) { return args[0]; });
  return collapse(b, loc, swapped, {groups, co, ci * t});
}

} // namespace ltc_mlir::torch_to_linalg
