// exponential_ on the Lazy key: records the functional `exponential` (which
// TorchToLinalg Random.cpp lowers) and assigns it to self. torch 2.14's LTC
// has Lazy kernels for normal_ and uniform_ but none for exponential_, which
// would run through the eager fallback (a graph cut and a host round trip per
// call). A call with an explicit generator keeps the eager path: its stream
// can only be drawn eagerly.
#include <ATen/ATen.h>
#include <torch/library.h>

#include "ltc_backend/lazy_kernels/kernel_table.h"
#include "ltc_backend/lazy_kernels/lazy_kernels.h"

namespace ltc_mlir {
namespace backend {
namespace {

bool HasGenerator(const c10::OperatorHandle& op, const torch::jit::Stack& stack) {
  const c10::IValue& g = BoxedArgument(op, stack, op.schema().arguments().size() - 1);
  return g.isGenerator() && g.toGenerator().defined();
}

template <at::Tensor (*Sample)(const c10::OperatorHandle&, const torch::jit::Stack&)>
void SampleInPlace(const c10::OperatorHandle& op, torch::jit::Stack* stack) {
  if (HasGenerator(op, *stack)) return RunEagerFallback(op, stack);
  at::Tensor self = BoxedArgument(op, *stack, 0).toTensor();
  AssignLazyValue(self, Sample(op, *stack));
  torch::jit::drop(*stack, op.schema().arguments().size());
  torch::jit::push(*stack, self);
}

at::Tensor Exponential(const c10::OperatorHandle& op, const torch::jit::Stack& s) {
  return at::exponential(BoxedArgument(op, s, 0).toTensor(), BoxedArgument(op, s, 1).toDouble(), std::nullopt);
}

}  // namespace

void RegisterExponentialKernel() {
  static torch::Library* lib = new torch::Library(torch::Library::IMPL, "aten",
                                                  c10::DispatchKey::Lazy, __FILE__, __LINE__);
  QuietWarnings quiet;
  lib->impl("exponential_",
            torch::CppFunction::makeFromBoxedFunction<&SampleInPlace<&Exponential>>());
}

}  // namespace backend
}  // namespace ltc_mlir
