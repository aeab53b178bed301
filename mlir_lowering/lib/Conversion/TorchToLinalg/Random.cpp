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
// distinct indices give distinct, well mixed 32-bit values. An element that
// needs more than one draw (normal, f64 uniforms, 64-bit integers) takes
// draw k > 0 as one more fmix32 round of the first draw plus k * 0x9E3779B9.
//
// Sampling ops (the functional forms of bernoulli_, uniform_, normal_,
// exponential_, random_, and torch.rand/randn/randint/bernoulli/normal,
// which decompose into them) follow ATen's transformations of its CPU
// generator's bits: uniform in [0, 1) from 24 bits (f32, f16, bf16; computed
// in f32) or 53 bits (f64); normal by Box-Muller, mean + std * sqrt(-2
// log(1 - u1)) cos(2 pi u2); exponential -log(1 - u) / lambd; bernoulli
// u < p with u from 32 bits in f64; random integers from + bits % range (32
// bits when range <= 2^32, else 64). Invalid constant arguments (p outside
// [0, 1], std < 0, lambd <= 0, from >= to) fail to lower, so eager raises;
// tensor p and std are checked at run time.
//
//===----------------------------------------------------------------------===//

#include "ltc_mlir/Conversion/TorchToLinalg/Utils.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Math/IR/Math.h"

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

/// The stream number the emitter gave `op` (0 if none).
uint64_t getStream(Operation *op) {
  if (auto attr = op->getAttrOfType<IntegerAttr>(kStreamAttr))
    return attr.getValue().getZExtValue();
  return 0;
}

/// The per-op keys of the counter-based generator, built before the loop.
struct RandomKeys {
  Value key0, key1; // i32
  bool wideIndex;   // tensors of 2^32 or more elements

  static RandomKeys create(OpBuilder &b, Location loc, Value seed,
                           uint64_t stream, int64_t numel) {
    Value key = splitmix64(
        b, loc,
        arith::AddIOp::create(b, loc, seed,
                              i64Const(b, loc, stream * 0x9E3779B97F4A7C15ull)));
    Type i32 = b.getI32Type();
    RandomKeys k;
    k.key0 = arith::TruncIOp::create(b, loc, i32, key);
    k.key1 = arith::TruncIOp::create(
        b, loc, i32, arith::ShRUIOp::create(b, loc, key, i64Const(b, loc, 32)));
    k.wideIndex = numel > int64_t(UINT32_MAX);
    return k;
  }

  /// Inside a linalg op over `shape`: the row-major index (i64) of the
  /// current element.
  static Value elementIndex(OpBuilder &b, Location l, ArrayRef<int64_t> shape) {
    Value index = i64Const(b, l, 0);
    for (unsigned d = 0; d < shape.size(); ++d) {
      Value i = arith::IndexCastUIOp::create(b, l, b.getI64Type(),
                                             linalg::IndexOp::create(b, l, d));
      index = arith::AddIOp::create(
          b, l, arith::MulIOp::create(b, l, index, i64Const(b, l, shape[d])),
          i);
    }
    return index;
  }

  /// The first 32 random bits of the element at `index`.
  Value bits(OpBuilder &b, Location l, Value index) const {
    Type i32 = b.getI32Type();
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
    return fmix32(b, l, h);
  }

  /// Draw `k` > 0 of an element whose first draw is `first`.
  static Value nextBits(OpBuilder &b, Location l, Value first, uint32_t k) {
    return fmix32(b, l,
                  arith::AddIOp::create(b, l, first,
                                        i32Const(b, l, k * 0x9E3779B9u)));
  }
};

/// Random ops whose seed or stream is missing fail with this.
constexpr llvm::StringLiteral kNoSeed =
    "needs the random seed: an i64 function argument marked `ltc.rng_seed`";

/// A uniform value in [0, 1) of `type` (f32 or f64) from the draws
/// `first`, nextBits(first, k0), ...: 24 bits for f32, 53 for f64.
Value uniform01(OpBuilder &b, Location l, Value first, uint32_t k0,
                FloatType type) {
  Type i64 = b.getI64Type();
  if (type.isF64()) {
    Value a = k0 == 0 ? first : RandomKeys::nextBits(b, l, first, k0);
    Value c = RandomKeys::nextBits(b, l, first, k0 + 1);
    Value wide = arith::OrIOp::create(
        b, l,
        arith::ShLIOp::create(b, l, arith::ExtUIOp::create(b, l, i64, a),
                              i64Const(b, l, 32)),
        arith::ExtUIOp::create(b, l, i64, c));
    Value mant = arith::ShRUIOp::create(b, l, wide, i64Const(b, l, 11));
    return arith::MulFOp::create(b, l, arith::UIToFPOp::create(b, l, type, mant),
                                 createScalarConstant(b, l, type, std::ldexp(1.0, -53)));
  }
  Value a = k0 == 0 ? first : RandomKeys::nextBits(b, l, first, k0);
  Value mant = arith::ShRUIOp::create(b, l, a, i32Const(b, l, 8));
  return arith::MulFOp::create(b, l, arith::UIToFPOp::create(b, l, type, mant),
                               createScalarConstant(b, l, type, std::ldexp(1.0, -24)));
}

