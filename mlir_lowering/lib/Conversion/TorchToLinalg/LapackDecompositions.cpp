//===- LapackDecompositions.cpp - svd, eigh and qr through LAPACK ---------===//
//
// _linalg_svd, _linalg_eigh and linalg_qr (f32/f64) call
// the runtime's LAPACK entry points (runtime/lapack.h): singular and
// eigenvectors are only defined up to sign, so the only way to give eager's
// exact vectors is to run eager's routine (gesdd, syevd, geqrf +
// orgqr) the way eager runs it.
//
// At tensor level: the batched input becomes a read-only buffer
// (bufferization.to_buffer, any layout), each result a fresh memref.alloc,
// and a func.call to the entry point (declared with llvm.emit_c_interface,
// so it receives memref descriptors) writes them; bufferization.to_tensor
// turns them back into tensors. LAPACK's info feeds runtime checks with
// eager's messages. Empty inputs give eager's empty or identity results
// without a call.
//
//===----------------------------------------------------------------------===//

#include "DenseLinearAlgebra.h"
#include "DenseLinearAlgebraPatterns.h"
#include "RuntimeCalls.h"

#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"

using namespace mlir;

namespace ltc_mlir::torch_to_linalg {
namespace {
using namespace dense_la;

std::string entryName(StringRef op, Type elementType) {
  return ("ltc_mlir_rt_" + op + (elementType.isF32() ? "_f32" : "_f64")).str();
}

/// Raises `message` (a runtime check) unless every info satisfies `ok`.
void checkInfo(OpBuilder &b, Location loc, Value info,
               arith::CmpIPredicate predicate, int64_t value,
               StringRef message) {
  Value ok = createAllOf(b, loc, info, [&](OpBuilder &nb, Location l, Value v) {
    return arith::CmpIOp::create(nb, l, predicate, v,
                                 createIntConstant(nb, l, v.getType(), value))
        .getResult();
  });
  emitRuntimeCheck(b, loc, ok, message);
}

/// Common checks: static f32/f64 results of the input's dtype, a matrix
/// input of rank >= 2 with no zero dim.
LogicalResult checkOperand(Value a, ArrayRef<RankedTensorType> types,
                           StringRef &why) {
  auto aType = dyn_cast<RankedTensorType>(a.getType());
  if (!aType || !aType.hasStaticShape() || aType.getRank() < 2 ||
      !isRealFloat(aType.getElementType())) {
    why = "only static f32 and f64 matrices are lowered";
    return failure();
  }
  for (RankedTensorType t : types)
    if (t.getElementType() != aType.getElementType()) {
      why = "results must have the input's dtype";
      return failure();
    }
  return success();
}

/// Eager's answer for an empty input: every result is empty except the full
/// U/Vh of svd and the complete Q of qr, which are identity matrices.
LogicalResult replaceWithEmptyResults(Operation *op,
                               ConversionPatternRewriter &rewriter,
                               ArrayRef<RankedTensorType> types) {
  Location loc = op->getLoc();
  SmallVector<Value> results;
  for (RankedTensorType type : types) {
    if (type.getNumElements() == 0) {
      results.push_back(createEmptyTensor(rewriter, loc, type));
      continue;
    }
    int64_t rank = type.getRank(), n = type.getDimSize(rank - 1);
    if (rank < 2 || type.getDimSize(rank - 2) != n)
      return failure();
    int64_t count = type.getNumElements() / (n * n);
    Value eye = createIdentity(
        rewriter, loc,
        RankedTensorType::get({count, n, n}, type.getElementType()));
    FailureOr<Value> out = fromBatched(rewriter, loc, eye, type);
    if (failed(out))
      return failure();
    results.push_back(*out);
  }
  rewriter.replaceOp(op, results);
  return success();
}

/// The batched input of a decomposition: [count, m, n].
struct BatchedMatrix {
  Value value;
  Type elem;
  int64_t count, m, n;
};

/// The parts every decomposition shares: static results of the input's
/// dtype, constant arguments (checkArguments), eager's empty results, the
/// input batched; rewriteMatrices builds the call. `finish` reshapes the
/// batched results back, or makes empty ones (a null value).
class LapackPattern : public NamedTorchPattern {
public:
  using NamedTorchPattern::NamedTorchPattern;
  LogicalResult
  matchAndRewrite(Operation *op, ArrayRef<Value> operands,
                  ConversionPatternRewriter &rewriter) const final {
    auto types = getResultTypes(op);
    if (failed(types))
      return fail(op, rewriter, "result types are not static tensors");
    StringRef why;
    if (failed(checkOperand(operands[0], *types, why)) ||
        failed(checkArguments(op, why)))
      return fail(op, rewriter, why);
    auto aType = cast<RankedTensorType>(operands[0].getType());
    if (hasZeroDim({aType})) {
      if (failed(replaceWithEmptyResults(op, rewriter, *types)))
        return fail(op, rewriter, "unexpected result shapes for an empty input");
      return success();
    }
    FailureOr<Value> aB = toBatched(rewriter, op->getLoc(), operands[0],
                                    aType.getShape().drop_back(2));
    if (failed(aB))
      return fail(op, rewriter, "cannot collapse the batch dims");
    int64_t rank = aType.getRank();
    BatchedMatrix a{*aB, aType.getElementType(),
                    cast<RankedTensorType>(aB->getType()).getDimSize(0),
                    aType.getDimSize(rank - 2), aType.getDimSize(rank - 1)};
    return rewriteMatrices(op, rewriter, *types, a, operands);
  }

protected:
  virtual LogicalResult checkArguments(Operation *op, StringRef &why) const = 0;
  virtual LogicalResult rewriteMatrices(Operation *op,
                                        ConversionPatternRewriter &rewriter,
                                        ArrayRef<RankedTensorType> types,
                                        const BatchedMatrix &a,
                                        ArrayRef<Value> operands) const = 0;

