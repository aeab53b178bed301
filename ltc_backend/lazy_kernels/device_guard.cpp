// device_guard: puts CheckOperandDevices (device_check.h) in front of every
// kernel registered for the Lazy key, so that no LTC kernel ever sees a CPU
// tensor it would abort on. The replaced kernel is kept and called after the
// check; boxing costs about a microsecond per op (docs/architecture.md).
//
// For the matrix products, convolution, layer/group norm, cross, prelu,
// BCE, NLL and the softmax backwards it also checks that the floating
// operands share a dtype: eager's CPU kernels raise ("expected scalar type
// Float but found Double"), LTC's kernels computed anyway (mm gave f32, bmm
// f64, F.linear without bias f32, layer norm with f64 parameters f32) or
// the graph failed later inside TorchScript. On a mismatch the op runs on
// empty CPU tensors of the same shapes and dtypes, which raises eager's own
// message (where eager accepts the mix, the op then proceeds). The matrix
// products compare every tensor operand's dtype, integral ones included
// (mm of f32 and int64 gave f32, of uint8 and f16 uint8; eager raises).
// Ops whose CPU kernels have no bool version (argmax, topk, round, trace,
// ...) get the probe for a bool operand: they computed on the lazy device.
// And the ops of argument_checks.h get it when their arguments are invalid
// (torch's lazy shape functions abort on some of them).
#include <ATen/ATen.h>
#include <torch/library.h>

#include <cstdlib>
#include <string>

#include "ltc_backend/lazy_kernels/argument_checks.h"
#include "ltc_backend/lazy_kernels/device_check.h"
#include "ltc_backend/lazy_kernels/kernel_table.h"
#include "ltc_backend/lazy_kernels/lazy_kernels.h"

namespace ltc_mlir {
namespace backend {
namespace {

// When an op's arguments get the eager probe: never, when its floating (or
// all) operands differ in dtype, or when an operand is bool.
enum class OneDtype { kNone, kFloating, kAll, kNoBool };

bool HasBoolOperand(const c10::OperatorHandle& op, const torch::jit::Stack& stack) {
  for (size_t i = 0; i < op.schema().arguments().size(); ++i) {
    const c10::IValue& v = BoxedArgument(op, stack, i);
    if (v.isTensor() && v.toTensor().defined() && v.toTensor().scalar_type() == at::kBool)
      return true;
  }
  return false;
}

// Whether the op's (floating, or all) tensor arguments have more than one dtype.
bool MixedDtypes(const c10::OperatorHandle& op, const torch::jit::Stack& stack,
                 OneDtype which = OneDtype::kFloating) {
  std::optional<at::ScalarType> seen;
  for (size_t i = 0; i < op.schema().arguments().size(); ++i) {
    const c10::IValue& v = BoxedArgument(op, stack, i);
    if (!v.isTensor() || !v.toTensor().defined()) continue;
    at::ScalarType t = v.toTensor().scalar_type();
    if (which == OneDtype::kFloating && !at::isFloatingType(t)) continue;
    if (seen && *seen != t) return true;
    seen = t;
  }
  return false;
}

// Runs the op on empty CPU tensors shaped and typed as its arguments:
// eager's checks raise their own errors.
void RunEagerChecks(const c10::OperatorHandle& op, const torch::jit::Stack& stack) {
  torch::jit::Stack probe;
  for (size_t i = 0; i < op.schema().arguments().size(); ++i) {
    const c10::IValue& v = BoxedArgument(op, stack, i);
    if (v.isTensor() && v.toTensor().defined()) {
      const at::Tensor& t = v.toTensor();
      probe.emplace_back(at::empty(t.sizes(), t.options().device(at::kCPU)));
    } else {
      probe.push_back(v);
    }
  }
  op.callBoxed(&probe);
}

class DeviceCheckedKernel final : public c10::OperatorKernel {
 public:
  DeviceCheckedKernel(c10::KernelFunction inner, OneDtype oneDtype, InvalidArguments invalid)
      : inner_(std::move(inner)), oneDtype_(oneDtype), invalid_(invalid) {}

  void operator()(const c10::OperatorHandle& op, c10::DispatchKeySet keys,
                  torch::jit::Stack* stack) {
    CheckOperandDevices(op, *stack);
    bool probe = oneDtype_ == OneDtype::kNoBool
                     ? HasBoolOperand(op, *stack)
                     : oneDtype_ != OneDtype::kNone && MixedDtypes(op, *stack, oneDtype_);
    if (probe || (invalid_ != nullptr && invalid_(op, *stack))) RunEagerChecks(op, *stack);
    inner_.callBoxed(op, keys, stack);
  }

