//===- LUSolvers.cpp - inverse, solve, det and slogdet through LU ---------===//
//
// Real (f32/f64), with the LU of LUFactorization.cpp:
//  - linalg_inv_ex(A), _linalg_solve_ex(A, B, left): factor and solve (the
//    identity for the inverse); info as the factorization's, so that
//    torch.linalg.inv/solve raise eager's error for singular input.
//  - _linalg_det, _linalg_slogdet: products of U's diagonal with the
//    permutation's sign (-1 per pivot k != k + 1); a 0x0 matrix has det 1.
// Like eager for a contiguous real A (lazy tensors always are), inverse, det
// and slogdet factor A^T (eager saves a copy to column-major that way): the
// LU/pivots outputs of det/slogdet are A^T's, which their backward formulas
// expect. torch 2.x's _linalg_solve_ex factors A itself (its backward solves
// with adjoint=True). check_errors=True raises eagerly (refused: fallback).
//
//===----------------------------------------------------------------------===//

#include "DenseLinearAlgebra.h"
#include "DenseLinearAlgebraPatterns.h"

#include "mlir/Dialect/Math/IR/Math.h"

using namespace mlir;

namespace ltc_mlir::torch_to_linalg {
namespace {
using namespace dense_la;

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
    // As eager: the inverse factors A^T and solves (A^T)^T X = I; solve
    // returns the LU, pivots and info of A itself, whose backward solves
    // A^H gB = gX with them.
    const bool factorAT = !IsSolve;
    ArrayRef<int64_t> luBatch = infoType.getShape();
    FailureOr<LUResult> lu =
        factorBatched(rewriter, loc, operands[0], luBatch, factorAT);
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
                                                 batch, factorAT);
        if (failed(wide))
          return fail(op, rewriter, "A does not broadcast to B's batch");
        forSolve = *wide;
      }
      FailureOr<Value> x =
          solveWithLU(rewriter, loc, forSolve.lu, forSolve.pivots, rhs, batch,
                      *left, /*adjoint=*/factorAT);
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

void populateLUSolverPatterns(TorchTypeConverter &typeConverter,
                              RewritePatternSet &patterns) {
  patterns.add<ConvertInvSolve<false>, ConvertInvSolve<true>, ConvertDet<false>,
               ConvertDet<true>>(typeConverter, patterns.getContext());
}

} // namespace ltc_mlir::torch_to_linalg
