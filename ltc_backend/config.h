// config: process-wide settings, from the environment or Python:
// dump dir (LTC_MLIR_DUMP_DIR), reproducer dir (LTC_MLIR_REPRODUCER_DIR),
// thread count (LTC_MLIR_NUM_THREADS), OpenMP runtime (LTC_MLIR_OPENMP).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace ltc_mlir {
namespace backend {

void SetDumpDir(const std::string& dir);  // "" disables dumps
std::string GetDumpDir();

// Where compiler failures leave a reproducer; default
// /tmp/ltc_mlir_reproducers, "" disables them.
void SetReproducerDir(const std::string& dir);
std::string GetReproducerDir();
// Reproducers kept in that directory (the newest).
constexpr unsigned kMaxReproducers = 100;

// Ops ("aten::mm") that graphs compiled from now on treat as unsupported,
// so that they run through the fallback: to bisect a suspected miscompile
// or to test fallback paths. From LTC_MLIR_DISABLE_OPS (comma-separated;
// "mm" means "aten::mm") or ltc_mlir.set_disabled_ops().
void SetDisabledOps(const std::vector<std::string>& ops);
std::vector<std::string> GetDisabledOps();
bool IsOpDisabled(const std::string& qualified_name);

// The persistent compile cache (compile_cache.h): "" when disabled.
// LTC_MLIR_CACHE_DIR (empty: disabled), else $XDG_CACHE_HOME/ltc_mlir or
// ~/.cache/ltc_mlir; ltc_mlir.set_cache_dir().
std::string GetCacheDir();
void SetCacheDir(const std::string& dir);
// LTC_MLIR_CACHE_MAX_MB (default 2048) or ltc_mlir.set_cache_max_bytes().
int64_t GetCacheMaxBytes();
void SetCacheMaxBytes(int64_t bytes);

// LTC_MLIR_NUM_THREADS when set, else torch.get_num_threads().
int GetNumThreads();

// "libgomp (shared with torch)" or "libomp": what runs compiled loops.
std::string GetOpenMPRuntimeName();

// Throws c10::ValueError naming the variable, its value and what is
// accepted if an LTC_MLIR_* variable is malformed (called by init()).
// Also applies LTC_MLIR_OPENMP (runtime/openmp.h), which must precede the
// first compile.
void CheckEnvironment();

}  // namespace backend
}  // namespace ltc_mlir