  LogicalResult finish(Operation *op, ConversionPatternRewriter &rewriter,
                       ArrayRef<Value> values,
                       ArrayRef<RankedTensorType> types) const {
    SmallVector<Value> results;
    for (auto [value, type] : llvm::zip(values, types)) {
      if (!value) {
        results.push_back(createEmptyTensor(rewriter, op->getLoc(), type));
        continue;
      }
      FailureOr<Value> out = fromBatched(rewriter, op->getLoc(), value, type);
      if (failed(out))
        return fail(op, rewriter, "result shapes do not match");
      results.push_back(*out);
    }
    rewriter.replaceOp(op, results);
    return success();
  }
};

RankedTensorType batchedType(int64_t count, ArrayRef<int64_t> shape, Type elem) {
  SmallVector<int64_t> s = {count};
  s.append(shape.begin(), shape.end());
  return RankedTensorType::get(s, elem);
}

/// _linalg_svd(A, full_matrices, compute_uv, driver) -> (U, S, Vh).
class ConvertSvd : public LapackPattern {
public:
  ConvertSvd(const TorchTypeConverter &tc, MLIRContext *ctx)
      : LapackPattern(tc, "torch.aten._linalg_svd", ctx) {}

protected:
  LogicalResult checkArguments(Operation *op, StringRef &why) const override {
    if (!getConstantBool(op->getOperand(1)) || !getConstantBool(op->getOperand(2)))
      why = "full_matrices and compute_uv must be constants";
    else if (!isNone(op->getOperand(3)))
      why = "a driver is only accepted on CUDA";
    else
      return success();
    return failure();
  }
  LogicalResult rewriteMatrices(Operation *op,
                                ConversionPatternRewriter &rewriter,
                                ArrayRef<RankedTensorType> types,
                                const BatchedMatrix &a,
                                ArrayRef<Value>) const override {
    bool full = *getConstantBool(op->getOperand(1));
    bool computeUV = *getConstantBool(op->getOperand(2));
    Location loc = op->getLoc();
    int64_t k = std::min(a.m, a.n);
    int64_t uCols = full ? a.m : k, vhRows = full ? a.n : k;
    auto none = batchedType(a.count, {0, 0}, a.elem);
    SmallVector<RankedTensorType> outs = {
        computeUV ? batchedType(a.count, {a.m, uCols}, a.elem) : none,
        batchedType(a.count, {k}, a.elem),
        computeUV ? batchedType(a.count, {vhRows, a.n}, a.elem) : none,
        batchedType(a.count, {}, rewriter.getI32Type())};
    SmallVector<Value> r =
        callRuntime(rewriter, loc, entryName("svd", a.elem), {a.value}, outs,
                    {full ? 1 : 0, computeUV ? 1 : 0});
    // Eager's messages (_linalg_check_errors): gesdd reports NaN/inf input
    // as an illegal 4th argument.
    checkInfo(rewriter, loc, r[3], arith::CmpIPredicate::ne, -4,
              "linalg.svd: The algorithm failed to converge because the "
              "input matrix contained non-finite values.");
    checkInfo(rewriter, loc, r[3], arith::CmpIPredicate::sle, 0,
              "linalg.svd: The algorithm failed to converge because the "
              "input matrix is ill-conditioned or has too many repeated "
              "singular values (LAPACK's gesdd returned a positive info).");
    return finish(op, rewriter,
                  {computeUV ? r[0] : Value(), r[1], computeUV ? r[2] : Value()},
                  types);
  }
};

/// _linalg_eigh(A, UPLO, compute_v) -> (eigenvalues, eigenvectors): syevd.
class ConvertEigh : public LapackPattern {
public:
  ConvertEigh(const TorchTypeConverter &tc, MLIRContext *ctx)
      : LapackPattern(tc, "torch.aten._linalg_eigh", ctx) {}

protected:
  ConvertEigh(const TorchTypeConverter &tc, StringRef opName, MLIRContext *ctx)
      : LapackPattern(tc, opName, ctx) {}
  /// Whether the op asks for the upper triangle (a constant).
  virtual std::optional<bool> upper(Operation *op) const {
    std::optional<std::string> uplo = getConstantStr(op->getOperand(1));
    if (!uplo || (*uplo != "U" && *uplo != "u" && *uplo != "L" && *uplo != "l"))
      return std::nullopt;
    return *uplo == "U" || *uplo == "u";
  }
  /// Whether eigenvectors are wanted (a constant).
  virtual std::optional<bool> computeVectors(Operation *op) const {
    return getConstantBool(op->getOperand(2));
  }
  virtual StringRef routine() const { return "eigh"; }
  virtual StringRef apiName() const { return "linalg.eigh"; }
  virtual StringRef lapackName() const { return "syevd"; }

