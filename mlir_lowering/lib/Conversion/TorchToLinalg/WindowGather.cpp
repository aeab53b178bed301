//===- WindowGather.cpp - builders shared by pooling and upsampling -------===//

#include "WindowGather.h"

#include "mlir/Dialect/Utils/StaticValueUtils.h"

using namespace mlir;

namespace ltc_mlir::torch_to_linalg {

Type getAccumulatorType(Type elementType) {
  if (elementType.isF16() || elementType.isBF16())
    return Float32Type::get(elementType.getContext());
  return elementType;
}

Value createLowestValue(OpBuilder &b, Location loc, Type type) {
  if (auto floatType = dyn_cast<FloatType>(type))
    return arith::ConstantOp::create(
        b, loc,
        b.getFloatAttr(floatType, APFloat::getInf(floatType.getFloatSemantics(),
                                                  /*Negative=*/true)));
  unsigned width = type.getIntOrFloatBitWidth();
  return arith::ConstantOp::create(
      b, loc, b.getIntegerAttr(type, APInt::getSignedMinValue(width)));
}

Value createPadded(OpBuilder &b, Location loc, Value input,
                   ArrayRef<int64_t> low, ArrayRef<int64_t> high,
                   Value padValue) {
  auto type = cast<RankedTensorType>(input.getType());
  int64_t lead = type.getRank() - low.size();
  SmallVector<int64_t> shape(type.getShape());
  bool padded = false;
  for (size_t d = 0; d < low.size(); ++d) {
    shape[lead + d] += low[d] + high[d];
    padded |= low[d] != 0 || high[d] != 0;
  }
  if (!padded)
    return input;
  auto paddedType = RankedTensorType::get(shape, type.getElementType());
  Value filled = createFilledTensor(b, loc, paddedType, padValue);
  SmallVector<int64_t> offsets(lead, 0);
  offsets.append(low.begin(), low.end());
  SmallVector<int64_t> ones(type.getRank(), 1);
  Value interior = tensor::ExtractSliceOp::create(
      b, loc, type, filled, getAsIndexOpFoldResult(b.getContext(), offsets),
      getAsIndexOpFoldResult(b.getContext(), type.getShape()),
      getAsIndexOpFoldResult(b.getContext(), ones));
  // A linalg.copy (vectorized) rather than a memref.copy into a strided view.
  Value copied =
      linalg::CopyOp::create(b, loc, ValueRange{input}, ValueRange{interior})
          .getResult(0);
  return tensor::InsertSliceOp::create(
      b, loc, copied, filled, getAsIndexOpFoldResult(b.getContext(), offsets),
      getAsIndexOpFoldResult(b.getContext(), type.getShape()),
      getAsIndexOpFoldResult(b.getContext(), ones));
}

namespace {
struct SliceParams {
  SmallVector<OpFoldResult> offsets, sizes, strides;
};

SliceParams getSpatialSliceParams(OpBuilder &b, RankedTensorType sourceType,
                                  ArrayRef<int64_t> offsets,
                                  ArrayRef<int64_t> sizes,
                                  ArrayRef<int64_t> strides) {
  int64_t lead = sourceType.getRank() - offsets.size();
  SmallVector<int64_t> o(lead, 0), s(sourceType.getShape().take_front(lead)),
      st(lead, 1);
  o.append(offsets.begin(), offsets.end());
  s.append(sizes.begin(), sizes.end());
  st.append(strides.begin(), strides.end());
  MLIRContext *context = b.getContext();
  return {getAsIndexOpFoldResult(context, o), getAsIndexOpFoldResult(context, s),
          getAsIndexOpFoldResult(context, st)};
}
} // namespace

Value createSpatialSlice(OpBuilder &b, Location loc, Value source,
                         ArrayRef<int64_t> offsets, ArrayRef<int64_t> sizes,
                         ArrayRef<int64_t> strides) {
  auto type = cast<RankedTensorType>(source.getType());
  SliceParams p = getSpatialSliceParams(b, type, offsets, sizes, strides);
  SmallVector<int64_t> shape(type.getShape().take_front(type.getRank() -
                                                        sizes.size()));
  shape.append(sizes.begin(), sizes.end());
  auto sliceType = RankedTensorType::get(shape, type.getElementType());
  return tensor::ExtractSliceOp::create(b, loc, sliceType, source, p.offsets,
                                        p.sizes, p.strides);
}

Value insertSpatialSlice(OpBuilder &b, Location loc, Value slice, Value dest,
                         ArrayRef<int64_t> offsets, ArrayRef<int64_t> strides) {
  auto destType = cast<RankedTensorType>(dest.getType());
  auto sliceType = cast<RankedTensorType>(slice.getType());
  ArrayRef<int64_t> sizes =
      sliceType.getShape().take_back(static_cast<int64_t>(offsets.size()));
  SliceParams p = getSpatialSliceParams(b, destType, offsets, sizes, strides);
  return tensor::InsertSliceOp::create(b, loc, slice, dest, p.offsets, p.sizes,
                                       p.strides);
}

SmallVector<SmallVector<int64_t>> enumerateWindow(ArrayRef<int64_t> kernel) {
  SmallVector<SmallVector<int64_t>> offsets = {{}};
  for (int64_t k : kernel) {
    SmallVector<SmallVector<int64_t>> next;
    for (const SmallVector<int64_t> &prefix : offsets)
      for (int64_t i = 0; i < k; ++i) {
        next.push_back(prefix);
        next.back().push_back(i);
      }
    offsets = std::move(next);
  }
  return offsets;
}

SmallVector<Value> getLoopIndices(OpBuilder &b, Location loc, unsigned first,
                                  unsigned count) {
  SmallVector<Value> indices;
  for (unsigned d = first; d < first + count; ++d)
    indices.push_back(linalg::IndexOp::create(b, loc, d));
  return indices;
}

namespace {
/// The table of one entry list per position, each padded with -1 entries
/// (weight 0) to the longest list (at least 1).
GatherDim createTable(ArrayRef<SmallVector<WindowEntry>> lists,
                      bool weighted) {
  GatherDim t;
  t.size = lists.size();
  for (const SmallVector<WindowEntry> &list : lists)
    t.window = std::max<int64_t>(t.window, list.size());
  for (const SmallVector<WindowEntry> &list : lists)
    for (int64_t j = 0; j < t.window; ++j) {
      bool has = j < static_cast<int64_t>(list.size());
      t.source.push_back(has ? list[j].position : -1);
      if (weighted)
        t.weight.push_back(has ? list[j].weight : 0.0);
    }
  return t;
}
} // namespace

GatherDim getGatherTable(int64_t outSize, WindowFn window, bool weighted) {
  SmallVector<SmallVector<WindowEntry>> lists;
  for (int64_t o = 0; o < outSize; ++o)
    lists.push_back(window(o));
  return createTable(lists, weighted);
}

GatherDim getScatterTable(int64_t inSize, int64_t outSize, WindowFn window,
                          bool weighted) {
  SmallVector<SmallVector<WindowEntry>> receives(inSize);
  for (int64_t o = 0; o < outSize; ++o)
    for (const WindowEntry &e : window(o))
      if (e.position >= 0 && e.position < inSize)
        receives[e.position].push_back({o, e.weight});
  return createTable(receives, weighted);
}

SmallVector<GatherDim> getGatherTables(ArrayRef<int64_t> outSizes,
                                       DimWindowFn window, bool weighted) {
  SmallVector<GatherDim> dims;
  for (size_t d = 0; d < outSizes.size(); ++d)
    dims.push_back(getGatherTable(
        outSizes[d], [&](int64_t o) { return window(d, o); }, weighted));
  return dims;
}

SmallVector<GatherDim> getScatterTables(ArrayRef<int64_t> inSizes,
                                        ArrayRef<int64_t> outSizes,
                                        DimWindowFn window, bool weighted) {
  SmallVector<GatherDim> dims;
  for (size_t d = 0; d < inSizes.size(); ++d)
    dims.push_back(getScatterTable(
        inSizes[d], outSizes[d], [&](int64_t o) { return window(d, o); },
        weighted));
  return dims;
}

Value createGatheredCopy(OpBuilder &b, Location loc, Value input,
                         ArrayRef<int64_t> batchShape,
                         ArrayRef<GatherDim> dims,
                         RankedTensorType resultType) {
  return createTableGather(
      b, loc, batchShape, dims,
      ValueRange{createEmptyTensor(b, loc, resultType)},
      resultType.getElementType(),
      [&](OpBuilder &nb, Location l, ValueRange batch, ValueRange positions,
          Value, ValueRange, ValueRange) -> SmallVector<Value> {
        SmallVector<Value> coords(batch);
        coords.append(positions.begin(), positions.end());
        return {tensor::ExtractOp::create(nb, l, input, coords)};
      })[0];
}

int64_t PoolGeometry::windowSize() const {
  int64_t n = 1;
  for (int64_t k : kernel)
    n *= k;
  return n;
}

SmallVector<int64_t> PoolGeometry::highPadding() const {
  SmallVector<int64_t> high;
  for (size_t d = 0; d < rank(); ++d)
    high.push_back(std::max<int64_t>(0, (out[d] - 1) * stride[d] +
                                            (kernel[d] - 1) * dilation[d] + 1 -
                                            in[d] - padding[d]));
  return high;
}

SmallVector<int64_t> PoolGeometry::resultShape(ArrayRef<int64_t> spatial) const {
  SmallVector<int64_t> shape(batchShape);
  shape.append(spatial.begin(), spatial.end());
  return shape;
}

SmallVector<WindowEntry> PoolGeometry::window(size_t d, int64_t o) const {
  SmallVector<WindowEntry> entries;
  for (int64_t j = 0; j < kernel[d]; ++j)
    entries.push_back({o * stride[d] - padding[d] + j * dilation[d]});
  return entries;
}

SmallVector<Value> getWindowSlices(OpBuilder &b, Location loc, Value padded,
                                   const PoolGeometry &g) {
  SmallVector<Value> slices;
  for (const SmallVector<int64_t> &k : enumerateWindow(g.kernel)) {
    SmallVector<int64_t> offsets;
    for (size_t d = 0; d < g.rank(); ++d)
      offsets.push_back(k[d] * g.dilation[d]);
    slices.push_back(
        createSpatialSlice(b, loc, padded, offsets, g.out, g.stride));
  }
  return slices;
}

Value createUnrolledBackward(OpBuilder &b, Location loc, const PoolGeometry &g,
                             ValueRange inputs, Type accType,
                             ContributionFn contribution) {
  SmallVector<int64_t> paddedSizes;
  for (size_t d = 0; d < g.rank(); ++d)
    paddedSizes.push_back(std::max<int64_t>(
        g.padding[d] + g.in[d], (g.out[d] - 1) * g.stride[d] +
                                    (g.kernel[d] - 1) * g.dilation[d] + 1));
  auto accTensorType =
      RankedTensorType::get(g.resultShape(paddedSizes), accType);
  Value acc = createZeroTensor(b, loc, accTensorType);
  unsigned numLoops = g.batchShape.size() + g.rank();
  SmallVector<AffineMap> maps(inputs.size() + 1,
                              b.getMultiDimIdentityMap(numLoops));
  SmallVector<utils::IteratorType> iterators(numLoops,
                                             utils::IteratorType::parallel);
  SmallVector<SmallVector<int64_t>> window = enumerateWindow(g.kernel);
  for (const SmallVector<int64_t> &k : llvm::reverse(window)) {
    SmallVector<int64_t> offsets;
    for (size_t d = 0; d < g.rank(); ++d)
      offsets.push_back(k[d] * g.dilation[d]);
    Value slice = createSpatialSlice(b, loc, acc, offsets, g.out, g.stride);
    auto updated = linalg::GenericOp::create(
        b, loc, TypeRange{slice.getType()}, inputs, ValueRange{slice}, maps,
        iterators, [&](OpBuilder &nb, Location l, ValueRange args) {
          Value add = contribution(nb, l, args.drop_back(), k);
          linalg::YieldOp::create(
              nb, l, ValueRange{createAdd(nb, l, args.back(), add)});
        });
    acc = insertSpatialSlice(b, loc, updated.getResult(0), acc, offsets,
                             g.stride);
  }
  return createSpatialSlice(b, loc, acc, g.padding, g.in,
                            SmallVector<int64_t>(g.rank(), 1));
}

SmallVector<Value> createTableGather(OpBuilder &b, Location loc,
                                     ArrayRef<int64_t> batchShape,
                                     ArrayRef<GatherDim> dims, ValueRange inits,
                                     Type weightType, GatherBody body) {
  MLIRContext *context = b.getContext();
  unsigned numBatch = batchShape.size();
  unsigned k = dims.size();
  unsigned numLoops = numBatch + 2 * k;

  SmallVector<Value> inputs;
  SmallVector<AffineMap> maps;
  SmallVector<bool> hasWeight;
  for (auto [d, dim] : llvm::enumerate(dims)) {
    AffineMap tableMap = AffineMap::get(
        numLoops, 0,
        {b.getAffineDimExpr(numBatch + d), b.getAffineDimExpr(numBatch + k + d)},
        context);
    auto sourceType =
        RankedTensorType::get({dim.size, dim.window}, b.getIndexType());
    inputs.push_back(arith::ConstantOp::create(
        b, loc, DenseElementsAttr::get(sourceType, ArrayRef(dim.source))));
    maps.push_back(tableMap);
    hasWeight.push_back(!dim.weight.empty());
    if (!dim.weight.empty()) {
      auto weightTableType =
          RankedTensorType::get({dim.size, dim.window}, weightType);
      SmallVector<Attribute> weights;
      for (double w : dim.weight)
        weights.push_back(b.getFloatAttr(weightType, w));
      inputs.push_back(arith::ConstantOp::create(
          b, loc, DenseElementsAttr::get(weightTableType, weights)));
      maps.push_back(tableMap);
    }
  }
  AffineMap outMap = AffineMap::getMultiDimIdentityMap(numBatch + k, context);
  outMap = AffineMap::get(numLoops, 0, outMap.getResults(), context);
  SmallVector<Type> resultTypes;
  for (Value init : inits) {
    maps.push_back(outMap);
    resultTypes.push_back(init.getType());
  }
  SmallVector<utils::IteratorType> iterators(numBatch + k,
                                             utils::IteratorType::parallel);
  iterators.append(k, utils::IteratorType::reduction);

  auto generic = linalg::GenericOp::create(
      b, loc, resultTypes, inputs, inits, maps, iterators,
      [&](OpBuilder &nb, Location l, ValueRange args) {
        SmallVector<Value> positions, weights;
        Value valid;
        Value zero = arith::ConstantIndexOp::create(nb, l, 0);
        unsigned a = 0;
        for (unsigned d = 0; d < k; ++d) {
          Value source = args[a++];
          Value has = arith::CmpIOp::create(nb, l, arith::CmpIPredicate::sge,
                                            source, zero);
          valid = valid ? arith::AndIOp::create(nb, l, valid, has).getResult()
                        : has;
          positions.push_back(
              arith::SelectOp::create(nb, l, has, source, zero));
          if (hasWeight[d])
            weights.push_back(args[a++]);
        }
        SmallVector<Value> batch = getLoopIndices(nb, l, 0, numBatch);
        SmallVector<Value> results =
            body(nb, l, batch, positions, valid, weights, args.drop_front(a));
        linalg::YieldOp::create(nb, l, results);
      });
  return SmallVector<Value>(generic.getResults());
}

namespace {
SmallVector<Value> concat(ValueRange a, ValueRange b) {
  SmallVector<Value> r(a);
  r.append(b.begin(), b.end());
  return r;
}
} // namespace

std::pair<Value, Value> createGatheredMax(OpBuilder &b, Location loc,
                                          Value input,
                                          ArrayRef<int64_t> batchShape,
                                          ArrayRef<GatherDim> dims,
                                          RankedTensorType valuesType,
                                          RankedTensorType indicesType) {
  // f16/bf16 compare and select in f32 (exact; LLVM cannot select vectors
  // of bf16 on x86).
  Type computeType = getAccumulatorType(valuesType.getElementType());
  ArrayRef<int64_t> inSizes =
      cast<RankedTensorType>(input.getType()).getShape().take_back(dims.size());
  Value initValues = createFilledTensor(
      b, loc, valuesType.clone(computeType),
      createLowestValue(b, loc, computeType));
  Value initIndices = createFilledTensor(
      b, loc, indicesType, createIntConstant(b, loc, b.getI64Type(), -1));
  SmallVector<Value> results = createTableGather(
      b, loc, batchShape, dims, ValueRange{initValues, initIndices},
      computeType,
      [&](OpBuilder &nb, Location l, ValueRange batch, ValueRange positions,
          Value valid, ValueRange, ValueRange accs) -> SmallVector<Value> {
        Value v = castScalar(
            nb, l,
            tensor::ExtractOp::create(nb, l, input, concat(batch, positions)),
            computeType);
        Value position = createFlatPosition(nb, l, positions, inSizes);
        Value first =
            arith::CmpIOp::create(nb, l, arith::CmpIPredicate::slt, accs[1],
                                  createIntConstant(nb, l, nb.getI64Type(), 0));
        Value takes = arith::AndIOp::create(
            nb, l, valid,
            arith::OrIOp::create(nb, l, first,
                                 createMaxPoolTakes(nb, l, v, accs[0])));
        return {arith::SelectOp::create(nb, l, takes, v, accs[0]),
                arith::SelectOp::create(nb, l, takes, position, accs[1])};
      });
  return {castTensor(b, loc, results[0], valuesType.getElementType()),
          results[1]};
}

Value createGatheredMaxBackward(OpBuilder &b, Location loc, Value grad,
                                Value indices, ArrayRef<int64_t> batchShape,
                                ArrayRef<GatherDim> dims,
                                RankedTensorType resultType) {
  Type accType = resultType.getElementType();
  ArrayRef<int64_t> inSizes = resultType.getShape().take_back(dims.size());
  unsigned lead = batchShape.size();
  return createTableGather(
      b, loc, batchShape, dims, ValueRange{createZeroTensor(b, loc, resultType)},
      accType,
      [&](OpBuilder &nb, Location l, ValueRange batch, ValueRange positions,
          Value valid, ValueRange, ValueRange accs) -> SmallVector<Value> {
        SmallVector<Value> coords = concat(batch, positions);
        Value index = tensor::ExtractOp::create(nb, l, indices, coords);
        Value g = tensor::ExtractOp::create(nb, l, grad, coords);
        Value self = createFlatPosition(
            nb, l, getLoopIndices(nb, l, lead, dims.size()), inSizes);
        Value hit = arith::AndIOp::create(
            nb, l, valid,
            arith::CmpIOp::create(nb, l, arith::CmpIPredicate::eq, index,
                                  self));
        Value add =
            arith::SelectOp::create(nb, l, hit, castScalar(nb, l, g, accType),
                                    createScalarConstant(nb, l, accType, 0));
        return {createAdd(nb, l, accs[0], add)};
      })[0];
}

Value createGatheredSum(OpBuilder &b, Location loc, Value source,
                        ArrayRef<int64_t> batchShape, ArrayRef<GatherDim> dims,
                        RankedTensorType resultType) {
  Type accType = resultType.getElementType();
  return createTableGather(
      b, loc, batchShape, dims, ValueRange{createZeroTensor(b, loc, resultType)},
      accType,
      [&](OpBuilder &nb, Location l, ValueRange batch, ValueRange positions,
          Value valid, ValueRange weights, ValueRange accs) -> SmallVector<Value> {
        Value v = castScalar(
            nb, l,
            tensor::ExtractOp::create(nb, l, source, concat(batch, positions)),
            accType);
        if (!weights.empty()) {
          Value w = weights[0];
          for (Value next : weights.drop_front())
            w = createMul(nb, l, w, next);
          v = createMul(nb, l, w, v);
        }
        Value add = arith::SelectOp::create(
            nb, l, valid, v, createScalarConstant(nb, l, accType, 0));
        return {createAdd(nb, l, accs[0], add)};
      })[0];
}

Value createFlatPosition(OpBuilder &b, Location loc, ValueRange positions,
                         ArrayRef<int64_t> sizes) {
  Type i64 = b.getI64Type();
  Value flat;
  for (auto [pos, size] : llvm::zip(positions, sizes)) {
    Value p = arith::IndexCastOp::create(b, loc, i64, pos);
    if (!flat) {
      flat = p;
      continue;
    }
    flat = arith::AddIOp::create(
        b, loc,
        arith::MulIOp::create(b, loc, flat, createIntConstant(b, loc, i64, size)),
        p);
  }
  return flat;
}

Value createMaxPoolTakes(OpBuilder &b, Location loc, Value v, Value cur) {
  if (isa<FloatType>(v.getType())) {
    Value greater =
        arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OGT, v, cur);
    Value isNan = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UNO, v, v);
    return arith::OrIOp::create(b, loc, greater, isNan);
  }
  return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sgt, v, cur);
}

} // namespace ltc_mlir::torch_to_linalg
