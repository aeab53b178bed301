// runtime/half_conversions.h - f16/bf16 conversions for the generated code.
//
// LLVM lowers conversions between float/double and half/bfloat to library
// calls (__extendhfsf2, __truncsfhf2, __truncdfhf2, __truncsfbf2,
// __truncdfbf2, compiler-rt's names) on CPUs without the instructions
// (F16C for f16, AVX512-BF16 / AVX-NE-CONVERT for bf16). The JIT links no
// compiler-rt, so the runtime provides them (see resolveRuntimeSymbol).
// The pipeline expands bf16 <-> f32 itself; these are the safety net for
// whatever conversion LLVM still emits, e.g. f16 on a CPU without F16C.
//
// The bit-level functions below do the work (round to nearest, ties to
// even; NaN stays NaN, quieted, with the sign and the top payload bits of
// the source; overflow gives infinity). Narrowing from double is rounded
// once (not through float). Thread-safe, no state.
#ifndef LTC_MLIR_RUNTIME_HALF_CONVERSIONS_H
#define LTC_MLIR_RUNTIME_HALF_CONVERSIONS_H

#include <cstdint>

namespace ltc_mlir {
namespace runtime {

uint16_t floatToHalfBits(float value);
uint16_t doubleToHalfBits(double value);
float halfBitsToFloat(uint16_t bits);
uint16_t floatToBFloat16Bits(float value);
uint16_t doubleToBFloat16Bits(double value);

/// Address of the runtime's implementation of the compiler-rt conversion
/// `name` (one of the five above), or nullptr.
void *resolveHalfConversionSymbol(const char *name);

} // namespace runtime
} // namespace ltc_mlir

#endif // LTC_MLIR_RUNTIME_HALF_CONVERSIONS_H
