//===- Summation.cpp - sums that do not lose precision with their length --===//
//
// Every floating-point sum of the lowering (sum/mean, softmax, layer_norm,
// losses, backward reductions) goes through createSum. Adding n values one
// after the other into one accumulator loses up to ~n ulps (an f32
// accumulator adding ones stops growing at 2^24); ATen's cascade sums lose
// ~log n. createSum keeps every accumulator short:
//  1. lanes: when the innermost loop is reduced and long, it is split into
//     [n / kLanes, kLanes] and the lanes stay separate partial sums, so the
//     vectorized loop adds whole vectors (no horizontal add per vector,
//     which LLVM would do in order, one element after the other);
//  2. blocks: when more than kBlock values would reach one accumulator, the
//     first reduced loop (from the innermost) that does not fit is split
//     into [blocks, block]; level 1 sums each block (the reduced loops
//     outside it become parallel dims of the partial sums, so level 1 is
//     parallel and vectorizable), level 2 sums the partials the same way;
//  3. a loop whose size the block does not divide is split into its
//     blocked part and a tail, summed separately and added.
// Every choice depends on the shapes only: the result is the same for any
// number of threads and on every machine (no dependence on vector width).
// Integer sums are exact in any order and stay one linalg.generic.
//
//===----------------------------------------------------------------------===//

#include "ltc_mlir/Conversion/TorchToLinalg/TorchToLinalg.h"
#include "ltc_mlir/Conversion/TorchToLinalg/Utils.h"

using namespace mlir;

namespace ltc_mlir::torch_to_linalg {
namespace {

/// At most this many values are added into one accumulator. With 256, the
/// error of f32 sums of up to 2^25 random values stayed below one
/// eps * sum|x|, as ATen's cascade sums (1024 gave up to 2.5 on columns).
constexpr int64_t kBlock = 256;
/// Lanes of the innermost split (fixed, not the host vector width, so that
/// results do not depend on the machine).
constexpr int64_t kLanes = 16;
/// The innermost loop is split into lanes from this size on.
constexpr int64_t kMinLaneSplit = 4 * kLanes;

/// The index of a loop of the caller's nest after splits and slices:
/// sum of index(loop) * stride over `parts`, plus `offset`.
struct LoopOrigin {
  SmallVector<std::pair<unsigned, int64_t>> parts;
  int64_t offset = 0;
};

/// A static loop nest with its reduced loops and the tensors it reads.
struct SumNest {
  SmallVector<int64_t> shape;
  SmallVector<bool> reduced;
  SmallVector<Value> inputs;
  SmallVector<AffineMap> maps;
  SmallVector<LoopOrigin> origins; // one per loop of the caller's nest

