//===- LUFactorization.cpp - LU with partial pivoting and its users -------===//
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
//  - linalg_inv_ex(A), _linalg_solve_ex(A, B, left): factor and solve (the
//    identity for the inverse); info as the factorization's, so that
//    torch.linalg.inv/solve raise eager's error for singular input.
//  - _linalg_det, _linalg_slogdet: products of U's diagonal with the
//    permutation's sign (-1 per pivot k != k + 1).
// Like eager for a contiguous real A (lazy tensors always are), _linalg_solve_ex,
// linalg_inv_ex, _linalg_det and _linalg_slogdet factor A^T (eager saves a
// copy to column-major that way): their LU/pivots outputs are A^T's, which
// their backward formulas expect (lu_solve with adjoint = !contiguous).
// check_errors=True raises eagerly (the pattern refuses it: fallback).
//
//===----------------------------------------------------------------------===//

#include "DenseLinearAlgebra.h"
#include "DenseLinearAlgebraPatterns.h"

#include "mlir/Dialect/Math/IR/Math.h"

using namespace mlir;

namespace ltc_mlir::torch_to_linalg {
namespace {
using namespace dense_la;

struct LUResult {
  Value lu;     // [B, m, n]
  Value pivots; // [B, min(m, n)] i32, 1-based
  Value info;   // [B] i32
};

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
              lu = createLoop(b2, l2, c0, cN, lu,
                              [&](OpBuilder &b3, Location l3, Value j,
                                  ValueRange s3) -> SmallVector<Value> {
                                Value x = tensor::ExtractOp::create(
                                    b3, l3, s3[0], ValueRange{bi, k, j});
                                Value y = tensor::ExtractOp::create(
                                    b3, l3, s3[0], ValueRange{bi, p, j});
                                Value t = tensor::InsertOp::create(
                                    b3, l3, y, s3[0], ValueRange{bi, k, j});
                                return {tensor::InsertOp::create(
                                    b3, l3, x, t, ValueRange{bi, p, j})};
                              })
                       .front();
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
                         return createLoop(
                             b3, l3, kp1, cN, row,
                             [&](OpBuilder &b4, Location l4, Value j,
                                 ValueRange s4) -> SmallVector<Value> {
                               Value ukj = tensor::ExtractOp::create(
                                   b4, l4, s4[0], ValueRange{bi, k, j});
                               Value aij = tensor::ExtractOp::create(
                                   b4, l4, s4[0], ValueRange{bi, i, j});
                               Value v = arith::SubFOp::create(
                                   b4, l4, aij,
                                   arith::MulFOp::create(b4, l4, lik, ukj));
                               return {tensor::InsertOp::create(
                                   b4, l4, v, s4[0], ValueRange{bi, i, j})};
                             });
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
                     return createLoop(
                         b2, l2, c0, indexConst(b2, l2, cols), s2,
                         [&](OpBuilder &b3, Location l3, Value j,
                             ValueRange s3) -> SmallVector<Value> {
                           Value u = tensor::ExtractOp::create(
                               b3, l3, s3[0], ValueRange{bi, r, j});
                           Value v = tensor::ExtractOp::create(
                               b3, l3, s3[0], ValueRange{bi, p, j});
                           Value w = tensor::InsertOp::create(
                               b3, l3, v, s3[0], ValueRange{bi, r, j});
                           return {tensor::InsertOp::create(
                               b3, l3, u, w, ValueRange{bi, p, j})};
                         });
                   });
             })
      .front();
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
                                  ArrayRef<int64_t> batch,
                                  bool transposed = false) {
  FailureOr<Value> aB = toBatched(b, loc, a, batch);
  if (failed(aB))
    return failure();
  return createLU(b, loc, transposed ? transposeMatrices(b, loc, *aB) : *aB);
}

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

