"""Dense real linear algebra on the lazy device vs eager CPU: triangular
solves, Cholesky, LU with partial pivoting and what is built on them (inv,
solve, det, slogdet), forward and backward, f32 and f64.

None of these ops has a Lazy kernel in torch's LTC (they are AtenOpNodes,
ltc_backend/lazy_kernels/dense_linalg_kernels.cpp) and they are lowered as
explicit loops (TorchToLinalg DenseLinearAlgebra.cpp, LUFactorization.cpp).
Inputs are well-conditioned (A = B B^T + n I, triangles with a dominant
diagonal, Gaussian matrices for LU), so the rounding differences to LAPACK's
blocked algorithms stay within the tolerances below. Singular and
non-positive-definite inputs give eager's info and eager's errors.
"""
import pytest
import torch

import ltc_mlir
from lazy_testing import assert_all_native, assert_close, assert_ops_native, run_both

TOL = {torch.float64: dict(rtol=1e-9, atol=1e-10), torch.float32: dict(rtol=2e-4, atol=2e-5)}


def gen(seed):
    return torch.Generator().manual_seed(seed)


def rnd(*shape, dtype=torch.float64, seed=0):
    return torch.randn(*shape, generator=gen(seed), dtype=dtype)


def spd(*shape, dtype=torch.float64, seed=0):
    n = shape[-1]
    b = rnd(*shape, dtype=dtype, seed=seed)
    return b @ b.mT + n * torch.eye(n, dtype=dtype)


def tri(*shape, upper=False, dtype=torch.float64, seed=0):
    n = shape[-1]
    m = rnd(*shape, dtype=dtype, seed=seed) * 0.3
    m = m.triu() if upper else m.tril()
    return m + 2 * torch.eye(n, dtype=dtype)


@pytest.fixture(autouse=True)
def _init():
    ltc_mlir.init()
    ltc_mlir.reset_metrics()


def check(fn, inputs, grad_inputs, ops, dtype, **tol):
    eager, lazy = run_both(fn, *inputs, grad_inputs=grad_inputs)
    assert_close(eager, lazy, **(tol or TOL[dtype]))
    assert_ops_native(*ops)
    # linalg.cholesky/inv/solve read info (.item()) to raise eager's error:
    # that syncs, but both graphs run natively.
    assert_all_native()
    return eager, lazy


DTYPES = [torch.float64, torch.float32]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("upper", [False, True])
@pytest.mark.parametrize("left", [True, False])
@pytest.mark.parametrize("unit", [False, True])
def test_solve_triangular(dtype, upper, left, unit):
    a = tri(2, 5, 5, upper=upper, dtype=dtype, seed=1)
    b = rnd(2, 5, 3, dtype=dtype, seed=2) if left else rnd(2, 3, 5, dtype=dtype, seed=2)
    check(lambda a, b: torch.linalg.solve_triangular(a, b, upper=upper, left=left,
                                                     unitriangular=unit),
          [a, b], (0, 1), ["aten::linalg_solve_triangular"], dtype)


def test_solve_triangular_broadcast():
    # A's batch (3, 1) and B's (4,) broadcast to (3, 4); B with one column.
    a = tri(3, 1, 4, 4, dtype=torch.float64, seed=3)
    b = rnd(4, 4, 1, seed=4)
    eager, lazy = check(lambda a, b: torch.linalg.solve_triangular(a, b, upper=False),
                        [a, b], (0, 1), ["aten::linalg_solve_triangular"], torch.float64)
    assert lazy[0].shape == (3, 4, 4, 1)


def test_solve_triangular_zero_diagonal_gives_inf_like_eager():
    a = tri(3, 3, seed=5)
    a[1, 1] = 0
    b = rnd(3, 2, seed=6)
    eager, lazy = run_both(lambda a, b: torch.linalg.solve_triangular(a, b, upper=False), a, b)
    assert not torch.isfinite(eager[0]).all()
    assert_close(eager, lazy, equal_nan=True)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("upper", [False, True])
def test_cholesky(dtype, upper):
    a = spd(2, 6, 6, dtype=dtype, seed=7)
    check(lambda a: torch.linalg.cholesky(a, upper=upper), [a], (0,),
          ["aten::linalg_cholesky_ex"], dtype)


@pytest.mark.parametrize("dtype", DTYPES)
def test_cholesky_ex_info(dtype):
    # Batch: positive-definite, then not positive-definite at order 3, then
    # at order 1 (a negative first element).
    a = spd(3, 4, 4, dtype=dtype, seed=8)
    a[1, 2, 2] = -50.0
    a[2, 0, 0] = -1.0
    fn = lambda a: torch.linalg.cholesky_ex(a)
    eager, lazy = run_both(fn, a)
    assert eager[1].tolist() == [0, 3, 1]
    assert lazy[1].dtype == torch.int32 and lazy[1].tolist() == eager[1].tolist()
    # The failed factors too: columns before the failing one, d on its
    # diagonal, A's values after (LAPACK's potf2).
    torch.testing.assert_close(lazy[0], eager[0], **TOL[dtype])
    assert_ops_native("aten::linalg_cholesky_ex")


