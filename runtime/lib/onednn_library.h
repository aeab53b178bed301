// runtime/lib/onednn_library.h - libltc_mlir_onednn, opened on first use.
//
// The library sits beside libltc_mlir_runtime and is opened with
// RTLD_LOCAL | RTLD_DEEPBIND (onednn_entry_points.h says why). If it cannot
// be opened its entry points are null and callers compute without oneDNN:
// slower, never wrong; `error` says why.
#ifndef LTC_MLIR_RUNTIME_ONEDNN_LIBRARY_H
#define LTC_MLIR_RUNTIME_ONEDNN_LIBRARY_H

#include "onednn_entry_points.h"

#include <string>

namespace ltc_mlir {
namespace runtime {

struct OneDnnLibrary {
  decltype(&ltc_mlir_onednn_sgemm) sgemm = nullptr;
  decltype(&ltc_mlir_onednn_convolve) convolve = nullptr;
  std::string path;  // the library's file
  std::string error; // empty when loaded
};

/// The process's libltc_mlir_onednn (loaded on the first call, thread-safe).
const OneDnnLibrary &oneDnn();

} // namespace runtime
} // namespace ltc_mlir

#endif // LTC_MLIR_RUNTIME_ONEDNN_LIBRARY_H
