// Runtime functions called by compiled code, and their lookup by name.
//
// Runtime checks report through a slot per Executable::run: `run` points the
// thread_local `currentCheckSlot` at its own atomic around the call, so a
// check failing on the calling thread is attributed exactly, even with
// concurrent runs on other threads. A call from a thread with no run in
// progress (an OpenMP worker, if a check ever sits inside a parallel loop)
// goes to a process-wide slot that every run drains after its call.
#include "ltc_mlir/runtime/symbols.h"

#include <atomic>
#include <limits>

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

// Used by executable.cpp.
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
  return nullptr;
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
