// torch.linalg.matrix_exp on the lazy device as lowered lazy ops; torch's
// LTC has no Lazy kernel for it (it ran eagerly, its backward too: autograd's
// formula takes the exponential of a 2n x 2n block matrix).
//
// Scaling and squaring: A / 2^s has 1-norm <= 1, its exponential is the
// Taylor polynomial of degree 18, whose truncation error is below f64's
// rounding there, and s squarings undo the scaling; all in f64.
// Eager picks the degree of its approximant from the norm at run time; the
// norm is read here with one sync to choose s (the values agree to
// rounding, not bit for bit). 1 x 1 matrices are exp, as in eager.
// Other dtypes (eager supports f32/f64 and complex) keep the eager path.
#include <ATen/ATen.h>
#include <torch/library.h>

#include <cmath>

#include "ltc_backend/lazy_kernels/device_check.h"
#include "ltc_backend/lazy_kernels/kernel_table.h"
#include "ltc_backend/lazy_kernels/lazy_kernels.h"

namespace ltc_mlir {
namespace backend {
namespace {

at::Tensor ScaledTaylorExp(const at::Tensor& batch, int degree) {
  int64_t n = batch.size(-1);
  at::Tensor identity = at::eye(n, batch.options());
  // Horner: I + X/1 (I + X/2 (I + ... (I + X/degree)))
  at::Tensor p = at::add(identity, at::div(batch, static_cast<double>(degree)));
  for (int k = degree - 1; k >= 1; --k)
    p = at::add(identity, at::div(at::bmm(batch, p), static_cast<double>(k)));
  return p;
}

void MatrixExp(const c10::OperatorHandle& op, torch::jit::Stack* stack) {
  CheckOperandDevices(op, *stack);
  at::Tensor self = BoxedArgument(op, *stack, 0).toTensor();
  bool handled = (self.scalar_type() == at::kFloat || self.scalar_type() == at::kDouble) &&
                 self.dim() >= 2 && self.size(-1) == self.size(-2);
  if (!handled) return RunEagerFallback(op, stack);  // eager's result or error
  int64_t n = self.size(-1);
  if (self.numel() == 0) return ReturnBoxed(op, stack, at::empty(self.sizes(), self.options()));
  if (n == 1) return ReturnBoxed(op, stack, at::exp(self));
  // In f64 for f32 too: each squaring doubles the rounding error, and eager's
  // f32 approximant needs fewer squarings (f32 results are at least as close
  // to the exact exponential as eager's).
  at::Tensor batch = at::view_copy(self, {self.numel() / (n * n), n, n}).to(at::kDouble);
  double norm = at::amax(at::sum(at::abs(batch), -2)).item<double>();  // the one sync
  int squarings = 0;
  if (std::isfinite(norm) && norm > 1.0)
    squarings = std::min(64, static_cast<int>(std::ceil(std::log2(norm))));
  at::Tensor scaled = squarings ? at::div(batch, std::ldexp(1.0, squarings)) : batch;
  at::Tensor result = ScaledTaylorExp(scaled, 18);
  for (int i = 0; i < squarings; ++i) result = at::bmm(result, result);
  ReturnBoxed(op, stack, at::view_copy(result, self.sizes()).to(self.scalar_type()));
}

}  // namespace

void RegisterMatrixExpKernel() {
  static torch::Library* lib = new torch::Library(torch::Library::IMPL, "aten",
                                                  c10::DispatchKey::Lazy, __FILE__, __LINE__);
  QuietWarnings quiet;
  lib->impl("linalg_matrix_exp", torch::CppFunction::makeFromBoxedFunction<&MatrixExp>());
}

}  // namespace backend
}  // namespace ltc_mlir
