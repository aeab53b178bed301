//===- Export.h - captured graphs -> a standalone MLIR program --*- C++ -*-===//
//
// Export turns the torch-dialect modules of captured graphs (one per entry
// point: `forward`, `train_step`) into one module of upstream dialects only
// (func, linalg, tensor, arith, math, scf, bufferization, ml_program) whose
// state lives in `ml_program.global`s initialised with `dense_resource<key>`.
// The blobs are not part of the module text: they travel beside it
// (model.weights.mlir, model.safetensors) and are attached at load time.
// Like Compiler.h this header exposes no MLIR or LLVM type.
//
//===----------------------------------------------------------------------===//
#ifndef LTC_MLIR_EXPORT_EXPORT_H
#define LTC_MLIR_EXPORT_EXPORT_H

#include <cstdint>
#include <string>
#include <vector>

namespace ltc_mlir {

/// How argument i of a captured graph's `@forward` reaches the exported
/// entry point.
struct ExportArgument {
  enum class Kind {
    Input,    ///< stays an argument of the entry point
    Global,   ///< read from the global `name` (ml_program.global_load)
    Constant, ///< the value `constant` (MLIR attribute text, e.g.
              ///< "dense<2> : tensor<i64>"), folded into the code
  };
  Kind kind = Kind::Input;
  std::string name;
  std::string constant;
};

/// What becomes of result j of a captured graph's `@forward`.
struct ExportResult {
  bool returned = true; ///< a result of the entry point
  std::string storeTo;  ///< non-empty: the new value of this mutable global
};

struct ExportEntry {
  std::string name; ///< C identifier: the entry point's symbol
  std::string torchText;
  std::vector<ExportArgument> arguments;
  std::vector<ExportResult> results;
};

/// A global the entries read; its type is that of the arguments it replaces.
/// Mutable globals (written by an entry) are public, the others private.
struct ExportGlobal {
  std::string name; ///< C identifier; also the resource key of its blob
  bool isMutable = false;
};

/// Portable modules report runtime checks in this mutable i64 global (as
/// tensor<1xi64>): the number of the first failed check of the last call,
/// -1 when none failed. Its initial value is the blob of the same key.
inline constexpr const char kFailedCheckGlobal[] = "ltc_mlir_failed_check";

struct ExportOptions {
  /// Generated kernels only: no call outside the module (convolutions are
  /// lowered to linalg instead of oneDNN, runtime checks set
  /// kFailedCheckGlobal). Graphs with ops that exist only as runtime calls
  /// (sorts, LAPACK, igamma, CTC loss) then fail to export, naming the
  /// function.
  bool portable = false;
};

struct ExportedSignature {
  std::string name;
  std::vector<std::string> inputTypes;  ///< MLIR type text, "tensor<2x4xf32>"
  std::vector<std::string> resultTypes;
};

struct ExportedModule {
  std::string text; ///< empty on failure
  std::string error;
  std::vector<ExportedSignature> entries;
  /// (global, MLIR type text) in module order.
  std::vector<std::pair<std::string, std::string>> globalTypes;
  /// External functions the module calls (provided by ltc_mlir's runtime
  /// library, or by the program that links it for the runtime checks).
  std::vector<std::string> runtimeFunctions;
  /// Message of each runtime check: the code calls
  /// `ltc_mlir_rt_check_failed(i)` when check i fails.
  std::vector<std::string> checkMessages;
};

/// Never throws or aborts: failures are reported in `error`.
ExportedModule exportTorchGraphs(const std::vector<ExportEntry> &entries,
                                 const std::vector<ExportGlobal> &globals,
                                 const ExportOptions &options);

struct AotOptions {
  /// With: the blobs are read (zero-copy, mmap) from this safetensors file
  /// and the globals are initialised in the object. Without: the globals are
  /// left undefined in the object (extern symbols named as the globals) for
  /// the program that links it to define and fill at run time.
  std::string weightsPath;
  bool externalGemm = true;
  unsigned optLevel = 3;
};

struct AotResult {
  std::vector<std::string> objects; ///< ELF relocatable objects, to link together
  std::string error;
  double compileTimeMs = 0.0;
  /// What the code was compiled for: "llvm <version>; cpu <name>;
  /// features <+avx2,...>" (the host's, as for the JIT).
  std::string target;
};

/// Compiles an exported module (text) to native objects for this host's CPU,
/// every entry point with MLIR's C interface (`_mlir_ciface_<name>`).
AotResult compileExportedModule(const std::string &moduleText,
                                const AotOptions &options);

/// Parses an exported module and attaches its blobs from a safetensors file
/// without copying them (each dense_resource blob points into one mmap of
/// the file). Reports what it attached; for measuring and for tests.
struct LoadedModuleStats {
  std::string error;
  int64_t resources = 0;      ///< blobs attached
  int64_t resourceBytes = 0;  ///< their total size
  int64_t mappedBytes = 0;    ///< the size of the mapping
};
LoadedModuleStats loadExportedModule(const std::string &moduleText,
                                     const std::string &safetensorsPath);

} // namespace ltc_mlir

#endif // LTC_MLIR_EXPORT_EXPORT_H
