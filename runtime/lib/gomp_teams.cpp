// Runs compiled code's parallel loops on torch's libgomp thread team.
//
// MLIR's OpenMP translation emits calls into libomp's ABI (__kmpc_*).
// libtorch runs its own parallel ops on libgomp. With both runtimes in a
// process, each keeps its own workers, and on a machine with as many cores
// as threads the workers of one spin on the cores the other needs (a small
// CNN's torch.compile step took 9.9 ms at 2 threads instead of 2.5-3.4). This file
// implements the handful of __kmpc_* entry points the pipeline emits on top
// of libgomp's GOMP_parallel and GOMP_barrier, so that compiled loops and
// torch's ops share one set of workers.
#include "ltc_mlir/runtime/gomp_teams.h"

#include "ltc_mlir/runtime/openmp.h"
#include "ltc_mlir/runtime/symbols.h"

#include <algorithm>
#include <atomic>
#include <cstdarg>
#include <dlfcn.h>
#include <mutex>
#include <pthread.h>
#include <type_traits>

namespace ltc_mlir {
namespace runtime {
namespace {

struct GompLibrary {
  void (*parallel)(void (*)(void *), void *, unsigned, unsigned) = nullptr;
  void (*barrier)() = nullptr;
  int (*threadNum)() = nullptr;
  int (*numThreads)() = nullptr;
  bool complete() const { return parallel && barrier && threadNum && numThreads; }
};

GompLibrary gomp;

using Microtask = void (*)(int32_t *, int32_t *, ...);

/// The most shared arguments a region may take here; OpenMPIRBuilder packs
/// a region's captures into one struct, so it passes one.
constexpr int kMaxRegionArgs = 8;

struct Region {
  Microtask body;
  int32_t argc;
  void *args[kMaxRegionArgs];
};

/// The calling thread's place in the team running it (0 of 1 outside).
thread_local int32_t teamThread = 0;
thread_local int32_t teamSize = 1;
/// A num_threads clause (__kmpc_push_num_threads) for the next region.
thread_local int32_t pushedThreads = 0;
/// Set in the child of a fork(): libgomp's workers do not survive it, and
/// the child's first team would wait for them forever (torch's own parallel
/// ops hang the same way unless the child runs 1 thread, as DataLoader
/// workers do). Regions then run on the calling thread alone.
std::atomic<bool> forkedChild{false};

void callBody(const Region &r, int32_t thread) {
  int32_t bound = thread;
  void *const *a = r.args;
  switch (r.argc) {
  case 0: r.body(&thread, &bound); break;
  case 1: r.body(&thread, &bound, a[0]); break;
  case 2: r.body(&thread, &bound, a[0], a[1]); break;
  case 3: r.body(&thread, &bound, a[0], a[1], a[2]); break;
  case 4: r.body(&thread, &bound, a[0], a[1], a[2], a[3]); break;
  case 5: r.body(&thread, &bound, a[0], a[1], a[2], a[3], a[4]); break;
  case 6: r.body(&thread, &bound, a[0], a[1], a[2], a[3], a[4], a[5]); break;
  case 7: r.body(&thread, &bound, a[0], a[1], a[2], a[3], a[4], a[5], a[6]); break;
  default: r.body(&thread, &bound, a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7]); break;
  }
}

/// Runs `body` as one member of the team; restores the caller's position
/// (a region nested in a serial region of an outer team runs alone).
template <typename F> void asTeamMember(int32_t thread, int32_t size, F body) {
  int32_t outerThread = teamThread, outerSize = teamSize;
  teamThread = thread;
  teamSize = size;
  body();
  teamThread = outerThread;
  teamSize = outerSize;
}

void regionEntry(void *data) {
  const Region &r = *static_cast<const Region *>(data);
  asTeamMember(gomp.threadNum(), gomp.numThreads(),
               [&] { callBody(r, teamThread); });
}

int32_t threadsForNextRegion() {
  int32_t n = pushedThreads > 0 ? pushedThreads : getNumThreads();
  pushedThreads = 0;
  return n;
}

void forkCall(void *, int32_t argc, Microtask body, ...) {
  Region r{body, argc, {}};
  va_list ap;
  va_start(ap, body);
  for (int32_t i = 0; i < argc && i < kMaxRegionArgs; ++i)
    r.args[i] = va_arg(ap, void *);
  va_end(ap);
  int32_t threads = threadsForNextRegion();
  if (argc > kMaxRegionArgs) {
    // Cannot be forwarded; the run raises (Executable::run) instead of
    // computing with missing arguments.
    ltc_mlir_rt_check_failed(kRegionTooWideCheck);
    return;
  }
  // One thread, a region inside a region, or a forked child: the team is
  // this thread alone. Static loops then give it every iteration and
  // barriers return at once.
  if (threads <= 1 || teamSize > 1 || forkedChild.load(std::memory_order_relaxed)) {
    asTeamMember(0, 1, [&] { callBody(r, 0); });
    return;
  }
  gomp.parallel(&regionEntry, &r, static_cast<unsigned>(threads), 0);
}

int32_t globalThreadNum(void *) { return teamThread; }

void pushNumThreads(void *, int32_t, int32_t threads) { pushedThreads = threads; }

void barrier(void *, int32_t) {
  if (teamSize > 1)
    gomp.barrier();
}

/// libomp's sched_type values the OpenMPIRBuilder uses for static loops.
constexpr int32_t kStaticChunked = 33;

/// __kmpc_for_static_init_{4,4u,8,8u}: this thread's share of the
/// iterations lower, lower+incr, ..., upper (inclusive). Unchunked: one
/// contiguous block per thread, sizes differing by at most one. Chunked:
/// this thread's first chunk and the stride between its chunks.
template <typename T>
void staticInit(void *, int32_t, int32_t schedule, int32_t *lastIteration,
                T *lower, T *upper, std::make_signed_t<T> *stride,
                std::make_signed_t<T> incr, std::make_signed_t<T> chunk) {
  using S = std::make_signed_t<T>;
  using U = std::make_unsigned_t<T>;
  const U thread = static_cast<U>(teamThread), threads = static_cast<U>(teamSize);
  if (incr == 0)
    incr = 1;
  // Iteration count, computed in the unsigned type: an empty range
  // (upper = lower - incr) wraps to zero.
  U span = incr > 0 ? static_cast<U>(*upper) - static_cast<U>(*lower)
                    : static_cast<U>(*lower) - static_cast<U>(*upper);
  U step = incr > 0 ? static_cast<U>(incr) : static_cast<U>(-incr);
  U trips = span / step + 1;
  bool empty = incr > 0 ? (std::is_signed_v<T> && *upper < *lower)
                        : (std::is_signed_v<T> && *upper > *lower);
  if (empty)
    trips = 0;
  U first, count;
  if (schedule == kStaticChunked && chunk > 0) {
    U c = static_cast<U>(chunk);
    first = thread * c;
    count = first < trips ? std::min<U>(c, trips - first) : 0;
    if (stride)
      *stride = static_cast<S>(threads * c * static_cast<U>(incr));
    if (lastIteration)
      *lastIteration = trips > 0 && ((trips - 1) / c) % threads == thread;
  } else {
    U small = trips / threads, extra = trips % threads;
    first = thread * small + std::min(thread, extra);
    count = small + (thread < extra ? 1 : 0);
    if (stride)
      *stride = static_cast<S>(trips * static_cast<U>(incr));
    if (lastIteration)
      *lastIteration = count > 0 && first + count == trips;
  }
  // An empty share is upper = lower - incr, which the caller counts as 0.
  T start = static_cast<T>(static_cast<U>(*lower) + first * static_cast<U>(incr));
  *lower = start;
  *upper = static_cast<T>(static_cast<U>(start) + (count - 1) * static_cast<U>(incr));
}

void staticFini(void *, int32_t) {}

/// Reductions by the critical-section method: every thread gets 1 (combine
/// your partial result into the shared one) while holding one lock, which
/// the matching end call releases.
std::mutex reductionLock;

int32_t reduceNoWait(void *, int32_t, int32_t, size_t, void *, void (*)(void *, void *),
                     void *) {
  reductionLock.lock();
  return 1;
}
void endReduceNoWait(void *, int32_t, void *) { reductionLock.unlock(); }
void endReduce(void *loc, int32_t thread, void *) {
  reductionLock.unlock();
  barrier(loc, thread);
}

struct ShimSymbol {
  const char *name;
  void *address;
};

template <typename F> void *address(F f) { return reinterpret_cast<void *>(f); }

const ShimSymbol kShimSymbols[] = {
    {"__kmpc_fork_call", address(&forkCall)},
    {"__kmpc_global_thread_num", address(&globalThreadNum)},
    {"__kmpc_push_num_threads", address(&pushNumThreads)},
    {"__kmpc_barrier", address(&barrier)},
    {"__kmpc_for_static_init_4", address(&staticInit<int32_t>)},
    {"__kmpc_for_static_init_4u", address(&staticInit<uint32_t>)},
    {"__kmpc_for_static_init_8", address(&staticInit<int64_t>)},
    {"__kmpc_for_static_init_8u", address(&staticInit<uint64_t>)},
    {"__kmpc_for_static_fini", address(&staticFini)},
    {"__kmpc_reduce", address(&reduceNoWait)},
    {"__kmpc_reduce_nowait", address(&reduceNoWait)},
    {"__kmpc_end_reduce", address(&endReduce)},
    {"__kmpc_end_reduce_nowait", address(&endReduceNoWait)},
};

} // namespace

bool loadTorchGomp() {
  static std::mutex mu;
  std::lock_guard<std::mutex> lock(mu);
  if (gomp.complete())
    return true;
  // RTLD_NOLOAD: only the libgomp already in the process (libtorch's),
  // never a second copy. Not found now may be found later, once torch is.
  void *handle = dlopen("libgomp.so.1", RTLD_NOW | RTLD_NOLOAD);
  if (!handle)
    return false;
  GompLibrary found;
  found.parallel = reinterpret_cast<decltype(found.parallel)>(dlsym(handle, "GOMP_parallel"));
  found.barrier = reinterpret_cast<decltype(found.barrier)>(dlsym(handle, "GOMP_barrier"));
  found.threadNum =
      reinterpret_cast<decltype(found.threadNum)>(dlsym(handle, "omp_get_thread_num"));
  found.numThreads =
      reinterpret_cast<decltype(found.numThreads)>(dlsym(handle, "omp_get_num_threads"));
  if (!found.complete())
    return false;
  gomp = found;
  pthread_atfork(nullptr, nullptr, [] { forkedChild.store(true); });
  return true;
}

void *resolveGompShimSymbol(const std::string &name) {
  for (const ShimSymbol &s : kShimSymbols)
    if (name == s.name)
      return s.address;
  return nullptr;
}

void gompParallelFor(int64_t count, void (*body)(int64_t, void *), void *context) {
  if (count <= 1) {
    for (int64_t i = 0; i < count; ++i)
      body(i, context);
    return;
  }
  struct Loop {
    int64_t count;
    void (*body)(int64_t, void *);
    void *context;
  } loop{count, body, context};
  auto microtask = +[](int32_t *thread, int32_t *, Loop *l) {
    for (int64_t i = *thread; i < l->count; i += teamSize)
      l->body(i, l->context);
  };
  // No more threads than indices: the others would only wait.
  pushedThreads = static_cast<int32_t>(std::min<int64_t>(count, getNumThreads()));
  forkCall(nullptr, 1, reinterpret_cast<Microtask>(microtask), &loop);
}

} // namespace runtime
} // namespace ltc_mlir
