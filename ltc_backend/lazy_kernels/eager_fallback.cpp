// eager_fallback: our boxed fallback for ops that have no Lazy kernel. It
// replaces LTC's TorchScript-backend fallback, which leaves the data of
// Tensor[] results on the CPU (torch 2.14: split's pieces say lazy:0, but
// the next op on one records no lazy IR and its .cpu() is still a
// functional wrapper) and puts results on the device of the first tensor
// argument even when that is a CPU tensor (searchsorted(cpu, lazy) returns
// a CPU tensor).
//
// Per op: the device check (device_check.h), an "aten::<op>" counter like
// LTC's (metrics.cpp turns those into fallback_ops), the CPU kernel on CPU
// copies of the lazy arguments (Tensor, Tensor[] and Tensor?[]), mutated
// arguments written back, and every other tensor result moved to the op's
// lazy device.
#include <ATen/ATen.h>
#include <torch/csrc/lazy/core/metrics.h>
#include <torch/library.h>

#include <mutex>
#include <unordered_map>

#include "ltc_backend/lazy_kernels/collectives_guard.h"
#include "ltc_backend/lazy_kernels/device_check.h"
#include "ltc_backend/lazy_kernels/kernel_table.h"
#include "ltc_backend/lazy_kernels/lazy_kernels.h"

