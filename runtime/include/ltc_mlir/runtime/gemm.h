// runtime/gemm.h - the f32 matrix-multiply block compiled code calls.
//
// `ltc-lower-external-gemms` (mlir_lowering/lib/Pipelines/ExternalGemm.cpp)
// turns large f32 contractions into a parallel loop over output blocks whose
// body calls ltc_mlir_rt_sgemm once per block. The partition into blocks is
// fixed at compile time and each block runs on one thread, so results do not
// depend on the thread count. The kernel is oneDNN's sgemm (the library
// eager PyTorch's convolutions use), which picks its code path (AVX2,
// AVX-512, ...) from the host CPU at run time.
#ifndef LTC_MLIR_RUNTIME_GEMM_H
#define LTC_MLIR_RUNTIME_GEMM_H

#include <cstdint>
#include <string>

extern "C" {
/// C[m x n] = A[m x k] * B[k x n]   (+ C when `accumulate` is nonzero).
/// Pointers are passed as addresses; strides are in elements and may be any
/// values (transposed, broadcast, strided views): layouts oneDNN cannot read
/// directly are packed first. Thread-safe; runs on the calling thread only.
void ltc_mlir_rt_sgemm(int64_t m, int64_t n, int64_t k, int64_t a,
                       int64_t aStrideM, int64_t aStrideK, int64_t b,
                       int64_t bStrideK, int64_t bStrideN, int64_t c,
                       int64_t cStrideM, int64_t cStrideN, int64_t accumulate);
}

namespace ltc_mlir {
namespace runtime {
/// Address of the GEMM entry point when `name` is ltc_mlir_rt_sgemm.
void *resolveGemmSymbol(const std::string &name);
/// GEMM blocks computed by plain loops because oneDNN was missing or
/// refused them, since the process started (metrics, tests).
int64_t gemmReferenceCalls();
/// Why the runtime's oneDNN library (libltc_mlir_onednn) could not be
/// opened, or "" when it is loaded.
std::string oneDnnLibraryError();
} // namespace runtime
} // namespace ltc_mlir

#endif // LTC_MLIR_RUNTIME_GEMM_H
