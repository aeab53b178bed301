// Size-keyed cache of freed blocks for compiled-code temporaries.
#include "ltc_mlir/runtime/buffer_cache.h"

#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

namespace {

constexpr size_t kAlignment = 64;           // one cache line, AVX-512 loads
constexpr size_t kMinCachedBytes = 64 << 10; // smaller blocks: malloc is fine
constexpr size_t kMaxCachedBytes = 512 << 20;

struct Cache {
  std::mutex mu;
  std::unordered_map<void *, size_t> liveSizes;       // block -> rounded size
  std::unordered_map<size_t, std::vector<void *>> free; // rounded size -> blocks
  size_t cachedBytes = 0;
};

Cache &cache() {
  // Leaked on purpose: compiled code may free during static destruction.
  static Cache *c = new Cache();
  return *c;
}

size_t roundUp(size_t size, size_t to) { return (size + to - 1) / to * to; }

// LTC_MLIR_POISON_BUFFERS=1: every block handed out is filled with 0xFF
// bytes (NaN for floats), so compiled code that reads a temporary before
// writing it gives visibly wrong results instead of stale, plausible ones.
bool poison() {
  static const bool on = [] {
    const char *env = std::getenv("LTC_MLIR_POISON_BUFFERS");
    return env && *env && std::string(env) != "0";
  }();
  return on;
}

void *handOut(void *p, size_t size) {
  if (p && poison())
    std::memset(p, 0xFF, size);
  return p;
}

void *allocate(size_t alignment, size_t size) {
  if (alignment < kAlignment)
    alignment = kAlignment;
  size_t rounded = roundUp(size ? size : 1, alignment);
  Cache &c = cache();
  {
    std::lock_guard<std::mutex> lock(c.mu);
    auto it = c.free.find(rounded);
    if (it != c.free.end() && !it->second.empty() && alignment == kAlignment) {
      void *p = it->second.back();
      it->second.pop_back();
      c.cachedBytes -= rounded;
      c.liveSizes[p] = rounded;
      return handOut(p, rounded);
    }
  }
  void *p = std::aligned_alloc(alignment, rounded);
  if (!p)
    return nullptr;
  std::lock_guard<std::mutex> lock(c.mu);
  // Only blocks with the default alignment are recycled (the free lists do
  // not record alignment); others are tracked as size 0 and freed.
  c.liveSizes[p] = alignment == kAlignment ? rounded : 0;
  return handOut(p, rounded);
}

} // namespace

extern "C" void *ltc_mlir_rt_alloc(size_t size) {
  return allocate(kAlignment, size);
}

extern "C" void *ltc_mlir_rt_aligned_alloc(size_t alignment, size_t size) {
  return allocate(alignment, size);
}

extern "C" void ltc_mlir_rt_free(void *ptr) {
  if (!ptr)
    return;
  Cache &c = cache();
  {
    std::lock_guard<std::mutex> lock(c.mu);
    auto it = c.liveSizes.find(ptr);
    size_t size = it == c.liveSizes.end() ? 0 : it->second;
    if (it != c.liveSizes.end())
      c.liveSizes.erase(it);
    if (size >= kMinCachedBytes && c.cachedBytes + size <= kMaxCachedBytes) {
      c.free[size].push_back(ptr);
      c.cachedBytes += size;
      return;
    }
  }
  std::free(ptr);
}

namespace ltc_mlir {
namespace runtime {

size_t cachedBufferBytes() {
  Cache &c = cache();
  std::lock_guard<std::mutex> lock(c.mu);
  return c.cachedBytes;
}

void releaseCachedBuffers() {
  Cache &c = cache();
  std::lock_guard<std::mutex> lock(c.mu);
  for (auto &entry : c.free)
    for (void *p : entry.second)
      std::free(p);
  c.free.clear();
  c.cachedBytes = 0;
}

} // namespace runtime
} // namespace ltc_mlir
