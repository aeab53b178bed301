//===- DenseLinearAlgebra.cpp - triangular solves and Cholesky ------------===//
//
// Real (f32/f64) dense linear algebra as explicit loops (see
// DenseLinearAlgebra.h for the batching and the helpers):
//  - linalg_solve_triangular(A, B, upper, left, unitriangular): forward (lower)
//    or backward (upper) substitution per column of B; left=False solves
//    X A = B as A^T X^T = B^T. Eager (trsm) does not check the diagonal: a
//    zero on it gives inf/nan as in eager.
//  - linalg_cholesky_ex(A, upper, check_errors=False): column-by-column
//    Cholesky of the lower triangle (upper=True: of the upper one, returned
//    as U = L^T), info as LAPACK's potrf: the order of the first leading
//    minor whose pivot is not > 0 (or NaN), 0 when A is positive-definite;
//    torch.linalg.cholesky raises from that info (its _linalg_check_errors
//    reads it). After a failure the factor is eager's (potf2's): columns
//    before the failing one factored, d on its diagonal, A's values after.
//  - _cholesky_solve_helper(B, L, upper) (cholesky_solve after its
//    broadcast) and cholesky_inverse(L, upper): two triangular solves.
//  - the deprecated triangular_solve(B, A, upper, transpose, unitriangular).
//
//===----------------------------------------------------------------------===//

#include "DenseLinearAlgebra.h"
#include "DenseLinearAlgebraPatterns.h"

#include "mlir/Dialect/Math/IR/Math.h"

#include <array>

using namespace mlir;

