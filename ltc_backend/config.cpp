#include "ltc_backend/config.h"

#include <ATen/Parallel.h>
#include <c10/util/Exception.h>

#include <cstdlib>
#include <mutex>

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

int GetNumThreads() {
  int n = ThreadsFromEnv();
  return n > 0 ? n : at::get_num_threads();
}

void CheckEnvironment() { (void)ThreadsFromEnv(); }

}  // namespace backend
}  // namespace ltc_mlir
