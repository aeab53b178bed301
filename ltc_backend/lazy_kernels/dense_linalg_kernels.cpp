// Dense linear algebra kept in the lazy graph (TorchToLinalg
// DenseLinearAlgebra.cpp, LUFactorization.cpp and LapackDecompositions.cpp
// lower them): none has a Lazy kernel in torch's LTC. The composites
// (linalg.cholesky, inv, solve, det, slogdet, lu_factor, cholesky_solve)
// decompose into these at the AutogradLazy key, and their backward formulas
// into these and matmuls. ormqr becomes householder_product + matmul.
#include <ATen/ExpandUtils.h>
#include <ATen/core/ivalue.h>
#include <torch/csrc/lazy/core/shape.h>
#include <torch/library.h>

#include "ltc_backend/lazy_kernels/aten_op_node.h"
#include "ltc_backend/lazy_kernels/lazy_kernels.h"

namespace ltc_mlir {
namespace backend {
namespace {

// linalg_solve_triangular(A, B, ...): no C++ Meta kernel (torch's Python one
// gives the same shape). The result has B's matrix dims and the broadcast
// batch dims of A and B.
std::vector<torch::lazy::Shape> SolveTriangularShape(const c10::OperatorHandle& op,
                                                     const torch::jit::Stack& stack) {
  const size_t n = op.schema().arguments().size();
  const at::Tensor& a = stack[stack.size() - n].toTensor();
  const at::Tensor& b = stack[stack.size() - n + 1].toTensor();
  TORCH_CHECK(a.dim() >= 2 && b.dim() >= 2,
              "linalg.solve_triangular: The input tensor A and B must have at least 2 "
              "dimensions.");
  std::vector<int64_t> shape = at::infer_size(a.sizes().slice(0, a.dim() - 2),
                                              b.sizes().slice(0, b.dim() - 2));
  shape.push_back(b.size(-2));
  shape.push_back(b.size(-1));
  return {torch::lazy::Shape(b.scalar_type(), shape)};
}

void CheckFloatingOrComplex(const at::Tensor& t, const char* api) {
  TORCH_CHECK(at::isFloatingType(t.scalar_type()) || at::isComplexType(t.scalar_type()), api,
              ": Expected a floating point or complex tensor as input. Got ", t.scalar_type());
}

// geqrf(A) -> (a, tau): torch has no Meta kernel for it.
std::vector<torch::lazy::Shape> GeqrfShape(const c10::OperatorHandle& op,
                                           const torch::jit::Stack& stack) {
  const at::Tensor& a = stack[stack.size() - op.schema().arguments().size()].toTensor();
  TORCH_CHECK(a.dim() >= 2, "torch.geqrf: input must have at least 2 dimensions.");
  CheckFloatingOrComplex(a, "torch.geqrf");
  std::vector<int64_t> tau = a.sizes().slice(0, a.dim() - 2).vec();
  tau.push_back(std::min(a.size(-2), a.size(-1)));
  return {torch::lazy::Shape(a.scalar_type(), a.sizes()), torch::lazy::Shape(a.scalar_type(), tau)};
}

// linalg_householder_product(input, tau), with eager's argument checks.
std::vector<torch::lazy::Shape> HouseholderProductShape(const c10::OperatorHandle& op,
                                                        const torch::jit::Stack& stack) {
  const size_t n = op.schema().arguments().size();
  const at::Tensor& input = stack[stack.size() - n].toTensor();
  const at::Tensor& tau = stack[stack.size() - n + 1].toTensor();
  const char* api = "torch.linalg.householder_product";
  TORCH_CHECK(input.dim() >= 2, api, ": input must have at least 2 dimensions.");
  TORCH_CHECK(input.size(-2) >= input.size(-1), api,
              ": input.shape[-2] must be greater than or equal to input.shape[-1]");
  TORCH_CHECK(tau.dim() >= 1 && input.size(-1) >= tau.size(-1), api,
              ": input.shape[-1] must be greater than or equal to tau.shape[-1]");
  TORCH_CHECK(input.dim() - tau.dim() == 1, api,
              ": Expected tau to have one dimension less than input, but got tau.ndim equal to ",
              tau.dim(), " and input.ndim is equal to ", input.dim());
  TORCH_CHECK(tau.sizes().slice(0, tau.dim() - 1).equals(input.sizes().slice(0, input.dim() - 2)),
              api, ": Expected batch dimensions of tau to be equal to input.shape[:-2], but got ",
              tau.sizes().slice(0, tau.dim() - 1));
  TORCH_CHECK(tau.scalar_type() == input.scalar_type(), api, ": tau dtype ", tau.scalar_type(),
              " does not match input dtype ", input.scalar_type());
  CheckFloatingOrComplex(input, api);
  return {torch::lazy::Shape(input.scalar_type(), input.sizes())};
}

// a @ b for [..., r, c] operands with the same batch dims (below
// functionalization: views are the _copy ops, so no composite matmul).
at::Tensor BatchedMatmul(const at::Tensor& a, const at::Tensor& b) {
  if (a.dim() == 2) return at::mm(a, b);
  const int64_t batch = c10::multiply_integers(a.sizes().slice(0, a.dim() - 2));
  at::Tensor out = at::bmm(at::view_copy(a, {batch, a.size(-2), a.size(-1)}),
                           at::view_copy(b, {batch, b.size(-2), b.size(-1)}));
  std::vector<int64_t> shape = a.sizes().slice(0, a.dim() - 2).vec();
  shape.push_back(a.size(-2));
  shape.push_back(b.size(-1));
  return at::view_copy(out, shape);
}

// ormqr(input, tau, other, left, transpose): other times Q (or Q^T), Q the
// product of the Householder reflectors geqrf left in input and tau. Q is
// linalg_householder_product of the reflectors padded to a square (a zero
// tau is an identity reflector), then one batched matmul. Eager calls
// LAPACK's ormqr: the same product up to rounding. Arguments outside the
// shapes this handles go to eager's kernel (its result, or its error).
at::Tensor Ormqr(const at::Tensor& input, const at::Tensor& tau, const at::Tensor& other,
                 bool left, bool transpose) {
  const bool handled =
      input.dim() >= 2 && other.dim() == input.dim() && tau.dim() == input.dim() - 1 &&
      at::isFloatingType(input.scalar_type()) && tau.scalar_type() == input.scalar_type() &&
      other.scalar_type() == input.scalar_type() &&
      other.size(left ? -2 : -1) == input.size(-2) && tau.size(-1) <= input.size(-1) &&
      tau.size(-1) <= input.size(-2) &&
      input.sizes().slice(0, input.dim() - 2).equals(other.sizes().slice(0, other.dim() - 2)) &&
      input.sizes().slice(0, input.dim() - 2).equals(tau.sizes().slice(0, tau.dim() - 1)) &&
      input.numel() > 0 && other.numel() > 0;
  if (!handled)
    return at::ormqr(input.cpu(), tau.cpu(), other.cpu(), left, transpose).to(input.device());
  const int64_t order = input.size(-2), k = tau.size(-1);
  std::vector<int64_t> pad = input.sizes().vec();
  pad.back() = order - k;
  at::Tensor reflectors = at::cat({at::slice_copy(input, -1, 0, k), at::zeros(pad, input.options())}, -1);
  std::vector<int64_t> tauPad = tau.sizes().vec();
  tauPad.back() = order - k;
  at::Tensor q = at::linalg_householder_product(
      reflectors, at::cat({tau, at::zeros(tauPad, tau.options())}, -1));
  if (transpose) q = at::transpose_copy(q, -2, -1);
  return left ? BatchedMatmul(q, other) : BatchedMatmul(other, q);
}

}  // namespace

void RegisterDenseLinalgKernels() {
  RegisterAtenOpKernel("geqrf", GeqrfShape);
  RegisterAtenOpKernel("linalg_householder_product", HouseholderProductShape);
  for (const char* op : {"linalg_cholesky_ex", "linalg_lu_factor_ex", "linalg_lu", "lu_unpack",
                         "linalg_lu_solve", "linalg_inv_ex", "_linalg_solve_ex", "_linalg_det",
                         "_linalg_slogdet", "triangular_solve",
                         // LAPACK-backed (LapackDecompositions.cpp): eager's
                         // routines, so eager's vectors and signs.
                         "_linalg_svd", "_linalg_eigh", "linalg_qr"})
    RegisterAtenOpKernel(op);
  // No Meta kernel; the result is shaped like self (cholesky_solve
  // broadcasts B and L before calling its helper).
  RegisterAtenOpKernel("_cholesky_solve_helper", "self");
  RegisterAtenOpKernel("cholesky_inverse", "self");
  RegisterAtenOpKernel("linalg_solve_triangular", SolveTriangularShape);
  static torch::Library* lib =
      new torch::Library(torch::Library::IMPL, "aten", c10::DispatchKey::Lazy, __FILE__, __LINE__);
  lib->impl("ormqr", TORCH_FN(Ormqr));
}

}  // namespace backend
}  // namespace ltc_mlir
