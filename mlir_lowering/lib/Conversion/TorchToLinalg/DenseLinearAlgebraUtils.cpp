//===- DenseLinearAlgebraUtils.cpp - helpers of the dense linalg ops ------===//
//
// The batching, loop and triangular-solve helpers declared in
// DenseLinearAlgebra.h (shared by DenseLinearAlgebra.cpp, LUFactorization.cpp
// and LUSolvers.cpp).
//
//===----------------------------------------------------------------------===//

#include "DenseLinearAlgebra.h"

using namespace mlir;

namespace ltc_mlir::torch_to_linalg {
namespace dense_la {

FailureOr<SmallVector<RankedTensorType>>
NamedTorchPattern::getResultTypes(Operation *op) const {
  SmallVector<RankedTensorType> types;
  for (Type t : op->getResultTypes()) {
    RankedTensorType type = getTensorType(t);
    if (!type || !type.hasStaticShape())
      return failure();
    types.push_back(type);
  }
  return types;
}

LogicalResult NamedTorchPattern::replaceEmptyCase(
    Operation *op, ConversionPatternRewriter &rewriter,
    ArrayRef<RankedTensorType> types,
    ArrayRef<std::optional<double>> fills) const {
  Location loc = op->getLoc();
  SmallVector<Value> results;
  for (auto [i, type] : llvm::enumerate(types)) {
    if (type.getNumElements() == 0) {
      results.push_back(createEmptyTensor(rewriter, loc, type));
      continue;
    }
    if (i >= fills.size() || !fills[i])
      return fail(op, rewriter,
                  "empty matrices with a non-empty result are not lowered");
    Type elemType = type.getElementType();
    Value v = isa<FloatType>(elemType)
                  ? createScalarConstant(rewriter, loc, elemType, *fills[i])
                  : createIntConstant(rewriter, loc, elemType,
                                      static_cast<int64_t>(*fills[i]));
    results.push_back(createFilledTensor(rewriter, loc, type, v));
  }
  rewriter.replaceOp(op, results);
  return success();
}

bool isRealFloat(Type type) { return type.isF32() || type.isF64(); }

bool hasZeroDim(ArrayRef<RankedTensorType> types) {
  for (RankedTensorType t : types)
    if (llvm::is_contained(t.getShape(), 0))
      return true;
  return false;
}

Value indexConst(OpBuilder &b, Location loc, int64_t v) {
  return arith::ConstantIndexOp::create(b, loc, v);
}

SmallVector<Value> createLoop(OpBuilder &b, Location loc, Value lb, Value ub,
                              ValueRange iterArgs, LoopBody body) {
  auto loop = scf::ForOp::create(
      b, loc, lb, ub, indexConst(b, loc, 1), iterArgs,
      [&](OpBuilder &nb, Location l, Value iv, ValueRange args) {
        SmallVector<Value> next = body(nb, l, iv, args);
        scf::YieldOp::create(nb, l, next);
      });
  return SmallVector<Value>(loop.getResults());
}

FailureOr<Value> toBatched(OpBuilder &b, Location loc, Value x,
                           ArrayRef<int64_t> batch, unsigned matrixRank) {
  auto type = cast<RankedTensorType>(x.getType());
  if (type.getRank() < matrixRank)
    return failure();
  ArrayRef<int64_t> matrix = type.getShape().take_back(matrixRank);
  SmallVector<int64_t> full(batch);
  full.append(matrix.begin(), matrix.end());
  auto fullType = RankedTensorType::get(full, type.getElementType());
  Value broadcast = x;
  if (fullType != type) {
    FailureOr<Value> r = createElementwiseOp(
        b, loc, fullType, x,
        [](OpBuilder &, Location, ValueRange args) { return args[0]; });
    if (failed(r))
      return failure();
    broadcast = *r;
  }
  int64_t count = 1;
  for (int64_t d : batch)
    count *= d;
  SmallVector<int64_t> collapsed = {count};
  collapsed.append(matrix.begin(), matrix.end());
  return createReshape(b, loc, broadcast,
                       RankedTensorType::get(collapsed, type.getElementType()));
}

FailureOr<Value> fromBatched(OpBuilder &b, Location loc, Value x,
                             RankedTensorType type) {
  return createReshape(b, loc, x, type);
}

Value transposeMatrices(OpBuilder &b, Location loc, Value x) {
  auto type = cast<RankedTensorType>(x.getType());
  auto outType = RankedTensorType::get(
      {type.getDimSize(0), type.getDimSize(2), type.getDimSize(1)},
      type.getElementType());
  return linalg::TransposeOp::create(b, loc, x,
                                     createEmptyTensor(b, loc, outType),
                                     ArrayRef<int64_t>{0, 2, 1})
      .getResult()[0];
}

namespace {
/// scf.for j in [lo, hi) over matrix `bi` of the batched `x`: reads
/// x[bi, row0, j] and x[bi, row1, j] and writes back the values `update`
/// returns for them (row0 first; a null value leaves its row as is).
Value updateRowPair(
    OpBuilder &b, Location loc, Value x, Value bi, Value row0, Value row1,
    Value lo, Value hi,
    function_ref<std::pair<Value, Value>(OpBuilder &, Location, Value, Value)>
        update) {
  return createLoop(b, loc, lo, hi, x,
                    [&](OpBuilder &nb, Location l, Value j,
                        ValueRange s) -> SmallVector<Value> {
                      Value v0 = tensor::ExtractOp::create(
                          nb, l, s[0], ValueRange{bi, row0, j});
                      Value v1 = tensor::ExtractOp::create(
                          nb, l, s[0], ValueRange{bi, row1, j});
                      auto [n0, n1] = update(nb, l, v0, v1);
                      Value t = s[0];
                      if (n0)
                        t = tensor::InsertOp::create(nb, l, n0, t,
                                                     ValueRange{bi, row0, j});
                      if (n1)
                        t = tensor::InsertOp::create(nb, l, n1, t,
                                                     ValueRange{bi, row1, j});
                      return {t};
                    })
      .front();
}
} // namespace

Value subtractScaledRow(OpBuilder &b, Location loc, Value x, Value bi,
                        Value dst, Value src, Value factor, Value lo,
                        Value hi) {
  return updateRowPair(
      b, loc, x, bi, src, dst, lo, hi,
      [&](OpBuilder &nb, Location l, Value xs, Value xd) {
        Value v = arith::SubFOp::create(
            nb, l, xd, arith::MulFOp::create(nb, l, factor, xs));
        return std::make_pair(Value(), v);
      });
}

Value swapRows(OpBuilder &b, Location loc, Value x, Value bi, Value r,
               Value p, Value cols) {
  return updateRowPair(b, loc, x, bi, r, p, indexConst(b, loc, 0), cols,
                       [](OpBuilder &, Location, Value u, Value v) {
                         return std::make_pair(v, u);
                       });
}

Value solveTriangular(OpBuilder &b, Location loc, Value a, Value x, bool lower,
                      bool transA, bool unit) {
  auto xType = cast<RankedTensorType>(x.getType());
  int64_t batch = xType.getDimSize(0), n = xType.getDimSize(1),
          m = xType.getDimSize(2);
  Value c0 = indexConst(b, loc, 0), c1 = indexConst(b, loc, 1);
  Value cN = indexConst(b, loc, n), cNm1 = indexConst(b, loc, n - 1);
  Value cM = indexConst(b, loc, m);
  // op(A)[i, k]
  auto readA = [&](OpBuilder &nb, Location l, Value bi, Value i, Value k) {
    return tensor::ExtractOp::create(
               nb, l, a, transA ? ValueRange{bi, k, i} : ValueRange{bi, i, k})
        .getResult();
  };
  // Row by row (in the order rows are solved): x[i, :] -= op(A)[i, k] *
  // x[k, :] for the solved rows k, in order, then x[i, :] /= op(A)[i, i].
  // Each element sees the same operations in the same order as a dot
  // product per element; the innermost loop runs along the contiguous row.
  return createLoop(
      b, loc, c0, indexConst(b, loc, batch), x,
      [&](OpBuilder &b1, Location l1, Value bi, ValueRange xs1) {
        return createLoop(
            b1, l1, c0, cN, xs1,
            [&](OpBuilder &b2, Location l2, Value t,
                ValueRange xs2) -> SmallVector<Value> {
              Value i = lower ? t
                              : arith::SubIOp::create(b2, l2, cNm1, t)
                                    .getResult();
              Value lo = lower ? c0
                               : arith::AddIOp::create(b2, l2, i, c1)
                                     .getResult();
              Value hi = lower ? i : cN;
              Value xr = createLoop(
                             b2, l2, lo, hi, xs2,
                             [&](OpBuilder &b3, Location l3, Value k,
                                 ValueRange xs3) {
                               Value aik = readA(b3, l3, bi, i, k);
                               return SmallVector<Value>{subtractScaledRow(
                                   b3, l3, xs3[0], bi, i, k, aik, c0, cM)};
                             })
                             .front();
              if (unit)
                return {xr};
              Value aii = readA(b2, l2, bi, i, i);
              return createLoop(
                  b2, l2, c0, cM, xr,
                  [&](OpBuilder &b3, Location l3, Value j,
                      ValueRange xs3) -> SmallVector<Value> {
                    Value xi = tensor::ExtractOp::create(b3, l3, xs3[0],
                                                         ValueRange{bi, i, j});
                    return {tensor::InsertOp::create(
                        b3, l3, arith::DivFOp::create(b3, l3, xi, aii), xs3[0],
                        ValueRange{bi, i, j})};
                  });
            });
      })
      .front();
}

Value createIdentity(OpBuilder &b, Location loc, RankedTensorType type) {
  Type elemType = type.getElementType();
  SmallVector<AffineMap> maps = {b.getMultiDimIdentityMap(3)};
  SmallVector<utils::IteratorType> iterators(3, utils::IteratorType::parallel);
  return linalg::GenericOp::create(
             b, loc, TypeRange{type}, ValueRange{},
             ValueRange{createEmptyTensor(b, loc, type)}, maps, iterators,
             [&](OpBuilder &nb, Location l, ValueRange) {
               Value eq = arith::CmpIOp::create(
                   nb, l, arith::CmpIPredicate::eq,
                   linalg::IndexOp::create(nb, l, 1),
                   linalg::IndexOp::create(nb, l, 2));
               Value r = arith::SelectOp::create(
                   nb, l, eq, createScalarConstant(nb, l, elemType, 1),
                   createScalarConstant(nb, l, elemType, 0));
               linalg::YieldOp::create(nb, l, r);
             })
      .getResult(0);
}

Value extractTriangle(OpBuilder &b, Location loc, Value x,
                      RankedTensorType type, bool lower, bool unitDiagonal) {
  Type elemType = type.getElementType();
  SmallVector<AffineMap> maps = {b.getMultiDimIdentityMap(3)};
  SmallVector<utils::IteratorType> iterators(3, utils::IteratorType::parallel);
  return linalg::GenericOp::create(
             b, loc, TypeRange{type}, ValueRange{},
             ValueRange{createEmptyTensor(b, loc, type)}, maps, iterators,
             [&](OpBuilder &nb, Location l, ValueRange) {
               Value bi = linalg::IndexOp::create(nb, l, 0);
               Value i = linalg::IndexOp::create(nb, l, 1);
               Value j = linalg::IndexOp::create(nb, l, 2);
               Value v = tensor::ExtractOp::create(nb, l, x,
                                                   ValueRange{bi, i, j});
               Value keep = arith::CmpIOp::create(
                   nb, l,
                   lower ? arith::CmpIPredicate::ugt
                         : arith::CmpIPredicate::ult,
                   i, j);
               if (!unitDiagonal)
                 keep = arith::OrIOp::create(
                     nb, l, keep,
                     arith::CmpIOp::create(nb, l, arith::CmpIPredicate::eq, i,
                                           j));
               Value r = arith::SelectOp::create(
                   nb, l, keep, v, createScalarConstant(nb, l, elemType, 0));
               if (unitDiagonal)
                 r = arith::SelectOp::create(
                     nb, l,
                     arith::CmpIOp::create(nb, l, arith::CmpIPredicate::eq, i,
                                           j),
                     createScalarConstant(nb, l, elemType, 1), r);
               linalg::YieldOp::create(nb, l, r);
             })
      .getResult(0);
}

} // namespace dense_la

} // namespace ltc_mlir::torch_to_linalg