namespace ltc_mlir {
namespace backend {
namespace {

void CountFallback(const c10::OperatorHandle& op) {
  static std::mutex mu;
  static auto* counters = new std::unordered_map<std::string, torch::lazy::Counter*>();
  std::string name = c10::toString(op.operator_name());
  torch::lazy::Counter* counter;
  {
    std::lock_guard<std::mutex> lock(mu);
    torch::lazy::Counter*& slot = (*counters)[name];
    if (!slot) slot = new torch::lazy::Counter(name);  // shares LTC's data for that name
    counter = slot;
  }
  counter->AddValue(1);
}

constexpr const char* kViewOperatorNoKernel = " is a view operator with no kernel for ";

// A view's result must share storage with its input; a CPU copy cannot.
void RejectViewOp(const c10::OperatorHandle& op, const std::optional<c10::Device>& device) {
  for (const c10::Argument& ret : op.schema().returns()) {
    const c10::AliasInfo* alias = ret.alias_info();
    TORCH_CHECK(alias == nullptr || alias->isWrite(), "The operator ", OperatorFullName(op),
                kViewOperatorNoKernel,
                device ? c10::str(*device) : std::string("the lazy device"),
                ": a view cannot run on the CPU fallback, because its result must share "
                "storage with its input. Call .cpu() first, or use a non-view variant.");
  }
}

// Ops with an explicit device argument decide themselves where results go.
bool HasExplicitDevice(const c10::OperatorHandle& op, const torch::jit::Stack& stack) {
  const auto& args = op.schema().arguments();
  for (size_t i = 0; i < args.size(); ++i) {
    const c10::IValue& v = stack[stack.size() - args.size() + i];
    if (v.isDevice()) return true;
  }
  return false;
}

at::Tensor OnDevice(const at::Tensor& t, const c10::Device& device) {
  return t.defined() && t.device() != device ? t.to(device) : t;
}

at::Tensor OnCpu(const at::Tensor& t) {
  return t.defined() && t.device().is_lazy() ? t.to(c10::kCPU) : t;
}

bool Writes(const c10::Argument& arg) {
  return arg.alias_info() != nullptr && arg.alias_info()->isWrite();
}

// Replaces every lazy tensor among the op's arguments by a CPU copy; returns
// the original arguments (to write mutated ones back).
std::vector<c10::IValue> ArgumentsToCpu(size_t n, torch::jit::Stack* stack) {
  std::vector<c10::IValue> originals(stack->end() - n, stack->end());
  for (size_t i = 0; i < n; ++i) {
    c10::IValue& v = (*stack)[stack->size() - n + i];
    if (v.isTensor()) {
      v = OnCpu(v.toTensor());
    } else if (v.isTensorList()) {
      c10::List<at::Tensor> cpu;
      for (const c10::IValue& e : v.toListRef()) cpu.push_back(OnCpu(e.toTensor()));
      v = std::move(cpu);
    } else if (v.isOptionalTensorList()) {
      c10::List<std::optional<at::Tensor>> cpu;
      for (const c10::IValue& e : v.toListRef())
        cpu.push_back(e.isTensor() ? std::optional<at::Tensor>(OnCpu(e.toTensor()))
                                   : std::nullopt);
      v = std::move(cpu);
    }
  }
  return originals;
}

void WriteBack(const at::Tensor& cpu, const at::Tensor& original) {
  if (original.defined() && !original.is_same(cpu)) at::_copy_from_and_resize(cpu, original);
}

void RunOnCpu(const c10::OperatorHandle& op, const std::optional<c10::Device>& device,
              torch::jit::Stack* stack) {
  const auto& args = op.schema().arguments();
  const auto& returns = op.schema().returns();
  std::vector<c10::IValue> originals = ArgumentsToCpu(args.size(), stack);
  std::vector<c10::IValue> cpu_args(stack->end() - args.size(), stack->end());
  op.redispatchBoxed(c10::DispatchKeySet(c10::DispatchKey::CPU), stack);

  // Mutated arguments: the CPU copies hold the new values.
  for (size_t i = 0; i < args.size(); ++i) {
    if (!Writes(args[i])) continue;
    if (originals[i].isTensor()) {
      WriteBack(cpu_args[i].toTensor(), originals[i].toTensor());
    } else if (originals[i].isTensorList()) {
      auto cpu = cpu_args[i].toListRef();
      auto orig = originals[i].toListRef();
      for (size_t j = 0; j < orig.size(); ++j) WriteBack(cpu[j].toTensor(), orig[j].toTensor());
    }
  }
  // Results: a mutated argument is returned as the caller's own tensor,
  // anything else moves to the lazy device.
  const size_t n = returns.size();
  for (size_t r = 0; r < n; ++r) {
    c10::IValue& v = (*stack)[stack->size() - n + r];
    if (Writes(returns[r])) {
      for (size_t i = 0; i < args.size(); ++i) {
        if (Writes(args[i]) && originals[i].isTensor() &&
            *args[i].alias_info() == *returns[r].alias_info()) {
          v = originals[i];
          break;
        }
      }
      continue;
    }
    if (!device) continue;
    if (v.isTensor()) {
      v = OnDevice(v.toTensor(), *device);
    } else if (v.isTensorList()) {
      c10::List<at::Tensor> moved;
      for (const c10::IValue& e : v.toListRef()) moved.push_back(OnDevice(e.toTensor(), *device));
      v = std::move(moved);
    }
  }
}

void LazyEagerFallback(const c10::OperatorHandle& op, torch::jit::Stack* stack) {
  if (IsCollective(op)) RejectCollective(op);
  std::optional<c10::Device> device = CheckOperandDevices(op, *stack);
  RejectViewOp(op, device);
  if (HasExplicitDevice(op, *stack)) device = std::nullopt;  // results stay where it says
  CountFallback(op);
  RunOnCpu(op, device, stack);
}

}  // namespace

void RunEagerFallback(const c10::OperatorHandle& op, torch::jit::Stack* stack) {
  LazyEagerFallback(op, stack);
}

bool IsViewFallbackError(const c10::Error& e) {
  return e.msg().find(kViewOperatorNoKernel) != std::string::npos;
}

void RegisterLazyEagerFallback() {
  static torch::Library* lib =
      new torch::Library(torch::Library::IMPL, "_", c10::DispatchKey::Lazy, __FILE__, __LINE__);
  lib->fallback(torch::CppFunction::makeFromBoxedFunction<&LazyEagerFallback>());
}

}  // namespace backend
}  // namespace ltc_mlir
