//===- Pointwise.cpp - the shared pointwise pattern (see Pointwise.h) -----===//

#include "Pointwise.h"

#include "mlir/IR/Matchers.h"

#include <cmath>
#include <limits>

using namespace mlir;

namespace ltc_mlir::torch_to_linalg::pointwise {
namespace {

/// A number operand (!torch.int / !torch.float / !torch.bool, `converted`
/// its i64/f64/i1 value) cast like Scalar::to<scalar_t> to the storage
/// type, then to the computation type. Constants are folded.
Value castNumber(OpBuilder &b, Location loc, Value original, Value converted,
                 Type storage, Type t) {
  if (t.isInteger(1))
    return castScalar(b, loc, converted, t, converted.getType().isInteger(1));
  Value v;
  if (std::optional<int64_t> i = getConstantInt(original)) {
    if (isa<IntegerType>(storage))
      v = createIntConstant(b, loc, storage, *i);
    else if (std::abs(*i) < (int64_t(1) << 53))
      v = createScalarConstant(b, loc, storage, double(*i));
  } else if (std::optional<double> f = getConstantFloat(original)) {
    v = castScalar(b, loc,
                   arith::ConstantOp::create(b, loc, b.getF64FloatAttr(*f)),
                   storage);
  }
  if (!v)
    v = castScalar(b, loc, converted, storage,
                   converted.getType().isInteger(1));
  return castScalar(b, loc, v, t);
}

} // namespace

FailureOr<Value> lowerPointwise(Operation *op, ValueRange converted,
                                RankedTensorType resultType, const Spec &spec,
                                ConversionPatternRewriter &rewriter,
                                std::string &why) {
  Type resultDtype = getTorchDtype(op->getResult(0));
  Type storage = resultType.getElementType();
  bool resultUnsigned = isUnsignedDtype(resultDtype);
  Body body = spec.body;
  if (spec.prepare)
    spec.prepare(rewriter, op);
  if (spec.select) {
    body = spec.select(op, why);
    if (!body)
      return failure();
  }
  Type t;
  if (isBoolDtype(resultDtype)) {
    if (!spec.boolBody) {
      why = "bool result dtype is not supported";
      return failure();
    }
    body = spec.boolBody;
    t = rewriter.getI1Type();
  } else if (auto floatType = dyn_cast<FloatType>(storage)) {
    if (spec.domain == Domain::Integral) {
      why = "needs an integer or bool result dtype";
      return failure();
    }
    t = getOpmathType(floatType);
  } else {
    if (spec.domain == Domain::Float) {
      why = "needs a floating-point result dtype";
      return failure();
    }
    t = storage;
  }
  if (!body) {
    why = "no computation for this dtype";
    return failure();
  }

  // Check every operand before creating any IR.
  for (Value conv : converted)
    if (auto type = dyn_cast<RankedTensorType>(conv.getType()))
      if (failed(getBroadcastMap(type.getShape(), resultType.getShape(),
                                 op->getContext()))) {
        why = "operand shapes do not broadcast to the result";
        return failure();
      }
  // Numbers are cast for the body; None and other constants (strings,
  // lists) are null Values: the Spec's `select` reads them from the op.
  auto isNumber = [](Value conv) {
    Type type = conv.getType();
    return type.isInteger(64) || type.isF64() || type.isInteger(1);
  };

  Location loc = op->getLoc();
  OpBuilder &b = rewriter;
  SmallVector<Value> tensors, scalars;
  SmallVector<bool> tensorUnsigned, isTensor;
  SmallVector<size_t> slot;
  for (auto [original, conv] : llvm::zip_equal(op->getOperands(), converted)) {
    if (isa<RankedTensorType>(conv.getType())) {
      isTensor.push_back(true);
      slot.push_back(tensors.size());
      tensors.push_back(conv);
      Type dtype = getTorchDtype(original);
      tensorUnsigned.push_back(isUnsignedDtype(dtype) || isBoolDtype(dtype));
      continue;
    }
    isTensor.push_back(false);
    slot.push_back(scalars.size());
    scalars.push_back(isNone(original) || !isNumber(conv)
                          ? Value()
                          : castNumber(b, loc, original, conv, storage, t));
  }

  // Integer division: every divisor must be non-zero (eager raises).
  bool checkDivisor =
      spec.divisor >= 0 && isa<IntegerType>(t) && !t.isInteger(1);
  if (checkDivisor) {
    size_t d = spec.divisor;
    Value ok;
    if (isTensor[d]) {
      bool isUnsigned = tensorUnsigned[slot[d]];
      ok = createAllOf(b, loc, tensors[slot[d]],
                       [&](OpBuilder &nb, Location l, Value element) {
                         Value x = castScalar(nb, l, element, t, isUnsigned);
                         return arith::CmpIOp::create(
                             nb, l, arith::CmpIPredicate::ne, x,
                             createIntConstant(nb, l, t, 0));
                       });
    } else {
      ok = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, scalars[d],
                                 createIntConstant(b, loc, t, 0));
    }
    emitRuntimeCheck(
        b, loc, ok,
        (op->getName().getStringRef() +
         ": ZeroDivisionError: integer division by zero (an integer divisor "
         "is 0). Check the divisor, or divide in a floating-point dtype.")
            .str());
  }

