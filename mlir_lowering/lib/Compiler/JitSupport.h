//===- JitSupport.h - pieces shared by the JIT and the object loader -----===//
//
// Internal to lib/Compiler: what compiling a module and loading a compiled
// object must agree on (target features, default symbols).
//
//===----------------------------------------------------------------------===//
#ifndef LTC_MLIR_LIB_COMPILER_JITSUPPORT_H
#define LTC_MLIR_LIB_COMPILER_JITSUPPORT_H

#include <memory>
#include <string>
#include <vector>

#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/StringRef.h"

namespace llvm {
class Module;
} // namespace llvm

namespace llvm::orc {
class LLJIT;
} // namespace llvm::orc

namespace ltc_mlir {
namespace detail {

/// Runs `body` under llvm::CrashRecoveryContext (one user at a time, see
/// compileTorchModule) after the one-time set-up of targets and passes.
/// False when it crashed or threw; `crash` then says how. The state `body`
/// was working on must then be leaked, not destroyed.
bool runWithCrashRecovery(llvm::function_ref<void()> body, std::string &crash);

/// Native target, asm printer and parser: once per process.
void initializeNativeTargetOnce();

/// MLIR's generic allocation functions map to the C library when the
/// caller's resolver does not provide them; nullptr for other names.
void *defaultSymbol(llvm::StringRef name);

/// The target-feature string every generated function gets: the host's
/// features, minus the BF16 instructions LLVM 22 mishandles, plus `extra`.
std::string jitTargetFeatures(const std::string &extra);

/// How generated LLVM IR becomes machine code (ParallelCodegen.cpp).
struct CodegenOptions {
  unsigned optLevel = 3;
  /// jitTargetFeatures(): every function gets them.
  std::string features;
  /// AVX-512 host: prefer 512-bit vectors.
  bool wideVectors = false;
  /// Functions whose name starts with one of these are never inlined.
  std::vector<std::string> noInlinePrefixes;
  /// The symbols the loader looks up; every other function is internal.
  std::vector<std::string> exportedSymbols;
};

/// Target features, vector width and noinline attributes on every function
/// definition of `module`.
void addFunctionAttributes(llvm::Module &module, const CodegenOptions &options);

/// Adds `_mlir_<name>(void **args)`, MLIR's packed calling convention, which
/// calls the void function `name` with *args[i] as argument i.
bool addPackedEntry(llvm::Module &module, llvm::StringRef name,
                    std::string &error);

/// Optimizes `module` (whole) and compiles it to ELF objects: one per part
/// on LTC_MLIR_COMPILE_THREADS (default: hardware threads) threads.
bool compileToObjects(std::unique_ptr<llvm::Module> module,
                      const CodegenOptions &options,
                      std::vector<std::string> &objects, std::string &error);

/// Several objects as one artifact (CompileResult::object), and back.
std::string packObjects(const std::vector<std::string> &objects);
bool unpackObjects(const std::string &packed, std::vector<std::string> &objects,
                   std::string &error);

/// With LTC_MLIR_PERF_MAP=1, every function `jit` links (the outlined loop
/// nests included) is appended to /tmp/perf-<pid>.map as "<graph>:<name>",
/// so that `perf report` attributes time inside compiled graphs. No-op
/// otherwise.
void addPerfMapPlugin(llvm::orc::LLJIT &jit, const std::string &graphName);

} // namespace detail
} // namespace ltc_mlir

#endif // LTC_MLIR_LIB_COMPILER_JITSUPPORT_H
