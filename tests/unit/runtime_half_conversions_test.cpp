// Runtime units: the f16/bf16 conversions the JIT links in place of
// compiler-rt's, against an independent reference: every value of the
// 16-bit format decoded with ldexp, and the nearest one (ties to even)
// found by search. Inputs cover every tie and its neighbours, the
// subnormal and overflow boundaries, and random bit patterns.
#include "ltc_mlir/runtime/half_conversions.h"
#include "ltc_mlir/runtime/symbols.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

using namespace ltc_mlir::runtime;

namespace {

struct Format {
  int mantissaBits; // 10 for f16, 7 for bf16
  int exponentBits; // 5 for f16, 8 for bf16
};
constexpr Format kHalf{10, 5}, kBFloat16{7, 8};

/// The value of `bits` in `format` (infinity/NaN included), by definition.
double decode(uint16_t bits, Format f) {
  int bias = (1 << (f.exponentBits - 1)) - 1;
  int exponent = (bits >> f.mantissaBits) & ((1 << f.exponentBits) - 1);
  int mantissa = bits & ((1 << f.mantissaBits) - 1);
  double sign = (bits & 0x8000) ? -1.0 : 1.0;
  if (exponent == (1 << f.exponentBits) - 1)
    return mantissa ? std::numeric_limits<double>::quiet_NaN()
                    : sign * std::numeric_limits<double>::infinity();
  if (exponent == 0)
    return sign * std::ldexp(mantissa, 1 - bias - f.mantissaBits);
  return sign * std::ldexp(mantissa + (1 << f.mantissaBits),
                           exponent - bias - f.mantissaBits);
}

/// Nearest representable value of `format` (ties to even), by search over
/// the non-negative finite values.
class Reference {
public:
  explicit Reference(Format f) : format(f) {
    for (uint32_t bits = 0; bits < 0x8000; ++bits) {
      double v = decode(uint16_t(bits), f);
      if (std::isfinite(v))
        values.push_back({v, uint16_t(bits)});
    }
    std::sort(values.begin(), values.end());
    double maxValue = values.back().first;
    double ulp = maxValue - values[values.size() - 2].first;
    overflow = maxValue + ulp / 2; // the tie rounds to even: infinity
  }

  uint16_t round(double x) const {
    uint16_t sign = std::signbit(x) ? 0x8000 : 0;
    double a = std::fabs(x);
    uint16_t infinity = uint16_t(((1 << format.exponentBits) - 1)
                                 << format.mantissaBits);
    if (a >= overflow)
      return sign | infinity;
    auto hi = std::lower_bound(values.begin(), values.end(),
                               std::make_pair(a, uint16_t(0)));
    if (hi == values.end()) // above the largest value, below overflow
      return sign | values.back().second;
    if (hi->first == a)
      return sign | hi->second;
    auto lo = hi - 1;
    double dLo = a - lo->first, dHi = hi->first - a;
    if (dLo < dHi || (dLo == dHi && (lo->second & 1) == 0))
      return sign | lo->second;
    return sign | hi->second;
  }

