// compile_cache: compiled graphs kept on disk across processes.
//
// An entry is the relocatable object of a compiled graph (<key>.o) and its
// manifest (<key>.manifest: signature, runtime-check messages, the object's
// SHA-256). The key is the SHA-256 of the torch-dialect module and the
// compiler fingerprint (compiler build, LLVM version, target CPU and its
// features, options), so an entry is only ever used by the code generator
// and CPU that made it. Files are written to a temporary name and renamed
// (safe with concurrent processes); a corrupt entry is detected by its
// checksum and replaced; a write that fails (full disk, read-only
// directory) warns once and training goes on; beyond the size limit the
// least recently used entries are removed.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "ltc_mlir/Compiler/Compiler.h"

namespace ltc_mlir {
namespace backend {

struct CachedGraph {
  std::string object;
  std::vector<ValueDesc> inputs, outputs;
  std::vector<std::string> check_messages;
};

// Its directory and size limit are settings: GetCacheDir(), GetCacheMaxBytes()
// in config.h.
// The entry for `key`, or nullopt when there is none. A damaged entry
// (truncated, checksum mismatch, unreadable manifest) is removed and
// reported in `warning`.
std::optional<CachedGraph> LoadCachedGraph(const std::string& dir, const std::string& key,
                                           std::string& warning);
// Stores an entry; on failure says why in `warning` (nothing is left
// half-written).
void StoreCachedGraph(const std::string& dir, const std::string& key, const CachedGraph& graph,
                      std::string& warning);

}  // namespace backend
}  // namespace ltc_mlir
