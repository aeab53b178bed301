// runtime/symbols.h - runtime functions that compiled code calls by name.
//
// Generated code may call C functions named `ltc_mlir_rt_*` (runtime checks
// now; hand-tuned microkernels later), and `memrefCopy`, the function of
// MLIR's runtime library that a memref.copy between non-contiguous views
// lowers to (bufferization inserts such copies, e.g. of a tensor.insert_slice
// it cannot do in place), and the compiler-rt f16/bf16 conversions LLVM
// emits on CPUs without the instructions (half_conversions.h). They are
// handed to the JIT through
// CompileOptions::symbolResolver: try resolveRuntimeSymbol first, then
// resolveOpenMPSymbol.
#ifndef LTC_MLIR_RUNTIME_SYMBOLS_H
#define LTC_MLIR_RUNTIME_SYMBOLS_H

#include <atomic>
#include <cstdint>
#include <string>

extern "C" {
/// Called by compiled code when runtime check `index` fails (see
/// ltc_mlir::CompiledFunction::checkMessages). Records the first failing
/// index of the current Executable::run, which then throws. Thread-safe;
/// never throws itself (it returns to the compiled code, which finishes).
void ltc_mlir_rt_check_failed(int64_t index);

/// MLIR's UnrankedMemRefType: the rank and a pointer to a ranked descriptor
/// (allocated, aligned, offset, sizes[rank], strides[rank]).
struct ltc_mlir_UnrankedMemRef {
  int64_t rank;
  void *descriptor;
};

/// Copies the elements of `src` into `dst` (same sizes, any strides), as
/// MLIR's `memrefCopy` (mlir/ExecutionEngine/CRunnerUtils.h), which the
/// lowering of memref.copy calls for non-contiguous layouts.
void memrefCopy(int64_t elemSize, ltc_mlir_UnrankedMemRef *src,
                ltc_mlir_UnrankedMemRef *dst);
}

namespace ltc_mlir {
namespace runtime {

/// Used by Executable::run to collect ltc_mlir_rt_check_failed reports:
/// installs `slot` as the calling thread's check slot and returns the
/// previous one; failures reported from other threads (OpenMP workers) go
/// to a process-wide slot, which takeOrphanCheckFailure reads and clears
/// (-1 when empty).
std::atomic<int64_t> *exchangeCheckSlot(std::atomic<int64_t> *slot);
int64_t takeOrphanCheckFailure();

/// Address of the runtime function `name` (an `ltc_mlir_rt_*` symbol, an
/// allocation function, `memrefCopy`, or one of the compiler-rt f16/bf16
/// conversions of half_conversions.h), or nullptr for any other name.
/// Thread-safe.
void *resolveRuntimeSymbol(const std::string &name);

} // namespace runtime
} // namespace ltc_mlir

#endif // LTC_MLIR_RUNTIME_SYMBOLS_H
