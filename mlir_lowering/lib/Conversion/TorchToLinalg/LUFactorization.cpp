//===- LUFactorization.cpp - LU with partial pivoting, unpack, lu_solve ---===//
//
// Real (f32/f64) LU as explicit loops (helpers in DenseLinearAlgebra.h):
//  - linalg_lu_factor_ex(A, pivot=True): right-looking LU of [m, n]
//    matrices with partial pivoting (the first row of largest |value|, as
//    LAPACK's getrf), pivots int32 1-based, info = the first k (1-based)
//    with U[k, k] == 0 (the factorization goes on, as in LAPACK). pivot=False
//    is not implemented on CPU in eager either (falls back: eager's error).
//  - lu_unpack(LU, pivots) -> (P, L, U) with A = P L U; linalg_lu(A).
//  - linalg_lu_solve(LU, pivots, B, left, adjoint): row swaps and two
//    triangular solves (left=False: transposed).
// The factorization and the solve are shared with LUSolvers.cpp (inverse,
// solve, determinants). check_errors=True raises eagerly (the pattern
// refuses it: fallback).
//
//===----------------------------------------------------------------------===//

#include "DenseLinearAlgebra.h"
#include "DenseLinearAlgebraPatterns.h"

#include "mlir/Dialect/Math/IR/Math.h"

using namespace mlir;

