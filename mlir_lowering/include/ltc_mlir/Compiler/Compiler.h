//===- Compiler.h - torch dialect text -> native code ----------*- C++ -*-===//
//
// The public entry point of mlir_lowering. It exposes no MLIR or LLVM types so
// that ltc_backend (which includes torch headers) can use it without paying for
// MLIR headers.
//
//===----------------------------------------------------------------------===//
#ifndef LTC_MLIR_COMPILER_COMPILER_H
#define LTC_MLIR_COMPILER_COMPILER_H

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace ltc_mlir {

/// How an argument or result of the compiled entry point is passed.
enum class ValueKind {
  Tensor, ///< memref descriptor of a contiguous row-major buffer
  Int,    ///< int64_t
  Float,  ///< double
};

/// Signature element of the compiled entry point.
struct ValueDesc {
  ValueKind kind = ValueKind::Tensor;
  /// Element type spelled as in the torch dialect: "f32", "f64", "f16",
  /// "bf16", "si64", "si32", "si16", "si8", "ui8", "i1". Empty for scalars.
  std::string dtype;
  /// Tensors only: the shape; -1 for a size given per call (generic code,
  /// CompileOptions::otherBatchText).
  std::vector<int64_t> shape;
  /// Results only: the inputs (by index) whose buffer the caller may pass
  /// as this result's out-param, saving the copy of an in-place update
  /// (ltc-mark-overwritable-inputs). Empty for most results.
  std::vector<int64_t> overwritableInputs;
};

struct CompileOptions {
  /// When non-empty, <dumpDir>/<dumpName>.{torch,linalg,llvm}.mlir are written.
  std::string dumpDir;
  std::string dumpName = "graph";
  /// Where a failed compile leaves a reproducer: the torch-dialect module
  /// with the error in front as comments (<dumpName>.failed-<pid>-<n>.torch.mlir),
  /// replayable with `ltc-mlir-opt --ltc-torch-to-llvm`. Only for compiler
  /// failures (parse, verifier, pipeline, JIT errors), not for modules that
  /// merely contain unsupported ops. Empty: no reproducers.
  std::string reproducerDir;
  /// Reproducers kept in reproducerDir: the oldest beyond this are removed.
  unsigned maxReproducers = 100;
  /// LLVM optimization level of the generated code (0-3).
  unsigned optLevel = 3;
  /// Resolves external symbols the generated code calls (OpenMP runtime
  /// entry points such as __kmpc_fork_call, runtime microkernels, and
  /// `ltc_mlir_rt_check_failed`, see CompiledFunction::checkMessages).
  /// Returns nullptr for unknown names, which are then looked up in the
  /// process. Consulted before the process for every external symbol.
  std::function<void *(const std::string &)> symbolResolver;
  /// LLVM target features added to the host's for the generated code, e.g.
  /// "-f16c,-avx512bf16" to produce (and test) the code a CPU without F16C
  /// and AVX512-BF16 gets. Empty: the host CPU's features only.
  std::string targetFeatures;
  /// Keep the relocatable object code of the compiled module in
  /// CompileResult::object, for loadCompiledObject() in a later process.
  bool keepObject = false;
  /// Generic code for every batch size: the same graph's torch-dialect
  /// module at batch size `otherBatchSize`, the compiled one being at
  /// `batchSize` (both >= 2). Sizes and constants that differ between the
  /// two lowerings as multiples of the batch size become computed from it
  /// (mlir_lowering/lib/Compiler/GeneralizeShapes.h), and those sizes are
  /// -1 in the signature. When the two do not differ that way the compile
  /// fails with `generalizeRefused` set (no reproducer is written).
  std::string otherBatchText;
  int64_t batchSize = 0;
  int64_t otherBatchSize = 0;
  /// Large f32 contractions call the runtime GEMM (`ltc_mlir_rt_sgemm`,
  /// which symbolResolver must then provide); off: generated kernels.
  bool externalGemm = true;
};

/// A compiled graph. `entry` follows MLIR's packed C-interface convention:
/// `entry(args)` where `args` has one slot per input followed by one slot per
/// output, in signature order:
///  - Tensor: args[i] points to a `void*` that points to a
///    StridedMemRefType-layout descriptor {T* allocated, T* aligned,
///    int64_t offset, int64_t sizes[rank], int64_t strides[rank]}.
///    Outputs are preallocated by the caller and written in place.
///  - Int / Float: args[i] points to an int64_t / double.
/// Thread-safety: `entry` may be called concurrently with distinct buffers.
struct CompiledFunction {
  using PackedEntry = void (*)(void **);
  PackedEntry entry = nullptr;
  std::vector<ValueDesc> inputs;
  std::vector<ValueDesc> outputs;
  /// Owns the JIT-compiled code; `entry` is valid while this is alive.
  std::shared_ptr<void> owner;
  /// Runtime checks: when input values are invalid in a way only known at
  /// run time (an nll_loss target outside [0, C), an as_strided storage
  /// offset out of bounds), the code calls the external C function
  /// `void ltc_mlir_rt_check_failed(int64_t index)` (resolved through
  /// CompileOptions::symbolResolver, normally to the runtime's, see
  /// ltc_mlir/runtime/symbols.h) and then still returns normally, with
  /// meaningless outputs. `checkMessages[index]` is the error to raise
  /// (op name, what is wrong, how to fix it). Empty when the graph has no
  /// checks. A message starting with kIndexErrorTag is raised as Python's
  /// IndexError (the tag removed), as eager's index checks are.
  std::vector<std::string> checkMessages;
};

/// Tag of the runtime-check messages that the backend raises as IndexError
/// (index_select, embedding, x[indices], index_add/copy/fill, take/put,
/// nll_loss targets); others raise RuntimeError.
inline constexpr const char kIndexErrorTag[] = "IndexError: ";

struct CompileResult {
  /// Null when compilation failed; then `error` says why.
  std::shared_ptr<CompiledFunction> function;
  std::string error;
  /// Full MLIR names of torch ops (e.g. "torch.aten.round") that are unknown
  /// to the dialect or could not be lowered.
  std::vector<std::string> unsupportedOps;
  /// Path of the reproducer written on failure (see reproducerDir), else of
  /// the dumped torch-dialect module when dumping; replayable with
  /// `ltc-mlir-opt --ltc-torch-to-llvm`.
  std::string reproducerPath;
  /// Set when a dump or a reproducer could not be written: which path, why.
  std::string writeError;
  double compileTimeMs = 0.0;
  /// Where the time went: ("parse" | "torch_to_linalg" | "linalg_to_llvm" |
  /// "llvm_codegen" | "object_load", ms), in order.
  std::vector<std::pair<std::string, double>> stageMs;
  /// With CompileOptions::keepObject: the ELF relocatable object holding
  /// the packed entry point `_mlir__mlir_ciface_forward`, or why not.
  std::string object;
  std::string objectError;
  /// With CompileOptions::otherBatchText: the two lowerings differ in a way
  /// generic code cannot cover (`error` says where).
  bool generalizeRefused = false;
};

/// Parses a torch-dialect module whose single function is `@forward`, lowers
/// it to linalg, then LLVM, and JIT-compiles it in-process. Never throws and
/// never aborts on bad input: problems are reported in the result.
CompileResult compileTorchModule(const std::string &torchDialectText,
                                 const CompileOptions &options);

/// Links an object kept by compileTorchModule (CompileResult::object) into
/// this process with LLVM's JIT linker alone (no MLIR, no code generation)
/// and returns its entry point with the given signature. External symbols
/// resolve as in compileTorchModule (options.symbolResolver first). Never
/// throws: an unusable object is an error in the result.
CompileResult loadCompiledObject(const std::string &object,
                                 const std::vector<ValueDesc> &inputs,
                                 const std::vector<ValueDesc> &outputs,
                                 const std::vector<std::string> &checkMessages,
                                 const CompileOptions &options);

/// Identifies the code compileTorchModule would produce for `options` on
/// this machine, for cache keys: LLVM version, the target CPU and its
/// feature string, the optimization level, and the lowering library itself
/// (a hash of its file, computed once).
std::string compilerFingerprint(const CompileOptions &options);

/// `torchDialectText` with common subexpressions merged, printed in generic
/// form: graphs that differ only in SSA numbering, in the order of
/// independent ops or in duplicated pure ops become the same text (the
/// compile pipeline merges those anyway), so that the text can key caches
/// of compiled code. Random ops carry distinct `ltc.rng_stream` attributes
/// and are never merged. Empty if the text does not parse.
std::string canonicalTorchModule(const std::string &torchDialectText);

/// SHA-256 of `data`, as 64 lowercase hex digits.
std::string sha256Hex(const std::string &data);


} // namespace ltc_mlir

#endif // LTC_MLIR_COMPILER_COMPILER_H