  int64_t reducedCount() const {
    int64_t n = 1;
    for (auto [size, isReduced] : llvm::zip(shape, reduced))
      if (isReduced)
        n *= size;
    return n;
  }
};

/// Maps whose results are loops or constants can follow a split.
bool isSplittable(AffineMap map) {
  llvm::SmallDenseSet<unsigned> seen;
  for (AffineExpr e : map.getResults()) {
    if (isa<AffineConstantExpr>(e))
      continue;
    auto dim = dyn_cast<AffineDimExpr>(e);
    if (!dim || !seen.insert(dim.getPosition()).second)
      return false;
  }
  return true;
}

Value createIndexConstant(OpBuilder &b, Location loc, int64_t value) {
  return arith::ConstantOp::create(b, loc, b.getIndexAttr(value));
}

/// One linalg.generic: zero-filled accumulators shaped as the parallel
/// loops, `term` added to them.
SmallVector<Value> emitSum(OpBuilder &b, Location loc, const SumNest &nest,
                           TypeRange accTypes, SumTermFn term) {
  MLIRContext *ctx = b.getContext();
  unsigned rank = nest.shape.size();
  SmallVector<int64_t> outShape;
  SmallVector<AffineExpr> outExprs;
  SmallVector<utils::IteratorType> iterators;
  for (unsigned d = 0; d < rank; ++d) {
    if (nest.reduced[d]) {
      iterators.push_back(utils::IteratorType::reduction);
      continue;
    }
    iterators.push_back(utils::IteratorType::parallel);
    outShape.push_back(nest.shape[d]);
    outExprs.push_back(getAffineDimExpr(d, ctx));
  }
  SmallVector<Type> resultTypes;
  SmallVector<Value> inits;
  for (Type t : accTypes) {
    auto type = RankedTensorType::get(outShape, t);
    resultTypes.push_back(type);
    inits.push_back(createZeroTensor(b, loc, type));
  }
  SmallVector<AffineMap> maps(nest.maps);
  maps.append(accTypes.size(), AffineMap::get(rank, 0, outExprs, ctx));
  size_t numInputs = nest.inputs.size();
  auto generic = linalg::GenericOp::create(
      b, loc, resultTypes, nest.inputs, inits, maps, iterators,
      [&](OpBuilder &nb, Location nloc, ValueRange args) {
        auto index = [&](OpBuilder &ib, Location il, unsigned loop) -> Value {
          const LoopOrigin &origin = nest.origins[loop];
          Value result;
          for (auto [inner, stride] : origin.parts) {
            Value i = linalg::IndexOp::create(ib, il, inner);
            if (stride != 1)
              i = arith::MulIOp::create(ib, il, i,
                                        createIndexConstant(ib, il, stride));
            result = result ? arith::AddIOp::create(ib, il, result, i)
                                  .getResult()
                            : i;
          }
          if (!result)
            return createIndexConstant(ib, il, origin.offset);
          if (origin.offset != 0)
            result = arith::AddIOp::create(
                ib, il, result, createIndexConstant(ib, il, origin.offset));
          return result;
        };
        SmallVector<Value> terms =
            term(nb, nloc, args.take_front(numInputs), index);
        assert(terms.size() == accTypes.size() && "one term per accumulator");
        SmallVector<Value> sums;
        for (auto [t, acc] : llvm::zip(terms, args.drop_front(numInputs)))
          sums.push_back(createAdd(nb, nloc, t, acc));
        linalg::YieldOp::create(nb, nloc, sums);
      });
  return SmallVector<Value>(generic.getResults());
}

/// Restricts loop `loop` to [offset, offset + size).
SumNest sliceLoop(OpBuilder &b, Location loc, const SumNest &nest,
                  unsigned loop, int64_t offset, int64_t size) {
  SumNest r = nest;
  r.shape[loop] = size;
  for (auto [input, map] : llvm::zip(r.inputs, r.maps)) {
    auto type = cast<RankedTensorType>(input.getType());
    for (auto [axis, e] : llvm::enumerate(map.getResults())) {
      auto dim = dyn_cast<AffineDimExpr>(e);
      if (!dim || dim.getPosition() != loop)
        continue;
      SmallVector<OpFoldResult> offsets(type.getRank(), b.getIndexAttr(0));
      SmallVector<OpFoldResult> sizes, strides(type.getRank(),
                                               b.getIndexAttr(1));
      for (int64_t s : type.getShape())
        sizes.push_back(b.getIndexAttr(s));
      offsets[axis] = b.getIndexAttr(offset);
      sizes[axis] = b.getIndexAttr(size);
      input = tensor::ExtractSliceOp::create(b, loc, input, offsets, sizes,
                                             strides);
    }
  }
  for (LoopOrigin &origin : r.origins)
    for (auto [inner, stride] : origin.parts)
      if (inner == loop)
        origin.offset += offset * stride;
  return r;
}

/// Splits loop `loop` (a multiple of `inner`) into (size / inner, inner).
SumNest splitLoop(OpBuilder &b, Location loc, const SumNest &nest,
                  unsigned loop, int64_t inner, bool outerReduced,
                  bool innerReduced) {
  MLIRContext *ctx = b.getContext();
  SumNest r;
  for (unsigned d = 0; d < nest.shape.size(); ++d) {
    if (d != loop) {
      r.shape.push_back(nest.shape[d]);
      r.reduced.push_back(nest.reduced[d]);
      continue;
    }
    r.shape.append({nest.shape[d] / inner, inner});
    r.reduced.append({outerReduced, innerReduced});
  }
  unsigned rank = r.shape.size();
  auto shifted = [&](unsigned d) { return d > loop ? d + 1 : d; };
  for (auto [input, map] : llvm::zip(nest.inputs, nest.maps)) {
    auto type = cast<RankedTensorType>(input.getType());
    SmallVector<AffineExpr> exprs;
    SmallVector<int64_t> shape;
    SmallVector<ReassociationIndices> groups;
    bool expands = false;
    for (auto [axis, e] : llvm::enumerate(map.getResults())) {
      int64_t size = type.getDimSize(axis);
      auto dim = dyn_cast<AffineDimExpr>(e);
      if (dim && dim.getPosition() == loop) {
        expands = true;
        exprs.push_back(getAffineDimExpr(loop, ctx));
        exprs.push_back(getAffineDimExpr(loop + 1, ctx));
        groups.push_back({int64_t(shape.size()), int64_t(shape.size()) + 1});
        shape.append({size / inner, inner});
        continue;
      }
      exprs.push_back(dim ? getAffineDimExpr(shifted(dim.getPosition()), ctx)
                          : e);
      groups.push_back({int64_t(shape.size())});
      shape.push_back(size);
    }
    r.maps.push_back(AffineMap::get(rank, 0, exprs, ctx));
    r.inputs.push_back(
        expands ? tensor::ExpandShapeOp::create(
                      b, loc, RankedTensorType::get(shape, type.getElementType()),
                      input, groups)
                      .getResult()
                : input);
  }
  r.origins = nest.origins;
  for (LoopOrigin &origin : r.origins) {
    SmallVector<std::pair<unsigned, int64_t>> parts;
    for (auto [d, stride] : origin.parts) {
      if (d == loop) {
        parts.push_back({loop, stride * inner});
        parts.push_back({loop + 1, stride});
      } else {
        parts.push_back({shifted(d), stride});
      }
    }
    origin.parts = parts;
  }
  return r;
}

SmallVector<Value> addSums(OpBuilder &b, Location loc, ValueRange lhs,
                           ValueRange rhs) {
  SmallVector<Value> result;
  for (auto [l, r] : llvm::zip(lhs, rhs))
    result.push_back(*createElementwiseOp(
        b, loc, cast<RankedTensorType>(l.getType()), ValueRange{l, r},
        [](OpBuilder &nb, Location nloc, ValueRange args) {
          return createAdd(nb, nloc, args[0], args[1]);
        }));
  return result;
}

SmallVector<Value> sumNest(OpBuilder &b, Location loc, const SumNest &nest,
                           TypeRange accTypes, SumTermFn term,
                           bool allowLanes);

/// Sums the partial-sum tensors `partials` (all of one shape) over the dims
/// flagged in `reduced`.
SmallVector<Value> sumPartials(OpBuilder &b, Location loc, ValueRange partials,
                               ArrayRef<bool> reduced, TypeRange accTypes) {
  SumNest nest;
  auto type = cast<RankedTensorType>(partials.front().getType());
  nest.shape = llvm::to_vector(type.getShape());
  nest.reduced.assign(reduced.begin(), reduced.end());
  nest.inputs = llvm::to_vector(partials);
  nest.maps.assign(partials.size(),
                   b.getMultiDimIdentityMap(type.getRank()));
  auto identity = [](OpBuilder &, Location, ValueRange args,
                     LoopIndexFn) -> SmallVector<Value> {
    return llvm::to_vector(args);
  };
  return sumNest(b, loc, nest, accTypes, identity, /*allowLanes=*/true);
}

/// Step 1: the reduced innermost loop becomes [n / kLanes, kLanes] with
/// the lanes kept apart, then the lanes are added.
SmallVector<Value> sumInLanes(OpBuilder &b, Location loc, const SumNest &nest,
                              TypeRange accTypes, SumTermFn term) {
  unsigned last = nest.shape.size() - 1;
  int64_t n = nest.shape[last], main = n - n % kLanes;
  SumNest mainNest =
      main == n ? nest : sliceLoop(b, loc, nest, last, 0, main);
  SumNest split = splitLoop(b, loc, mainNest, last, kLanes,
                            /*outerReduced=*/true, /*innerReduced=*/false);
  SmallVector<Value> lanes =
      sumNest(b, loc, split, accTypes, term, /*allowLanes=*/false);
  auto laneType = cast<RankedTensorType>(lanes.front().getType());
  SmallVector<bool> laneReduced(laneType.getRank(), false);
  laneReduced.back() = true;
  SmallVector<Value> result =
      sumPartials(b, loc, lanes, laneReduced, accTypes);
  if (main == n)
    return result;
  SmallVector<Value> tail =
      sumNest(b, loc, sliceLoop(b, loc, nest, last, main, n - main), accTypes,
              term, /*allowLanes=*/false);
  return addSums(b, loc, result, tail);
}

/// Largest divisor of `n` that is at most `limit`.
int64_t largestDivisor(int64_t n, int64_t limit) {
  for (int64_t d = std::min(n, limit); d > 1; --d)
    if (n % d == 0)
      return d;
  return 1;
}

/// Step 2: partial sums over blocks of at most kBlock values, then their
/// sum.
SmallVector<Value> sumInBlocks(OpBuilder &b, Location loc, const SumNest &nest,
                               TypeRange accTypes, SumTermFn term) {
  // The innermost reduced loops that fit in a block stay whole; the next
  // one (`split`) is cut into blocks.
  int64_t inner = 1;
  int split = -1;
  for (int d = int(nest.shape.size()) - 1; d >= 0; --d) {
    if (!nest.reduced[d])
      continue;
    if (inner * nest.shape[d] <= kBlock) {
      inner *= nest.shape[d];
      continue;
    }
    split = d;
    break;
  }
  assert(split >= 0 && "called with more than kBlock values per sum");
  int64_t maxBlock = kBlock / inner;
  int64_t size = nest.shape[split];
  int64_t block = largestDivisor(size, maxBlock);
  if (2 * block <= maxBlock) // a poor divisor: full blocks and a tail
    block = maxBlock;
  int64_t main = size / block * block;

  SumNest level1 =
      main == size ? nest : sliceLoop(b, loc, nest, split, 0, main);
  // Level-1 result dims, in loop order, and whether level 2 reduces them:
  // the reduced loops outside `split` and the block number.
  SmallVector<bool> level2Reduced;
  for (int d = 0; d < split; ++d) {
    if (level1.reduced[d])
      level1.reduced[d] = false;
    level2Reduced.push_back(nest.reduced[d]);
  }
  level2Reduced.push_back(true);
  for (unsigned d = split + 1; d < nest.shape.size(); ++d)
    if (!nest.reduced[d])
      level2Reduced.push_back(false);
  if (block == 1)
    level1.reduced[split] = false;
  else
    level1 = splitLoop(b, loc, level1, split, block, /*outerReduced=*/false,
                       /*innerReduced=*/true);

  SmallVector<Value> partials = emitSum(b, loc, level1, accTypes, term);
  SmallVector<Value> result =
      sumPartials(b, loc, partials, level2Reduced, accTypes);
  if (main == size)
    return result;
  SmallVector<Value> tail =
      sumNest(b, loc, sliceLoop(b, loc, nest, split, main, size - main),
              accTypes, term, /*allowLanes=*/false);
  return addSums(b, loc, result, tail);
}

SmallVector<Value> sumNest(OpBuilder &b, Location loc, const SumNest &nest,
                           TypeRange accTypes, SumTermFn term,
                           bool allowLanes) {
  bool floats = llvm::all_of(accTypes, llvm::IsaPred<FloatType>);
  if (!floats || !llvm::all_of(nest.maps, isSplittable))
    return emitSum(b, loc, nest, accTypes, term);
  bool fitsOneBlock = nest.reducedCount() <= kBlock;
  // Lanes pay for themselves on long innermost loops; a short sum whose
  // loop the lanes do not divide would need a tail: one generic is better.
  if (allowLanes && !nest.shape.empty() && nest.reduced.back() &&
      nest.shape.back() >= kMinLaneSplit &&
      (!fitsOneBlock || nest.shape.back() % kLanes == 0))
    return sumInLanes(b, loc, nest, accTypes, term);
  if (fitsOneBlock)
    return emitSum(b, loc, nest, accTypes, term);
  return sumInBlocks(b, loc, nest, accTypes, term);
}

/// B when the module is lowered for code for every batch size, else 0
/// (kGenericBatchSizeAttrName).
int64_t genericBatchSize(OpBuilder &b) {
  Block *block = b.getInsertionBlock();
  Operation *parent = block ? block->getParentOp() : nullptr;
  if (!parent)
    return 0;
  auto module = llvm::dyn_cast<ModuleOp>(parent);
  if (!module)
    module = parent->getParentOfType<ModuleOp>();
  auto attr =
      module ? module->getAttrOfType<IntegerAttr>(kGenericBatchSizeAttrName)
             : IntegerAttr();
  return attr ? attr.getInt() : 0;
}

} // namespace

SmallVector<Value> createSum(OpBuilder &b, Location loc,
                             ArrayRef<int64_t> loopShape,
                             ArrayRef<int64_t> reducedDims, ValueRange inputs,
                             ArrayRef<AffineMap> inputMaps, TypeRange accTypes,
                             SumTermFn term) {
  SumNest nest;
  nest.shape = llvm::to_vector(loopShape);
  nest.reduced.assign(loopShape.size(), false);
  for (int64_t d : reducedDims)
    nest.reduced[d] = true;
  nest.inputs = llvm::to_vector(inputs);
  nest.maps = llvm::to_vector(inputMaps);
  for (unsigned d = 0; d < loopShape.size(); ++d)
    nest.origins.push_back(LoopOrigin{{{d, 1}}, 0});
  // Code for every batch size: the structure must not depend on B. The
  // reduced loops that scale with it are summed plainly, after the others.
  if (int64_t batch = genericBatchSize(b);
      batch > 0 && llvm::all_of(accTypes, llvm::IsaPred<FloatType>) &&
      !llvm::is_contained(loopShape, 0)) {
    // The op being converted says which of its sizes scale with B.
    DenseI64ArrayAttr scaling;
    if (b.getInsertionBlock() && b.getInsertionPoint() != b.getInsertionBlock()->end())
      scaling = b.getInsertionPoint()->getAttrOfType<DenseI64ArrayAttr>(
          kBatchSizesAttrName);
    auto scales = [&](int64_t size) {
      return scaling ? llvm::is_contained(scaling.asArrayRef(), size)
                     : size % batch == 0;
    };
    SmallVector<int64_t> batchDims, otherDims;
    for (int64_t d : reducedDims)
      (scales(loopShape[d]) ? batchDims : otherDims).push_back(d);
    if (!batchDims.empty() && otherDims.empty())
      return emitSum(b, loc, nest, accTypes, term);
    if (!batchDims.empty()) {
      SmallVector<Value> partials = createSum(
          b, loc, loopShape, otherDims, inputs, inputMaps, accTypes, term);
      SumNest plain;
      for (int64_t d = 0; d < int64_t(loopShape.size()); ++d) {
        if (llvm::is_contained(otherDims, d))
          continue;
        plain.reduced.push_back(llvm::is_contained(batchDims, d));
        plain.shape.push_back(loopShape[d]);
        plain.origins.push_back(
            LoopOrigin{{{unsigned(plain.shape.size() - 1), 1}}, 0});
      }
      plain.inputs = partials;
      plain.maps.assign(partials.size(), b.getMultiDimIdentityMap(
                                             plain.shape.size()));
      return emitSum(b, loc, plain, accTypes,
                     [](OpBuilder &, Location, ValueRange args, LoopIndexFn) {
                       return SmallVector<Value>(args.begin(), args.end());
                     });
    }
  }
  // Empty loops: nothing to split (the sum is zero or the result empty).
  if (llvm::is_contained(loopShape, 0))
    return emitSum(b, loc, nest, accTypes, term);
  return sumNest(b, loc, nest, accTypes, term, /*allowLanes=*/true);
}

Value createSum(OpBuilder &b, Location loc, Value input,
                ArrayRef<int64_t> dims, Type accType, bool inputUnsigned) {
  auto type = cast<RankedTensorType>(input.getType());
  return createSum(b, loc, type.getShape(), dims, input,
                   b.getMultiDimIdentityMap(type.getRank()), accType,
                   [&](OpBuilder &nb, Location nloc, ValueRange args,
                       LoopIndexFn) -> SmallVector<Value> {
                     return {castScalar(nb, nloc, args[0], accType,
                                        inputUnsigned)};
                   })
      .front();
}

Type getSumAccumulatorType(Type elementType) {
  if (elementType.isF16() || elementType.isBF16())
    return Float32Type::get(elementType.getContext());
  return elementType;
}

} // namespace ltc_mlir::torch_to_linalg
