// runtime/lib/gomp_threads.h - how many libgomp threads oneDNN calls use.
//
// oneDNN threads with libgomp (the OpenMP runtime libtorch uses); its calls
// come from one thread of compiled code's parallel loops. libgomp's thread
// count is an ICV of the calling thread: a scope sets it for one oneDNN call
// and restores it (on the user's thread it is libtorch's setting). libgomp
// is loaded with libdnnl, which depends on it: it is looked up, never loaded.
#ifndef LTC_MLIR_RUNTIME_LIB_GOMP_THREADS_H
#define LTC_MLIR_RUNTIME_LIB_GOMP_THREADS_H

#include <dlfcn.h>

namespace ltc_mlir {
namespace runtime {

struct GompThreadFunctions {
  int (*getMax)() = nullptr;
  void (*set)(int) = nullptr;
};

inline const GompThreadFunctions &gompThreadFunctions() {
  static const GompThreadFunctions functions = [] {
    GompThreadFunctions f;
    if (void *handle = dlopen("libgomp.so.1", RTLD_LAZY | RTLD_NOLOAD)) {
      f.getMax = reinterpret_cast<int (*)()>(dlsym(handle, "omp_get_max_threads"));
      f.set = reinterpret_cast<void (*)(int)>(dlsym(handle, "omp_set_num_threads"));
      if (!f.getMax || !f.set)
        f = GompThreadFunctions();
    }
    return f;
  }();
  return functions;
}

/// `threads` libgomp threads for oneDNN calls made on this thread during the
/// scope.
class GompThreadsScope {
public:
  explicit GompThreadsScope(int threads) : wanted_(threads) {
    const GompThreadFunctions &f = gompThreadFunctions();
    if (f.getMax && (previous_ = f.getMax()) != wanted_)
      f.set(wanted_);
  }
  ~GompThreadsScope() {
    if (previous_ != wanted_)
      gompThreadFunctions().set(previous_);
  }
  GompThreadsScope(const GompThreadsScope &) = delete;
  GompThreadsScope &operator=(const GompThreadsScope &) = delete;

private:
  int wanted_;
  int previous_ = wanted_;
};

} // namespace runtime
} // namespace ltc_mlir

#endif // LTC_MLIR_RUNTIME_LIB_GOMP_THREADS_H