def test_cholesky_not_positive_definite_raises_eagers_error():
    a = spd(4, 4, seed=9)
    a[1, 1] = -3.0
    with pytest.raises(RuntimeError) as eager:
        torch.linalg.cholesky(a)
    with pytest.raises(RuntimeError) as lazy:
        torch.linalg.cholesky(a.to("lazy"))
        torch._lazy.mark_step()
    assert str(lazy.value) == str(eager.value)
    assert "leading minor of order 2 is not positive-definite" in str(lazy.value)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("upper", [False, True])
def test_cholesky_solve(dtype, upper):
    a = spd(2, 5, 5, dtype=dtype, seed=10)
    f = torch.linalg.cholesky(a, upper=upper)
    b = rnd(2, 5, 3, dtype=dtype, seed=11)
    check(lambda b, f: torch.cholesky_solve(b, f, upper=upper), [b, f], (0, 1),
          ["aten::_cholesky_solve_helper"], dtype)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("upper", [False, True])
def test_cholesky_inverse(dtype, upper):
    f = torch.linalg.cholesky(spd(5, 5, dtype=dtype, seed=12), upper=upper)
    check(lambda f: torch.cholesky_inverse(f, upper=upper), [f], (0,),
          ["aten::cholesky_inverse"], dtype)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(2, 6, 6), (5, 3), (3, 5)])
def test_lu_factor_and_unpack(dtype, shape):
    a = rnd(*shape, dtype=dtype, seed=13)
    eager, lazy = run_both(lambda a: (*torch.linalg.lu_factor_ex(a),
                                      *torch.lu_unpack(*torch.linalg.lu_factor(a))), a)
    assert lazy[1].dtype == torch.int32
    assert torch.equal(lazy[1], eager[1])  # the same pivots as LAPACK
    assert_close(eager, lazy, **TOL[dtype])
    assert_ops_native("aten::linalg_lu_factor_ex", "aten::lu_unpack")
    assert_all_native()


@pytest.mark.parametrize("dtype", DTYPES)
def test_lu_factor_backward(dtype):
    a = rnd(2, 5, 5, dtype=dtype, seed=14)
    check(lambda a: torch.linalg.lu_factor(a)[0], [a], (0,),
          ["aten::linalg_lu_factor_ex", "aten::lu_unpack", "aten::linalg_solve_triangular"],
          dtype)


@pytest.mark.parametrize("dtype", DTYPES)
def test_linalg_lu(dtype):
    a = rnd(4, 4, dtype=dtype, seed=15)
    # P has no gradient: L first (the backward goes through L and U).
    check(lambda a: (lambda p, l, u: (l, u, p))(*torch.linalg.lu(a)), [a], (0,),
          ["aten::linalg_lu"], dtype)


def test_lu_factor_singular_info():
    a = rnd(3, 4, 4, seed=16)
    a[1, :, 2] = 0  # an exactly zero pivot at step 3
    a[2] = 0
    eager, lazy = run_both(lambda a: torch.linalg.lu_factor_ex(a), a)
    assert lazy[2].tolist() == eager[2].tolist() == [0, 3, 1]
    torch.testing.assert_close(lazy[0][0], eager[0][0])


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("left", [True, False])
@pytest.mark.parametrize("adjoint", [False, True])
def test_lu_solve(dtype, left, adjoint):
    a = rnd(2, 5, 5, dtype=dtype, seed=17)
    b = rnd(2, 5, 3, dtype=dtype, seed=18) if left else rnd(2, 3, 5, dtype=dtype, seed=18)
    check(lambda a, b: torch.linalg.lu_solve(*torch.linalg.lu_factor(a), b, left=left,
                                             adjoint=adjoint),
          [a, b], (0, 1), ["aten::linalg_lu_solve"], dtype)


@pytest.mark.parametrize("dtype", DTYPES)
def test_inv(dtype):
    a = rnd(3, 5, 5, dtype=dtype, seed=19) + 3 * torch.eye(5, dtype=dtype)
    check(lambda a: torch.linalg.inv(a), [a], (0,), ["aten::linalg_inv_ex"], dtype)
    check(lambda a: torch.linalg.inv_ex(a), [a], (0,), ["aten::linalg_inv_ex"], dtype)


def test_inv_singular_raises_eagers_error():
    a = rnd(4, 4, seed=20)
    a[:, 3] = 0
    with pytest.raises(RuntimeError) as eager:
        torch.linalg.inv(a)
    with pytest.raises(RuntimeError) as lazy:
        torch.linalg.inv(a.to("lazy"))
        torch._lazy.mark_step()
    assert str(lazy.value) == str(eager.value)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("left", [True, False])
def test_solve(dtype, left):
    a = rnd(2, 5, 5, dtype=dtype, seed=21) + 3 * torch.eye(5, dtype=dtype)
    b = rnd(2, 5, 2, dtype=dtype, seed=22) if left else rnd(2, 2, 5, dtype=dtype, seed=22)
    check(lambda a, b: torch.linalg.solve(a, b, left=left), [a, b], (0, 1),
          ["aten::_linalg_solve_ex"], dtype)