 private:
  c10::KernelFunction inner_;
  OneDtype oneDtype_;
  InvalidArguments invalid_;
};

// Ops whose CPU kernels require one dtype for their (floating) operands.
OneDtype NeedsOneDtype(const c10::OperatorName& name) {
  static const char* const kProducts[] = {"aten::mm",    "aten::bmm",     "aten::mv",
                                          "aten::dot",   "aten::vdot",    "aten::addmv",
                                          "aten::addmm", "aten::baddbmm", "aten::addbmm"};
  for (const char* op : kProducts)
    if (name.name == op) return OneDtype::kAll;
  static const char* const kOps[] = {"aten::convolution",
      "aten::_convolution", "aten::linalg_cross", "aten::prelu", "aten::binary_cross_entropy",
      "aten::nll_loss_forward", "aten::native_layer_norm", "aten::native_group_norm",
      "aten::_softmax_backward_data", "aten::_log_softmax_backward_data"};
  for (const char* op : kOps)
    if (name.name == op) return OneDtype::kFloating;
  static const char* const kNoBoolKernel[] = {"aten::argmax", "aten::argmin", "aten::round",
                                              "aten::kthvalue", "aten::topk", "aten::trace"};
  for (const char* op : kNoBoolKernel)
    if (name.name == op) return OneDtype::kNoBool;
  return OneDtype::kNone;
}

// Ops whose job is to move data between devices. aten::copy is the
// functional form of `lazy.copy_(cpu)` (load_state_dict, slice assignment
// from a CPU tensor), which eager allows across devices.
bool MovesBetweenDevices(const c10::OperatorName& name) {
  return name.name == "aten::_copy_from" || name.name == "aten::_copy_from_and_resize" ||
         name.name == "aten::_to_copy" || name.name == "aten::copy";
}

// F.batch_norm is a composite on the lazy device. The Lazy-key check above
// sees what it reaches, native_batch_norm, which it does not check (F.group_norm
// reaches native_group_norm, which it checks). With f64 parameters on an f32
// input it promoted where eager's kernel raises. Here, for f32/f64 inputs,
// parameters of another floating dtype get the probe. (Eager accepts f32
// parameters on bf16/f16 inputs, so those are not probed: the probe would
// run the norm.)
class BatchNormParameterCheck final : public c10::OperatorKernel {
 public:
  void operator()(const c10::OperatorHandle& op, c10::DispatchKeySet keys,
                  torch::jit::Stack* stack) {
    const c10::IValue& input = BoxedArgument(op, *stack, 0);
    if (input.isTensor() && (input.toTensor().scalar_type() == at::kFloat ||
                             input.toTensor().scalar_type() == at::kDouble) &&
        MixedDtypes(op, *stack))
      RunEagerChecks(op, *stack);
    op.redispatchBoxed(RegularAutogradKeys(keys), stack);
  }
};

}  // namespace

size_t InstallLazyDeviceGuard() {
  static torch::Library* norms = new torch::Library(
      torch::Library::IMPL, "aten", c10::DispatchKey::AutogradLazy, __FILE__, __LINE__);
  norms->impl("batch_norm", torch::CppFunction::makeFromBoxedFunctor(
                                std::make_unique<BatchNormParameterCheck>()));
  // Off only to measure what it costs (benchmarks/lazy_guard_overhead.py).
  const char* env = std::getenv("LTC_MLIR_DEVICE_GUARD");
  if (env != nullptr && std::string(env) == "0") return 0;
  static torch::Library* lib = new torch::Library(torch::Library::IMPL, "aten",
                                                  c10::DispatchKey::Lazy, __FILE__, __LINE__);
  QuietWarnings quiet;  // one "overriding a previously registered kernel" per op
  size_t wrapped = 0;
  ForEachAtenOp([&](const c10::OperatorHandle& op, const std::string& name) {
    if (MovesBetweenDevices(op.operator_name()) ||
        !op.hasKernelForDispatchKey(c10::DispatchKey::Lazy))
      return;
    c10::KernelFunction inner = RegisteredKernel(op, c10::DispatchKey::Lazy);
    if (!inner.isValid()) return;  // no boxed entry: cannot be wrapped generically
    lib->impl(name.c_str(), torch::CppFunction::makeFromBoxedFunctor(
                                std::make_unique<DeviceCheckedKernel>(
                                    std::move(inner), NeedsOneDtype(op.operator_name()),
                                    FindArgumentCheck(op.operator_name()))));
    ++wrapped;
  });
  return wrapped;
}

}  // namespace backend
}  // namespace ltc_mlir