/// linalg_inv_ex(A) -> (inverse, info) and _linalg_solve_ex(A, B, left)
/// -> (result, LU, pivots, info) (IsSolve).
template <bool IsSolve>
class ConvertInvSolve : public NamedTorchPattern {
public:
  ConvertInvSolve(const TorchTypeConverter &tc, MLIRContext *ctx)
      : NamedTorchPattern(tc, IsSolve ? "torch.aten._linalg_solve_ex"
                                      : "torch.aten.linalg_inv_ex",
                          ctx) {}
  LogicalResult
  matchAndRewrite(Operation *op, ArrayRef<Value> operands,
                  ConversionPatternRewriter &rewriter) const override {
    auto types = checkTypes(getResultTypes(op), operands[0], 0);
    if (failed(types))
      return fail(op, rewriter, "needs static f32/f64 matrices");
    std::optional<bool> left =
        IsSolve ? getConstantBool(op->getOperand(2)) : std::optional(true);
    std::optional<bool> checkErrors =
        getConstantBool(op->getOperand(IsSolve ? 3 : 1));
    if (!left || !checkErrors || *checkErrors)
      return fail(op, rewriter, "needs constant flags and check_errors=False");
    if (isEmptyCase(*types, operands[0]) ||
        (IsSolve &&
         hasZeroDim({cast<RankedTensorType>(operands[1].getType())})))
      return replaceEmptyCase(
          op, rewriter, *types,
          IsSolve ? ArrayRef<std::optional<double>>{std::nullopt, std::nullopt,
                                                    std::nullopt, 0.0}
                  : ArrayRef<std::optional<double>>{std::nullopt, 0.0});
    Location loc = op->getLoc();
    RankedTensorType type = (*types)[0];
    RankedTensorType infoType = (*types)[IsSolve ? 3 : 1];
    // As eager for a contiguous real A (a lazy tensor always is): LU,
    // pivots and info are those of A^T, and A X = B is solved as
    // (A^T)^T X = B. The backward (lu_solve with adjoint=False) relies on it.
    ArrayRef<int64_t> luBatch = infoType.getShape();
    FailureOr<LUResult> lu =
        factorBatched(rewriter, loc, operands[0], luBatch, /*transposed=*/true);
    if (failed(lu))
      return fail(op, rewriter, "cannot collapse the batch dims");
    SmallVector<Value> results;
    if (!IsSolve) {
      Value id = createIdentity(rewriter, loc,
                                cast<RankedTensorType>(lu->lu.getType()));
      results.push_back(
          luSolve(rewriter, loc, lu->lu, lu->pivots, id, /*adjoint=*/true));
    } else {
      Value rhs = operands[1];
      auto rhsType = cast<RankedTensorType>(rhs.getType());
      int64_t n = cast<RankedTensorType>(lu->lu.getType()).getDimSize(1);
      // The vector case: B is [..., n] (result too): solve for [..., n, 1].
      bool vectorCase = type.getRank() ==
                        cast<RankedTensorType>(operands[0].getType()).getRank() - 1;
      ArrayRef<int64_t> batch =
          type.getShape().drop_back(vectorCase ? 1 : 2);
      if (vectorCase) {
        if (!*left || rhsType.getDimSize(rhsType.getRank() - 1) != n)
          return fail(op, rewriter, "unexpected vector right-hand side");
        SmallVector<int64_t> shape(rhsType.getShape());
        shape.push_back(1);
        FailureOr<Value> col = createReshape(
            rewriter, loc, rhs,
            RankedTensorType::get(shape, rhsType.getElementType()));
        if (failed(col))
          return fail(op, rewriter, "cannot reshape B");
        rhs = *col;
      }
      if (rhsType.getElementType() != type.getElementType())
        return fail(op, rewriter, "B's dtype differs from A's");
      // LU, pivots and info have A's batch dims; when B's broadcast them,
      // the solve uses the factorization of A broadcast like B.
      LUResult forSolve = *lu;
      if (batch != luBatch) {
        FailureOr<LUResult> wide = factorBatched(rewriter, loc, operands[0],
                                                 batch, /*transposed=*/true);
        if (failed(wide))
          return fail(op, rewriter, "A does not broadcast to B's batch");
        forSolve = *wide;
      }
      FailureOr<Value> x =
          solveWithLU(rewriter, loc, forSolve.lu, forSolve.pivots, rhs, batch,
                      *left, /*adjoint=*/true);
      if (failed(x))
        return fail(op, rewriter, "B does not broadcast");
      results.push_back(*x);
      results.push_back(lu->lu);
      results.push_back(lu->pivots);
    }
    results.push_back(lu->info);
    SmallVector<Value> outs;
    for (auto [v, t] : llvm::zip(results, *types)) {
      FailureOr<Value> out = fromBatched(rewriter, loc, v, t);
      if (failed(out))
        return fail(op, rewriter, "result shapes do not match");
      outs.push_back(*out);
    }
    rewriter.replaceOp(op, outs);
    return success();
  }
};

