// Chooses the OpenMP runtime of compiled code: libtorch's libgomp through
// gomp_teams.cpp, or libomp loaded privately.
#include "ltc_mlir/runtime/openmp.h"

#include "ltc_mlir/runtime/gomp_teams.h"

#include <atomic>
#include <cstdlib>
#include <dlfcn.h>
#include <mutex>

namespace ltc_mlir {
namespace runtime {
namespace {

/// libomp's source-location record (kmp.h's ident_t), as compilers emit it.
struct Ident {
  int32_t reserved1;
  int32_t flags; // KMP_IDENT_KMPC
  int32_t reserved2;
  int32_t reserved3;
  const char *source;
};
using Microtask = void (*)(int32_t *globalTid, int32_t *boundTid, ...);
using ForkCall = void (*)(Ident *, int32_t argc, Microtask, ...);

struct OpenMPLibrary {
  void *handle = nullptr;
  std::string error;
  void (*setNumThreads)(int) = nullptr;
  void (*setBlocktime)(int) = nullptr;
  int (*pauseAll)(int) = nullptr;
  ForkCall forkCall = nullptr;
  int (*threadNum)() = nullptr;
  int (*numThreads)() = nullptr;
  bool userBlocktime = false;
};

/// omp_pause_resource_t's omp_pause_soft (OpenMP 5.0).
constexpr int kOmpPauseSoft = 1;
/// How long idle workers spin inside a graph (see library()).
constexpr int kBlocktimeMs = 1;

OpenMPLibrary &library() {
  static OpenMPLibrary lib = [] {
    OpenMPLibrary l;
    // Workers spin for 1 ms after a parallel region (libomp reads
    // KMP_BLOCKTIME when it initializes): long enough to bridge the serial
    // code between the regions of a graph (waking sleeping threads for each
    // of a step's hundreds of loops cost more than the loops), short enough
    // that on a machine other processes also load, a spinning worker does
    // not hold a core the thread it waits for needs (libomp's default,
    // 200 ms, made an MLP step 8x slower under load). After each graph
    // they are put to sleep at once (releaseThreads), so the eager torch
    // ops that follow keep both cores. A user's KMP_BLOCKTIME wins.
    // kmp_set_blocktime (applyThreadSettings) only covers the calling thread,
    // so the environment sets the default for every thread.
    l.userBlocktime = std::getenv("KMP_BLOCKTIME") != nullptr;
    setenv("KMP_BLOCKTIME", "1", /*overwrite=*/0);
    // RTLD_LOCAL: libomp also defines omp_* and GOMP_* which must keep
    // resolving to libgomp for libtorch.
    l.handle = dlopen(LTC_MLIR_LIBOMP_PATH, RTLD_NOW | RTLD_LOCAL);
    // libomp reads its environment when it initializes, which the first
    // runtime call does: initialize now, then take our setting out of the
    // environment again so processes the user starts do not inherit it.
    auto maxThreads = l.handle ? reinterpret_cast<int (*)()>(
                                     dlsym(l.handle, "omp_get_max_threads"))
                               : nullptr;
    if (maxThreads)
      maxThreads();
    if (!l.userBlocktime)
      unsetenv("KMP_BLOCKTIME");
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
    l.pauseAll = reinterpret_cast<int (*)(int)>(
        dlsym(l.handle, "omp_pause_resource_all"));
    l.forkCall = reinterpret_cast<ForkCall>(dlsym(l.handle, "__kmpc_fork_call"));
    l.threadNum =
        reinterpret_cast<int (*)()>(dlsym(l.handle, "omp_get_thread_num"));
    l.numThreads =
        reinterpret_cast<int (*)()>(dlsym(l.handle, "omp_get_num_threads"));
    return l;
  }();
  return lib;
}

std::atomic<int> requestedThreads{1};
std::atomic<OpenMPRuntime> requestedRuntime{OpenMPRuntime::Auto};

bool usesTorchGomp() { return activeOpenMPRuntime() == OpenMPRuntime::TorchGomp; }
// libomp's thread-count ICV is per calling thread; remember what each
// thread last applied so we only call into libomp when it changes.
thread_local int appliedThreads = -1;

struct ParallelForContext {
  int64_t count;
  void (*body)(int64_t, void *);
  void *context;
  const OpenMPLibrary *lib;
};

/// The outlined body of parallelFor's region (libomp passes the thread ids
/// first, then the one shared argument).
void parallelForMicrotask(int32_t *, int32_t *, ParallelForContext *c) {
  int64_t thread = c->lib->threadNum(), threads = c->lib->numThreads();
  for (int64_t i = thread; i < c->count; i += threads)
    c->body(i, c->context);
}

} // namespace

void selectOpenMPRuntime(OpenMPRuntime runtime) { requestedRuntime.store(runtime); }

OpenMPRuntime activeOpenMPRuntime() {
  // Fixed at the first use: linked code keeps the entry points it got.
  static const OpenMPRuntime active = [] {
    OpenMPRuntime wanted = requestedRuntime.load();
    if (wanted != OpenMPRuntime::LibOmp && loadTorchGomp())
      return OpenMPRuntime::TorchGomp;
    return OpenMPRuntime::LibOmp;
  }();
  return active;
}

const char *openMPRuntimeName() {
  return usesTorchGomp() ? "libgomp (shared with torch)" : "libomp";
}

void parallelFor(int64_t count, void (*body)(int64_t, void *), void *context) {
  if (usesTorchGomp())
    return gompParallelFor(count, body, context);
  OpenMPLibrary &lib = library();
  if (count <= 1 || !lib.forkCall || !lib.threadNum || !lib.numThreads) {
    for (int64_t i = 0; i < count; ++i)
      body(i, context);
    return;
  }
  static Ident ident = {0, /*KMP_IDENT_KMPC*/ 0x2, 0, 0, ";ltc_mlir;parallelFor;0;0;;"};
  ParallelForContext shared{count, body, context, &lib};
  lib.forkCall(&ident, 1, reinterpret_cast<Microtask>(&parallelForMicrotask),
               &shared);
}

void *resolveOpenMPSymbol(const std::string &name) {
  // An entry point the bridge lacks stays unresolved: the compile fails
  // and the graph falls back, instead of mixing two runtimes in a region.
  if (usesTorchGomp())
    return resolveGompShimSymbol(name);
  OpenMPLibrary &lib = library();
  if (!lib.handle)
    return nullptr;
  return dlsym(lib.handle, name.c_str());
}

bool openMPAvailable() { return usesTorchGomp() || library().handle != nullptr; }
std::string openMPLoadError() { return usesTorchGomp() ? "" : library().error; }

void setNumThreads(int numThreads) {
  requestedThreads.store(numThreads < 1 ? 1 : numThreads);
}

int getNumThreads() { return requestedThreads.load(); }

void applyThreadSettings() {
  if (usesTorchGomp()) // the bridge passes the count to each region
    return;
  OpenMPLibrary &lib = library();
  int n = requestedThreads.load();
  if (n == appliedThreads || !lib.handle)
    return;
  if (lib.setNumThreads)
    lib.setNumThreads(n);
  if (lib.setBlocktime && !lib.userBlocktime)
    lib.setBlocktime(kBlocktimeMs);
  appliedThreads = n;
}

void releaseThreads() {
  if (usesTorchGomp()) // torch's own ops use the workers next
    return;
  OpenMPLibrary &lib = library();
  // A soft pause makes spinning workers sleep now; the next parallel region
  // wakes them. With a user's blocktime their spinning is what was asked.
  if (lib.pauseAll && !lib.userBlocktime)
    lib.pauseAll(kOmpPauseSoft);
}

} // namespace runtime
} // namespace ltc_mlir
