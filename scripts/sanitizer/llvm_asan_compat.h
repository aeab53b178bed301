// Force-included into every translation unit of the sanitizer build
// (CMakeLists.txt, LTC_MLIR_SANITIZE).
//
// LLVM's headers poison and unpoison memory of their allocators
// (BumpPtrAllocator, Recycler) when the includer is compiled with ASan
// (llvm/Support/Compiler.h: LLVM_ADDRESS_SANITIZER_BUILD). Debian's libMLIR
// is not instrumented, so slabs poisoned by header code instantiated in our
// files are handed out by libMLIR's own (non-unpoisoning) code, and reading
// them is reported as use-after-poison. Turning the calls into no-ops keeps
// both sides consistent; ordinary heap checks are unaffected.
#pragma once
#ifdef __cplusplus
#include <sanitizer/asan_interface.h>
#define __asan_poison_memory_region(p, size) ((void)(p), (void)(size))
#define __asan_unpoison_memory_region(p, size) ((void)(p), (void)(size))
#endif
