// Runtime functions called by compiled code, and their lookup by name.
//
// Runtime checks report through a slot per Executable::run: `run` points the
// thread_local `currentCheckSlot` at its own atomic around the call, so a
// check failing on the calling thread is attributed exactly, even with
// concurrent runs on other threads. A call from a thread with no run in
// progress (an OpenMP worker, if a check ever sits inside a parallel loop)
// goes to a process-wide slot that every run drains after its call.
#include "ltc_mlir/runtime/symbols.h"
#include "ltc_mlir/runtime/buffer_cache.h"
#include "ltc_mlir/runtime/collectives.h"
#include "ltc_mlir/runtime/convolution.h"
#include "ltc_mlir/runtime/ctc_loss.h"
#include "ltc_mlir/runtime/gemm.h"
#include "ltc_mlir/runtime/half_conversions.h"
#include "ltc_mlir/runtime/incomplete_gamma.h"
#include "ltc_mlir/runtime/lapack.h"
#include "ltc_mlir/runtime/sorting.h"

#include <atomic>
#include <cstring>
#include <limits>
#include <vector>

namespace ltc_mlir {
namespace runtime {
namespace {

constexpr int64_t kNoFailure = -1;

thread_local std::atomic<int64_t> *currentCheckSlot = nullptr;
std::atomic<int64_t> orphanCheckSlot{kNoFailure};

void recordFirst(std::atomic<int64_t> &slot, int64_t index) {
  int64_t expected = kNoFailure;
  slot.compare_exchange_strong(expected, index, std::memory_order_relaxed);
}

} // namespace

std::atomic<int64_t> *exchangeCheckSlot(std::atomic<int64_t> *slot) {
  std::atomic<int64_t> *previous = currentCheckSlot;
  currentCheckSlot = slot;
  return previous;
}
int64_t takeOrphanCheckFailure() {
  return orphanCheckSlot.exchange(kNoFailure, std::memory_order_acq_rel);
}

void *resolveRuntimeSymbol(const std::string &name) {
  if (name == "ltc_mlir_rt_check_failed")
    return reinterpret_cast<void *>(&ltc_mlir_rt_check_failed);
  if (void *gemm = resolveGemmSymbol(name))
    return gemm;
  if (void *decomposition = resolveLapackSymbol(name))
    return decomposition;
  if (void *sorting = resolveSortingSymbol(name))
    return sorting;
  if (void *gamma = resolveIncompleteGammaSymbol(name))
    return gamma;
  if (void *ctc = resolveCtcLossSymbol(name))
    return ctc;
  if (void *collective = resolveCollectiveSymbol(name))
    return collective;
  if (void *convolution = resolveConvolutionSymbol(name))
    return convolution;
  if (name == "memrefCopy")
    return reinterpret_cast<void *>(&memrefCopy);
  // MLIR's generic allocation functions (finalize-memref-to-llvm
  // {use-generic-functions}): temporaries go through the buffer cache.
  if (name == "_mlir_memref_to_llvm_alloc")
    return reinterpret_cast<void *>(&ltc_mlir_rt_alloc);
  if (name == "_mlir_memref_to_llvm_aligned_alloc")
    return reinterpret_cast<void *>(&ltc_mlir_rt_aligned_alloc);
  if (name == "_mlir_memref_to_llvm_free")
    return reinterpret_cast<void *>(&ltc_mlir_rt_free);
  // f16/bf16 conversions LLVM turns into compiler-rt calls on CPUs without
  // F16C / AVX512-BF16.
  return resolveHalfConversionSymbol(name.c_str());
}

} // namespace runtime
} // namespace ltc_mlir

extern "C" void ltc_mlir_rt_check_failed(int64_t index) {
  using namespace ltc_mlir::runtime;
  // Negative indices would read as "no failure": keep them visible.
  if (index < 0)
    index = std::numeric_limits<int64_t>::max();
  std::atomic<int64_t> *slot = currentCheckSlot;
  recordFirst(slot ? *slot : orphanCheckSlot, index);
}

namespace {

/// A ranked descriptor as MLIR lays it out: allocated and aligned pointers,
/// offset, then sizes[rank] and strides[rank] (all int64).
struct StridedView {
  char *base; // aligned + offset, in bytes
  const int64_t *sizes;
  const int64_t *strides;
};

StridedView viewOf(const ltc_mlir_UnrankedMemRef *m, int64_t elemSize) {
  auto *d = static_cast<char *>(m->descriptor);
  char *aligned;
  int64_t offset;
  std::memcpy(&aligned, d + sizeof(void *), sizeof(void *));
  std::memcpy(&offset, d + 2 * sizeof(void *), sizeof(int64_t));
  auto *sizes = reinterpret_cast<const int64_t *>(d + 2 * sizeof(void *) +
                                                  sizeof(int64_t));
  return {aligned + offset * elemSize, sizes, sizes + m->rank};
}

} // namespace

extern "C" void memrefCopy(int64_t elemSize, ltc_mlir_UnrankedMemRef *src,
                           ltc_mlir_UnrankedMemRef *dst) {
  int64_t rank = src->rank;
  StridedView s = viewOf(src, elemSize), d = viewOf(dst, elemSize);
  if (rank == 0) {
    std::memcpy(d.base, s.base, elemSize);
    return;
  }
  for (int64_t k = 0; k < rank; ++k)
    if (s.sizes[k] == 0)
      return;
  // Rows along the innermost dim; contiguous rows are one memcpy.
  int64_t last = rank - 1, rowLength = s.sizes[last];
  bool contiguousRows = s.strides[last] == 1 && d.strides[last] == 1;
  std::vector<int64_t> index(rank, 0);
  while (true) {
    int64_t srcOff = 0, dstOff = 0;
    for (int64_t k = 0; k < last; ++k) {
      srcOff += index[k] * s.strides[k];
      dstOff += index[k] * d.strides[k];
    }
    if (contiguousRows) {
      std::memcpy(d.base + dstOff * elemSize, s.base + srcOff * elemSize,
                  rowLength * elemSize);
    } else {
      for (int64_t j = 0; j < rowLength; ++j)
        std::memcpy(d.base + (dstOff + j * d.strides[last]) * elemSize,
                    s.base + (srcOff + j * s.strides[last]) * elemSize,
                    elemSize);
    }
    // Next row (odometer over the outer dims).
    int64_t k = last - 1;
    for (; k >= 0; --k) {
      if (++index[k] < s.sizes[k])
        break;
      index[k] = 0;
    }
    if (k < 0)
      return;
  }
}
