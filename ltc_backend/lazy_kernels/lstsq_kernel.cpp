// torch.linalg.lstsq and batched torch.linalg.pinv on the lazy device as
// differentiable lazy ops on the AutogradLazy key.
//
// pinv: torch 2.14's LTC kernel for linalg_pinv.atol_rtol_tensor runs the
// composite under functionalize_aten_op, where its matmul reaches the
// functionalization fallback, is unwrapped and decomposes on plain lazy
// tensors: a batched matmul's expand then calls as_strided, a view lazy
// tensors cannot have, and torch.linalg.pinv of a batch raised. Real
// batches compute eager's formula here instead, above autograd and
// functionalization (svd or eigh, then matmuls); the gradient is that of
// the decomposition. Single matrices keep torch's path.
//
// lstsq: torch has no Lazy kernel (it ran eagerly).
// The least-squares solution of a full-rank problem is unique (the minimum
// norm one when m < n), whichever LAPACK driver eager picks, so it is
// computed as pinv(A) B (SVD-based, native). The other outputs follow each
// driver's contract in eager:
//  - rank (gelsy, gelsd, gelss): singular values above rcond * the largest
//    (rcond defaults to eps * max(m, n));
//  - singular_values (gelsd, gelss): descending; empty otherwise;
//  - residuals (m > n, not gelsy; for gelsd/gelss only if every matrix has
//    full rank, which costs one sync): the squared norms of the columns of
//    A x - B; empty otherwise.
// Autograd differentiates pinv(A) B (eager's gradient is the same pinv
// formula) and the residuals computed from it; as in eager, the singular
// values pass no gradient back. Rank-deficient problems can differ from eager's drivers, which
// disagree with each other there. Complex inputs and unknown drivers keep
// torch's kernel (eager's result or error).
#include <ATen/ATen.h>
#include <torch/library.h>

#include <limits>

#include "ltc_backend/lazy_kernels/lazy_kernels.h"

namespace ltc_mlir {
namespace backend {
namespace {

using LstsqResult = std::tuple<at::Tensor, at::Tensor, at::Tensor, at::Tensor>;

bool Handled(const at::Tensor& a, const at::Tensor& b, const std::string& driver) {
  bool realFloat = a.scalar_type() == at::kFloat || a.scalar_type() == at::kDouble;
  return realFloat && a.scalar_type() == b.scalar_type() && a.dim() >= 2 && b.dim() == a.dim() &&
         a.sizes().slice(0, a.dim() - 2).equals(b.sizes().slice(0, b.dim() - 2)) &&
         a.size(-2) == b.size(-2) && a.numel() > 0 && b.numel() > 0 &&
         (driver == "gels" || driver == "gelsy" || driver == "gelsd" || driver == "gelss");
}

LstsqResult LstsqLazy(c10::DispatchKeySet ks, const at::Tensor& a, const at::Tensor& b,
                      std::optional<double> rcond, std::optional<c10::string_view> driverArg) {
  std::string driver = driverArg ? std::string(*driverArg) : "gelsy";
  if (!Handled(a, b, driver))
    return at::_ops::linalg_lstsq::redispatch(RegularAutogradKeys(ks), a, b, rcond, driverArg);
  int64_t m = a.size(-2), n = a.size(-1);
  at::Tensor solution = at::matmul(at::linalg_pinv(a), b);
  at::Tensor rank = at::empty({0}, a.options().dtype(at::kLong));
  at::Tensor singular = at::empty({0}, a.options());
  at::Tensor residuals = at::empty({0}, a.options());
  if (driver != "gels") {
    double eps = a.scalar_type() == at::kFloat ? std::numeric_limits<float>::epsilon()
                                               : std::numeric_limits<double>::epsilon();
    double tolerance = rcond ? *rcond : eps * std::max(m, n);
    at::Tensor values = at::linalg_svdvals(a.detach());
    at::Tensor largest = std::get<0>(at::max(values, -1, /*keepdim=*/true));
    rank = at::sum(at::gt(values, at::mul(largest, tolerance)), -1);
    if (driver != "gelsy") singular = values;
  }
  if (m > n && driver != "gelsy") {
    bool fullRank = driver == "gels" || at::all(at::eq(rank, n)).item<bool>();
    // Differentiable, as eager's residuals are.
    if (fullRank) residuals = at::sum(at::pow(at::sub(at::matmul(a, solution), b), 2), -2);
  }
  return {solution, residuals, rank, singular};
}

/// Eager's formula (BatchLinearAlgebra's linalg_pinv): singular (or
/// eigen-) values above max(atol, rtol * largest) inverted, others 0.
at::Tensor PinvByDecomposition(const at::Tensor& self, const std::optional<at::Tensor>& atol,
                               const std::optional<at::Tensor>& rtol, bool hermitian) {
  at::Tensor u, values, vh;
  if (hermitian) {
    std::tie(values, u) = at::linalg_eigh(self);
    vh = at::transpose(u, -2, -1);
  } else {
    std::tie(u, values, vh) = at::linalg_svd(self, /*full_matrices=*/false);
  }
  at::Tensor largest = std::get<0>(at::max(at::abs(values), -1, /*keepdim=*/true));
  double eps = self.scalar_type() == at::kFloat ? std::numeric_limits<float>::epsilon()
                                                : std::numeric_limits<double>::epsilon();
  at::Tensor absTol = atol ? atol->unsqueeze(-1) : at::zeros({}, values.options());
  double defaultRtol = atol ? 0.0 : eps * std::max(self.size(-2), self.size(-1));
  at::Tensor relTol = rtol ? rtol->unsqueeze(-1) : at::full({}, defaultRtol, values.options());
  at::Tensor tol = at::maximum(absTol, at::mul(relTol, largest));
  at::Tensor inverse = at::where(at::gt(at::abs(values), tol), at::reciprocal(values),
                                 at::zeros({}, values.options()));
  return at::matmul(at::mul(at::transpose(vh, -2, -1), inverse.unsqueeze(-2)),
                    at::transpose(u, -2, -1));
}

at::Tensor PinvLazy(c10::DispatchKeySet ks, const at::Tensor& self,
                    const std::optional<at::Tensor>& atol, const std::optional<at::Tensor>& rtol,
                    bool hermitian) {
  bool realFloat = self.scalar_type() == at::kFloat || self.scalar_type() == at::kDouble;
  if (self.dim() <= 2 || !realFloat || self.numel() == 0)
    return at::_ops::linalg_pinv_atol_rtol_tensor::redispatch(RegularAutogradKeys(ks), self, atol,
                                                              rtol, hermitian);
  at::Tensor values = PinvByDecomposition(self, atol, rtol, hermitian);
  if (!hermitian || !self.requires_grad() || !at::GradMode::is_enabled()) return values;
  // Eager's values read the lower triangle only (eigh), its gradient is
  // that of the general pseudoinverse (pinv_backward): the svd path's
  // gradient with the eigh path's values.
  at::Tensor general = PinvByDecomposition(self, atol, rtol, /*hermitian=*/false);
  return at::add(general, at::sub(values, general).detach());
}

}  // namespace

void RegisterLstsqKernel() {
  static torch::Library* lib = new torch::Library(
      torch::Library::IMPL, "aten", c10::DispatchKey::AutogradLazy, __FILE__, __LINE__);
  lib->impl("linalg_lstsq", TORCH_FN(LstsqLazy));
  lib->impl("linalg_pinv.atol_rtol_tensor", TORCH_FN(PinvLazy));
}

}  // namespace backend
}  // namespace ltc_mlir
