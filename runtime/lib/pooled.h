// Pooled<T>: a T leased from a process-wide pool for the duration of a
// call, for scratch memory of runtime calls that run on libomp's threads.
// The pool holds as many T as calls ever ran at once. (Not thread_local:
// libomp's workers live until the process exits, and their thread-local
// memory looked leaked to LeakSanitizer. Not allocated per call: glibc's
// malloc of megabyte buffers on every call showed in profiles.)
#ifndef LTC_MLIR_RUNTIME_POOLED_H
#define LTC_MLIR_RUNTIME_POOLED_H

#include <memory>
#include <mutex>
#include <vector>

namespace ltc_mlir {
namespace runtime {

template <typename T> class Pooled {
public:
  Pooled() {
    std::lock_guard<std::mutex> lock(mutex());
    if (!pool().empty()) {
      item_ = std::move(pool().back());
      pool().pop_back();
    }
    if (!item_)
      item_ = std::make_unique<T>();
  }
  ~Pooled() {
    std::lock_guard<std::mutex> lock(mutex());
    pool().push_back(std::move(item_));
  }
  Pooled(const Pooled &) = delete;
  Pooled &operator=(const Pooled &) = delete;
  T &operator*() { return *item_; }
  T *operator->() { return item_.get(); }

private:
  static std::mutex &mutex() {
    static std::mutex m;
    return m;
  }
  static std::vector<std::unique_ptr<T>> &pool() {
    static auto *items = new std::vector<std::unique_ptr<T>>();
    return *items;
  }
  std::unique_ptr<T> item_;
};

} // namespace runtime
} // namespace ltc_mlir

#endif // LTC_MLIR_RUNTIME_POOLED_H