namespace ltc_mlir::torch_to_linalg {
namespace {
using namespace dense_la;

/// The batch dims of a static tensor of rank >= 2 (all but the last two).
ArrayRef<int64_t> batchDims(RankedTensorType type, unsigned matrixRank = 2) {
  return type.getShape().drop_back(matrixRank);
}

/// The constant bools of operands 2, 3 and 4 (the flags of the triangular
/// solves), or std::nullopt.
std::optional<std::array<bool, 3>> getConstantFlags(Operation *op) {
  std::array<bool, 3> flags;
  for (unsigned i = 0; i < 3; ++i) {
    std::optional<bool> flag = getConstantBool(op->getOperand(2 + i));
    if (!flag)
      return std::nullopt;
    flags[i] = *flag;
  }
  return flags;
}

/// A and B of a triangular solve broadcast to the batch dims of `type` and
/// collapsed (toBatched), or failure.
FailureOr<std::pair<Value, Value>> toBatchedPair(OpBuilder &b, Location loc,
                                                 Value a, Value rhs,
                                                 RankedTensorType type) {
  ArrayRef<int64_t> batch = batchDims(type);
  FailureOr<Value> aB = toBatched(b, loc, a, batch);
  FailureOr<Value> xB = toBatched(b, loc, rhs, batch);
  if (failed(aB) || failed(xB))
    return failure();
  return std::make_pair(*aB, *xB);
}

class ConvertSolveTriangular : public NamedTorchPattern {
public:
  ConvertSolveTriangular(const TorchTypeConverter &tc, MLIRContext *ctx)
      : NamedTorchPattern(tc, "torch.aten.linalg_solve_triangular", ctx) {}
  LogicalResult
  matchAndRewrite(Operation *op, ArrayRef<Value> operands,
                  ConversionPatternRewriter &rewriter) const override {
    auto types = getResultTypes(op);
    if (failed(types))
      return fail(op, rewriter, "result type is not a static tensor");
    RankedTensorType type = (*types)[0];
    if (!isRealFloat(type.getElementType()))
      return fail(op, rewriter, "only f32 and f64 are lowered");
    Value a = operands[0], rhs = operands[1];
    auto aType = cast<RankedTensorType>(a.getType());
    auto bType = cast<RankedTensorType>(rhs.getType());
    if (aType.getElementType() != type.getElementType() ||
        bType.getElementType() != type.getElementType() ||
        aType.getRank() < 2 || type.getRank() < 2)
      return fail(op, rewriter, "needs matrices of the result's dtype");
    std::optional<std::array<bool, 3>> flags = getConstantFlags(op);
    if (!flags)
      return fail(op, rewriter, "upper, left and unitriangular must be constants");
    auto [upper, left, unit] = *flags;
    if (hasZeroDim({type, aType, bType}))
      return replaceEmptyCase(op, rewriter, *types, {});
    Location loc = op->getLoc();
    FailureOr<std::pair<Value, Value>> batched =
        toBatchedPair(rewriter, loc, a, rhs, type);
    if (failed(batched))
      return fail(op, rewriter, "batch dims do not broadcast");
    auto [aB, xB] = *batched;
    Value result;
    if (left) {
      result = solveTriangular(rewriter, loc, aB, xB, !upper,
                               /*transA=*/false, unit);
    } else {
      // X A = B  <=>  A^T X^T = B^T (the triangle flips).
      Value xt = transposeMatrices(rewriter, loc, xB);
      result = transposeMatrices(
          rewriter, loc,
          solveTriangular(rewriter, loc, aB, xt, /*lower=*/upper,
                          /*transA=*/true, unit));
    }
    FailureOr<Value> out = fromBatched(rewriter, loc, result, type);
    if (failed(out))
      return fail(op, rewriter, "result shape does not match");
    rewriter.replaceOp(op, *out);
    return success();
  }
};

/// Lower Cholesky factor of each [n, n] matrix of `a` ([B, n, n]), reading
/// its lower triangle, and the LAPACK info per matrix ([B] i32).
std::pair<Value, Value> createCholesky(OpBuilder &b, Location loc, Value a,
                                       RankedTensorType infoType) {
  auto aType = cast<RankedTensorType>(a.getType());
  int64_t batch = aType.getDimSize(0), n = aType.getDimSize(1);
  Type elemType = aType.getElementType();
  Type i32 = b.getI32Type();
  Value c0 = indexConst(b, loc, 0), c1 = indexConst(b, loc, 1);
  Value cN = indexConst(b, loc, n);
  Value info0 = createZeroTensor(b, loc, infoType);
  SmallVector<Value> res = createLoop(
      b, loc, c0, indexConst(b, loc, batch), ValueRange{a, info0},
      [&](OpBuilder &b1, Location l1, Value bi, ValueRange s1) {
        Value zeroInfo = createIntConstant(b1, l1, i32, 0);
        SmallVector<Value> r = createLoop(
            b1, l1, c0, cN, ValueRange{s1[0], zeroInfo},
            [&](OpBuilder &b2, Location l2, Value j,
                ValueRange s2) -> SmallVector<Value> {
              Value lm = s2[0];
              // init minus the dot of rows p and q of L over columns
              // [0, j), read from `from` (a version of L with these
              // columns final).
              auto rowDot = [&](OpBuilder &nb, Location l, Value from,
                                Value p, Value q, Value init) {
                return createLoop(
                           nb, l, c0, j, init,
                           [&](OpBuilder &b3, Location l3, Value k,
                               ValueRange acc) -> SmallVector<Value> {
                             Value lp = tensor::ExtractOp::create(
                                 b3, l3, from, ValueRange{bi, p, k});
                             Value lq = tensor::ExtractOp::create(
                                 b3, l3, from, ValueRange{bi, q, k});
                             return {arith::SubFOp::create(
                                 b3, l3, acc[0],
                                 arith::MulFOp::create(b3, l3, lp, lq))};
                           })
                    .front();
              };
              Value ajj = tensor::ExtractOp::create(b2, l2, lm,
                                                    ValueRange{bi, j, j});
              Value d = rowDot(b2, l2, lm, j, j, ajj);
              // Not positive (or NaN): the leading minor of order j + 1.
              Value bad = arith::CmpFOp::create(
                  b2, l2, arith::CmpFPredicate::ULE, d,
                  createScalarConstant(b2, l2, elemType, 0));
              Value failedBefore = arith::CmpIOp::create(
                  b2, l2, arith::CmpIPredicate::ne, s2[1], zeroInfo);
              Value first = arith::AndIOp::create(
                  b2, l2, bad,
                  arith::XOrIOp::create(
                      b2, l2, failedBefore,
                      arith::ConstantOp::create(b2, l2, b2.getBoolAttr(true))));
              Value order = arith::IndexCastOp::create(
                  b2, l2, i32, arith::AddIOp::create(b2, l2, j, c1));
              Value info =
                  arith::SelectOp::create(b2, l2, first, order, s2[1]);
              // As LAPACK's potf2 (and eager's result): the failing column
              // gets d on the diagonal, it and the later columns keep A's
              // values.
              Value skip = arith::OrIOp::create(b2, l2, failedBefore, bad);
              Value ljj = math::SqrtOp::create(b2, l2, d);
              Value diag = arith::SelectOp::create(
                  b2, l2, failedBefore, ajj,
                  arith::SelectOp::create(b2, l2, bad, d, ljj));
              lm = tensor::InsertOp::create(b2, l2, diag, lm,
                                            ValueRange{bi, j, j});
              Value jp1 = arith::AddIOp::create(b2, l2, j, c1);
              Value col =
                  createLoop(
                      b2, l2, jp1, cN, lm,
                      [&](OpBuilder &b3, Location l3, Value i,
                          ValueRange s3) -> SmallVector<Value> {
                        Value aij = tensor::ExtractOp::create(
                            b3, l3, s3[0], ValueRange{bi, i, j});
                        // Columns < j are final (this loop writes column j
                        // only): read the loop's own tensor, no copy.
                        Value s = rowDot(b3, l3, s3[0], i, j, aij);
                        Value lij = arith::SelectOp::create(
                            b3, l3, skip, aij,
                            arith::DivFOp::create(b3, l3, s, ljj));
                        return {tensor::InsertOp::create(b3, l3, lij, s3[0],
                                                         ValueRange{bi, i, j})};
                      })
                      .front();
              return {col, info};
            });
        Value infos =
            tensor::InsertOp::create(b1, l1, r[1], s1[1], ValueRange{bi});
        return SmallVector<Value>{r[0], infos};
      });
  return {res[0], res[1]};
}

/// linalg_cholesky_ex(A, upper, check_errors) -> (L, info).
class ConvertCholesky : public NamedTorchPattern {
public:
  ConvertCholesky(const TorchTypeConverter &tc, MLIRContext *ctx)
      : NamedTorchPattern(tc, "torch.aten.linalg_cholesky_ex", ctx) {}
  LogicalResult
  matchAndRewrite(Operation *op, ArrayRef<Value> operands,
                  ConversionPatternRewriter &rewriter) const override {
    auto types = getResultTypes(op);
    if (failed(types))
      return fail(op, rewriter, "result types are not static tensors");
    RankedTensorType lType = (*types)[0];
    Value a = operands[0];
    auto aType = cast<RankedTensorType>(a.getType());
    if (!isRealFloat(lType.getElementType()) || aType != lType ||
        lType.getRank() < 2)
      return fail(op, rewriter, "only f32 and f64 matrices are lowered");
    std::optional<bool> upper = getConstantBool(op->getOperand(1));
    std::optional<bool> checkErrors = getConstantBool(op->getOperand(2));
    if (!upper || !checkErrors)
      return fail(op, rewriter, "upper and check_errors must be constants");
    if (*checkErrors)
      return fail(op, rewriter, "check_errors=True raises eagerly");
    RankedTensorType infoType = (*types)[1];
    if (!infoType.getElementType().isInteger(32))
      return fail(op, rewriter, "info must be int32");
    if (hasZeroDim({lType}))
      return replaceEmptyCase(op, rewriter, *types, {std::nullopt, 0.0});
    Location loc = op->getLoc();
    ArrayRef<int64_t> batch = batchDims(lType);
    FailureOr<Value> aB = toBatched(rewriter, loc, a, batch);
    if (failed(aB))
      return fail(op, rewriter, "cannot collapse the batch dims");
    // upper: U^T U = A from the upper triangle = the lower factor of A^T.
    Value input = *upper ? transposeMatrices(rewriter, loc, *aB) : *aB;
    int64_t count = cast<RankedTensorType>(input.getType()).getDimSize(0);
    auto infoB = RankedTensorType::get({count}, infoType.getElementType());
    auto [factor, info] = createCholesky(rewriter, loc, input, infoB);
    factor = extractTriangle(rewriter, loc, factor,
                             cast<RankedTensorType>(factor.getType()),
                             /*lower=*/true, /*unitDiagonal=*/false);
    if (*upper)
      factor = transposeMatrices(rewriter, loc, factor);
    FailureOr<Value> lOut = fromBatched(rewriter, loc, factor, lType);
    FailureOr<Value> infoOut = fromBatched(rewriter, loc, info, infoType);
    if (failed(lOut) || failed(infoOut))
      return fail(op, rewriter, "result shapes do not match");
    rewriter.replaceOp(op, ValueRange{*lOut, *infoOut});
    return success();
  }
};

/// The deprecated triangular_solve(B, A, upper, transpose, unitriangular)
/// -> (X, A broadcast): op(A) X = B with op(A) = A^T when `transpose`.
class ConvertLegacyTriangularSolve : public NamedTorchPattern {
public:
  ConvertLegacyTriangularSolve(const TorchTypeConverter &tc, MLIRContext *ctx)
      : NamedTorchPattern(tc, "torch.aten.triangular_solve", ctx) {}
  LogicalResult
  matchAndRewrite(Operation *op, ArrayRef<Value> operands,
                  ConversionPatternRewriter &rewriter) const override {
    auto types = getResultTypes(op);
    if (failed(types))
      return fail(op, rewriter, "result types are not static tensors");
    RankedTensorType type = (*types)[0], coefType = (*types)[1];
    Value rhs = operands[0], a = operands[1];
    auto aType = cast<RankedTensorType>(a.getType());
    auto bType = cast<RankedTensorType>(rhs.getType());
    if (!isRealFloat(type.getElementType()) ||
        aType.getElementType() != type.getElementType() ||
        bType.getElementType() != type.getElementType() ||
        aType.getRank() < 2 || type.getRank() < 2 || coefType.getRank() < 2)
      return fail(op, rewriter, "only f32 and f64 matrices are lowered");
    std::optional<std::array<bool, 3>> flags = getConstantFlags(op);
    if (!flags)
      return fail(op, rewriter, "upper, transpose, unitriangular must be constants");
    auto [upper, transpose, unit] = *flags;
    if (hasZeroDim({type, coefType, aType, bType}))
      return replaceEmptyCase(op, rewriter, *types, {});
    Location loc = op->getLoc();
    FailureOr<std::pair<Value, Value>> batched =
        toBatchedPair(rewriter, loc, a, rhs, type);
    if (failed(batched))
      return fail(op, rewriter, "batch dims do not broadcast");
    auto [aB, xB] = *batched;
    // The lower triangle of op(A): A's (no transpose) or A's upper one.
    Value x = solveTriangular(rewriter, loc, aB, xB,
                              /*lower=*/transpose ? upper : !upper,
                              transpose, unit);
    FailureOr<Value> out = fromBatched(rewriter, loc, x, type);
    FailureOr<Value> coef = fromBatched(rewriter, loc, aB, coefType);
    if (failed(out) || failed(coef))
      return fail(op, rewriter, "result shapes do not match");
    rewriter.replaceOp(op, ValueRange{*out, *coef});
    return success();
  }
};

/// Solves A X = B with A = L L^T (or U^T U when `upper`) for the
/// batched factor `f` and right-hand sides `x`.
Value choleskySolve(OpBuilder &b, Location loc, Value f, Value x, bool upper) {
  if (upper) { // U^T (U X) = B
    x = solveTriangular(b, loc, f, x, /*lower=*/true, /*transA=*/true, false);
    return solveTriangular(b, loc, f, x, /*lower=*/false, false, false);
  }
  x = solveTriangular(b, loc, f, x, /*lower=*/true, /*transA=*/false, false);
  return solveTriangular(b, loc, f, x, /*lower=*/false, /*transA=*/true, false);
}

/// _cholesky_solve_helper(B, L, upper) and cholesky_inverse(L, upper)
/// (IsInverse: B is the identity).
template <bool IsInverse>
class ConvertCholeskySolve : public NamedTorchPattern {
public:
  ConvertCholeskySolve(const TorchTypeConverter &tc, MLIRContext *ctx)
      : NamedTorchPattern(tc,
                          IsInverse ? "torch.aten.cholesky_inverse"
                                    : "torch.aten._cholesky_solve_helper",
                          ctx) {}
  LogicalResult
  matchAndRewrite(Operation *op, ArrayRef<Value> operands,
                  ConversionPatternRewriter &rewriter) const override {
    auto types = getResultTypes(op);
    if (failed(types))
      return fail(op, rewriter, "result type is not a static tensor");
    RankedTensorType type = (*types)[0];
    Value f = IsInverse ? operands[0] : operands[1];
    auto fType = cast<RankedTensorType>(f.getType());
    if (!isRealFloat(type.getElementType()) ||
        fType.getElementType() != type.getElementType() ||
        fType.getRank() < 2 || type.getRank() < 2)
      return fail(op, rewriter, "only f32 and f64 matrices are lowered");
    std::optional<bool> upper =
        getConstantBool(op->getOperand(IsInverse ? 1 : 2));
    if (!upper)
      return fail(op, rewriter, "upper must be a constant");
    if (hasZeroDim({type, fType}))
      return replaceEmptyCase(op, rewriter, *types, {});
    Location loc = op->getLoc();
    ArrayRef<int64_t> batch = batchDims(type);
    FailureOr<Value> fB = toBatched(rewriter, loc, f, batch);
    if (failed(fB))
      return fail(op, rewriter, "batch dims do not broadcast");
    Value x;
    if (IsInverse) {
      x = createIdentity(rewriter, loc,
                         cast<RankedTensorType>(fB->getType()));
    } else {
      FailureOr<Value> xB = toBatched(rewriter, loc, operands[0], batch);
      if (failed(xB) || cast<RankedTensorType>(operands[0].getType())
                                .getElementType() != type.getElementType())
        return fail(op, rewriter, "B does not match the factor");
      x = *xB;
    }
    FailureOr<Value> out = fromBatched(
        rewriter, loc, choleskySolve(rewriter, loc, *fB, x, *upper), type);
    if (failed(out))
      return fail(op, rewriter, "result shape does not match");
    rewriter.replaceOp(op, *out);
    return success();
  }
};

} // namespace

void populateDenseLinearAlgebraPatterns(TorchTypeConverter &typeConverter,
                                        RewritePatternSet &patterns) {
  patterns.add<ConvertSolveTriangular, ConvertLegacyTriangularSolve,
               ConvertCholesky,
               ConvertCholeskySolve<false>, ConvertCholeskySolve<true>>(
      typeConverter, patterns.getContext());
}

} // namespace ltc_mlir::torch_to_linalg
