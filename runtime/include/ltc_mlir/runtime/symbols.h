// runtime/symbols.h - runtime functions that compiled code calls by name.
//
// Generated code may call C functions named `ltc_mlir_rt_*` (runtime checks
// now; hand-tuned microkernels later). They are handed to the JIT through
// CompileOptions::symbolResolver: try resolveRuntimeSymbol first, then
// resolveOpenMPSymbol.
#ifndef LTC_MLIR_RUNTIME_SYMBOLS_H
#define LTC_MLIR_RUNTIME_SYMBOLS_H

#include <cstdint>
#include <string>

extern "C" {
/// Called by compiled code when runtime check `index` fails (see
/// ltc_mlir::CompiledFunction::checkMessages). Records the first failing
/// index of the current Executable::run, which then throws. Thread-safe;
/// never throws itself (it returns to the compiled code, which finishes).
void ltc_mlir_rt_check_failed(int64_t index);
}

namespace ltc_mlir {
namespace runtime {

/// Address of the runtime function `name` (an `ltc_mlir_rt_*` symbol), or
/// nullptr for any other name. Thread-safe.
void *resolveRuntimeSymbol(const std::string &name);

} // namespace runtime
} // namespace ltc_mlir

#endif // LTC_MLIR_RUNTIME_SYMBOLS_H
