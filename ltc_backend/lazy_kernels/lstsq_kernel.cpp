// torch.linalg.lstsq on the lazy device as differentiable lazy ops on the
// AutogradLazy key; torch 1.13 has no Lazy kernel (it ran eagerly).
//
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
// formula); as in eager, the residuals and singular values pass no
// gradient back. Rank-deficient problems can differ from eager's drivers, which
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
    // Detached: eager 1.13's backward reads the solution's gradient only.
    if (fullRank)
      residuals = at::sum(
          at::pow(at::sub(at::matmul(a.detach(), solution.detach()), b.detach()), 2), -2);
  }
  return {solution, residuals, rank, singular};
}

}  // namespace

void RegisterLstsqKernel() {
  static torch::Library* lib = new torch::Library(
      torch::Library::IMPL, "aten", c10::DispatchKey::AutogradLazy, __FILE__, __LINE__);
  lib->impl("linalg_lstsq", TORCH_FN(LstsqLazy));
}

}  // namespace backend
}  // namespace ltc_mlir