  return createElementwiseOp(
      b, loc, resultType, tensors,
      [&](OpBuilder &nb, Location nloc, ValueRange args) {
        SmallVector<Value> v;
        for (size_t i = 0; i < slot.size(); ++i)
          v.push_back(isTensor[i]
                          ? castScalar(nb, nloc, args[slot[i]], t,
                                       tensorUnsigned[slot[i]])
                          : scalars[slot[i]]);
        Value r = body(nb, nloc, t, resultUnsigned, v);
        return castScalar(nb, nloc, r, storage, /*srcUnsigned=*/true);
      });
}

//===----------------------------------------------------------------------===//
// FloatBuilder
//===----------------------------------------------------------------------===//

Value FloatBuilder::add(Value x, Value y) const {
  return arith::AddFOp::create(b, loc, x, y);
}
Value FloatBuilder::sub(Value x, Value y) const {
  return arith::SubFOp::create(b, loc, x, y);
}
Value FloatBuilder::mul(Value x, Value y) const {
  return arith::MulFOp::create(b, loc, x, y);
}
Value FloatBuilder::div(Value x, Value y) const {
  return arith::DivFOp::create(b, loc, x, y);
}
Value FloatBuilder::neg(Value x) const {
  return arith::NegFOp::create(b, loc, x);
}
Value FloatBuilder::abs(Value x) const {
  return math::AbsFOp::create(b, loc, x);
}
Value FloatBuilder::fma(Value x, Value y, Value z) const {
  return math::FmaOp::create(b, loc, x, y, z);
}
Value FloatBuilder::cmp(arith::CmpFPredicate p, Value x, Value y) const {
  return arith::CmpFOp::create(b, loc, p, x, y);
}
Value FloatBuilder::select(Value cond, Value x, Value y) const {
  return arith::SelectOp::create(b, loc, cond, x, y);
}
Value FloatBuilder::isNan(Value x) const {
  return cmp(arith::CmpFPredicate::UNO, x, x);
}
Value FloatBuilder::isInf(Value x) const {
  return cmp(arith::CmpFPredicate::OEQ, abs(x), inf());
}
Value FloatBuilder::exp(Value x) const { return math::ExpOp::create(b, loc, x); }
Value FloatBuilder::log(Value x) const { return math::LogOp::create(b, loc, x); }
Value FloatBuilder::sqrt(Value x) const {
  return math::SqrtOp::create(b, loc, x);
}
Value FloatBuilder::floor(Value x) const {
  return math::FloorOp::create(b, loc, x);
}
Value FloatBuilder::trunc(Value x) const {
  return math::TruncOp::create(b, loc, x);
}
Value FloatBuilder::polyval(Value x, ArrayRef<double> coeffs) const {
  Value r = c(coeffs.front());
  for (double k : coeffs.drop_front())
    r = add(mul(r, x), c(k));
  return r;
}
Value FloatBuilder::inf() const {
  return c(std::numeric_limits<double>::infinity());
}
Value FloatBuilder::nan() const {
  return c(std::numeric_limits<double>::quiet_NaN());
}

} // namespace ltc_mlir::torch_to_linalg::pointwise
