// torch.cdist and F.pdist as differentiable lazy ops, registered on the
// AutogradLazy key of _cdist_forward and _pdist_forward (their forward and
// backward kernels have no Lazy kernel in torch's LTC and ran through the
// eager fallback).
//
// Distances are computed the way eager's kernels compute them:
//  - cdist with p = 2 and the matmul mode (compute_mode 1, or 0 with more
//    than 25 rows on a side): eager's _euclidean_dist, |x|^2 - 2 x.y + |y|^2
//    as one matmul of padded operands, clamped at 1e-30, square-rooted;
//  - otherwise the direct p-norm of every row difference
//    (linalg_vector_norm over [..., r1, r2, c] differences; pdist over the
//    upper-triangle pairs, gathered with a host-built index table).
// Autograd differentiates these ops; at zero distance the gradient is 0 as
// in eager. Larger problems than kMaxDiffElements differences (the direct
// form materializes them) keep torch's own kernels.
#include <ATen/ATen.h>
#include <ATen/ExpandUtils.h>
#include <torch/csrc/lazy/core/tensor.h>
#include <torch/library.h>

#include "ltc_backend/lazy_kernels/lazy_kernels.h"

namespace ltc_mlir {
namespace backend {
namespace {

constexpr int64_t kMaxDiffElements = int64_t{1} << 24;

// torch's own kernel for the op (VariableType, then the eager fallback).
void TorchKernel(const c10::OperatorHandle& op, torch::jit::Stack* stack) {
  op.callBoxedForDispatchKey(c10::DispatchKey::Autograd, *stack);
}

// Exact zeros shaped like `t` that depend on it, so that autograd gives it
// zero gradients as eager's kernels do (whatever t holds, NaN included).
at::Tensor ZerosFrom(const at::Tensor& t) {
  return at::where(at::zeros_like(t, at::kBool), t, at::zeros_like(t));
}

// Zeros of `shape` connected to a and b.
at::Tensor ConnectedZeros(at::IntArrayRef shape, const at::Tensor& a, const at::Tensor& b) {
  return at::zeros(shape, a.options()) + ZerosFrom(a).sum() + ZerosFrom(b).sum();
}

// The p-norms of the last dim of the differences; p = 0 counts the nonzero
// ones (norm's own p = 0 gradient is undefined, eager's is zero).
at::Tensor DistanceNorm(const at::Tensor& diff, double p) {
  if (p == 0)
    return at::ne(diff, 0).to(diff.scalar_type()).sum(-1) + ZerosFrom(diff).sum(-1);
  return at::linalg_vector_norm(diff, p, {-1}, false);
}

at::Tensor EuclideanDistance(const at::Tensor& x1, const at::Tensor& x2) {
  at::Tensor x1Norm = x1.pow(2).sum(-1, true);
  at::Tensor x2Norm = x2.pow(2).sum(-1, true);
  at::Tensor a = at::cat({x1.mul(-2), x1Norm, at::ones_like(x1Norm)}, -1);
  at::Tensor b = at::cat({x2, at::ones_like(x2Norm), x2Norm}, -1);
  return a.matmul(b.mT()).clamp_min(1e-30).sqrt();
}

// _cdist_forward(x1, x2, p, compute_mode)
void CdistForward(const c10::OperatorHandle& op, torch::jit::Stack* stack) {
  at::Tensor x1 = BoxedArgument(op, *stack, 0).toTensor();
  at::Tensor x2 = BoxedArgument(op, *stack, 1).toTensor();
  double p = BoxedArgument(op, *stack, 2).toDouble();
  const c10::IValue& modeArg = BoxedArgument(op, *stack, 3);
  int64_t mode = modeArg.isInt() ? modeArg.toInt() : 0;
  bool valid = x1.is_lazy() && x2.is_lazy() && x1.dim() >= 2 && x2.dim() >= 2 &&
               at::isFloatingType(x1.scalar_type()) && x1.scalar_type() == x2.scalar_type() &&
               x1.size(-1) == x2.size(-1) && p >= 0 && mode >= 0 && mode <= 2;
  if (!valid) return TorchKernel(op, stack);
  int64_t r1 = x1.size(-2), r2 = x2.size(-2), c = x1.size(-1);
  std::vector<int64_t> batch = at::infer_size(x1.sizes().slice(0, x1.dim() - 2),
                                              x2.sizes().slice(0, x2.dim() - 2));
  int64_t batchCount = c10::multiply_integers(batch);
  if (batchCount * r1 * r2 * std::max<int64_t>(c, 1) > kMaxDiffElements)
    return TorchKernel(op, stack);
  std::vector<int64_t> shape1(batch), shape2(batch), resultShape(batch);
  shape1.insert(shape1.end(), {r1, c});
  shape2.insert(shape2.end(), {r2, c});
  resultShape.insert(resultShape.end(), {r1, r2});
  if (batchCount * r1 * r2 == 0 || c == 0)
    // (Connected to the inputs so that their gradients are zeros, as eager's.)
    return ReturnBoxed(op, stack, ConnectedZeros(resultShape, x1, x2));
  at::Tensor a = x1.expand(shape1), b = x2.expand(shape2);
  bool viaMatmul = p == 2 && (mode == 1 || (mode == 0 && (r1 > 25 || r2 > 25)));
  if (viaMatmul) return ReturnBoxed(op, stack, EuclideanDistance(a, b));
  at::Tensor diff = a.unsqueeze(-2) - b.unsqueeze(-3);
  ReturnBoxed(op, stack, DistanceNorm(diff, p));
}

// _pdist_forward(self, p): distances of the pairs i < j, row-major.
void PdistForward(const c10::OperatorHandle& op, torch::jit::Stack* stack) {
  at::Tensor self = BoxedArgument(op, *stack, 0).toTensor();
  double p = BoxedArgument(op, *stack, 1).toDouble();
  torch::lazy::LazyTensorPtr lazy = torch::lazy::TryGetLtcTensor(self);
  bool valid = lazy && self.dim() == 2 && at::isFloatingType(self.scalar_type()) && p >= 0;
  int64_t n = valid ? self.size(0) : 0;
  if (!valid || (n * (n - 1) / 2) * self.size(1) > kMaxDiffElements)
    return TorchKernel(op, stack);
  if (n < 2) return ReturnBoxed(op, stack, ConnectedZeros({0}, self, self));
  // The pair table is host data that depends on n only.
  at::Tensor pairs = at::triu_indices(n, n, 1, at::TensorOptions().dtype(at::kLong));
  auto upload = [&](const at::Tensor& host) {
    return torch::lazy::CreateAtenFromLtcTensor(
        torch::lazy::LazyTensor::Create(host.contiguous(), lazy->GetDevice()));
  };
  at::Tensor diff = self.index_select(0, upload(pairs[0])) - self.index_select(0, upload(pairs[1]));
  if (self.size(1) == 0)
    return ReturnBoxed(op, stack, ConnectedZeros({pairs.size(1)}, self, self));
  ReturnBoxed(op, stack, DistanceNorm(diff, p));
}

}  // namespace

void RegisterDistanceKernels() {
  static torch::Library* lib = new torch::Library(
      torch::Library::IMPL, "aten", c10::DispatchKey::AutogradLazy, __FILE__, __LINE__);
  lib->impl("_cdist_forward", torch::CppFunction::makeFromBoxedFunction<&CdistForward>());
  lib->impl("_pdist_forward", torch::CppFunction::makeFromBoxedFunction<&PdistForward>());
}

}  // namespace backend
}  // namespace ltc_mlir
