#include "ltc_backend/config.h"

#include "ltc_backend/batch_families.h"
#include "ltc_backend/shape_variants.h"
#include "ltc_mlir/runtime/openmp.h"

#include <ATen/Parallel.h>
#include <c10/util/Exception.h>

#include <cstdlib>
#include <mutex>
#include <set>

namespace ltc_mlir {
namespace backend {
namespace {
std::mutex mu;

std::string FromEnv(const char* name, const char* fallback) {
  const char* env = std::getenv(name);
  return env ? env : fallback;
}

std::string& DumpDir() {
  static std::string dir = FromEnv("LTC_MLIR_DUMP_DIR", "");
  return dir;
}

std::string& ReproducerDir() {
  static std::string dir = FromEnv("LTC_MLIR_REPRODUCER_DIR", "/tmp/ltc_mlir_reproducers");
  return dir;
}

std::string Qualified(std::string op) {
  while (!op.empty() && op.front() == ' ') op.erase(op.begin());
  while (!op.empty() && op.back() == ' ') op.pop_back();
  if (!op.empty() && op.find("::") == std::string::npos) op = "aten::" + op;
  return op;
}

std::set<std::string> ParseOpList(const std::string& text) {
  std::set<std::string> ops;
  size_t start = 0;
  while (start <= text.size()) {
    size_t comma = text.find(',', start);
    if (comma == std::string::npos) comma = text.size();
    std::string op = Qualified(text.substr(start, comma - start));
    if (!op.empty()) ops.insert(op);
    start = comma + 1;
  }
  return ops;
}

std::set<std::string>& DisabledOps() {
  static std::set<std::string> ops = ParseOpList(FromEnv("LTC_MLIR_DISABLE_OPS", ""));
  return ops;
}

constexpr int64_t kDefaultCacheMaxBytes = int64_t(2048) << 20;

std::string DefaultCacheDir() {
  if (const char* env = std::getenv("LTC_MLIR_CACHE_DIR")) return env;  // "" disables
  if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg)
    return std::string(xdg) + "/ltc_mlir";
  if (const char* home = std::getenv("HOME"); home && *home)
    return std::string(home) + "/.cache/ltc_mlir";
  return "";
}

std::string& CacheDir() {
  static std::string dir = DefaultCacheDir();
  return dir;
}

int64_t& CacheMaxBytes() {
  static int64_t bytes = [] {
    const char* env = std::getenv("LTC_MLIR_CACHE_MAX_MB");
    if (!env) return kDefaultCacheMaxBytes;
    char* end = nullptr;
    long long mb = std::strtoll(env, &end, 10);
    return (end != env && *end == '\0' && mb > 0) ? int64_t(mb) << 20 : kDefaultCacheMaxBytes;
  }();
  return bytes;
}

constexpr long kMaxThreads = 4096;

// The thread count of LTC_MLIR_NUM_THREADS; 0 when unset.
int ThreadsFromEnv() {
  const char* env = std::getenv("LTC_MLIR_NUM_THREADS");
  if (!env) return 0;
  char* end = nullptr;
  long n = std::strtol(env, &end, 10);
  TORCH_CHECK_VALUE(end != env && *end == '\0' && n >= 1 && n <= kMaxThreads,
                    "LTC_MLIR_NUM_THREADS must be a positive integer (1 to ", kMaxThreads,
                    "), got '", env, "'. Set it to the number of threads the compiled graphs "
                    "may use, or unset it to follow torch.get_num_threads().");
  return static_cast<int>(n);
}

// LTC_MLIR_OPENMP: "torch" (default) runs compiled loops on libtorch's
// libgomp workers, "libomp" on LLVM's runtime (two sets of workers).
runtime::OpenMPRuntime OpenMPRuntimeFromEnv() {
  const char* env = std::getenv("LTC_MLIR_OPENMP");
  if (!env || std::string(env) == "torch") return runtime::OpenMPRuntime::Auto;
  TORCH_CHECK_VALUE(std::string(env) == "libomp", "LTC_MLIR_OPENMP must be 'torch' or 'libomp', got '",
                    env, "'. 'torch' (the default) runs compiled loops on torch's OpenMP "
                    "workers; 'libomp' on LLVM's OpenMP runtime.");
  return runtime::OpenMPRuntime::LibOmp;
}

}  // namespace

void SetDumpDir(const std::string& dir) {
  std::lock_guard<std::mutex> lock(mu);
  DumpDir() = dir;
}

std::string GetDumpDir() {
  std::lock_guard<std::mutex> lock(mu);
  return DumpDir();
}

void SetReproducerDir(const std::string& dir) {
  std::lock_guard<std::mutex> lock(mu);
  ReproducerDir() = dir;
}

std::string GetReproducerDir() {
  std::lock_guard<std::mutex> lock(mu);
  return ReproducerDir();
}

void SetDisabledOps(const std::vector<std::string>& ops) {
  std::set<std::string> parsed;
  for (const std::string& op : ops)
    if (!Qualified(op).empty()) parsed.insert(Qualified(op));
  std::lock_guard<std::mutex> lock(mu);
  DisabledOps() = std::move(parsed);
}

std::vector<std::string> GetDisabledOps() {
  std::lock_guard<std::mutex> lock(mu);
  return {DisabledOps().begin(), DisabledOps().end()};
}

bool IsOpDisabled(const std::string& qualified_name) {
  std::lock_guard<std::mutex> lock(mu);
  return !DisabledOps().empty() && DisabledOps().count(qualified_name) > 0;
}

std::string GetCacheDir() {
  std::lock_guard<std::mutex> lock(mu);
  return CacheDir();
}

void SetCacheDir(const std::string& dir) {
  std::lock_guard<std::mutex> lock(mu);
  CacheDir() = dir;
}

int64_t GetCacheMaxBytes() {
  std::lock_guard<std::mutex> lock(mu);
  return CacheMaxBytes();
}

void SetCacheMaxBytes(int64_t bytes) {
  std::lock_guard<std::mutex> lock(mu);
  CacheMaxBytes() = bytes > 0 ? bytes : kDefaultCacheMaxBytes;
}

int GetNumThreads() {
  int n = ThreadsFromEnv();
  return n > 0 ? n : at::get_num_threads();
}

std::string GetOpenMPRuntimeName() { return runtime::openMPRuntimeName(); }

void CheckEnvironment() {
  (void)ThreadsFromEnv();
  runtime::selectOpenMPRuntime(OpenMPRuntimeFromEnv());
  CheckShapeVariantEnvironment();
  (void)BatchGenericEnabled();
}

}  // namespace backend
}  // namespace ltc_mlir
