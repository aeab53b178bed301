// f16/bf16 conversions: bit-level implementations and the compiler-rt-named
// entry points the generated code calls (see half_conversions.h).
//
// The entry points take and return _Float16 only as a carrier: LLVM passes
// half and bfloat values in the low 16 bits of an XMM register (x86-64
// psABI), which is where GCC puts a _Float16. No _Float16 arithmetic is
// done here (GCC would call libgcc's own conversions for it).
#include "ltc_mlir/runtime/half_conversions.h"

#include "ltc_mlir/runtime/entry_points.h"

#include <cmath>
#include <cstring>

namespace ltc_mlir {
namespace runtime {
namespace {

uint32_t bitsOf(float value) {
  uint32_t bits;
  std::memcpy(&bits, &value, sizeof bits);
  return bits;
}

float floatOf(uint32_t bits) {
  float value;
  std::memcpy(&value, &bits, sizeof value);
  return value;
}

/// `value` rounded to float towards zero, with the last bit set when the
/// rounding was inexact ("round to odd"). Rounding that float once more to
/// a format with at least two bits less precision gives the correctly
/// rounded result of `value` (no double-rounding error).
float roundToOddFloat(double value) {
  float rounded = static_cast<float>(value);
  if (std::isnan(value) || static_cast<double>(rounded) == value)
    return rounded;
  uint32_t bits = bitsOf(rounded);
  // Rounded away from zero (possibly to infinity): one step back.
  if (std::fabs(static_cast<double>(rounded)) > std::fabs(value))
    bits -= 1;
  return floatOf(bits | 1u);
}

} // namespace

uint16_t floatToHalfBits(float value) {
  uint32_t x = bitsOf(value);
  uint16_t sign = static_cast<uint16_t>((x >> 16) & 0x8000u);
  uint32_t magnitude = x & 0x7fffffffu;
  if (magnitude > 0x7f800000u) // NaN: quiet, keep the top payload bits
    return sign | 0x7e00u | ((magnitude >> 13) & 0x3ffu);
  if (magnitude >= 0x47800000u) // >= 2^16 (and infinity): overflows
    return sign | 0x7c00u;
  if (magnitude >= 0x38800000u) { // >= 2^-14: a normal half
    // Rebias the exponent (127 -> 15), round the 13 dropped bits to
    // nearest even; a carry into the exponent is the right result (up to
    // infinity for [65520, 65536)).
    uint32_t rebiased = magnitude - 0x38000000u;
    rebiased += 0xfffu + ((rebiased >> 13) & 1u);
    return sign | static_cast<uint16_t>(rebiased >> 13);
  }
  if (magnitude < 0x33000000u) // < 2^-25: rounds to zero
    return sign;
  // A half subnormal: the result counts units of 2^-24. The float is
  // significand * 2^(exponent - 150), i.e. significand >> (126 - exponent)
  // units, rounded to nearest even.
  uint32_t exponent = magnitude >> 23;
  uint32_t significand = (magnitude & 0x7fffffu) | 0x800000u;
  uint32_t shift = 126 - exponent; // 14..24
  uint32_t units = significand >> shift;
  uint32_t rest = significand & ((1u << shift) - 1);
  uint32_t half = 1u << (shift - 1);
  if (rest > half || (rest == half && (units & 1u)))
    ++units; // may reach 0x400, the smallest normal: still right
  return sign | static_cast<uint16_t>(units);
}

uint16_t doubleToHalfBits(double value) {
  return floatToHalfBits(roundToOddFloat(value));
}

float halfBitsToFloat(uint16_t bits) {
  uint32_t sign = static_cast<uint32_t>(bits & 0x8000u) << 16;
  uint32_t exponent = (bits >> 10) & 0x1fu;
  uint32_t mantissa = bits & 0x3ffu;
  if (exponent == 0x1f) // infinity or NaN (payload kept)
    return floatOf(sign | 0x7f800000u | (mantissa << 13));
  if (exponent != 0)
    return floatOf(sign | ((exponent + 112) << 23) | (mantissa << 13));
  if (mantissa == 0)
    return floatOf(sign);
  // Subnormal: normalize (value = mantissa * 2^-24).
  exponent = 1;
  while ((mantissa & 0x400u) == 0) {
    mantissa <<= 1;
    --exponent;
  }
  mantissa &= 0x3ffu;
  return floatOf(sign | ((exponent + 112) << 23) | (mantissa << 13));
}

uint16_t floatToBFloat16Bits(float value) {
  uint32_t x = bitsOf(value);
  if ((x & 0x7fffffffu) > 0x7f800000u) // NaN: quiet, keep sign and payload
    return static_cast<uint16_t>((x >> 16) | 0x40u);
  // Round the 16 dropped bits to nearest even; infinity stays infinity and
  // the largest floats round up to it, as they should.
  x += 0x7fffu + ((x >> 16) & 1u);
  return static_cast<uint16_t>(x >> 16);
}

uint16_t doubleToBFloat16Bits(double value) {
  return floatToBFloat16Bits(roundToOddFloat(value));
}

} // namespace runtime
} // namespace ltc_mlir

namespace {

_Float16 carrier(uint16_t bits) {
  _Float16 value;
  std::memcpy(&value, &bits, sizeof bits);
  return value;
}

uint16_t bitsOfCarrier(_Float16 value) {
  uint16_t bits;
  std::memcpy(&bits, &value, sizeof bits);
  return bits;
}

} // namespace

extern "C" {
// Named after compiler-rt's functions, prefixed so that they never
// interpose libgcc's in the process; the JIT maps the names.
_Float16 ltc_mlir_rt_truncsfhf2(float value) {
  return carrier(ltc_mlir::runtime::floatToHalfBits(value));
}
_Float16 ltc_mlir_rt_truncdfhf2(double value) {
  return carrier(ltc_mlir::runtime::doubleToHalfBits(value));
}
float ltc_mlir_rt_extendhfsf2(_Float16 value) {
  return ltc_mlir::runtime::halfBitsToFloat(bitsOfCarrier(value));
}
_Float16 ltc_mlir_rt_truncsfbf2(float value) {
  return carrier(ltc_mlir::runtime::floatToBFloat16Bits(value));
}
_Float16 ltc_mlir_rt_truncdfbf2(double value) {
  return carrier(ltc_mlir::runtime::doubleToBFloat16Bits(value));
}
}

void *ltc_mlir::runtime::resolveHalfConversionSymbol(const char *name) {
  static const ltc_mlir::runtime::EntryPoint entries[] = {
      {"__truncsfhf2", reinterpret_cast<void *>(&ltc_mlir_rt_truncsfhf2)},
      {"__truncdfhf2", reinterpret_cast<void *>(&ltc_mlir_rt_truncdfhf2)},
      {"__extendhfsf2", reinterpret_cast<void *>(&ltc_mlir_rt_extendhfsf2)},
      {"__truncsfbf2", reinterpret_cast<void *>(&ltc_mlir_rt_truncsfbf2)},
      {"__truncdfbf2", reinterpret_cast<void *>(&ltc_mlir_rt_truncdfbf2)},
  };
  return ltc_mlir::runtime::findEntryPoint(entries, name);
}
