//===- Random.cpp - random ops -> counter-based hashes in linalg.generic --===//
//
// Random ops cannot reproduce eager's random stream (a Mersenne twister
// consumed serially); they draw from a counter-based generator instead: each
// element's random bits are a hash of (seed, stream, element index), so the
// loop stays parallel and vectorizable and a run is deterministic for a
// given seed. The seed is the function argument marked `ltc.rng_seed` (the
// backend passes a new one from torch's CPU generator on every run); each
// random op of the function has its own `ltc.rng_stream` number.
//
// Hash: the key is splitmix64(seed + stream * golden ratio); each element
// takes two rounds of murmur3's 32-bit finalizer, keyed by the key's halves,
// over the low (and, for tensors of 2^32 or more elements, high) 32 bits of
// its row-major index. fmix32 is a bijection with full avalanche, so
// distinct indices give distinct, well mixed 32-bit values.
//
//===----------------------------------------------------------------------===//

#include "ltc_mlir/Conversion/TorchToLinalg/Utils.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

#include <cmath>

using namespace mlir;

namespace ltc_mlir::torch_to_linalg {
namespace {

constexpr llvm::StringLiteral kSeedAttr = "ltc.rng_seed";
constexpr llvm::StringLiteral kStreamAttr = "ltc.rng_stream";

Value i32Const(OpBuilder &b, Location loc, uint32_t v) {
  return arith::ConstantOp::create(b, loc, b.getI32IntegerAttr(int32_t(v)));
}
Value i64Const(OpBuilder &b, Location loc, uint64_t v) {
  return arith::ConstantOp::create(b, loc, b.getI64IntegerAttr(int64_t(v)));
}

/// x ^ (x >> shift) for i32/i64 values.
Value xorShift(OpBuilder &b, Location loc, Value x, Value shift) {
  return arith::XOrIOp::create(b, loc, x,
                               arith::ShRUIOp::create(b, loc, x, shift));
}

/// splitmix64's finalizer on an i64 value.
Value splitmix64(OpBuilder &b, Location loc, Value z) {
  z = arith::MulIOp::create(b, loc, xorShift(b, loc, z, i64Const(b, loc, 30)),
                            i64Const(b, loc, 0xBF58476D1CE4E5B9ull));
  z = arith::MulIOp::create(b, loc, xorShift(b, loc, z, i64Const(b, loc, 27)),
                            i64Const(b, loc, 0x94D049BB133111EBull));
  return xorShift(b, loc, z, i64Const(b, loc, 31));
}

/// murmur3's fmix32 on an i32 value.
Value fmix32(OpBuilder &b, Location loc, Value h) {
  h = arith::MulIOp::create(b, loc, xorShift(b, loc, h, i32Const(b, loc, 16)),
                            i32Const(b, loc, 0x85EBCA6Bu));
  h = arith::MulIOp::create(b, loc, xorShift(b, loc, h, i32Const(b, loc, 13)),
                            i32Const(b, loc, 0xC2B2AE35u));
  return xorShift(b, loc, h, i32Const(b, loc, 16));
}

/// The seed argument of the function around `op` (after conversion: i64).
FailureOr<Value> getSeed(Operation *op, ConversionPatternRewriter &rewriter) {
  auto func = op->getParentOfType<func::FuncOp>();
  if (!func)
    return failure();
  for (unsigned i = 0, e = func.getNumArguments(); i < e; ++i) {
    if (!func.getArgAttr(i, kSeedAttr))
      continue;
    Value seed = rewriter.getRemappedValue(func.getArgument(i));
    if (!seed || !seed.getType().isInteger(64))
      return failure();
    return seed;
  }
  return failure();
}

/// native_dropout(input, p, train) -> (output, mask). In training
/// (train true or None): mask ~ Bernoulli(1 - p), output = input * mask *
/// scale with scale = 1 / (1 - p), or 0 for p == 1 (ATen's
/// native_dropout_cpu, including its order of operations). Otherwise the
/// output is the input and the mask all true.
class ConvertNativeDropoutOp
    : public TorchConversionPattern<torch::AtenNativeDropoutOp> {
public:
  using Base::Base;
  LogicalResult
  matchAndRewrite(torch::AtenNativeDropoutOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    RankedTensorType outType = getTensorType(op.getOutput().getType());
    RankedTensorType maskType = getTensorType(op.getMask().getType());
    if (!outType || !maskType)
      return fail(op, rewriter, "result type is not convertible");
    auto elemType = dyn_cast<FloatType>(outType.getElementType());
    if (!elemType)
      return fail(op, rewriter, "needs a floating-point input");
    if (!isBoolDtype(getTorchDtype(op.getMask())))
      return fail(op, rewriter, "expects a bool mask");
    if (outType.getShape() != maskType.getShape() ||
        cast<RankedTensorType>(adaptor.getInput().getType()).getShape() !=
            outType.getShape())
      return fail(op, rewriter, "input, output and mask shapes differ");
    std::optional<double> p = getConstantFloat(op.getP());
    if (!p)
      return fail(op, rewriter, "p must be a constant");
    bool train = true;
    if (!isNone(op.getTrain())) {
      std::optional<bool> t = getConstantBool(op.getTrain());
      if (!t)
        return fail(op, rewriter, "train must be a constant bool or None");
      train = *t;
    }
    Location loc = op.getLoc();
    Value input = adaptor.getInput();
    int64_t numel = outType.getNumElements();
    Type maskElem = maskType.getElementType(); // i8 storage of bools
    if (!train || numel == 0) {
      Value one = createIntConstant(rewriter, loc, maskElem, 1);
      rewriter.replaceOp(op, {input, createFilledTensor(rewriter, loc,
                                                         maskType, one)});
      return success();
    }
    FailureOr<Value> seed = getSeed(op, rewriter);
    if (failed(seed))
      return fail(op, rewriter,
                  "needs the random seed: an i64 function argument marked "
                  "`ltc.rng_seed`");
    uint64_t stream = 0;
    if (auto attr = op->getAttrOfType<IntegerAttr>(kStreamAttr))
      stream = attr.getValue().getZExtValue();

    // Keep an element when its 32 random bits are below ceil((1 - p) * 2^32),
    // i.e. with probability 1 - p (to 2^-32); p <= 0 keeps all, p >= 1 none.
    double p1m = 1.0 - *p;
    double scale = p1m == 0 ? 0.0 : 1.0 / p1m;
    bool keepAll = p1m >= 1.0, keepNone = p1m <= 0.0;
    uint64_t threshold = 0;
    if (!keepAll && !keepNone) {
      threshold = uint64_t(std::ceil(std::ldexp(p1m, 32)));
      keepAll = threshold >= (uint64_t(1) << 32);
    }

    // key = splitmix64(seed + stream * golden), split into two 32-bit keys.
    Value key = splitmix64(
        rewriter, loc,
        arith::AddIOp::create(
            rewriter, loc, *seed,
            i64Const(rewriter, loc, stream * 0x9E3779B97F4A7C15ull)));
    Type i32 = rewriter.getI32Type(), i64 = rewriter.getI64Type();
    Value key0 = arith::TruncIOp::create(rewriter, loc, i32, key);
    Value key1 = arith::TruncIOp::create(
        rewriter, loc, i32,
        arith::ShRUIOp::create(rewriter, loc, key, i64Const(rewriter, loc, 32)));

    // ATen: input.mul(mask).mul_(scale); a double scale is applied in the
    // opmath type (f32 for f16/bf16).
    Type computeType = elemType.getWidth() < 32
                           ? Type(rewriter.getF32Type())
                           : Type(elemType);
    Value scaleValue = createScalarConstant(rewriter, loc, computeType, scale);
    Value zero = createScalarConstant(rewriter, loc, elemType, 0);
    Value threshold32 = i32Const(rewriter, loc, uint32_t(threshold));
    bool wideIndex = numel > int64_t(UINT32_MAX);

    unsigned rank = outType.getRank();
    ArrayRef<int64_t> shape = outType.getShape();
    AffineMap id = rewriter.getMultiDimIdentityMap(rank);
    SmallVector<utils::IteratorType> iterators(rank,
                                               utils::IteratorType::parallel);
    auto generic = linalg::GenericOp::create(
        rewriter, loc, TypeRange{outType, maskType}, ValueRange{input},
        ValueRange{createEmptyTensor(rewriter, loc, outType),
                   createEmptyTensor(rewriter, loc, maskType)},
        SmallVector<AffineMap>(3, id), iterators,
        [&](OpBuilder &b, Location l, ValueRange args) {
          Value keep;
          if (keepAll || keepNone) {
            keep = arith::ConstantOp::create(
                b, l, b.getIntegerAttr(b.getI1Type(), keepAll ? 1 : 0));
          } else {
            // Row-major index of the element.
            Value index = i64Const(b, l, 0);
            for (unsigned d = 0; d < rank; ++d) {
              Value i = arith::IndexCastUIOp::create(
                  b, l, i64, linalg::IndexOp::create(b, l, d));
              index = arith::AddIOp::create(
                  b, l, arith::MulIOp::create(b, l, index,
                                              i64Const(b, l, shape[d])),
                  i);
            }
            Value h = arith::XOrIOp::create(
                b, l, arith::TruncIOp::create(b, l, i32, index), key0);
            h = fmix32(b, l, h);
            h = arith::XOrIOp::create(b, l, h, key1);
            if (wideIndex)
              h = arith::AddIOp::create(
                  b, l, h,
                  arith::TruncIOp::create(
                      b, l, i32,
                      arith::ShRUIOp::create(b, l, index, i64Const(b, l, 32))));
            h = fmix32(b, l, h);
            keep = arith::CmpIOp::create(b, l, arith::CmpIPredicate::ult, h,
                                         threshold32);
          }
          // x * mask (exact: the element or 0, NaN/inf times 0 give NaN as in
          // ATen), then * scale in the opmath type.
          Value masked = arith::MulFOp::create(
              b, l, args[0],
              arith::SelectOp::create(b, l, keep,
                                      createScalarConstant(b, l, elemType, 1),
                                      zero));
          Value out = castScalar(
              b, l,
              arith::MulFOp::create(b, l,
                                    castScalar(b, l, masked, computeType),
                                    scaleValue),
              elemType);
          Value maskValue = castScalar(b, l, keep, maskElem,
                                       /*srcUnsigned=*/true);
          linalg::YieldOp::create(b, l, ValueRange{out, maskValue});
        });
    rewriter.replaceOp(op, generic.getResults());
    return success();
  }
};

} // namespace

void populateRandomPatterns(TorchTypeConverter &typeConverter,
                            RewritePatternSet &patterns) {
  patterns.add<ConvertNativeDropoutOp>(typeConverter, patterns.getContext());
}

} // namespace ltc_mlir::torch_to_linalg