/// _linalg_det(A) -> (det, LU, pivots) and _linalg_slogdet(A) -> (sign,
/// logabsdet, LU, pivots) (IsSlog).
template <bool IsSlog>
class ConvertDet : public NamedTorchPattern {
public:
  ConvertDet(const TorchTypeConverter &tc, MLIRContext *ctx)
      : NamedTorchPattern(tc, IsSlog ? "torch.aten._linalg_slogdet"
                                     : "torch.aten._linalg_det",
                          ctx) {}
  LogicalResult
  matchAndRewrite(Operation *op, ArrayRef<Value> operands,
                  ConversionPatternRewriter &rewriter) const override {
    auto types = checkTypes(getResultTypes(op), operands[0], 0);
    if (failed(types))
      return fail(op, rewriter, "needs static f32/f64 matrices");
    auto aType = cast<RankedTensorType>(operands[0].getType());
    int64_t n = aType.getDimSize(aType.getRank() - 1);
    if (aType.getDimSize(aType.getRank() - 2) != n)
      return fail(op, rewriter, "needs square matrices");
    // det of a 0x0 matrix is 1 (sign 1, log|det| 0).
    if (isEmptyCase(*types, operands[0]))
      return replaceEmptyCase(
          op, rewriter, *types,
          IsSlog ? ArrayRef<std::optional<double>>{1.0, 0.0}
                 : ArrayRef<std::optional<double>>{1.0});
    Location loc = op->getLoc();
    ArrayRef<int64_t> batch = aType.getShape().drop_back(2);
    // Of A^T, as eager for a contiguous real A (det(A^T) = det(A)); the
    // backward solves with these LU and pivots accordingly.
    FailureOr<LUResult> lu = factorBatched(rewriter, loc, operands[0], batch,
                                           /*transposed=*/true);
    if (failed(lu))
      return fail(op, rewriter, "cannot collapse the batch dims");
    auto luType = cast<RankedTensorType>(lu->lu.getType());
    int64_t count = luType.getDimSize(0);
    Type elemType = aType.getElementType();
    auto vecType = RankedTensorType::get({count}, elemType);
    // Per matrix: the product of U's diagonal (or its sign and the sum of
    // log|u_kk|), with -1 per row swap.
    Value c0 = indexConst(rewriter, loc, 0);
    SmallVector<Value> inits = {createZeroTensor(rewriter, loc, vecType)};
    if (IsSlog)
      inits.push_back(createZeroTensor(rewriter, loc, vecType));
    SmallVector<Value> vecs = createLoop(
        rewriter, loc, c0, indexConst(rewriter, loc, count), inits,
        [&](OpBuilder &b1, Location l1, Value bi, ValueRange s1) {
          Value one = createScalarConstant(b1, l1, elemType, 1);
          Value zero = createScalarConstant(b1, l1, elemType, 0);
          SmallVector<Value> acc = createLoop(
              b1, l1, c0, indexConst(b1, l1, n), ValueRange{one, zero},
              [&](OpBuilder &b2, Location l2, Value k,
                  ValueRange s2) -> SmallVector<Value> {
                Value d = tensor::ExtractOp::create(b2, l2, lu->lu,
                                                    ValueRange{bi, k, k});
                Value piv = tensor::ExtractOp::create(b2, l2, lu->pivots,
                                                      ValueRange{bi, k});
                Value swapped = arith::CmpIOp::create(
                    b2, l2, arith::CmpIPredicate::ne,
                    arith::IndexCastOp::create(b2, l2, b2.getIndexType(), piv),
                    arith::AddIOp::create(b2, l2, k,
                                          indexConst(b2, l2, 1)));
                Value factor = d;
                if (IsSlog) {
                  // sign(d): -1, 0, 1 (NaN stays NaN through the product).
                  Value pos = arith::CmpFOp::create(
                      b2, l2, arith::CmpFPredicate::OGT, d, zero);
                  Value neg = arith::CmpFOp::create(
                      b2, l2, arith::CmpFPredicate::OLT, d, zero);
                  Value nan = arith::CmpFOp::create(
                      b2, l2, arith::CmpFPredicate::UNO, d, d);
                  factor = arith::SelectOp::create(
                      b2, l2, pos, one,
                      arith::SelectOp::create(
                          b2, l2, neg, createScalarConstant(b2, l2, elemType, -1),
                          arith::SelectOp::create(b2, l2, nan, d, zero)));
                }
                factor = arith::SelectOp::create(
                    b2, l2, swapped,
                    arith::NegFOp::create(b2, l2, factor), factor);
                Value prod = arith::MulFOp::create(b2, l2, s2[0], factor);
                Value logSum = s2[1];
                if (IsSlog)
                  logSum = arith::AddFOp::create(
                      b2, l2, logSum,
                      math::LogOp::create(b2, l2,
                                          math::AbsFOp::create(b2, l2, d)));
                return {prod, logSum};
              });
          SmallVector<Value> next = {
              tensor::InsertOp::create(b1, l1, acc[0], s1[0], ValueRange{bi})};
          if (IsSlog)
            next.push_back(tensor::InsertOp::create(b1, l1, acc[1], s1[1],
                                                    ValueRange{bi}));
          return next;
        });
    SmallVector<Value> results(vecs);
    results.push_back(lu->lu);
    results.push_back(lu->pivots);
    SmallVector<Value> outs;
    for (auto [v, t] : llvm::zip(results, *types)) {
      FailureOr<Value> out = fromBatched(rewriter, loc, v, t);
      if (failed(out))
        return fail(op, rewriter, "result shapes do not match");
      outs.push_back(*out);
    }
    rewriter.replaceOp(op, outs);
    return success();
  }
};

} // namespace

void populateLUFactorizationPatterns(TorchTypeConverter &typeConverter,
                                     RewritePatternSet &patterns) {
  patterns.add<ConvertLUFactorEx, ConvertLUUnpack<false>, ConvertLUUnpack<true>,
               ConvertLUSolve, ConvertInvSolve<false>, ConvertInvSolve<true>,
               ConvertDet<false>, ConvertDet<true>>(typeConverter,
                                                    patterns.getContext());
}

} // namespace ltc_mlir::torch_to_linalg
