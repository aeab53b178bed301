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

/// Signature slot: kind, and for tensors the static shape the code expects.
struct ArgSpec {
  ArgKind kind = ArgKind::Tensor;
  std::vector<int64_t> shape;
};

/// One argument at call time. For tensors `data` points to a contiguous
/// row-major buffer of the slot's shape; the caller keeps it alive during
/// the call. Inputs are only read; outputs are fully written.
struct Arg {
  ArgKind kind = ArgKind::Tensor;
  void *data = nullptr;
  int64_t intValue = 0;
  double floatValue = 0.0;

  static Arg tensor(void *ptr) { Arg a; a.kind = ArgKind::Tensor; a.data = ptr; return a; }
  static Arg integer(int64_t v) { Arg a; a.kind = ArgKind::Int; a.intValue = v; return a; }
  static Arg floating(double v) { Arg a; a.kind = ArgKind::Float; a.floatValue = v; return a; }
};

/// A loaded graph. Immutable after construction; `run` is thread-safe.
class Executable {
public:
  using PackedEntry = void (*)(void **);

  Executable(PackedEntry entry, std::vector<ArgSpec> inputs,
             std::vector<ArgSpec> outputs, std::shared_ptr<void> owner);

  /// Calls the entry point. Throws std::invalid_argument (with the slot
  /// index and expected kind) when the arguments do not match the signature.
  void run(const std::vector<Arg> &inputs, const std::vector<Arg> &outputs) const;

  const std::vector<ArgSpec> &inputs() const { return inputs_; }
  const std::vector<ArgSpec> &outputs() const { return outputs_; }

private:
  PackedEntry entry_;
  std::vector<ArgSpec> inputs_;
  std::vector<ArgSpec> outputs_;
  std::shared_ptr<void> owner_;
};

} // namespace runtime
} // namespace ltc_mlir

#endif // LTC_MLIR_RUNTIME_EXECUTABLE_H
