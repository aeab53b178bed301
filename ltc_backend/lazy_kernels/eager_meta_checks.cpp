#include "ltc_backend/lazy_kernels/eager_meta_checks.h"

#include <ATen/core/dispatch/Dispatcher.h>
#include <torch/library.h>

#include <memory>
#include <optional>
#include <string>

#include "ltc_backend/lazy_kernels/kernel_table.h"
#include "ltc_backend/lazy_kernels/lazy_kernels.h"

namespace ltc_mlir {
namespace backend {
namespace {

thread_local int eager_meta_checks = 0;  // EagerMetaChecks alive on this thread

// The Meta kernel of an op whose C++ kernel a boxed-only one hides.
class EagerOrCurrentMeta final : public c10::OperatorKernel {
 public:
  EagerOrCurrentMeta(c10::KernelFunction cpp, c10::KernelFunction current)
      : cpp_(std::move(cpp)), current_(std::move(current)) {}

  void operator()(const c10::OperatorHandle& op, c10::DispatchKeySet keys,
                  torch::jit::Stack* stack) {
    (eager_meta_checks > 0 ? cpp_ : current_).callBoxed(op, keys, stack);
  }

 private:
  c10::KernelFunction cpp_;      // torch's C++ kernel: eager's checks
  c10::KernelFunction current_;  // the kernel in front (Python, or ours)
};

}  // namespace

EagerMetaChecks::EagerMetaChecks() { ++eager_meta_checks; }
EagerMetaChecks::~EagerMetaChecks() { --eager_meta_checks; }

size_t InstallEagerMetaChecks() {
  static torch::Library* lib =
      new torch::Library(torch::Library::IMPL, "aten", c10::DispatchKey::Meta, __FILE__, __LINE__);
  QuietWarnings quiet;  // one "overriding a previously registered kernel" per op
  size_t wrapped = 0;
  ForEachAtenOp([&](const c10::OperatorHandle& op, const std::string& name) {
    if (!op.hasKernelForDispatchKey(c10::DispatchKey::Meta)) return;
    c10::KernelFunction current = RegisteredKernel(op, c10::DispatchKey::Meta);
    if (!current.isValid() || current.isValidUnboxed()) return;  // torch's C++ kernel is in front
    c10::KernelFunction cpp = TorchCppKernel(op, c10::DispatchKey::Meta);
    if (!cpp.isValid()) return;  // only a Python kernel: nothing to go back to
    lib->impl(name.c_str(), torch::CppFunction::makeFromBoxedFunctor(
                                std::make_unique<EagerOrCurrentMeta>(cpp, current)));
    ++wrapped;
  });
  return wrapped;
}

}  // namespace backend
}  // namespace ltc_mlir
