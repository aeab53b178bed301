// runtime/executable.h - runs a compiled graph on caller-owned host buffers.
//
// The runtime knows nothing of torch or MLIR: it receives a packed entry point
// (MLIR's C-interface calling convention, see ltc_mlir/Compiler/Compiler.h),
// the kinds and ranks of its arguments, and an opaque owner that keeps the
// code alive. It builds memref descriptors around the caller's buffers (no
// copies) and calls the entry point with the configured OpenMP thread count.
#ifndef LTC_MLIR_RUNTIME_EXECUTABLE_H
#define LTC_MLIR_RUNTIME_EXECUTABLE_H

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace ltc_mlir {
namespace runtime {

enum class ArgKind { Tensor, Int, Float };

/// A size of a shape the code takes at run time (a generic graph serving
/// every batch size, see mlir_lowering's GeneralizeShapes.cpp).
constexpr int64_t kDynamicSize = -1;

/// Signature slot: kind, and for tensors the shape the code expects; a
/// kDynamicSize entry is given per call (Arg::sizes).
struct ArgSpec {
  ArgKind kind = ArgKind::Tensor;
  std::vector<int64_t> shape;
  /// Outputs only: inputs whose buffer may be passed as this output's buffer
  /// (the code reads each of their elements before writing it, and nothing
  /// else reads them); see ltc_mlir::ValueDesc::overwritableInputs.
  std::vector<int64_t> overwritableInputs = {};
};

/// One argument at call time. For tensors `data` points to a contiguous
/// row-major buffer of the slot's shape; the caller keeps it alive during
/// the call. Inputs are only read; outputs are fully written. `sizes`
/// (the slot's rank of them, kept alive by the caller) is the buffer's
/// shape: required when the slot has a dynamic size, checked against the
/// static ones; null means the slot's static shape.
struct Arg {
  ArgKind kind = ArgKind::Tensor;
  void *data = nullptr;
  const int64_t *sizes = nullptr;
  int64_t intValue = 0;
  double floatValue = 0.0;

  static Arg tensor(void *ptr, const int64_t *sizes = nullptr) {
    Arg a; a.kind = ArgKind::Tensor; a.data = ptr; a.sizes = sizes; return a;
  }
  static Arg integer(int64_t v) { Arg a; a.kind = ArgKind::Int; a.intValue = v; return a; }
  static Arg floating(double v) { Arg a; a.kind = ArgKind::Float; a.floatValue = v; return a; }
};

/// A loaded graph. Immutable after construction; `run` is thread-safe.
class Executable {
public:
  using PackedEntry = void (*)(void **);

  /// `checkMessages[i]` is the error of runtime check `i` of the code (see
  /// ltc_mlir::CompiledFunction::checkMessages and runtime/symbols.h).
  Executable(PackedEntry entry, std::vector<ArgSpec> inputs,
             std::vector<ArgSpec> outputs, std::shared_ptr<void> owner,
             std::vector<std::string> checkMessages = {});

  /// Calls the entry point. Throws std::invalid_argument (with the slot
  /// index and expected kind) when the arguments do not match the signature
  /// (before calling it), and std::runtime_error("ltc_mlir: <message>")
  /// when a runtime check of the code failed during the call (the outputs
  /// then hold meaningless values; the inputs are untouched).
  ///
  /// Which run a failed check is reported by: a check executed on the thread
  /// that called `run` (where emitRuntimeCheck puts them: at the top level
  /// of the entry point, outside parallel loops) is reported by this run
  /// only, whatever other runs execute concurrently. A check executed on
  /// another thread (an OpenMP worker) lands in a process-wide slot that
  /// every run drains when its call returns: without concurrent runs it is
  /// reported by its own run; with concurrent runs it may be reported by
  /// another one instead (never lost, possibly with a message of the wrong
  /// graph). Only the first failed check of a run is reported.
  void run(const std::vector<Arg> &inputs, const std::vector<Arg> &outputs) const;

  const std::vector<ArgSpec> &inputs() const { return inputs_; }
  /// Whether some slot has a kDynamicSize (then calls pass Arg::sizes).
  bool hasDynamicSizes() const { return dynamic_; }
  const std::vector<ArgSpec> &outputs() const { return outputs_; }
  const std::vector<std::string> &checkMessages() const {
    return checkMessages_;
  }

private:
  PackedEntry entry_;
  std::vector<ArgSpec> inputs_;
  std::vector<ArgSpec> outputs_;
  std::shared_ptr<void> owner_;
  std::vector<std::string> checkMessages_;
  bool dynamic_ = false;
};

} // namespace runtime
} // namespace ltc_mlir

#endif // LTC_MLIR_RUNTIME_EXECUTABLE_H
