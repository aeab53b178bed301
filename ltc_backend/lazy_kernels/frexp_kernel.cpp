// torch.frexp on the lazy device as lowered lazy ops: its composite calls
// frexp.Tensor_out, which ran through the eager fallback.
//
// exponent = floor(log2 |x|) + 1, corrected by one where log2 rounded across
// a power of two, so that |mantissa| lands in [0.5, 1); the mantissa is
// |x| * 2^-exponent in two exact power-of-two steps (one 2^-e alone would
// overflow or underflow at the ends of the range). 0, inf and NaN give
// (x, 0), as eager. f16 and bf16 are computed in f32 (every f16/bf16 value,
// subnormals included, is a normal f32 whose mantissa fits the narrow type
// again, so the result is exact).
#include <ATen/ATen.h>
#include <torch/library.h>

#include "ltc_backend/lazy_kernels/device_check.h"
#include "ltc_backend/lazy_kernels/kernel_table.h"
#include "ltc_backend/lazy_kernels/lazy_kernels.h"

namespace ltc_mlir {
namespace backend {
namespace {

// x * 2^-e for a float tensor e of integral values.
at::Tensor ScaleDown(const at::Tensor& x, const at::Tensor& e) {
  at::Tensor half = at::floor(e * 0.5);
  return x * at::exp2(-half) * at::exp2(half - e);
}

void Frexp(const c10::OperatorHandle& op, torch::jit::Stack* stack) {
  CheckOperandDevices(op, *stack);
  at::Tensor input = (*stack)[stack->size() - 1].toTensor();
  TORCH_CHECK(at::isFloatingType(input.scalar_type()),
              "torch.frexp() only supports floating-point dtypes");
  bool narrow = input.scalar_type() == at::kHalf || input.scalar_type() == at::kBFloat16;
  at::Tensor x = narrow ? input.to(at::kFloat) : input;
  at::Tensor special = at::logical_or(at::eq(x, 0), at::logical_not(at::isfinite(x)));
  at::Tensor magnitude = at::where(special, at::ones_like(x), at::abs(x));
  at::Tensor e = at::floor(at::log2(magnitude)) + 1;
  at::Tensor m = ScaleDown(magnitude, e);
  at::Tensor high = at::ge(m, 1.0), low = at::lt(m, 0.5);
  e = at::where(high, e + 1, at::where(low, e - 1, e));
  m = at::where(high, m * 0.5, at::where(low, m * 2.0, m));
  at::Tensor mantissa = at::where(special, x, at::copysign(m, x));
  at::Tensor exponent = at::where(special, at::zeros_like(e), e).to(at::kInt);
  torch::jit::drop(*stack, 1);
  torch::jit::push(*stack, narrow ? mantissa.to(input.scalar_type()) : mantissa);
  torch::jit::push(*stack, exponent);
}

}  // namespace

void RegisterFrexpKernel() {
  static torch::Library* lib = new torch::Library(torch::Library::IMPL, "aten",
                                                  c10::DispatchKey::Lazy, __FILE__, __LINE__);
  QuietWarnings quiet;
  lib->impl("frexp.Tensor", torch::CppFunction::makeFromBoxedFunction<&Frexp>());
}

}  // namespace backend
}  // namespace ltc_mlir
