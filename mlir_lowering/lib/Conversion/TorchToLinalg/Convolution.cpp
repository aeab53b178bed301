//===- Convolution.cpp - convolution, convolution_backward -> im2col + bmm ===//
//
// Every convolution-shaped product (forward, transposed forward, the input
// and weight gradients, 1-D to 3-D, any groups) is one batched matmul over
// the groups, fed by an im2col tensor
//   col[g, c * T + t, n * P + p]  (T kernel taps, P output positions)
// so that the pipeline tiles and vectorizes it like any matmul:
//   output      = w[g, f, c*T+t] x col            -> [G, F/G, N*P]
//   grad_weight = col x grad_out^T[g, n*P+p, f]   -> [G, C/G*T, F/G]
// A transposed convolution (and the input gradient of a convolution) is the
// convolution of its input spread out by `stride` (zeros in between),
// padded by dilation * (K - 1) - padding, with the kernel flipped: im2col
// reads that virtual input directly, so no zeros are materialized.
// For kernels above 3x3, col is one linalg.generic reading a zero-padded
// copy of the input at o * stride + k * dilation (compile time independent
// of the kernel size); for smaller kernels, spread-out inputs and negative
// padding it is built with one strided copy per tap: a linalg.generic with
// projected-permutation maps (vectorized along the output rows) from a
// tensor.extract_slice of the input into a tensor.extract_slice of col;
// positions that read padding keep the zeros of col's initial fill.
// The bias gradient is a plain sum over the batch and the spatial dims.
// Float dtypes only; f16/bf16 accumulate in f32, as ATen does.
//
//===----------------------------------------------------------------------===//

#include "ltc_mlir/Conversion/TorchToLinalg/Utils.h"
#include "WindowGather.h"

using namespace mlir;

