// Loads libomp privately and exposes its symbols to generated code.
#include "ltc_mlir/runtime/openmp.h"

#include <atomic>
#include <cstdlib>
#include <dlfcn.h>
#include <mutex>

namespace ltc_mlir {
namespace runtime {
namespace {

struct OpenMPLibrary {
  void *handle = nullptr;
  std::string error;
  void (*setNumThreads)(int) = nullptr;
  void (*setBlocktime)(int) = nullptr;
  bool userBlocktime = false;
};

OpenMPLibrary &library() {
  static OpenMPLibrary lib = [] {
    OpenMPLibrary l;
    // libomp reads KMP_BLOCKTIME when it initializes: idle workers must not
    // spin after a graph, or the eager torch ops that follow run ~3x slower.
    // A user's explicit setting wins.
    l.userBlocktime = std::getenv("KMP_BLOCKTIME") != nullptr;
    setenv("KMP_BLOCKTIME", "0", /*overwrite=*/0);
    // RTLD_LOCAL: libomp also defines omp_* and GOMP_* which must keep
    // resolving to libgomp for libtorch.
    l.handle = dlopen(LTC_MLIR_LIBOMP_PATH, RTLD_NOW | RTLD_LOCAL);
    if (!l.handle) {
      const char *msg = dlerror();
      l.error = std::string("cannot load the LLVM OpenMP runtime (") +
                LTC_MLIR_LIBOMP_PATH + "): " + (msg ? msg : "unknown error") +
                "; install the Debian package libomp-22-dev";
      return l;
    }
    l.setNumThreads =
        reinterpret_cast<void (*)(int)>(dlsym(l.handle, "omp_set_num_threads"));
    l.setBlocktime =
        reinterpret_cast<void (*)(int)>(dlsym(l.handle, "kmp_set_blocktime"));
    return l;
  }();
  return lib;
}

std::atomic<int> requestedThreads{1};
// libomp's thread-count ICV is per calling thread; remember what each
// thread last applied so we only call into libomp when it changes.
thread_local int appliedThreads = -1;

} // namespace

void *resolveOpenMPSymbol(const std::string &name) {
  OpenMPLibrary &lib = library();
  if (!lib.handle)
    return nullptr;
  return dlsym(lib.handle, name.c_str());
}

bool openMPAvailable() { return library().handle != nullptr; }
std::string openMPLoadError() { return library().error; }

void setNumThreads(int numThreads) {
  requestedThreads.store(numThreads < 1 ? 1 : numThreads);
}

int getNumThreads() { return requestedThreads.load(); }

void applyThreadSettings() {
  OpenMPLibrary &lib = library();
  int n = requestedThreads.load();
  if (n == appliedThreads || !lib.handle)
    return;
  if (lib.setNumThreads)
    lib.setNumThreads(n);
  if (lib.setBlocktime && !lib.userBlocktime)
    lib.setBlocktime(0);
  appliedThreads = n;
}

} // namespace runtime
} // namespace ltc_mlir