def test_solve_vector_and_broadcast():
    a = rnd(3, 1, 4, 4, seed=23) + 3 * torch.eye(4, dtype=torch.float64)
    b = rnd(2, 4, 3, seed=24)
    v = rnd(4, seed=25)
    # One output depending on all inputs (for the gradients), then each.
    fn = lambda a, b, v: (torch.linalg.solve_ex(a, b)[0] + torch.linalg.solve_ex(a[0, 0], v)[0][:, None],
                          torch.linalg.solve_ex(a, b)[0], torch.linalg.solve_ex(a[0, 0], v)[0])
    check(fn,
          [a, b, v], (0, 1, 2), ["aten::_linalg_solve_ex"], torch.float64)


def test_solve_singular_raises_eagers_error():
    a = torch.zeros(3, 3, dtype=torch.float64)
    b = rnd(3, 1, seed=26)
    with pytest.raises(RuntimeError) as eager:
        torch.linalg.solve(a, b)
    with pytest.raises(RuntimeError) as lazy:
        torch.linalg.solve(a.to("lazy"), b.to("lazy"))
        torch._lazy.mark_step()
    assert str(lazy.value) == str(eager.value)


@pytest.mark.parametrize("dtype", DTYPES)
def test_det_slogdet_logdet(dtype):
    a = rnd(3, 5, 5, dtype=dtype, seed=27) + 2 * torch.eye(5, dtype=dtype)
    check(lambda a: torch.linalg.det(a), [a], (0,), ["aten::_linalg_det"], dtype)
    check(lambda a: torch.linalg.slogdet(a)[::-1], [a], (0,), ["aten::_linalg_slogdet"], dtype)
    s = spd(2, 4, 4, dtype=dtype, seed=28)
    check(lambda s: torch.logdet(s), [s], (0,), ["aten::_linalg_slogdet"], dtype)


def test_det_singular_is_zero():
    a = rnd(2, 4, 4, seed=29)
    a[1, 2] = 0  # an exactly zero pivot
    eager, lazy = run_both(lambda a: (torch.linalg.det(a), *torch.linalg.slogdet(a)), a)
    assert lazy[0][1] == 0 and lazy[1][1] == 0 and lazy[2][1] == -float("inf")
    assert_close(eager, lazy)


@pytest.mark.parametrize("shape", [(0, 0), (3, 0, 0), (0, 4, 4)])
def test_empty_matrices(shape):
    # det/slogdet of 0x0 matrices are 1 / (1, 0), info 0; everything else empty.
    a = torch.zeros(shape, dtype=torch.float64)
    b = torch.zeros(*shape[:-1], 2, dtype=torch.float64)
    fn = lambda a, b: (torch.linalg.det(a), *torch.linalg.slogdet(a), *torch.linalg.inv_ex(a),
                       *torch.linalg.cholesky_ex(a), *torch.linalg.lu_factor_ex(a),
                       *torch.linalg.solve_ex(a, b), torch.linalg.solve_triangular(a, b, upper=True),
                       torch.cholesky_solve(b, a))
    eager, lazy = run_both(fn, a, b)
    assert_close(eager, lazy)
    assert_all_native()


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("upper", [False, True])
@pytest.mark.parametrize("transpose", [False, True])
def test_deprecated_triangular_solve(dtype, upper, transpose):
    a = tri(2, 1, 4, 4, upper=upper, dtype=dtype, seed=30)
    b = rnd(3, 4, 2, dtype=dtype, seed=31)
    check(lambda b, a: torch.triangular_solve(b, a, upper=upper, transpose=transpose),
          [b, a], (0, 1), ["aten::triangular_solve"], dtype)


def test_gaussian_process_loss_one_graph():
    # A GP's negative log marginal likelihood: Cholesky, triangular solves,
    # the log-diagonal; forward and backward in native graphs.
    x = rnd(20, 2, seed=34)
    y = rnd(20, 1, seed=35)
    log_ls = torch.tensor(0.3, dtype=torch.float64)

    def nll(x, y, log_ls):
        d2 = ((x[:, None] - x[None]) ** 2).sum(-1)
        k = torch.exp(-d2 / (2 * torch.exp(log_ls) ** 2))
        l = torch.linalg.cholesky(k + 0.1 * torch.eye(20, dtype=torch.float64, device=x.device))
        alpha = torch.cholesky_solve(y, l)
        return 0.5 * (y * alpha).sum() + torch.log(torch.diagonal(l)).sum()

    eager, lazy = run_both(nll, x, y, log_ls, grad_inputs=(0, 2))
    assert_close(eager, lazy, rtol=1e-9, atol=1e-10)
    assert_ops_native("aten::linalg_cholesky_ex", "aten::_cholesky_solve_helper",
                      "aten::linalg_solve_triangular")
    assert_all_native()