  /// Exact ties between neighbours, the values around them, and the
  /// boundaries (smallest subnormal, largest finite).
  std::vector<double> interestingInputs() const {
    std::vector<double> xs;
    for (size_t i = 0; i + 1 < values.size(); ++i) {
      double mid = (values[i].first + values[i + 1].first) / 2;
      for (double x : {values[i].first, mid, std::nextafter(mid, 0.0),
                       std::nextafter(mid, 1e300)}) {
        xs.push_back(x);
        xs.push_back(-x);
      }
    }
    xs.push_back(overflow);
    xs.push_back(std::nextafter(overflow, 0.0));
    xs.push_back(1e300);
    return xs;
  }

private:
  Format format;
  std::vector<std::pair<double, uint16_t>> values;
  double overflow;
};

float floatOf(uint32_t bits) {
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

std::vector<uint32_t> randomFloatBits(size_t n) {
  std::mt19937 rng(1234);
  std::vector<uint32_t> bits(n);
  for (uint32_t &b : bits)
    b = rng();
  return bits;
}

void checkFloatInputs(Format format, uint16_t (*convert)(float)) {
  Reference ref(format);
  for (double x : ref.interestingInputs()) {
    // As a float (ties are exact in float; their neighbours are the next
    // floats).
    float f = static_cast<float>(x);
    for (float g : {f, std::nextafter(f, 0.0f), std::nextafter(f, 1e30f)})
      ASSERT_EQ(convert(g), ref.round(g)) << "input " << g;
  }
  for (uint32_t bits : randomFloatBits(1 << 20)) {
    float f = floatOf(bits);
    if (!std::isnan(f))
      ASSERT_EQ(convert(f), ref.round(f)) << "bits 0x" << std::hex << bits;
  }
}

void checkDoubleInputs(Format format, uint16_t (*convert)(double)) {
  Reference ref(format);
  // Rounded once: a tie plus or minus one double ulp is not a tie (rounding
  // through float first would make it one).
  for (double x : ref.interestingInputs())
    ASSERT_EQ(convert(x), ref.round(x)) << "input " << x;
  std::mt19937_64 rng(99);
  for (int i = 0; i < (1 << 20); ++i) {
    // A random 53-bit significand in [0.5, 1), sign and an exponent near
    // the 16-bit formats' range.
    double significand = 0.5 + double(rng() >> 11) * 0x1p-54;
    double d = std::ldexp(significand, int(rng() % 300) - 150);
    if (rng() & 1)
      d = -d;
    ASSERT_EQ(convert(d), ref.round(d)) << "input " << d;
  }
}

void checkNaN(uint16_t bits, Format format, bool negative) {
  EXPECT_TRUE(std::isnan(decode(bits, format))) << std::hex << bits;
  // Quiet: the top mantissa bit is set.
  EXPECT_TRUE(bits & (1 << (format.mantissaBits - 1))) << std::hex << bits;
  EXPECT_EQ(bool(bits & 0x8000), negative);
}

} // namespace

TEST(HalfConversions, FloatToHalfRoundsToNearestEven) {
  checkFloatInputs(kHalf, floatToHalfBits);
}

TEST(HalfConversions, DoubleToHalfRoundsOnce) {
  checkDoubleInputs(kHalf, doubleToHalfBits);
}

TEST(HalfConversions, FloatToBFloat16RoundsToNearestEven) {
  checkFloatInputs(kBFloat16, floatToBFloat16Bits);
}

TEST(HalfConversions, DoubleToBFloat16RoundsOnce) {
  checkDoubleInputs(kBFloat16, doubleToBFloat16Bits);
}

TEST(HalfConversions, HalfToFloatIsExactForEveryValue) {
  for (uint32_t bits = 0; bits < 0x10000; ++bits) {
    double expected = decode(uint16_t(bits), kHalf);
    float actual = halfBitsToFloat(uint16_t(bits));
    if (std::isnan(expected)) {
      ASSERT_TRUE(std::isnan(actual)) << std::hex << bits;
      continue;
    }
    ASSERT_EQ(double(actual), expected) << std::hex << bits;
    ASSERT_EQ(std::signbit(actual), bool(bits & 0x8000)) << std::hex << bits;
  }
}

TEST(HalfConversions, NaNStaysNaN) {
  for (uint32_t payload : {0x1u, 0x400000u, 0x3fffffu, 0x7fffffu}) {
    for (bool negative : {false, true}) {
      uint32_t bits = 0x7f800000u | payload | (negative ? 0x80000000u : 0);
      float nan = floatOf(bits);
      checkNaN(floatToHalfBits(nan), kHalf, negative);
      checkNaN(floatToBFloat16Bits(nan), kBFloat16, negative);
      checkNaN(doubleToHalfBits(double(nan)), kHalf, negative);
      checkNaN(doubleToBFloat16Bits(double(nan)), kBFloat16, negative);
    }
  }
}

TEST(HalfConversions, CompilerRtNamesResolveToTheRuntime) {
  for (const char *name : {"__extendhfsf2", "__truncsfhf2", "__truncdfhf2",
                           "__truncsfbf2", "__truncdfbf2"})
    EXPECT_NE(resolveRuntimeSymbol(name), nullptr) << name;
  EXPECT_EQ(resolveRuntimeSymbol("__truncxfhf2"), nullptr);
  // Called through the ABI LLVM uses (16-bit values in XMM registers).
  auto trunc = reinterpret_cast<_Float16 (*)(float)>(
      resolveRuntimeSymbol("__truncsfhf2"));
  auto extend = reinterpret_cast<float (*)(_Float16)>(
      resolveRuntimeSymbol("__extendhfsf2"));
  EXPECT_EQ(extend(trunc(1.0f / 3.0f)), halfBitsToFloat(0x3555));
  auto truncBF = reinterpret_cast<_Float16 (*)(double)>(
      resolveRuntimeSymbol("__truncdfbf2"));
  _Float16 carrier = truncBF(-2.5);
  uint16_t bits;
  std::memcpy(&bits, &carrier, 2);
  EXPECT_EQ(bits, 0xc020);
}