  LogicalResult checkArguments(Operation *op, StringRef &why) const override {
    auto type = cast<RankedTensorType>(
        converter.convertType(op->getOperand(0).getType()));
    if (!computeVectors(op))
      why = "the eigenvector flag must be a constant";
    else if (!upper(op))
      why = "UPLO must be a constant 'L' or 'U' (eager raises otherwise)";
    else if (type.getDimSize(type.getRank() - 2) !=
             type.getDimSize(type.getRank() - 1))
      why = "the matrices must be square (eager raises)";
    else
      return success();
    return failure();
  }
  LogicalResult rewriteMatrices(Operation *op,
                                ConversionPatternRewriter &rewriter,
                                ArrayRef<RankedTensorType> types,
                                const BatchedMatrix &a,
                                ArrayRef<Value>) const override {
    bool computeV = *computeVectors(op);
    Location loc = op->getLoc();
    SmallVector<RankedTensorType> outs = {
        batchedType(a.count, {a.n}, a.elem),
        batchedType(a.count, computeV ? SmallVector<int64_t>{a.n, a.n}
                                      : SmallVector<int64_t>{0, 0},
                    a.elem),
        batchedType(a.count, {}, rewriter.getI32Type())};
    SmallVector<Value> r =
        callRuntime(rewriter, loc, entryName(routine(), a.elem), {a.value},
                    outs, {*upper(op) ? 1 : 0, computeV ? 1 : 0});
    checkInfo(rewriter, loc, r[2], arith::CmpIPredicate::eq, 0,
              (apiName() + ": The algorithm failed to converge because the "
                           "input matrix is ill-conditioned or has too many "
                           "repeated eigenvalues (LAPACK's " +
               lapackName() + " returned a nonzero info).")
                  .str());
    return finish(op, rewriter, {r[0], computeV ? r[1] : Value()}, types);
  }
};

/// linalg_qr(A, mode) -> (Q, R), mode "reduced", "complete" or "r".
class ConvertQr : public LapackPattern {
public:
  ConvertQr(const TorchTypeConverter &tc, MLIRContext *ctx)
      : LapackPattern(tc, "torch.aten.linalg_qr", ctx) {}

protected:
  static int64_t modeOf(Operation *op) {
    std::optional<std::string> name = getConstantStr(op->getOperand(1));
    if (!name)
      return -1;
    return *name == "reduced" ? 0 : *name == "complete" ? 1 : *name == "r" ? 2 : -1;
  }
  LogicalResult checkArguments(Operation *op, StringRef &why) const override {
    if (modeOf(op) >= 0)
      return success();
    why = "mode must be a constant 'reduced', 'complete' or 'r' (eager raises)";
    return failure();
  }
  LogicalResult rewriteMatrices(Operation *op,
                                ConversionPatternRewriter &rewriter,
                                ArrayRef<RankedTensorType> types,
                                const BatchedMatrix &a,
                                ArrayRef<Value>) const override {
    int64_t mode = modeOf(op), k = std::min(a.m, a.n);
    int64_t qCols = mode == 1 ? a.m : k, rRows = mode == 1 ? a.m : k;
    SmallVector<RankedTensorType> outs = {
        mode == 2 ? batchedType(a.count, {0, 0}, a.elem)
                  : batchedType(a.count, {a.m, qCols}, a.elem),
        batchedType(a.count, {rRows, a.n}, a.elem)};
    SmallVector<Value> r = callRuntime(rewriter, op->getLoc(),
                                       entryName("qr", a.elem), {a.value},
                                       outs, {mode});
    return finish(op, rewriter, {mode == 2 ? Value() : r[0], r[1]}, types);
  }
};

/// geqrf(A) -> (a, tau).
class ConvertGeqrf : public LapackPattern {
public:
  ConvertGeqrf(const TorchTypeConverter &tc, MLIRContext *ctx)
      : LapackPattern(tc, "torch.aten.geqrf", ctx) {}

protected:
  LogicalResult checkArguments(Operation *, StringRef &) const override {
    return success();
  }
  LogicalResult rewriteMatrices(Operation *op,
                                ConversionPatternRewriter &rewriter,
                                ArrayRef<RankedTensorType> types,
                                const BatchedMatrix &a,
                                ArrayRef<Value>) const override {
    SmallVector<RankedTensorType> outs = {
        batchedType(a.count, {a.m, a.n}, a.elem),
        batchedType(a.count, {std::min(a.m, a.n)}, a.elem)};
    SmallVector<Value> r = callRuntime(rewriter, op->getLoc(),
                                       entryName("geqrf", a.elem), {a.value},
                                       outs, {});
    return finish(op, rewriter, r, types);
  }
};

/// linalg_householder_product(input, tau) -> Q (orgqr).
class ConvertHouseholderProduct : public LapackPattern {
public:
  ConvertHouseholderProduct(const TorchTypeConverter &tc, MLIRContext *ctx)
      : LapackPattern(tc, "torch.aten.linalg_householder_product", ctx) {}

protected:
  LogicalResult checkArguments(Operation *op, StringRef &why) const override {
    auto tau = dyn_cast_or_null<RankedTensorType>(
        converter.convertType(op->getOperand(1).getType()));
    if (tau && tau.hasStaticShape() && tau.getRank() >= 1)
      return success();
    why = "tau must be a static tensor";
    return failure();
  }
  LogicalResult rewriteMatrices(Operation *op,
                                ConversionPatternRewriter &rewriter,
                                ArrayRef<RankedTensorType> types,
                                const BatchedMatrix &a,
                                ArrayRef<Value> operands) const override {
    auto tauType = cast<RankedTensorType>(operands[1].getType());
    if (tauType.getElementType() != a.elem)
      return fail(op, rewriter, "tau must have the input's dtype");
    FailureOr<Value> tau =
        toBatched(rewriter, op->getLoc(), operands[1],
                  tauType.getShape().drop_back(1), /*matrixRank=*/1);
    if (failed(tau))
      return fail(op, rewriter, "cannot collapse tau's batch dims");
    SmallVector<Value> r = callRuntime(
        rewriter, op->getLoc(), entryName("householder_product", a.elem),
        {a.value, *tau}, {batchedType(a.count, {a.m, a.n}, a.elem)}, {});
    return finish(op, rewriter, r, types);
  }
};

} // namespace

void populateLapackDecompositionPatterns(TorchTypeConverter &typeConverter,
                                         RewritePatternSet &patterns) {
  patterns.add<ConvertSvd, ConvertEigh, ConvertQr, ConvertGeqrf,
               ConvertHouseholderProduct>(typeConverter, patterns.getContext());
}

} // namespace ltc_mlir::torch_to_linalg