namespace ltc_mlir::torch_to_linalg {
namespace {

int64_t floorDiv(int64_t a, int64_t b) {
  return a / b - ((a % b != 0) && ((a < 0) != (b < 0)));
}
int64_t ceilDiv(int64_t a, int64_t b) { return -floorDiv(-a, b); }

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

/// Zero-filled accumulator of `shape` and a batch matmul into it.
Value createBatchMatmul(OpBuilder &b, Location loc, Value lhs, Value rhs,
                        ArrayRef<int64_t> shape, Type accType) {
  Value init = createZeroTensor(b, loc, RankedTensorType::get(shape, accType));
  return linalg::BatchMatmulOp::create(
             b, loc, TypeRange{init.getType()}, ValueRange{lhs, rhs},
             ValueRange{init})
      .getResult(0);
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
        if (bias)
          v = arith::AddFOp::create(nb, l, v,
                                    castScalar(nb, l, args[1], accType));
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

/// The constant parameters shared by convolution and convolution_backward.
struct ConvParams {
  SmallVector<int64_t> stride, padding, dilation, outputPadding;
  bool transposed = false;
  int64_t groups = 1;
};

/// A list of `n` ints; one value stands for all (like ATen's
/// expand_param_if_needed).
std::optional<SmallVector<int64_t>> getParamList(Value list, unsigned n) {
  std::optional<SmallVector<int64_t>> values = getConstantIntList(list);
  if (!values)
    return std::nullopt;
  if (values->size() == 1 && n > 1)
    values->assign(n, values->front());
  if (values->size() != n)
    return std::nullopt;
  return values;
}

/// Reads and checks the constant parameters and the operand types; `why`
/// says what is wrong otherwise.
template <typename AdaptorT>
std::optional<ConvParams> getConvParams(AdaptorT adaptor,
                                        RankedTensorType inputType,
                                        RankedTensorType weightType,
                                        std::string &why) {
  int64_t rank = inputType.getRank();
  if (rank < 3 || rank > 5 || weightType.getRank() != rank) {
    why = "expects input and weight of rank 3 to 5 (1-D to 3-D)";
    return std::nullopt;
  }
  Type elemType = inputType.getElementType();
  if (!isa<FloatType>(elemType) || weightType.getElementType() != elemType) {
    why = "expects float input and weight of the same dtype";
    return std::nullopt;
  }
  unsigned nd = rank - 2;
  ConvParams p;
  auto stride = getParamList(adaptor.getStride(), nd);
  auto padding = getParamList(adaptor.getPadding(), nd);
  auto dilation = getParamList(adaptor.getDilation(), nd);
  auto outputPadding = getParamList(adaptor.getOutputPadding(), nd);
  std::optional<bool> transposed = getConstantBool(adaptor.getTransposed());
  std::optional<int64_t> groups = getConstantInt(adaptor.getGroups());
  if (!stride || !padding || !dilation || !outputPadding || !transposed ||
      !groups) {
    why = "stride, padding, dilation, output_padding, transposed and groups "
          "must be constants (one value or one per spatial dim)";
    return std::nullopt;
  }
  p.stride = *stride;
  p.padding = *padding;
  p.dilation = *dilation;
  p.outputPadding = *outputPadding;
  p.transposed = *transposed;
  p.groups = *groups;
  for (unsigned i = 0; i < nd; ++i)
    if (p.stride[i] < 1 || p.dilation[i] < 1 || p.padding[i] < 0 ||
        p.outputPadding[i] < 0) {
      why = "stride and dilation must be >= 1, padding and output_padding "
            ">= 0";
      return std::nullopt;
    }
  int64_t c = inputType.getDimSize(1);
  if (p.groups < 1 || c % p.groups != 0) {
    why = "groups must be >= 1 and divide the input channels";
    return std::nullopt;
  }
  // Regular: weight [F, C / G, K...]; transposed: weight [C, F / G, K...].
  if (p.transposed ? weightType.getDimSize(0) != c
                   : (weightType.getDimSize(1) * p.groups != c ||
                      weightType.getDimSize(0) % p.groups != 0)) {
    why = "weight shape does not match the input channels and groups";
    return std::nullopt;
  }
  return p;
}

/// Output channels and spatial sizes of the convolution, or std::nullopt
/// when the input is too small for the kernel.
std::optional<SmallVector<int64_t>> getOutputShape(const ConvParams &p,
                                                   RankedTensorType inputType,
                                                   RankedTensorType weightType) {
  SmallVector<int64_t> shape = {inputType.getDimSize(0)};
  shape.push_back(p.transposed ? weightType.getDimSize(1) * p.groups
                               : weightType.getDimSize(0));
  for (unsigned i = 0; i + 2 < inputType.getRank(); ++i) {
    int64_t s = inputType.getDimSize(2 + i), k = weightType.getDimSize(2 + i);
    int64_t span = p.dilation[i] * (k - 1);
    int64_t o = p.transposed ? (s - 1) * p.stride[i] - 2 * p.padding[i] +
                                   span + p.outputPadding[i] + 1
                             : floorDiv(s + 2 * p.padding[i] - span - 1,
                                        p.stride[i]) +
                                   1;
    if (o < 0 || k < 1)
      return std::nullopt;
    shape.push_back(o);
  }
  return shape;
}

/// The im2col geometry of a regular convolution from `inSizes` to
/// `outSizes` (also the weight gradient's and, for transposed
/// convolutions, the input gradient's).
SmallVector<SpatialDim> getRegularDims(const ConvParams &p,
                                       ArrayRef<int64_t> inSizes,
                                       ArrayRef<int64_t> outSizes,
                                       ArrayRef<int64_t> kernel) {
  SmallVector<SpatialDim> dims;
  for (unsigned i = 0; i < inSizes.size(); ++i)
    dims.push_back({inSizes[i], outSizes[i], kernel[i], p.stride[i],
                    p.dilation[i], p.padding[i]});
  return dims;
}

/// ... of a transposed convolution from `inSizes` to `outSizes` (also the
/// input gradient of a regular convolution): stride 1 over the input
/// spread out by `stride`, padded by dilation * (K - 1) - padding, kernel
/// flipped.
SmallVector<SpatialDim> getTransposedDims(const ConvParams &p,
                                          ArrayRef<int64_t> inSizes,
                                          ArrayRef<int64_t> outSizes,
                                          ArrayRef<int64_t> kernel) {
  SmallVector<SpatialDim> dims;
  for (unsigned i = 0; i < inSizes.size(); ++i) {
    SpatialDim d{inSizes[i],   outSizes[i],
                 kernel[i],    1,
                 p.dilation[i], p.dilation[i] * (kernel[i] - 1) - p.padding[i]};
    d.inputDilation = p.stride[i];
    d.flip = true;
    dims.push_back(d);
  }
  return dims;
}

class ConvertConvolutionOp
    : public TorchConversionPattern<torch::AtenConvolutionOp> {
public:
  using Base::Base;
  LogicalResult
  matchAndRewrite(torch::AtenConvolutionOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    RankedTensorType resultType = getTensorType(op.getType());
    auto inputType = dyn_cast<RankedTensorType>(adaptor.getInput().getType());
    auto weightType = dyn_cast<RankedTensorType>(adaptor.getWeight().getType());
    if (!resultType || !inputType || !weightType)
      return fail(op, rewriter, "operand types are not convertible");
    std::string why;
    std::optional<ConvParams> p =
        getConvParams(adaptor, inputType, weightType, why);
    if (!p)
      return fail(op, rewriter, why);
    std::optional<SmallVector<int64_t>> shape =
        getOutputShape(*p, inputType, weightType);
    if (!shape || ArrayRef<int64_t>(*shape) != resultType.getShape() ||
        resultType.getElementType() != inputType.getElementType())
      return fail(op, rewriter, "result type does not match the input, weight "
                                "and parameters");
    Value bias;
    if (!isNone(op.getBias())) {
      bias = adaptor.getBias();
      auto biasType = dyn_cast<RankedTensorType>(bias.getType());
      if (!biasType || biasType.getRank() != 1 ||
          biasType.getDimSize(0) != resultType.getDimSize(1) ||
          biasType.getElementType() != resultType.getElementType())
        return fail(op, rewriter, "bias must be [out_channels] of the input "
                                  "dtype");
    }

    Location loc = op.getLoc();
    ArrayRef<int64_t> inSizes = inputType.getShape().drop_front(2);
    ArrayRef<int64_t> outSizes = resultType.getShape().drop_front(2);
    ArrayRef<int64_t> kernel = weightType.getShape().drop_front(2);
    Value col, w3;
    if (p->transposed) {
      col = createIm2col(rewriter, loc, adaptor.getInput(), p->groups,
                         getTransposedDims(*p, inSizes, outSizes, kernel));
      w3 = getSwappedWeight(rewriter, loc, adaptor.getWeight(), p->groups);
    } else {
      col = createIm2col(rewriter, loc, adaptor.getInput(), p->groups,
                         getRegularDims(*p, inSizes, outSizes, kernel));
      w3 = getRegularWeight(rewriter, loc, adaptor.getWeight(), p->groups);
    }
    rewriter.replaceOp(
        op, createConvolution(rewriter, loc, col, w3, bias, resultType));
    return success();
  }
};

/// Sum of grad_output [N, F, O...] over N and O, cast to `type` [F]. One
/// accumulator per channel adds up to N * P values: f32 sums accumulate in
/// f64, f16/bf16 ones in f32 (like ATen).
Value createBiasGrad(OpBuilder &b, Location loc, Value gradOut,
                     RankedTensorType type) {
  auto gType = cast<RankedTensorType>(gradOut.getType());
  Type accType = gType.getElementType().getIntOrFloatBitWidth() < 32
                     ? b.getF32Type()
                     : b.getF64Type();
  SmallVector<int64_t> dims = {0};
  for (int64_t d = 2; d < gType.getRank(); ++d)
    dims.push_back(d);
  Value sum = createReduction(
      b, loc, gradOut, dims, createScalarConstant(b, loc, accType, 0),
      [&](OpBuilder &nb, Location l, Value element, Value acc) -> Value {
        return arith::AddFOp::create(nb, l, castScalar(nb, l, element, accType),
                                     acc);
      });
  return castTensor(b, loc, sum, type.getElementType());
}

class ConvertConvolutionBackwardOp
    : public TorchConversionPattern<torch::AtenConvolutionBackwardOp> {
public:
  using Base::Base;
  LogicalResult
  matchAndRewrite(torch::AtenConvolutionBackwardOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    RankedTensorType gradInputType = getTensorType(op.getGradInput().getType());
    RankedTensorType gradWeightType = getTensorType(op.getGradWeight().getType());
    RankedTensorType gradBiasType = getTensorType(op.getGradBias().getType());
    auto gradOutType =
        dyn_cast<RankedTensorType>(adaptor.getGradOutput().getType());
    auto inputType = dyn_cast<RankedTensorType>(adaptor.getInput().getType());
    auto weightType = dyn_cast<RankedTensorType>(adaptor.getWeight().getType());
    if (!gradInputType || !gradWeightType || !gradBiasType || !gradOutType ||
        !inputType || !weightType)
      return fail(op, rewriter, "operand types are not convertible");
    std::string why;
    std::optional<ConvParams> p =
        getConvParams(adaptor, inputType, weightType, why);
    if (!p)
      return fail(op, rewriter, why);
    std::optional<SmallVector<bool>> mask =
        getConstantBoolList(op.getOutputMask());
    if (!mask || mask->size() != 3)
      return fail(op, rewriter, "output_mask must be 3 constant bools");
    std::optional<SmallVector<int64_t>> shape =
        getOutputShape(*p, inputType, weightType);
    if (!shape || ArrayRef<int64_t>(*shape) != gradOutType.getShape() ||
        gradOutType.getElementType() != inputType.getElementType())
      return fail(op, rewriter, "grad_output type does not match the input, "
                                "weight and parameters");
    // Unwanted gradients are undefined tensors, typed [] or [0] by LTC.
    int64_t channels = gradOutType.getDimSize(1);
    if (((*mask)[0] && gradInputType != inputType) ||
        ((*mask)[1] && gradWeightType != weightType) ||
        ((*mask)[2] &&
         gradBiasType != RankedTensorType::get({channels},
                                               inputType.getElementType())))
      return fail(op, rewriter, "result types do not match the input, weight "
                                "and output channels");

    Location loc = op.getLoc();
    Value gradOut = adaptor.getGradOutput();
    Value input = adaptor.getInput();
    Value weight = adaptor.getWeight();
    ArrayRef<int64_t> inSizes = inputType.getShape().drop_front(2);
    ArrayRef<int64_t> outSizes = gradOutType.getShape().drop_front(2);
    ArrayRef<int64_t> kernel = weightType.getShape().drop_front(2);
    int64_t groups = p->groups;
    Value gradInput, gradWeight, gradBias;
    if (!p->transposed) {
      if ((*mask)[0]) {
        Value col = createIm2col(
            rewriter, loc, gradOut, groups,
            getTransposedDims(*p, outSizes, inSizes, kernel));
        gradInput = createConvolution(
            rewriter, loc, col, getSwappedWeight(rewriter, loc, weight, groups),
            Value(), inputType);
      }
      if ((*mask)[1]) {
        Value col = createIm2col(rewriter, loc, input, groups,
                                 getRegularDims(*p, inSizes, outSizes, kernel));
        gradWeight =
            createWeightGrad(rewriter, loc, col, gradOut, groups, weightType);
      }
    } else if ((*mask)[0] || (*mask)[1]) {
      // The transposed convolution's input gradient is the regular
      // convolution of grad_output; its weight gradient correlates the
      // same im2col of grad_output with the input.
      Value col = createIm2col(rewriter, loc, gradOut, groups,
                               getRegularDims(*p, outSizes, inSizes, kernel));
      if ((*mask)[0])
        gradInput = createConvolution(
            rewriter, loc, col, getRegularWeight(rewriter, loc, weight, groups),
            Value(), inputType);
      if ((*mask)[1])
        gradWeight =
            createWeightGrad(rewriter, loc, col, input, groups, weightType);
    }
    if ((*mask)[2])
      gradBias = createBiasGrad(rewriter, loc, gradOut, gradBiasType);
    if (!gradInput)
      gradInput = createZeroTensor(rewriter, loc, gradInputType);
    if (!gradWeight)
      gradWeight = createZeroTensor(rewriter, loc, gradWeightType);
    if (!gradBias)
      gradBias = createZeroTensor(rewriter, loc, gradBiasType);
    rewriter.replaceOp(op, ValueRange{gradInput, gradWeight, gradBias});
    return success();
  }
};

} // namespace

void populateConvolutionPatterns(TorchTypeConverter &typeConverter,
                                 RewritePatternSet &patterns) {
  patterns.add<ConvertConvolutionOp, ConvertConvolutionBackwardOp>(
      typeConverter, patterns.getContext());
}

} // namespace ltc_mlir::torch_to_linalg
