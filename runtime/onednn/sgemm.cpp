// oneDNN's sgemm for one GEMM block of compiled code (runtime/gemm.h), inside
// libltc_mlir_onednn. Each call already is one block of a loop compiled code
// spreads over libomp's threads, so oneDNN (libgomp) uses one thread for it.
#include "onednn_entry_points.h"

#include "gomp_threads.h"

#include <dnnl.h>

extern "C" int ltc_mlir_onednn_sgemm(char transA, char transB, int64_t m,
                                     int64_t n, int64_t k, float alpha,
                                     const float *a, int64_t lda,
                                     const float *b, int64_t ldb, float beta,
                                     float *c, int64_t ldc) {
  ltc_mlir::runtime::GompThreadsScope oneThread(1);
  return static_cast<int>(dnnl_sgemm(transA, transB, m, n, k, alpha, a, lda,
                                     b, ldb, beta, c, ldc));
}