enum class SampleKind {
  BernoulliSelf,  // bernoulli(self): p = self
  BernoulliFloat, // bernoulli.p(self, p)
  BernoulliTensor,// bernoulli.Tensor(self, p)
  Uniform,        // uniform(self, from, to)
  Normal,         // normal_functional(self, mean, std)
  NormalTF,       // normal.Tensor_float(mean, std)
  NormalFT,       // normal.float_Tensor(mean, std)
  NormalTT,       // normal.Tensor_Tensor(mean, std)
  Exponential,    // exponential(self, lambd)
  Random,         // random(self)
  RandomTo,       // random.to(self, to)
  RandomFrom,     // random.from(self, from, to?)
};

/// The largest value random_() draws for a dtype: 2^digits for floats,
/// the type's max for integers.
std::optional<uint64_t> randomMax(Type dtype) {
  if (auto f = dyn_cast<FloatType>(dtype))
    return uint64_t(1) << f.getFPMantissaWidth();
  auto i = dyn_cast<IntegerType>(dtype);
  if (!i || i.getWidth() > 64 || i.getWidth() < 8)
    return std::nullopt;
  if (i.isUnsigned())
    return i.getWidth() == 64 ? UINT64_MAX
                              : (uint64_t(1) << i.getWidth()) - 1;
  return (uint64_t(1) << (i.getWidth() - 1)) - 1;
}

template <typename OpTy, SampleKind Kind>
class ConvertSampleOp : public TorchConversionPattern<OpTy> {
public:
  using TorchConversionPattern<OpTy>::TorchConversionPattern;
  using OpAdaptor = typename OpTy::Adaptor;