namespace ltc_mlir::torch_to_linalg {
namespace {
using namespace dense_la;

/// Applies the row swaps of `pivots` ([B, k] i32, 1-based) to the rows of
/// `x` ([B, m, c]): in order (P^T x), or in reverse order (P x). Pivots
/// out of [1, m] are clamped (memory safety; eager checks lu_solve's input).
Value applyRowSwaps(OpBuilder &b, Location loc, Value x, Value pivots,
                    bool reverse) {
  auto xType = cast<RankedTensorType>(x.getType());
  int64_t batch = xType.getDimSize(0), m = xType.getDimSize(1),
          cols = xType.getDimSize(2);
  int64_t k = cast<RankedTensorType>(pivots.getType()).getDimSize(1);
  k = std::min(k, m);
  Value c0 = indexConst(b, loc, 0), c1 = indexConst(b, loc, 1);
  return createLoop(
             b, loc, c0, indexConst(b, loc, batch), x,
             [&](OpBuilder &b1, Location l1, Value bi, ValueRange s1) {
               return createLoop(
                   b1, l1, c0, indexConst(b1, l1, k), s1,
                   [&](OpBuilder &b2, Location l2, Value t,
                       ValueRange s2) -> SmallVector<Value> {
                     Value r =
                         reverse ? arith::SubIOp::create(
                                       b2, l2, indexConst(b2, l2, k - 1), t)
                                       .getResult()
                                 : t;
                     Value piv = tensor::ExtractOp::create(b2, l2, pivots,
                                                           ValueRange{bi, r});
                     Value p = arith::IndexCastOp::create(
                         b2, l2, b2.getIndexType(),
                         arith::SubIOp::create(
                             b2, l2, piv,
                             createIntConstant(b2, l2, piv.getType(), 1)));
                     p = arith::MaxSIOp::create(b2, l2, p, c0);
                     p = arith::MinSIOp::create(b2, l2, p,
                                                indexConst(b2, l2, m - 1));
                     return SmallVector<Value>{
                         swapRows(b2, l2, s2[0], bi, r, p,
                                  indexConst(b2, l2, cols))};
                   });
             })
      .front();
}

/// P ([B, m, m]) of A = P L U from pivots ([B, k] i32) as a matrix of
/// `type`'s element type: the permutation perm of the row swaps applied to
/// 0..m-1, P[perm[i], i] = 1.
Value createPermutationMatrix(OpBuilder &b, Location loc, Value pivots,
                              RankedTensorType type) {
  int64_t batch = type.getDimSize(0), m = type.getDimSize(1);
  auto permType = RankedTensorType::get({batch, m, 1}, b.getI64Type());
  SmallVector<AffineMap> maps = {b.getMultiDimIdentityMap(3)};
  SmallVector<utils::IteratorType> iterators(3, utils::IteratorType::parallel);
  Value iota =
      linalg::GenericOp::create(
          b, loc, TypeRange{permType}, ValueRange{},
          ValueRange{createEmptyTensor(b, loc, permType)}, maps, iterators,
          [&](OpBuilder &nb, Location l, ValueRange) {
            linalg::YieldOp::create(
                nb, l,
                arith::IndexCastOp::create(nb, l, nb.getI64Type(),
                                           linalg::IndexOp::create(nb, l, 1))
                    .getResult());
          })
          .getResult(0);
  Value perm = applyRowSwaps(b, loc, iota, pivots, /*reverse=*/false);
  Type elemType = type.getElementType();
  return linalg::GenericOp::create(
             b, loc, TypeRange{type}, ValueRange{},
             ValueRange{createEmptyTensor(b, loc, type)}, maps, iterators,
             [&](OpBuilder &nb, Location l, ValueRange) {
               Value bi = linalg::IndexOp::create(nb, l, 0);
               Value r = linalg::IndexOp::create(nb, l, 1);
               Value c = linalg::IndexOp::create(nb, l, 2);
               Value pc = tensor::ExtractOp::create(
                   nb, l, perm, ValueRange{bi, c, indexConst(nb, l, 0)});
               Value hit = arith::CmpIOp::create(
                   nb, l, arith::CmpIPredicate::eq, pc,
                   arith::IndexCastOp::create(nb, l, nb.getI64Type(), r));
               linalg::YieldOp::create(
                   nb, l,
                   arith::SelectOp::create(
                       nb, l, hit, createScalarConstant(nb, l, elemType, 1),
                       createScalarConstant(nb, l, elemType, 0))
                       .getResult());
             })
      .getResult(0);
}

} // namespace

namespace dense_la {

/// LU with partial pivoting of every [m, n] matrix of `a` ([B, m, n]).
LUResult createLU(OpBuilder &b, Location loc, Value a) {
  auto aType = cast<RankedTensorType>(a.getType());
  int64_t batch = aType.getDimSize(0), m = aType.getDimSize(1),
          n = aType.getDimSize(2), kmin = std::min(m, n);
  Type elemType = aType.getElementType();
  Type i32 = b.getI32Type();
  Value c0 = indexConst(b, loc, 0), c1 = indexConst(b, loc, 1);
  Value cM = indexConst(b, loc, m), cN = indexConst(b, loc, n);
  Value pivots0 = createZeroTensor(
      b, loc, RankedTensorType::get({batch, kmin}, i32));
  Value info0 = createZeroTensor(b, loc, RankedTensorType::get({batch}, i32));
  SmallVector<Value> res = createLoop(
      b, loc, c0, indexConst(b, loc, batch), ValueRange{a, pivots0, info0},
      [&](OpBuilder &b1, Location l1, Value bi, ValueRange s1) {
        Value zeroInfo = createIntConstant(b1, l1, i32, 0);
        SmallVector<Value> r = createLoop(
            b1, l1, c0, indexConst(b1, l1, kmin),
            ValueRange{s1[0], s1[1], zeroInfo},
            [&](OpBuilder &b2, Location l2, Value k,
                ValueRange s2) -> SmallVector<Value> {
              Value lu = s2[0];
              // The first row p >= k of largest |lu[p, k]|.
              Value minusOne = createScalarConstant(b2, l2, elemType, -1);
              SmallVector<Value> best = createLoop(
                  b2, l2, k, cM, ValueRange{k, minusOne},
                  [&](OpBuilder &b3, Location l3, Value i,
                      ValueRange s3) -> SmallVector<Value> {
                    Value v = math::AbsFOp::create(
                        b3, l3,
                        tensor::ExtractOp::create(b3, l3, lu,
                                                  ValueRange{bi, i, k}));
                    Value better = arith::CmpFOp::create(
                        b3, l3, arith::CmpFPredicate::OGT, v, s3[1]);
                    return {arith::SelectOp::create(b3, l3, better, i, s3[0]),
                            arith::SelectOp::create(b3, l3, better, v, s3[1])};
                  });
              Value p = best[0];
              Value piv = arith::IndexCastOp::create(
                  b2, l2, i32, arith::AddIOp::create(b2, l2, p, c1));
              Value pivs = tensor::InsertOp::create(b2, l2, piv, s2[1],
                                                    ValueRange{bi, k});
              // Swap rows k and p.
              lu = swapRows(b2, l2, lu, bi, k, p, cN);
              Value pivot =
                  tensor::ExtractOp::create(b2, l2, lu, ValueRange{bi, k, k});
              Value zero = createScalarConstant(b2, l2, elemType, 0);
              Value isZero = arith::CmpFOp::create(
                  b2, l2, arith::CmpFPredicate::OEQ, pivot, zero);
              Value first = arith::AndIOp::create(
                  b2, l2, isZero,
                  arith::CmpIOp::create(b2, l2, arith::CmpIPredicate::eq, s2[2],
                                        zeroInfo));
              Value info = arith::SelectOp::create(
                  b2, l2, first,
                  arith::IndexCastOp::create(
                      b2, l2, i32, arith::AddIOp::create(b2, l2, k, c1)),
                  s2[2]);
              // Multipliers (a zero pivot leaves its column as is) and the
              // rank-1 update of the trailing rows.
              Value kp1 = arith::AddIOp::create(b2, l2, k, c1);
              lu = createLoop(
                       b2, l2, kp1, cM, lu,
                       [&](OpBuilder &b3, Location l3, Value i,
                           ValueRange s3) -> SmallVector<Value> {
                         Value aik = tensor::ExtractOp::create(
                             b3, l3, s3[0], ValueRange{bi, i, k});
                         Value lik = arith::SelectOp::create(
                             b3, l3, isZero, aik,
                             arith::DivFOp::create(b3, l3, aik, pivot));
                         Value row = tensor::InsertOp::create(
                             b3, l3, lik, s3[0], ValueRange{bi, i, k});
                         return SmallVector<Value>{subtractScaledRow(
                             b3, l3, row, bi, i, k, lik, kp1, cN)};
                       })
                       .front();
              return {lu, pivs, info};
            });
        Value infos =
            tensor::InsertOp::create(b1, l1, r[2], s1[2], ValueRange{bi});
        return SmallVector<Value>{r[0], r[1], infos};
      });
  return {res[0], res[1], res[2]};
}

/// Solves A X = B (or A^T X = B when `adjoint`) for A = P L U given as
/// batched `lu` ([B, n, n]) and `pivots`, in place of `x` ([B, n, c]).
Value luSolve(OpBuilder &b, Location loc, Value lu, Value pivots, Value x,
              bool adjoint) {
  if (!adjoint) {
    x = applyRowSwaps(b, loc, x, pivots, /*reverse=*/false);
    x = solveTriangular(b, loc, lu, x, /*lower=*/true, false, /*unit=*/true);
    return solveTriangular(b, loc, lu, x, /*lower=*/false, false, false);
  }
  // A^T = U^T L^T P^T.
  x = solveTriangular(b, loc, lu, x, /*lower=*/true, /*transA=*/true, false);
  x = solveTriangular(b, loc, lu, x, /*lower=*/false, /*transA=*/true,
                      /*unit=*/true);
  return applyRowSwaps(b, loc, x, pivots, /*reverse=*/true);
}

/// Checks shared by the patterns: static result types, real float matrix
/// operand `a` of rank >= 2 with the dtype of result `floatResult`.
FailureOr<SmallVector<RankedTensorType>>
checkTypes(FailureOr<SmallVector<RankedTensorType>> types, Value a,
           unsigned floatResult) {
  if (failed(types))
    return failure();
  auto aType = cast<RankedTensorType>(a.getType());
  if (!isRealFloat(aType.getElementType()) || aType.getRank() < 2 ||
      (*types)[floatResult].getElementType() != aType.getElementType())
    return failure();
  return types;
}

/// Whether the op works on empty matrices: `a` or a result has a zero dim.
bool isEmptyCase(ArrayRef<RankedTensorType> types, Value a) {
  return hasZeroDim(types) ||
         hasZeroDim({cast<RankedTensorType>(a.getType())});
}

/// Factors `a` (operand, [..., m, n]) with its batch broadcast to `batch`,
/// or its transpose when `transposed`.
FailureOr<LUResult> factorBatched(OpBuilder &b, Location loc, Value a,
                                  ArrayRef<int64_t> batch, bool transposed) {
  FailureOr<Value> aB = toBatched(b, loc, a, batch);
  if (failed(aB))
    return failure();
  return createLU(b, loc, transposed ? transposeMatrices(b, loc, *aB) : *aB);
}

/// Solves with batched lu/pivots for `rhs` (operand, [..., n, c] or, when
/// !left, [..., c, n]) broadcast to `batch`: left/adjoint as linalg_lu_solve.
FailureOr<Value> solveWithLU(OpBuilder &b, Location loc, Value lu,
                             Value pivots, Value rhs, ArrayRef<int64_t> batch,
                             bool left, bool adjoint) {
  FailureOr<Value> xB = toBatched(b, loc, rhs, batch);
  if (failed(xB))
    return failure();
  if (left)
    return luSolve(b, loc, lu, pivots, *xB, adjoint);
  // X A = B <=> A^T X^T = B^T;  X A^T = B <=> A X^T = B^T.
  Value xt = transposeMatrices(b, loc, *xB);
  return transposeMatrices(b, loc, luSolve(b, loc, lu, pivots, xt, !adjoint));
}

} // namespace dense_la

namespace {
using namespace dense_la;

class ConvertLUFactorEx : public NamedTorchPattern {
public:
  ConvertLUFactorEx(const TorchTypeConverter &tc, MLIRContext *ctx)
      : NamedTorchPattern(tc, "torch.aten.linalg_lu_factor_ex", ctx) {}
  LogicalResult
  matchAndRewrite(Operation *op, ArrayRef<Value> operands,
                  ConversionPatternRewriter &rewriter) const override {
    auto types = checkTypes(getResultTypes(op), operands[0], 0);
    if (failed(types))
      return fail(op, rewriter, "needs static f32/f64 matrices");
    std::optional<bool> pivot = getConstantBool(op->getOperand(1));
    std::optional<bool> checkErrors = getConstantBool(op->getOperand(2));
    if (!pivot || !checkErrors || !*pivot || *checkErrors)
      return fail(op, rewriter,
                  "needs pivot=True and check_errors=False (constants)");
    if (isEmptyCase(*types, operands[0]))
      return replaceEmptyCase(op, rewriter, *types,
                              {std::nullopt, std::nullopt, 0.0});
    Location loc = op->getLoc();
    RankedTensorType luType = (*types)[0];
    FailureOr<LUResult> lu = factorBatched(rewriter, loc, operands[0],
                                           luType.getShape().drop_back(2));
    if (failed(lu))
      return fail(op, rewriter, "cannot collapse the batch dims");
    FailureOr<Value> a = fromBatched(rewriter, loc, lu->lu, (*types)[0]);
    FailureOr<Value> p = fromBatched(rewriter, loc, lu->pivots, (*types)[1]);
    FailureOr<Value> i = fromBatched(rewriter, loc, lu->info, (*types)[2]);
    if (failed(a) || failed(p) || failed(i))
      return fail(op, rewriter, "result shapes do not match");
    rewriter.replaceOp(op, ValueRange{*a, *p, *i});
    return success();
  }
};

/// (P, L, U) of batched `lu` and `pivots`, with the types of `types`
/// (batched: [B, ...]); an empty result type gives an empty tensor.
SmallVector<Value> unpackLU(OpBuilder &b, Location loc, Value lu,
                            Value pivots, ArrayRef<RankedTensorType> types) {
  SmallVector<Value> results;
  for (unsigned r = 0; r < 3; ++r) {
    RankedTensorType t = types[r];
    if (t.getNumElements() == 0) {
      results.push_back(createEmptyTensor(b, loc, t));
      continue;
    }
    if (r == 0)
      results.push_back(createPermutationMatrix(b, loc, pivots, t));
    else
      results.push_back(extractTriangle(b, loc, lu, t, /*lower=*/r == 1,
                                        /*unitDiagonal=*/r == 1));
  }
  return results;
}

/// lu_unpack(LU, pivots, unpack_data, unpack_pivots) and linalg_lu(A)
/// (IsLU: factor first).
template <bool IsLU>
class ConvertLUUnpack : public NamedTorchPattern {
public:
  ConvertLUUnpack(const TorchTypeConverter &tc, MLIRContext *ctx)
      : NamedTorchPattern(tc, IsLU ? "torch.aten.linalg_lu"
                                   : "torch.aten.lu_unpack",
                          ctx) {}
  LogicalResult
  matchAndRewrite(Operation *op, ArrayRef<Value> operands,
                  ConversionPatternRewriter &rewriter) const override {
    auto types = getResultTypes(op);
    auto aType = cast<RankedTensorType>(operands[0].getType());
    if (failed(types) || !isRealFloat(aType.getElementType()) ||
        aType.getRank() < 2)
      return fail(op, rewriter, "needs static f32/f64 matrices");
    // An empty LU (P may be non-empty: not lowered); with LU non-empty,
    // results that unpack_data/unpack_pivots leave out are empty (below).
    if (hasZeroDim({aType}))
      return replaceEmptyCase(op, rewriter, *types, {});
    if (IsLU) {
      std::optional<bool> pivot = getConstantBool(op->getOperand(1));
      if (!pivot || !*pivot)
        return fail(op, rewriter, "needs pivot=True (a constant)");
    }
    Location loc = op->getLoc();
    ArrayRef<int64_t> batch = aType.getShape().drop_back(2);
    int64_t count = 1;
    for (int64_t d : batch)
      count *= d;
    Value lu, pivots;
    if (IsLU) {
      FailureOr<LUResult> f = factorBatched(rewriter, loc, operands[0], batch);
      if (failed(f))
        return fail(op, rewriter, "cannot collapse the batch dims");
      lu = f->lu;
      pivots = f->pivots;
    } else {
      FailureOr<Value> luB = toBatched(rewriter, loc, operands[0], batch);
      FailureOr<Value> pB =
          toBatched(rewriter, loc, operands[1], batch, /*matrixRank=*/1);
      if (failed(luB) || failed(pB) ||
          !cast<RankedTensorType>(pB->getType())
               .getElementType()
               .isInteger(32))
        return fail(op, rewriter, "pivots must be int32 with LU's batch dims");
      lu = *luB;
      pivots = *pB;
    }
    // Batched result types (an empty result stays empty).
    SmallVector<RankedTensorType> batched;
    for (RankedTensorType t : *types) {
      if (t.getNumElements() == 0 || t.getRank() < 2 ||
          t.getShape().drop_back(2) != batch) {
        if (t.getNumElements() != 0)
          return fail(op, rewriter, "unexpected result shape");
        batched.push_back(t);
        continue;
      }
      batched.push_back(RankedTensorType::get(
          {count, t.getDimSize(t.getRank() - 2), t.getDimSize(t.getRank() - 1)},
          t.getElementType()));
    }
    SmallVector<Value> parts = unpackLU(rewriter, loc, lu, pivots, batched);
    SmallVector<Value> results;
    for (unsigned r = 0; r < 3; ++r) {
      FailureOr<Value> out = fromBatched(rewriter, loc, parts[r], (*types)[r]);
      if (failed(out))
        return fail(op, rewriter, "result shapes do not match");
      results.push_back(*out);
    }
    rewriter.replaceOp(op, results);
    return success();
  }
};

class ConvertLUSolve : public NamedTorchPattern {
public:
  ConvertLUSolve(const TorchTypeConverter &tc, MLIRContext *ctx)
      : NamedTorchPattern(tc, "torch.aten.linalg_lu_solve", ctx) {}
  LogicalResult
  matchAndRewrite(Operation *op, ArrayRef<Value> operands,
                  ConversionPatternRewriter &rewriter) const override {
    auto types = checkTypes(getResultTypes(op), operands[0], 0);
    if (failed(types) || (*types)[0].getRank() < 2 ||
        cast<RankedTensorType>(operands[2].getType()).getElementType() !=
            (*types)[0].getElementType())
      return fail(op, rewriter, "needs static f32/f64 matrices");
    std::optional<bool> left = getConstantBool(op->getOperand(3));
    std::optional<bool> adjoint = getConstantBool(op->getOperand(4));
    if (!left || !adjoint)
      return fail(op, rewriter, "left and adjoint must be constants");
    if (isEmptyCase(*types, operands[0]) ||
        hasZeroDim({cast<RankedTensorType>(operands[2].getType())}))
      return replaceEmptyCase(op, rewriter, *types, {});
    Location loc = op->getLoc();
    RankedTensorType type = (*types)[0];
    ArrayRef<int64_t> batch = type.getShape().drop_back(2);
    FailureOr<Value> luB = toBatched(rewriter, loc, operands[0], batch);
    FailureOr<Value> pB =
        toBatched(rewriter, loc, operands[1], batch, /*matrixRank=*/1);
    if (failed(luB) || failed(pB) ||
        !cast<RankedTensorType>(pB->getType()).getElementType().isInteger(32))
      return fail(op, rewriter, "LU and pivots do not broadcast");
    FailureOr<Value> x = solveWithLU(rewriter, loc, *luB, *pB, operands[2],
                                     batch, *left, *adjoint);
    if (failed(x))
      return fail(op, rewriter, "B does not broadcast");
    FailureOr<Value> out = fromBatched(rewriter, loc, *x, type);
    if (failed(out))
      return fail(op, rewriter, "result shape does not match");
    rewriter.replaceOp(op, *out);
    return success();
  }
};

} // namespace

void populateLUFactorizationPatterns(TorchTypeConverter &typeConverter,
                                     RewritePatternSet &patterns) {
  patterns.add<ConvertLUFactorEx, ConvertLUUnpack<false>, ConvertLUUnpack<true>,
               ConvertLUSolve>(typeConverter, patterns.getContext());
}

} // namespace ltc_mlir::torch_to_linalg
