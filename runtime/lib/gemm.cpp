// The f32 GEMM block of compiled code: oneDNN's sgemm on the calling thread
// (onednn/sgemm.cpp), plain loops if oneDNN is missing or refuses.
#include "ltc_mlir/runtime/gemm.h"

#include "onednn_library.h"

#include <algorithm>
#include <atomic>
#include <cstring>
#include <vector>

namespace {

std::atomic<int64_t> referenceCalls{0};

/// A row-major or transposed operand as oneDNN's sgemm takes it.
struct Operand {
  const float *data;
  char trans; // 'N': element (i, j) at data[i * ld + j]; 'T': data[j * ld + i]
  int64_t ld;
};

/// `rows x cols` matrix with strides (rowStride, colStride) in the form
/// sgemm reads, packed into `scratch` when neither layout fits (broadcast
/// or doubly strided views).
Operand asOperand(const float *data, int64_t rows, int64_t cols,
                  int64_t rowStride, int64_t colStride,
                  std::vector<float> &scratch) {
  if (colStride == 1 && (rows == 1 || rowStride >= cols))
    return {data, 'N', rows == 1 ? cols : rowStride};
  if (rowStride == 1 && (cols == 1 || colStride >= rows))
    return {data, 'T', cols == 1 ? rows : colStride};
  scratch.resize(static_cast<size_t>(rows * cols));
  for (int64_t i = 0; i < rows; ++i)
    for (int64_t j = 0; j < cols; ++j)
      scratch[i * cols + j] = data[i * rowStride + j * colStride];
  return {scratch.data(), 'N', cols};
}

/// Reference product, used only if oneDNN refuses the call: never a wrong
/// number, only a slow one.
void referenceGemm(int64_t m, int64_t n, int64_t k, const Operand &a,
                   const Operand &b, float *c, int64_t ldc, bool accumulate) {
  auto at = [](const Operand &o, int64_t i, int64_t j) {
    return o.trans == 'N' ? o.data[i * o.ld + j] : o.data[j * o.ld + i];
  };
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) {
      float sum = 0.0f;
      for (int64_t p = 0; p < k; ++p)
        sum += at(a, i, p) * at(b, p, j);
      c[i * ldc + j] = accumulate ? c[i * ldc + j] + sum : sum;
    }
}

/// C (row-major, leading dimension ldc) = A * B (+ C).
void rowMajorGemm(int64_t m, int64_t n, int64_t k, const float *a,
                  int64_t aStrideM, int64_t aStrideK, const float *b,
                  int64_t bStrideK, int64_t bStrideN, float *c, int64_t ldc,
                  bool accumulate) {
  thread_local std::vector<float> aScratch, bScratch;
  Operand lhs = asOperand(a, m, k, aStrideM, aStrideK, aScratch);
  Operand rhs = asOperand(b, k, n, bStrideK, bStrideN, bScratch);
  auto sgemm = ltc_mlir::runtime::oneDnn().sgemm;
  if (sgemm && sgemm(lhs.trans, rhs.trans, m, n, k, 1.0f, lhs.data, lhs.ld,
                     rhs.data, rhs.ld, accumulate ? 1.0f : 0.0f, c, ldc) == 0)
    return;
  referenceCalls.fetch_add(1, std::memory_order_relaxed);
  referenceGemm(m, n, k, lhs, rhs, c, ldc, accumulate);
}

} // namespace

extern "C" void ltc_mlir_rt_sgemm(int64_t m, int64_t n, int64_t k, int64_t a,
                                  int64_t aStrideM, int64_t aStrideK,
                                  int64_t b, int64_t bStrideK,
                                  int64_t bStrideN, int64_t c,
                                  int64_t cStrideM, int64_t cStrideN,
                                  int64_t accumulate) {
  if (m <= 0 || n <= 0)
    return;
  auto *aData = reinterpret_cast<const float *>(a);
  auto *bData = reinterpret_cast<const float *>(b);
  auto *cData = reinterpret_cast<float *>(c);
  if (k <= 0) {
    // An empty sum: C is zero (or unchanged).
    if (!accumulate)
      for (int64_t i = 0; i < m; ++i)
        for (int64_t j = 0; j < n; ++j)
          cData[i * cStrideM + j * cStrideN] = 0.0f;
    return;
  }
  if (cStrideN == 1 && (m == 1 || cStrideM >= n)) {
    rowMajorGemm(m, n, k, aData, aStrideM, aStrideK, bData, bStrideK,
                 bStrideN, cData, m == 1 ? n : cStrideM, accumulate);
    return;
  }
  if (cStrideM == 1 && (n == 1 || cStrideN >= m)) {
    // A column-major C is the row-major C^T = B^T * A^T.
    rowMajorGemm(n, m, k, bData, bStrideN, bStrideK, aData, aStrideK,
                 aStrideM, cData, n == 1 ? m : cStrideN, accumulate);
    return;
  }
  // Any other layout: compute into a row-major block, then scatter.
  thread_local std::vector<float> cScratch;
  cScratch.resize(static_cast<size_t>(m * n));
  if (accumulate)
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j)
        cScratch[i * n + j] = cData[i * cStrideM + j * cStrideN];
  rowMajorGemm(m, n, k, aData, aStrideM, aStrideK, bData, bStrideK, bStrideN,
               cScratch.data(), n, accumulate);
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j)
      cData[i * cStrideM + j * cStrideN] = cScratch[i * n + j];
}

namespace ltc_mlir {
namespace runtime {
int64_t gemmReferenceCalls() { return referenceCalls.load(); }

void *resolveGemmSymbol(const std::string &name) {
  if (name == "ltc_mlir_rt_sgemm")
    return reinterpret_cast<void *>(&ltc_mlir_rt_sgemm);
  return nullptr;
}
} // namespace runtime
} // namespace ltc_mlir
