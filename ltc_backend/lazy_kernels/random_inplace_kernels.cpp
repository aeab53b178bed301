// In-place sampling on the Lazy key: normal_, uniform_, exponential_.
//
// Under functionalization these become the functional ops our graph lowers
// (normal_functional, uniform, exponential; TorchToLinalg Random.cpp). But
// ops that functionalization treats as functional run below it as their
// composite: torch.randn_like / rand_like are empty_like + normal_ /
// uniform_ on the Lazy key itself. torch 2.14's LTC has Lazy kernels for
// normal_ and uniform_ (recording normal_functional / uniform), but none for
// exponential_, which ran through the eager fallback (a graph cut and a host
// round trip per call). Here each records its functional op and copies it
// into self. A
// call with an explicit generator keeps the eager path: its stream can only
// be drawn eagerly.
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

at::Tensor Normal(const c10::OperatorHandle& op, const torch::jit::Stack& s) {
  return at::normal_functional(BoxedArgument(op, s, 0).toTensor(), BoxedArgument(op, s, 1).toDouble(),
                               BoxedArgument(op, s, 2).toDouble(), std::nullopt);
}
at::Tensor Uniform(const c10::OperatorHandle& op, const torch::jit::Stack& s) {
  return at::uniform(BoxedArgument(op, s, 0).toTensor(), BoxedArgument(op, s, 1).toDouble(),
                     BoxedArgument(op, s, 2).toDouble(), std::nullopt);
}
at::Tensor Exponential(const c10::OperatorHandle& op, const torch::jit::Stack& s) {
  return at::exponential(BoxedArgument(op, s, 0).toTensor(), BoxedArgument(op, s, 1).toDouble(), std::nullopt);
}

}  // namespace

void RegisterRandomInPlaceKernels() {
  static torch::Library* lib = new torch::Library(torch::Library::IMPL, "aten",
                                                  c10::DispatchKey::Lazy, __FILE__, __LINE__);
  QuietWarnings quiet;
  lib->impl("normal_", torch::CppFunction::makeFromBoxedFunction<&SampleInPlace<&Normal>>());
  lib->impl("uniform_", torch::CppFunction::makeFromBoxedFunction<&SampleInPlace<&Uniform>>());
  lib->impl("exponential_",
            torch::CppFunction::makeFromBoxedFunction<&SampleInPlace<&Exponential>>());
}

}  // namespace backend
}  // namespace ltc_mlir
