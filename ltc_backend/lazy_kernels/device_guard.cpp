// device_guard: puts CheckOperandDevices (device_check.h) in front of every
// kernel registered for the Lazy key, so that no LTC kernel ever sees a CPU
// tensor it would abort on. The replaced kernel is kept and called after the
// check; boxing costs about a microsecond per op (docs/architecture.md).
#include <torch/library.h>

#include <cstdlib>
#include <string>

#include "ltc_backend/lazy_kernels/device_check.h"
#include "ltc_backend/lazy_kernels/kernel_table.h"
#include "ltc_backend/lazy_kernels/lazy_kernels.h"

namespace ltc_mlir {
namespace backend {
namespace {

class DeviceCheckedKernel final : public c10::OperatorKernel {
 public:
  explicit DeviceCheckedKernel(c10::KernelFunction inner) : inner_(std::move(inner)) {}

  void operator()(const c10::OperatorHandle& op, c10::DispatchKeySet keys,
                  torch::jit::Stack* stack) {
    CheckOperandDevices(op, *stack);
    inner_.callBoxed(op, keys, stack);
  }

 private:
  c10::KernelFunction inner_;
};

// Ops whose job is to move data between devices.
bool MovesBetweenDevices(const c10::OperatorName& name) {
  return name.name == "aten::_copy_from" || name.name == "aten::_copy_from_and_resize" ||
         name.name == "aten::_to_copy";
}

}  // namespace

size_t InstallLazyDeviceGuard() {
  // Off only to measure what it costs (benchmarks/lazy_guard_overhead.py).
  const char* env = std::getenv("LTC_MLIR_DEVICE_GUARD");
  if (env != nullptr && std::string(env) == "0") return 0;
  static torch::Library* lib = new torch::Library(torch::Library::IMPL, "aten",
                                                  c10::DispatchKey::Lazy, __FILE__, __LINE__);
  QuietWarnings quiet;  // one "overriding a previously registered kernel" per op
  c10::Dispatcher& dispatcher = c10::Dispatcher::singleton();
  size_t wrapped = 0;
  for (const c10::OperatorName& name : dispatcher.getAllOpNames()) {
    if (name.name.rfind("aten::", 0) != 0 || MovesBetweenDevices(name)) continue;
    c10::optional<c10::OperatorHandle> op = dispatcher.findOp(name);
    if (!op || !op->hasKernelForDispatchKey(c10::DispatchKey::Lazy)) continue;
    c10::KernelFunction inner = RegisteredKernel(*op, c10::DispatchKey::Lazy);
    if (!inner.isValid()) continue;  // no boxed entry: cannot be wrapped generically
    std::string short_name = name.name.substr(6);
    if (!name.overload_name.empty()) short_name += "." + name.overload_name;
    lib->impl(short_name.c_str(), torch::CppFunction::makeFromBoxedFunctor(
                                      std::make_unique<DeviceCheckedKernel>(std::move(inner))));
    ++wrapped;
  }
  return wrapped;
}

}  // namespace backend
}  // namespace ltc_mlir
