//===- LapackDecompositions.cpp - svd, eigh and qr through LAPACK ---------===//
//
// _linalg_svd, _linalg_eigh and linalg_qr (f32/f64) call the runtime's
// LAPACK entry points (runtime/lapack.h): singular and eigenvectors are only
// defined up to sign, so the only way to give eager's exact vectors is to run
// eager's routine (gesdd, syevd, geqrf + orgqr) the way eager runs it.
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

#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"

using namespace mlir;

namespace ltc_mlir::torch_to_linalg {
namespace {
using namespace dense_la;

/// memref<?x...xT, strided<[?, ...], offset: ?>>: the one type every entry
/// point's memref parameters have, whatever the layout at a call site.
MemRefType fullyDynamicMemRef(int64_t rank, Type elementType) {
  SmallVector<int64_t> dynamic(rank, ShapedType::kDynamic);
  auto layout = StridedLayoutAttr::get(elementType.getContext(),
                                       ShapedType::kDynamic, dynamic);
  return MemRefType::get(dynamic, elementType, layout);
}

/// Calls `@<name>` (created on first use) on `inputs` (read) and fresh
/// buffers of `resultTypes` (written), then `scalars` (i64); returns the
/// written buffers as tensors.
SmallVector<Value> callRuntime(OpBuilder &b, Location loc, StringRef name,
                               ValueRange inputs,
                               ArrayRef<RankedTensorType> resultTypes,
                               ArrayRef<int64_t> scalars) {
  SmallVector<Value> args;
  for (Value input : inputs) {
    auto type = cast<RankedTensorType>(input.getType());
    SmallVector<int64_t> strides(type.getRank(), ShapedType::kDynamic);
    auto anyLayout = MemRefType::get(
        type.getShape(), type.getElementType(),
        StridedLayoutAttr::get(b.getContext(), ShapedType::kDynamic, strides));
    Value buffer = bufferization::ToBufferOp::create(b, loc, anyLayout, input,
                                                     /*read_only=*/true);
    args.push_back(memref::CastOp::create(
        b, loc, fullyDynamicMemRef(type.getRank(), type.getElementType()),
        buffer));
  }
  SmallVector<Value> buffers;
  for (RankedTensorType type : resultTypes) {
    Value buffer = memref::AllocOp::create(
        b, loc, MemRefType::get(type.getShape(), type.getElementType()));
    buffers.push_back(buffer);
    args.push_back(memref::CastOp::create(
        b, loc, fullyDynamicMemRef(type.getRank(), type.getElementType()),
        buffer));
  }
  for (int64_t v : scalars)
    args.push_back(arith::ConstantOp::create(b, loc, b.getI64IntegerAttr(v)));

  auto module =
      b.getInsertionBlock()->getParentOp()->getParentOfType<ModuleOp>();
  auto callee = module.lookupSymbol<func::FuncOp>(name);
  if (!callee) {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(module.getBody());
    callee = func::FuncOp::create(
        b, module.getLoc(), name,
        b.getFunctionType(ValueRange(args).getTypes(), {}));
    callee.setPrivate();
    callee->setAttr(LLVM::LLVMDialect::getEmitCWrapperAttrName(),
                    b.getUnitAttr());
  }
  func::CallOp::create(b, loc, callee, args);

  SmallVector<Value> results;
  for (auto [buffer, type] : llvm::zip(buffers, resultTypes))
    results.push_back(bufferization::ToTensorOp::create(
        b, loc, type, buffer, /*restrict=*/true, /*writable=*/true));
  return results;
}

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

/// _linalg_svd(A, full_matrices, compute_uv, driver) -> (U, S, Vh).
class ConvertSvd : public NamedTorchPattern {
public:
  ConvertSvd(const TorchTypeConverter &tc, MLIRContext *ctx)
      : NamedTorchPattern(tc, "torch.aten._linalg_svd", ctx) {}
  LogicalResult
  matchAndRewrite(Operation *op, ArrayRef<Value> operands,
                  ConversionPatternRewriter &rewriter) const override {
    auto types = getResultTypes(op);
    if (failed(types))
      return fail(op, rewriter, "result types are not static tensors");
    StringRef why;
    if (failed(checkOperand(operands[0], *types, why)))
      return fail(op, rewriter, why);
    std::optional<bool> full = getConstantBool(op->getOperand(1));
    std::optional<bool> computeUV = getConstantBool(op->getOperand(2));
    if (!full || !computeUV)
      return fail(op, rewriter, "full_matrices and compute_uv must be constants");
    if (!isNone(op->getOperand(3)))
      return fail(op, rewriter, "a driver is only accepted on CUDA");
    if (hasZeroDim({cast<RankedTensorType>(operands[0].getType())})) {
      if (failed(replaceWithEmptyResults(op, rewriter, *types)))
        return fail(op, rewriter, "unexpected result shapes for an empty input");
      return success();
    }
    Location loc = op->getLoc();
    auto aType = cast<RankedTensorType>(operands[0].getType());
    Type elem = aType.getElementType();
    int64_t m = aType.getDimSize(aType.getRank() - 2);
    int64_t n = aType.getDimSize(aType.getRank() - 1), k = std::min(m, n);
    ArrayRef<int64_t> batch = aType.getShape().drop_back(2);
    FailureOr<Value> aB = toBatched(rewriter, loc, operands[0], batch);
    if (failed(aB))
      return fail(op, rewriter, "cannot collapse the batch dims");
    int64_t count = cast<RankedTensorType>(aB->getType()).getDimSize(0);
    int64_t uCols = *full ? m : k, vhRows = *full ? n : k;
    auto batched = [&](ArrayRef<int64_t> shape, Type t = nullptr) {
      SmallVector<int64_t> s = {count};
      s.append(shape.begin(), shape.end());
      return RankedTensorType::get(s, t ? t : elem);
    };
    SmallVector<RankedTensorType> outs = {
        *computeUV ? batched({m, uCols}) : batched({0, 0}), batched({k}),
        *computeUV ? batched({vhRows, n}) : batched({0, 0}),
        batched({}, rewriter.getI32Type())};
    SmallVector<Value> r =
        callRuntime(rewriter, loc, entryName("svd", elem), {*aB}, outs,
                    {*full ? 1 : 0, *computeUV ? 1 : 0});
    // Eager's messages (_linalg_check_errors): gesdd reports NaN/inf input
    // as an illegal 4th argument.
    checkInfo(rewriter, loc, r[3], arith::CmpIPredicate::ne, -4,
              "linalg.svd: The algorithm failed to converge because the "
              "input matrix contained non-finite values.");
    checkInfo(rewriter, loc, r[3], arith::CmpIPredicate::sle, 0,
              "linalg.svd: The algorithm failed to converge because the "
              "input matrix is ill-conditioned or has too many repeated "
              "singular values (LAPACK's gesdd returned a positive info).");
    SmallVector<Value> results;
    for (auto [value, type] : llvm::zip(ArrayRef<Value>(r).take_front(3),
                                        *types)) {
      if (!*computeUV && type.getNumElements() == 0) {
        results.push_back(createEmptyTensor(rewriter, loc, type));
        continue;
      }
      FailureOr<Value> out = fromBatched(rewriter, loc, value, type);
      if (failed(out))
        return fail(op, rewriter, "result shapes do not match");
      results.push_back(*out);
    }
    rewriter.replaceOp(op, results);
    return success();
  }
};

/// _linalg_eigh(A, UPLO, compute_v) -> (eigenvalues, eigenvectors).
class ConvertEigh : public NamedTorchPattern {
public:
  ConvertEigh(const TorchTypeConverter &tc, MLIRContext *ctx)
      : NamedTorchPattern(tc, "torch.aten._linalg_eigh", ctx) {}
  LogicalResult
  matchAndRewrite(Operation *op, ArrayRef<Value> operands,
                  ConversionPatternRewriter &rewriter) const override {
    auto types = getResultTypes(op);
    if (failed(types))
      return fail(op, rewriter, "result types are not static tensors");
    StringRef why;
    if (failed(checkOperand(operands[0], *types, why)))
      return fail(op, rewriter, why);
    std::optional<std::string> uplo = getConstantStr(op->getOperand(1));
    std::optional<bool> computeV = getConstantBool(op->getOperand(2));
    if (!uplo || !computeV)
      return fail(op, rewriter, "UPLO and compute_v must be constants");
    bool upper = *uplo == "U" || *uplo == "u";
    if (!upper && *uplo != "L" && *uplo != "l")
      return fail(op, rewriter, "UPLO must be 'L' or 'U' (eager raises)");
    if (hasZeroDim({cast<RankedTensorType>(operands[0].getType())})) {
      if (failed(replaceWithEmptyResults(op, rewriter, *types)))
        return fail(op, rewriter, "unexpected result shapes for an empty input");
      return success();
    }
    Location loc = op->getLoc();
    auto aType = cast<RankedTensorType>(operands[0].getType());
    Type elem = aType.getElementType();
    int64_t n = aType.getDimSize(aType.getRank() - 1);
    if (aType.getDimSize(aType.getRank() - 2) != n)
      return fail(op, rewriter, "the matrices must be square (eager raises)");
    FailureOr<Value> aB =
        toBatched(rewriter, loc, operands[0], aType.getShape().drop_back(2));
    if (failed(aB))
      return fail(op, rewriter, "cannot collapse the batch dims");
    int64_t count = cast<RankedTensorType>(aB->getType()).getDimSize(0);
    SmallVector<RankedTensorType> outs = {
        RankedTensorType::get({count, n}, elem),
        *computeV ? RankedTensorType::get({count, n, n}, elem)
                  : RankedTensorType::get({count, 0, 0}, elem),
        RankedTensorType::get({count}, rewriter.getI32Type())};
    SmallVector<Value> r =
        callRuntime(rewriter, loc, entryName("eigh", elem), {*aB}, outs,
                    {upper ? 1 : 0, *computeV ? 1 : 0});
    checkInfo(rewriter, loc, r[2], arith::CmpIPredicate::eq, 0,
              "linalg.eigh: The algorithm failed to converge because the "
              "input matrix is ill-conditioned or has too many repeated "
              "eigenvalues (LAPACK's syevd returned a nonzero info).");
    FailureOr<Value> values = fromBatched(rewriter, loc, r[0], (*types)[0]);
    if (failed(values))
      return fail(op, rewriter, "result shapes do not match");
    Value vectors;
    if (*computeV) {
      FailureOr<Value> v = fromBatched(rewriter, loc, r[1], (*types)[1]);
      if (failed(v))
        return fail(op, rewriter, "result shapes do not match");
      vectors = *v;
    } else {
      vectors = createEmptyTensor(rewriter, loc, (*types)[1]);
    }
    rewriter.replaceOp(op, ValueRange{*values, vectors});
    return success();
  }
};

/// linalg_qr(A, mode) -> (Q, R), mode "reduced", "complete" or "r".
class ConvertQr : public NamedTorchPattern {
public:
  ConvertQr(const TorchTypeConverter &tc, MLIRContext *ctx)
      : NamedTorchPattern(tc, "torch.aten.linalg_qr", ctx) {}
  LogicalResult
  matchAndRewrite(Operation *op, ArrayRef<Value> operands,
                  ConversionPatternRewriter &rewriter) const override {
    auto types = getResultTypes(op);
    if (failed(types))
      return fail(op, rewriter, "result types are not static tensors");
    StringRef why;
    if (failed(checkOperand(operands[0], *types, why)))
      return fail(op, rewriter, why);
    std::optional<std::string> modeName = getConstantStr(op->getOperand(1));
    if (!modeName)
      return fail(op, rewriter, "mode must be a constant");
    int64_t mode = *modeName == "reduced"    ? 0
                   : *modeName == "complete" ? 1
                   : *modeName == "r"        ? 2
                                             : -1;
    if (mode < 0)
      return fail(op, rewriter, "unknown mode (eager raises)");
    if (hasZeroDim({cast<RankedTensorType>(operands[0].getType())})) {
      if (failed(replaceWithEmptyResults(op, rewriter, *types)))
        return fail(op, rewriter, "unexpected result shapes for an empty input");
      return success();
    }
    Location loc = op->getLoc();
    auto aType = cast<RankedTensorType>(operands[0].getType());
    Type elem = aType.getElementType();
    int64_t m = aType.getDimSize(aType.getRank() - 2);
    int64_t n = aType.getDimSize(aType.getRank() - 1), k = std::min(m, n);
    FailureOr<Value> aB =
        toBatched(rewriter, loc, operands[0], aType.getShape().drop_back(2));
    if (failed(aB))
      return fail(op, rewriter, "cannot collapse the batch dims");
    int64_t count = cast<RankedTensorType>(aB->getType()).getDimSize(0);
    int64_t qCols = mode == 1 ? m : k, rRows = mode == 1 ? m : k;
    SmallVector<RankedTensorType> outs = {
        mode == 2 ? RankedTensorType::get({count, 0, 0}, elem)
                  : RankedTensorType::get({count, m, qCols}, elem),
        RankedTensorType::get({count, rRows, n}, elem)};
    SmallVector<Value> r = callRuntime(rewriter, loc, entryName("qr", elem),
                                       {*aB}, outs, {mode});
    Value q;
    if (mode == 2) {
      q = createEmptyTensor(rewriter, loc, (*types)[0]);
    } else {
      FailureOr<Value> out = fromBatched(rewriter, loc, r[0], (*types)[0]);
      if (failed(out))
        return fail(op, rewriter, "result shapes do not match");
      q = *out;
    }
    FailureOr<Value> rOut = fromBatched(rewriter, loc, r[1], (*types)[1]);
    if (failed(rOut))
      return fail(op, rewriter, "result shapes do not match");
    rewriter.replaceOp(op, ValueRange{q, *rOut});
    return success();
  }
};

} // namespace

void populateLapackDecompositionPatterns(TorchTypeConverter &typeConverter,
                                         RewritePatternSet &patterns) {
  patterns.add<ConvertSvd, ConvertEigh, ConvertQr>(typeConverter,
                                                   patterns.getContext());
}

} // namespace ltc_mlir::torch_to_linalg
