#include "ltc_backend/config.h"

#include <ATen/Parallel.h>
#include <c10/util/Exception.h>

#include <cstdlib>
#include <mutex>

namespace ltc_mlir {
namespace backend {
namespace {
std::mutex mu;
std::string& DumpDir() {
  static std::string dir = [] {
    const char* env = std::getenv("LTC_MLIR_DUMP_DIR");
    return std::string(env ? env : "");
  }();
  return dir;
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

int GetNumThreads() {
  if (const char* env = std::getenv("LTC_MLIR_NUM_THREADS")) {
    char* end = nullptr;
    long n = std::strtol(env, &end, 10);
    TORCH_CHECK(end != env && *end == '\0' && n >= 1 && n <= 4096,
                "LTC_MLIR_NUM_THREADS must be a positive integer, got '", env, "'");
    return static_cast<int>(n);
  }
  return at::get_num_threads();
}

}  // namespace backend
}  // namespace ltc_mlir
