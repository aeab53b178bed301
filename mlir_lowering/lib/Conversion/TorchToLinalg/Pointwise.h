//===- Pointwise.h - one pattern for pointwise math ops ---------*- C++ -*-===//
//
// The pointwise families (UnaryMath, BinaryMath, Division, Bitwise,
// Shrink, SpecialFunctions) describe an op by a Spec: which result dtypes
// it supports and how one element is computed. ConvertPointwiseOp turns it
// into one parallel linalg.generic over the result shape, as ATen's CPU
// kernels compute once type promotion chose the result dtype:
//  - tensor operands are broadcast ATen-style and each element is cast to
//    the computation type; number operands (Scalar, int, float) are cast
//    like Scalar::to<scalar_t> (and then to the computation type); None
//    operands are null Values for the body;
//  - the computation type is ATen's opmath type of a float result (f32 for
//    f16/bf16: rounded once at the end), the (signless) integer type of an
//    integer result, and i1 for a bool result (with `boolBody` only).
// Integer divisions check at run time that no divisor is 0 (eager raises
// "ZeroDivisionError") and stay memory-safe (the divisor is replaced by 1).
//
//===----------------------------------------------------------------------===//
#ifndef LTC_MLIR_LIB_CONVERSION_TORCHTOLINALG_POINTWISE_H
#define LTC_MLIR_LIB_CONVERSION_TORCHTOLINALG_POINTWISE_H

#include "ltc_mlir/Conversion/TorchToLinalg/Utils.h"

#include "mlir/Dialect/Math/IR/Math.h"

#include <functional>
#include <string>

namespace ltc_mlir::torch_to_linalg::pointwise {

/// The result dtypes an op supports.
enum class Domain {
  Float,    ///< f16, bf16, f32, f64 (integer inputs are converted)
  Numeric,  ///< floats and non-bool integers
  Integral, ///< non-bool integers (and bool with a boolBody)
};

/// Computes one element: `t` is the computation type, `isUnsigned` whether
/// an integer result is unsigned (ui8), `v` the operands in op order, cast
/// to `t` (null for None).
using Body = std::function<mlir::Value(mlir::OpBuilder &b, mlir::Location loc,
                                       mlir::Type t, bool isUnsigned,
                                       llvm::ArrayRef<mlir::Value> v)>;

struct Spec {
  Domain domain = Domain::Float;
  Body body;
  /// Bool results: operands cast to i1 (x != 0), i1 result.
  Body boolBody = nullptr;
  /// Chooses the body from the op's constant operands (a rounding mode, an
  /// order n): returns null and sets `why` to refuse the op.
  std::function<Body(mlir::Operation *op, std::string &why)> select = nullptr;
  /// Operand index of the divisor of an integer division (-1: none).
  int divisor = -1;
  /// Run before the body is built, with the op being lowered: declares the
  /// functions the body calls (the body is built before its linalg.generic
  /// is in the module).
  std::function<void(mlir::OpBuilder &b, mlir::Operation *op)> prepare = nullptr;
};

/// Shared implementation (Pointwise.cpp): the converted op's result, or
/// failure with `why`.
mlir::FailureOr<mlir::Value>
lowerPointwise(mlir::Operation *op, mlir::ValueRange convertedOperands,
               mlir::RankedTensorType resultType, const Spec &spec,
               mlir::ConversionPatternRewriter &rewriter, std::string &why);

template <typename OpTy>
class ConvertPointwiseOp : public TorchConversionPattern<OpTy> {
public:
  using OpAdaptor = typename OpTy::Adaptor;

  ConvertPointwiseOp(const TorchTypeConverter &typeConverter,
                     mlir::MLIRContext *context, Spec spec)
      : TorchConversionPattern<OpTy>(typeConverter, context),
        spec(std::move(spec)) {}

  mlir::LogicalResult
  matchAndRewrite(OpTy op, OpAdaptor adaptor,
                  mlir::ConversionPatternRewriter &rewriter) const override {
    mlir::RankedTensorType resultType =
        this->getTensorType(op->getResult(0).getType());
    if (!resultType || op->getNumResults() != 1)
      return this->fail(op, rewriter, "result type is not convertible");
    std::string why;
    mlir::FailureOr<mlir::Value> result = lowerPointwise(
        op, adaptor.getOperands(), resultType, spec, rewriter, why);
    if (mlir::failed(result))
      return this->fail(op, rewriter, why);
    rewriter.replaceOp(op, *result);
    return mlir::success();
  }

private:
  Spec spec;
};

template <typename OpTy>
void add(TorchTypeConverter &typeConverter, mlir::RewritePatternSet &patterns,
         Spec spec) {
  patterns.add<ConvertPointwiseOp<OpTy>>(typeConverter, patterns.getContext(),
                                         std::move(spec));
}

//===----------------------------------------------------------------------===//
// Scalar builders shared by the families (Pointwise.cpp)
//===----------------------------------------------------------------------===//

/// Builds arithmetic on scalars of one float type `t`.
struct FloatBuilder {
  mlir::OpBuilder &b;
  mlir::Location loc;
  mlir::Type t;

  mlir::Value c(double v) const { return createScalarConstant(b, loc, t, v); }
  mlir::Value add(mlir::Value x, mlir::Value y) const;
  mlir::Value sub(mlir::Value x, mlir::Value y) const;
  mlir::Value mul(mlir::Value x, mlir::Value y) const;
  mlir::Value div(mlir::Value x, mlir::Value y) const;
  mlir::Value neg(mlir::Value x) const;
  mlir::Value abs(mlir::Value x) const;
  mlir::Value fma(mlir::Value x, mlir::Value y, mlir::Value z) const;
  mlir::Value cmp(mlir::arith::CmpFPredicate p, mlir::Value x,
                  mlir::Value y) const;
  mlir::Value select(mlir::Value cond, mlir::Value x, mlir::Value y) const;
  mlir::Value isNan(mlir::Value x) const;
  /// |x| == inf
  mlir::Value isInf(mlir::Value x) const;
  mlir::Value exp(mlir::Value x) const;
  mlir::Value log(mlir::Value x) const;
  mlir::Value sqrt(mlir::Value x) const;
  mlir::Value floor(mlir::Value x) const;
  mlir::Value trunc(mlir::Value x) const;
  /// Horner evaluation of sum coeffs[i] * x^(n-1-i) (highest power first).
  mlir::Value polyval(mlir::Value x, llvm::ArrayRef<double> coeffs) const;
  mlir::Value inf() const;
  mlir::Value nan() const;
  bool isF64() const { return t.isF64(); }
};

/// Runs `fn(FloatBuilder over f64, x as f64)` and rounds its result to `t`:
/// special functions are computed in f64 whatever the result dtype.
template <typename Fn>
mlir::Value inF64(mlir::OpBuilder &b, mlir::Location loc, mlir::Type t,
                  mlir::Value x, Fn fn) {
  FloatBuilder f{b, loc, b.getF64Type()};
  mlir::Value r = fn(f, castScalar(b, loc, x, f.t));
  return castScalar(b, loc, r, t);
}

} // namespace ltc_mlir::torch_to_linalg::pointwise

#endif // LTC_MLIR_LIB_CONVERSION_TORCHTOLINALG_POINTWISE_H
