//===- JitSupport.h - pieces shared by the JIT and the object loader -----===//
//
// Internal to lib/Compiler: what compiling a module and loading a compiled
// object must agree on (target features, default symbols).
//
//===----------------------------------------------------------------------===//
#ifndef LTC_MLIR_LIB_COMPILER_JITSUPPORT_H
#define LTC_MLIR_LIB_COMPILER_JITSUPPORT_H

#include <string>

#include "llvm/ADT/StringRef.h"

namespace ltc_mlir {
namespace detail {

/// Native target, asm printer and parser: once per process.
void initializeNativeTargetOnce();

/// MLIR's generic allocation functions map to the C library when the
/// caller's resolver does not provide them; nullptr for other names.
void *defaultSymbol(llvm::StringRef name);

/// The target-feature string every generated function gets: the host's
/// features, minus the BF16 instructions LLVM 22 mishandles, plus `extra`.
std::string jitTargetFeatures(const std::string &extra);

} // namespace detail
} // namespace ltc_mlir

#endif // LTC_MLIR_LIB_COMPILER_JITSUPPORT_H