  LogicalResult
  matchAndRewrite(OpTy op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    RankedTensorType resultType = this->getTensorType(op.getResult().getType());
    if (!resultType)
      return this->fail(op, rewriter, "result type is not convertible");
    Type dtype = getTorchDtype(op.getResult());
    if (!dtype || isBoolDtype(dtype))
      return this->fail(op, rewriter, "bool results are not supported");
    Type elemType = resultType.getElementType();
    auto floatType = dyn_cast<FloatType>(elemType);
    constexpr bool isRandom = Kind == SampleKind::Random ||
                              Kind == SampleKind::RandomTo ||
                              Kind == SampleKind::RandomFrom;
    constexpr bool isBernoulli = Kind == SampleKind::BernoulliSelf ||
                                 Kind == SampleKind::BernoulliFloat ||
                                 Kind == SampleKind::BernoulliTensor;
    if (!isRandom && !isBernoulli && !floatType)
      return this->fail(op, rewriter, "needs a floating-point result");
    if (Kind == SampleKind::BernoulliSelf && !floatType)
      return this->fail(op, rewriter, "needs a floating-point self");
    FailureOr<Value> seed = getSeed(op, rewriter);
    if (failed(seed))
      return this->fail(op, rewriter, kNoSeed);

    // Constants and tensor operands.
    auto constant = [&](Value v) { return getConstantFloat(v); };
    SmallVector<Value> tensors;
    double c0 = 0, c1 = 0;
    uint64_t from = 0, range = 0; // random: from + bits % range
    if constexpr (Kind == SampleKind::BernoulliSelf) {
      tensors.push_back(adaptor.getSelf());
    } else if constexpr (Kind == SampleKind::BernoulliTensor) {
      tensors.push_back(adaptor.getP());
    } else if constexpr (Kind == SampleKind::BernoulliFloat) {
      std::optional<double> p = constant(op.getP());
      if (!p || !(*p >= 0 && *p <= 1))
        return this->fail(op, rewriter, "p must be a constant in [0, 1]");
      c0 = *p;
    } else if constexpr (Kind == SampleKind::Uniform) {
      std::optional<double> lo = constant(op.getFrom()), hi = constant(op.getTo());
      if (!lo || !hi || !(*lo <= *hi))
        return this->fail(op, rewriter, "from <= to must be float constants");
      c0 = *lo;
      c1 = *hi;
    } else if constexpr (Kind == SampleKind::Normal) {
      std::optional<double> mean = constant(op.getMean()), std = constant(op.getStd());
      if (!mean || !std || !(*std >= 0))
        return this->fail(op, rewriter, "mean and std >= 0 must be float constants");
      c0 = *mean;
      c1 = *std;
    } else if constexpr (Kind == SampleKind::NormalTF) {
      std::optional<double> std = constant(op.getStd());
      if (!std || !(*std >= 0))
        return this->fail(op, rewriter, "std must be a float constant >= 0");
      tensors.push_back(adaptor.getMean());
      c1 = *std;
    } else if constexpr (Kind == SampleKind::NormalFT) {
      std::optional<double> mean = constant(op.getMean());
      if (!mean)
        return this->fail(op, rewriter, "mean must be a float constant");
      tensors.push_back(adaptor.getStd());
      c0 = *mean;
    } else if constexpr (Kind == SampleKind::NormalTT) {
      tensors.push_back(adaptor.getMean());
      tensors.push_back(adaptor.getStd());
    } else if constexpr (Kind == SampleKind::Exponential) {
      std::optional<double> lambd = constant(op.getLambd());
      if (!lambd || !(*lambd > 0))
        return this->fail(op, rewriter, "lambd must be a float constant > 0");
      c0 = *lambd;
    } else {
      std::optional<uint64_t> max = randomMax(dtype);
      if (!max)
        return this->fail(op, rewriter, "unsupported dtype");
      if constexpr (Kind == SampleKind::Random) {
        range = *max == UINT64_MAX ? 0 : *max + 1; // 0: all 64 bits
      } else if constexpr (Kind == SampleKind::RandomTo) {
        std::optional<int64_t> to = getConstantInt(op.getTo());
        if (!to || *to <= 0)
          return this->fail(op, rewriter, "to must be an int constant > 0");
        range = uint64_t(*to);
      } else {
        std::optional<int64_t> lo = getConstantInt(op.getFrom());
        if (!lo)
          return this->fail(op, rewriter, "from must be an int constant");
        if (isNone(op.getTo())) {
          if (*lo < 0 || uint64_t(*lo) > *max)
            return this->fail(op, rewriter, "from is out of the dtype's range");
          range = *max - uint64_t(*lo) + 1; // wraps to 0 for the full range
        } else {
          std::optional<int64_t> hi = getConstantInt(op.getTo());
          if (!hi || *hi <= *lo)
            return this->fail(op, rewriter, "from < to must be int constants");
          range = uint64_t(*hi) - uint64_t(*lo);
        }
        from = uint64_t(*lo);
      }
    }
    for (Value t : tensors)
      if (!isa<RankedTensorType>(t.getType()))
        return this->fail(op, rewriter, "operands are not convertible");

    Location loc = op.getLoc();
    // Tensor p in [0, 1] and std >= 0 are ATen's checks on values.
    if constexpr (isBernoulli && Kind != SampleKind::BernoulliFloat) {
      Value ok = createAllOf(rewriter, loc, tensors[0],
                             [](OpBuilder &b, Location l, Value p) -> Value {
                               Value zero = createScalarConstant(b, l, p.getType(), 0);
                               Value one = createScalarConstant(b, l, p.getType(), 1);
                               return arith::AndIOp::create(
                                   b, l,
                                   arith::CmpFOp::create(b, l, arith::CmpFPredicate::OGE, p, zero),
                                   arith::CmpFOp::create(b, l, arith::CmpFPredicate::OLE, p, one));
                             });
      emitRuntimeCheck(rewriter, loc, ok,
                       "bernoulli: every probability p must be in [0, 1] "
                       "(ATen: Expected p_in >= 0 && p_in <= 1 to be true)");
    }
    if constexpr (Kind == SampleKind::NormalFT || Kind == SampleKind::NormalTT) {
      Value ok = createAllOf(rewriter, loc, tensors.back(),
                             [](OpBuilder &b, Location l, Value s) -> Value {
                               return arith::CmpFOp::create(
                                   b, l, arith::CmpFPredicate::OGE, s,
                                   createScalarConstant(b, l, s.getType(), 0));
                             });
      emitRuntimeCheck(rewriter, loc, ok,
                       "normal: every std must be >= 0 (ATen: normal expects "
                       "all elements of std >= 0.0)");
    }

    ArrayRef<int64_t> shape = resultType.getShape();
    RandomKeys keys = RandomKeys::create(rewriter, loc, *seed, getStream(op),
                                         resultType.getNumElements());
    Type computeType =
        floatType ? (floatType.isF64() ? Type(floatType) : rewriter.getF32Type())
                  : Type(rewriter.getF64Type());
    auto computeFloat = cast<FloatType>(computeType);
    FailureOr<Value> result = createElementwiseOp(
        rewriter, loc, resultType, tensors,
        [&](OpBuilder &b, Location l, ValueRange args) -> Value {
          Value first = keys.bits(b, l, RandomKeys::elementIndex(b, l, shape));
          if constexpr (isBernoulli) {
            // u = bits * 2^-32 in f64, 1 when u < p.
            Type f64 = b.getF64Type();
            Value u = arith::MulFOp::create(
                b, l, arith::UIToFPOp::create(b, l, f64, first),
                createScalarConstant(b, l, f64, std::ldexp(1.0, -32)));
            Value p = Kind == SampleKind::BernoulliFloat
                          ? createScalarConstant(b, l, f64, c0)
                          : castScalar(b, l, args[0], f64);
            Value keep = arith::CmpFOp::create(b, l, arith::CmpFPredicate::OLT, u, p);
            return castScalar(b, l, keep, elemType, /*srcUnsigned=*/true);
          } else if constexpr (isRandom) {
            Type i64 = b.getI64Type();
            Value bits;
            if (range != 0 && range <= (uint64_t(1) << 32)) {
              bits = arith::ExtUIOp::create(b, l, i64, first);
            } else {
              Value second = RandomKeys::nextBits(b, l, first, 1);
              bits = arith::OrIOp::create(
                  b, l,
                  arith::ShLIOp::create(b, l, arith::ExtUIOp::create(b, l, i64, first),
                                        i64Const(b, l, 32)),
                  arith::ExtUIOp::create(b, l, i64, second));
            }
            if (range != 0)
              bits = arith::RemUIOp::create(b, l, bits, i64Const(b, l, range));
            Value v = arith::AddIOp::create(b, l, bits, i64Const(b, l, from));
            if (floatType)
              return arith::SIToFPOp::create(b, l, elemType, v);
            return castScalar(b, l, v, elemType);
          } else {
            Value u = uniform01(b, l, first, 0, computeFloat);
            Value out;
            auto cst = [&](double v) { return createScalarConstant(b, l, computeType, v); };
            if constexpr (Kind == SampleKind::Uniform) {
              out = arith::AddFOp::create(
                  b, l, arith::MulFOp::create(b, l, u, cst(c1 - c0)), cst(c0));
            } else if constexpr (Kind == SampleKind::Exponential) {
              Value log = math::Log1pOp::create(b, l, arith::NegFOp::create(b, l, u));
              out = arith::MulFOp::create(b, l, log, cst(-1.0 / c0));
            } else {
              // Box-Muller with a second uniform.
              Value u2 = uniform01(b, l, first, computeFloat.isF64() ? 2 : 1,
                                   computeFloat);
              Value r = math::SqrtOp::create(
                  b, l,
                  arith::MulFOp::create(
                      b, l, cst(-2.0),
                      math::Log1pOp::create(b, l, arith::NegFOp::create(b, l, u))));
              Value z = arith::MulFOp::create(
                  b, l, r,
                  math::CosOp::create(
                      b, l, arith::MulFOp::create(b, l, u2, cst(2 * M_PI))));
              Value mean = cst(c0), std = cst(c1);
              if constexpr (Kind == SampleKind::NormalTF ||
                            Kind == SampleKind::NormalTT)
                mean = castScalar(b, l, args[0], computeType);
              if constexpr (Kind == SampleKind::NormalFT)
                std = castScalar(b, l, args[0], computeType);
              if constexpr (Kind == SampleKind::NormalTT)
                std = castScalar(b, l, args[1], computeType);
              out = arith::AddFOp::create(
                  b, l, arith::MulFOp::create(b, l, z, std), mean);
            }
            return castScalar(b, l, out, elemType);
          }
        });
    return this->replaceOrFail(op, rewriter, result,
                               "operands do not broadcast to the result");
  }
};

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
  using namespace torch;
  using K = SampleKind;
  patterns.add<ConvertNativeDropoutOp,
               ConvertSampleOp<AtenBernoulliOp, K::BernoulliSelf>,
               ConvertSampleOp<AtenBernoulliPOp, K::BernoulliFloat>,
               ConvertSampleOp<AtenBernoulliTensorOp, K::BernoulliTensor>,
               ConvertSampleOp<AtenUniformOp, K::Uniform>,
               ConvertSampleOp<AtenNormalFunctionalOp, K::Normal>,
               ConvertSampleOp<AtenNormalTensorFloatOp, K::NormalTF>,
               ConvertSampleOp<AtenNormalFloatTensorOp, K::NormalFT>,
               ConvertSampleOp<AtenNormalTensorTensorOp, K::NormalTT>,
               ConvertSampleOp<AtenExponentialOp, K::Exponential>,
               ConvertSampleOp<AtenRandomOp, K::Random>,
               ConvertSampleOp<AtenRandomToOp, K::RandomTo>,
               ConvertSampleOp<AtenRandomFromOp, K::RandomFrom>>(
      typeConverter, patterns.getContext());
}

} // namespace ltc_mlir::torch_to_linalg
