// The C entry points of libltc_mlir_onednn, the library that holds every
// call into oneDNN (runtime/onednn/).
//
// Why oneDNN sits in a library of its own: the torch wheel's libtorch_cpu
// carries its own oneDNN and exports some of its template instances (the
// std::call_once thunks of oneDNN's GEMM kernel set-up). Debian's libdnnl,
// loaded in the same search scope as libtorch_cpu, bound those names to
// torch's copies: its own JIT kernels were never built and dnnl_sgemm
// answered "unimplemented" on every call. libltc_mlir_onednn is opened with
// RTLD_DEEPBIND (onednn_library.cpp), so it and its libdnnl resolve their
// own names first, whatever the process loaded before.
#ifndef LTC_MLIR_RUNTIME_ONEDNN_ENTRY_POINTS_H
#define LTC_MLIR_RUNTIME_ONEDNN_ENTRY_POINTS_H

#include <cstdint>

extern "C" {

/// C = alpha * op(A) * op(B) + beta * C, row-major, on the calling thread
/// (one libgomp thread). Returns oneDNN's status: 0 when it computed C.
int ltc_mlir_onednn_sgemm(char transA, char transB, int64_t m, int64_t n,
                          int64_t k, float alpha, const float *a, int64_t lda,
                          const float *b, int64_t ldb, float beta, float *c,
                          int64_t ldc);

/// One convolution (`kind` a convolution::Kind, `operands` a
/// convolution::Operands, `params` a convolution::Params) by oneDNN's
/// primitives on the calling thread. Returns 1 when done, 0 when oneDNN
/// refused it (the caller computes it otherwise).
int ltc_mlir_onednn_convolve(int64_t kind, const void *operands,
                             const void *params);

} // extern "C"

#endif // LTC_MLIR_RUNTIME_ONEDNN_ENTRY_POINTS_H
