// Opens libltc_mlir_onednn from the directory of libltc_mlir_runtime.
#include "onednn_library.h"

#include "ltc_mlir/runtime/gemm.h"

#include <dlfcn.h>

#include <string>

namespace ltc_mlir {
namespace runtime {
namespace {

std::string runtimeDirectory() {
  Dl_info info{};
  if (!dladdr(reinterpret_cast<void *>(&oneDnn), &info) || !info.dli_fname)
    return "";
  std::string file = info.dli_fname;
  size_t slash = file.rfind('/');
  return slash == std::string::npos ? "." : file.substr(0, slash);
}

/// AddressSanitizer refuses RTLD_DEEPBIND (it would bypass its malloc); the
/// sanitizer builds open the library without it.
bool underAddressSanitizer() {
  return dlsym(RTLD_DEFAULT, "__asan_init") != nullptr;
}

OneDnnLibrary load() {
  OneDnnLibrary l;
  l.path = runtimeDirectory() + "/libltc_mlir_onednn.so";
  int flags = RTLD_NOW | RTLD_LOCAL;
  if (!underAddressSanitizer())
    flags |= RTLD_DEEPBIND;
  void *handle = dlopen(l.path.c_str(), flags);
  if (!handle) {
    const char *why = dlerror();
    l.error = std::string("cannot open ") + l.path + ": " +
              (why ? why : "unknown error") +
              " (oneDNN GEMMs and convolutions fall back to plain loops; "
              "install libdnnl2 and rebuild)";
    return l;
  }
  l.sgemm = reinterpret_cast<decltype(l.sgemm)>(
      dlsym(handle, "ltc_mlir_onednn_sgemm"));
  l.convolve = reinterpret_cast<decltype(l.convolve)>(
      dlsym(handle, "ltc_mlir_onednn_convolve"));
  if (!l.sgemm || !l.convolve) {
    l.sgemm = nullptr;
    l.convolve = nullptr;
    l.error = "libltc_mlir_onednn.so lacks its entry points (a stale build?)";
  }
  return l;
}

} // namespace

const OneDnnLibrary &oneDnn() {
  static const OneDnnLibrary library = load();
  return library;
}

std::string oneDnnLibraryError() { return oneDnn().error; }

} // namespace runtime
} // namespace ltc_mlir
