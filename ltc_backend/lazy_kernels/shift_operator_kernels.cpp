// The << and >> operators (__lshift__/__rshift__, .Tensor and .Scalar) on
// lazy integer tensors as bitwise_left_shift/bitwise_right_shift.
//
// torch's LTC has no Lazy kernel for the operators (their Meta kernels are
// torch's Python ones), so they ran through the eager fallback. For
// integers ATen computes both names with the same kernel (lshift_stub /
// rshift_stub), so the operator becomes the named op, which is a lowered
// AtenOpNode. Other dtypes keep the fallback.
#include <ATen/ATen.h>
#include <torch/library.h>

#include "ltc_backend/lazy_kernels/device_check.h"
#include "ltc_backend/lazy_kernels/kernel_table.h"
#include "ltc_backend/lazy_kernels/lazy_kernels.h"

namespace ltc_mlir {
namespace backend {
namespace {

bool Integral(const c10::IValue& v) {
  if (v.isTensor()) return at::isIntegralType(v.toTensor().scalar_type(), /*includeBool=*/false);
  return v.isInt();
}

template <bool Left>
void Shift(const c10::OperatorHandle& op, torch::jit::Stack* stack) {
  const c10::IValue& self = (*stack)[stack->size() - 2];
  const c10::IValue& other = (*stack)[stack->size() - 1];
  if (!Integral(self) || !Integral(other)) return RunEagerFallback(op, stack);
  CheckOperandDevices(op, *stack);
  const at::Tensor a = self.toTensor();
  at::Tensor result;
  if (other.isTensor()) {
    result = Left ? at::bitwise_left_shift(a, other.toTensor())
                  : at::bitwise_right_shift(a, other.toTensor());
  } else {
    result = Left ? at::bitwise_left_shift(a, other.toScalar())
                  : at::bitwise_right_shift(a, other.toScalar());
  }
  torch::jit::drop(*stack, 2);
  torch::jit::push(*stack, result);
}

}  // namespace

void RegisterShiftOperatorKernels() {
  static torch::Library* lib = new torch::Library(torch::Library::IMPL, "aten",
                                                  c10::DispatchKey::Lazy, __FILE__, __LINE__);
  QuietWarnings quiet;
  for (const char* name : {"__lshift__.Tensor", "__lshift__.Scalar"})
    lib->impl(name, torch::CppFunction::makeFromBoxedFunction<&Shift<true>>());
  for (const char* name : {"__rshift__.Tensor", "__rshift__.Scalar"})
    lib->impl(name, torch::CppFunction::makeFromBoxedFunction<&Shift<false>>());
}

}  // namespace backend
}  // namespace ltc_mlir
