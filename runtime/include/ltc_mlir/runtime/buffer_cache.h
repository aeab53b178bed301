// runtime/buffer_cache.h - allocator for the temporaries of compiled code.
//
// The generated code allocates its intermediate buffers through MLIR's
// generic allocation functions (finalize-memref-to-llvm{use-generic-functions}),
// which the JIT resolves to these. A training step allocates the same sizes
// every step; buffers of a few MB returned to the OS by malloc cost their page
// faults again on each first touch, so freed blocks are kept, by size, for
// reuse. Thread-safe.
#ifndef LTC_MLIR_RUNTIME_BUFFER_CACHE_H
#define LTC_MLIR_RUNTIME_BUFFER_CACHE_H

#include <cstddef>

extern "C" {
/// Same contracts as malloc / aligned_alloc / free; every block is 64-byte
/// aligned. Blocks of at least 64 KiB are cached on free, up to a total of
/// 512 MiB, and reused for requests of the same rounded size.
void *ltc_mlir_rt_alloc(size_t size);
void *ltc_mlir_rt_aligned_alloc(size_t alignment, size_t size);
void ltc_mlir_rt_free(void *ptr);
}

namespace ltc_mlir {
namespace runtime {

/// Bytes currently held in the cache (freed, not yet reused).
size_t cachedBufferBytes();
/// Returns every cached block to the system.
void releaseCachedBuffers();

} // namespace runtime
} // namespace ltc_mlir

#endif // LTC_MLIR_RUNTIME_BUFFER_CACHE_H
