"""SVD, symmetric eigendecomposition, QR, geqrf and householder_product on
the lazy device vs eager CPU,
forward and backward, f32 and f64.

Singular vectors and eigenvectors are only defined up to sign, so matching
eager means running eager's LAPACK routines the way eager runs them
(TorchToLinalg LapackDecompositions.cpp, runtime/lib/lapack.cpp): the
forward results are compared elementwise with tight tolerances, where a
flipped vector would be off by O(1). Non-finite and non-converging inputs
raise eager's errors.
"""
import pytest
import torch

import ltc_mlir
from lazy_testing import assert_all_native, assert_close, assert_ops_native, run_both

FORWARD_TOL = {torch.float64: dict(rtol=1e-12, atol=1e-12),
               torch.float32: dict(rtol=1e-5, atol=1e-6)}
GRAD_TOL = {torch.float64: dict(rtol=1e-9, atol=1e-10),
            torch.float32: dict(rtol=2e-4, atol=2e-5)}
DTYPES = [torch.float64, torch.float32]


@pytest.fixture(autouse=True)
def _init():
    ltc_mlir.init()
    ltc_mlir.reset_metrics()


def rnd(*shape, dtype, seed):
    return torch.randn(*shape, generator=torch.Generator().manual_seed(seed), dtype=dtype)


def check(fn, inputs, ops, dtype, grad=True):
    eager, lazy = run_both(fn, *inputs, grad_inputs=(0,) if grad else ())
    n_grads = 1 if grad else 0
    n_out = len(eager) - n_grads
    assert_close(eager[:n_out], lazy[:n_out], **FORWARD_TOL[dtype])
    assert_close(eager[n_out:], lazy[n_out:], **GRAD_TOL[dtype])
    assert_ops_native(*ops)
    assert_all_native()
    return eager, lazy


def flat(*tensors):
    return torch.cat([t.flatten() for t in tensors])


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(5, 3), (3, 5), (4, 4), (2, 6, 4)])
def test_svd_reduced_matches_eagers_vectors_and_gradient(dtype, shape):
    def fn(a):
        u, s, vh = torch.linalg.svd(a, full_matrices=False)
        return flat(u, s, vh), u, s, vh
    check(fn, [rnd(*shape, dtype=dtype, seed=1)], ["aten::_linalg_svd"], dtype)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(5, 3), (3, 5)])
def test_svd_full_matrices(dtype, shape):
    # (gradients through full U/Vh are not defined: eager raises too)
    check(lambda a: torch.linalg.svd(a, full_matrices=True), [rnd(*shape, dtype=dtype, seed=2)],
          ["aten::_linalg_svd"], dtype, grad=False)


@pytest.mark.parametrize("dtype", DTYPES)
def test_svdvals_and_the_norms_built_on_svd(dtype):
    a = rnd(3, 6, 4, dtype=dtype, seed=3)
    check(lambda a: (torch.linalg.svdvals(a), torch.linalg.matrix_norm(a, ord=2),
                     torch.linalg.matrix_norm(a, ord="nuc"), torch.linalg.pinv(a)),
          [a], ["aten::_linalg_svd"], dtype)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("uplo", ["L", "U"])
def test_eigh_matches_eagers_vectors_and_gradient(dtype, uplo):
    # Only the `uplo` triangle is read: the other one is garbage on purpose.
    a = rnd(2, 5, 5, dtype=dtype, seed=4)
    def fn(a):
        w, v = torch.linalg.eigh(a, UPLO=uplo)
        return flat(w, v), w, v
    eager, lazy = check(fn, [a], ["aten::_linalg_eigh"], dtype)


@pytest.mark.parametrize("dtype", DTYPES)
def test_eigvalsh(dtype):
    a = rnd(4, 4, dtype=dtype, seed=5)
    a = a + a.mT
    check(lambda a: torch.linalg.eigvalsh(a), [a], ["aten::_linalg_eigh"], dtype)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("mode", ["reduced", "complete", "r"])
@pytest.mark.parametrize("shape", [(6, 4), (4, 6), (2, 5, 5)])
def test_qr_matches_eagers_signs_and_gradient(dtype, mode, shape):
    a = rnd(*shape, dtype=dtype, seed=6)
    m, n = shape[-2:]
    # Eager's backward is defined for reduced mode, and complete mode when m <= n.
    grad = mode == "reduced" or (mode == "complete" and m <= n)
    def fn(a):
        q, r = torch.linalg.qr(a, mode=mode)
        return (flat(q, r), q, r) if grad else (q, r)
    check(fn, [a], ["aten::linalg_qr"], dtype, grad=grad)


def test_decompositions_inside_a_training_step():
    # A spectral-norm-like penalty: svdvals in the graph, then SGD.
    torch.manual_seed(0)
    results = []
    for device in ("cpu", "lazy"):
        w = torch.randn(8, 6, generator=torch.Generator().manual_seed(7)).to(device)
        w.requires_grad_()
        opt = torch.optim.SGD([w], lr=0.05)
        for _ in range(3):
            opt.zero_grad()
            q, r = torch.linalg.qr(w)
            loss = torch.linalg.svdvals(w).max() + (r.diagonal() ** 2).sum() * 1e-2
            loss.backward()
            opt.step()
            if device == "lazy":
                torch._lazy.mark_step()
        results.append(w.detach().cpu())
    torch.testing.assert_close(results[1], results[0], rtol=1e-5, atol=1e-6)
    assert_ops_native("aten::_linalg_svd", "aten::linalg_qr")
    assert_all_native()


@pytest.mark.parametrize("fn", [torch.linalg.svd, torch.linalg.svdvals, torch.linalg.eigh])
def test_non_finite_input_raises_eagers_error(fn):
    a = torch.randn(4, 4)
    a = a + a.mT
    a[1, 2] = a[2, 1] = float("nan")
    with pytest.raises(RuntimeError) as eager:
        fn(a)
    with pytest.raises(RuntimeError) as lazy:
        out = fn(a.to("lazy"))
        torch._lazy.mark_step()
        (out[0] if isinstance(out, tuple) else out).cpu()
    name = "linalg.eigh" if fn is torch.linalg.eigh else "linalg.svd"
    assert name + ": The algorithm failed to converge" in str(lazy.value), lazy.value
    assert str(eager.value).startswith(name + ": The algorithm failed to converge")
    # The failed graph does not poison the next one.
    ok = torch.linalg.svdvals(torch.eye(3).to("lazy")).cpu()
    torch.testing.assert_close(ok, torch.ones(3))


def test_empty_matrices_fall_back_and_match():
    a = torch.randn(0, 3)
    eager = torch.linalg.svd(a, full_matrices=False)
    lazy = torch.linalg.svd(a.to("lazy"), full_matrices=False)
    for e, l in zip(eager, lazy):
        assert e.shape == l.cpu().shape


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(6, 4), (4, 6), (2, 5, 5)])
def test_geqrf_matches_eager(dtype, shape):
    check(torch.geqrf, [rnd(*shape, dtype=dtype, seed=8)], ["aten::geqrf"], dtype, grad=False)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape,k", [((6, 4), 4), ((6, 4), 2), ((2, 5, 3), 3)])
def test_householder_product_matches_eager_with_gradient(dtype, shape, k):
    a = rnd(*shape, dtype=dtype, seed=9)
    tau = rnd(*shape[:-2], k, dtype=dtype, seed=10).abs() * 0.5 + 0.5
    def fn(a, tau):
        return torch.linalg.householder_product(a, tau)
    eager, lazy = run_both(fn, a, tau, grad_inputs=(0, 1))
    assert_close(eager[:1], lazy[:1], **FORWARD_TOL[dtype])
    assert_close(eager[1:], lazy[1:], **GRAD_TOL[dtype])
    assert_ops_native("aten::linalg_householder_product")
    assert_all_native()


def test_householder_product_argument_errors_are_eagers():
    a, tau = torch.randn(3, 4), torch.randn(2)
    with pytest.raises(RuntimeError) as eager:
        torch.linalg.householder_product(a, tau)
    with pytest.raises(RuntimeError) as lazy:
        torch.linalg.householder_product(a.to("lazy"), tau.to("lazy"))
    assert str(lazy.value) == str(eager.value)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shapes", [((5, 3), (5, 4)), ((4, 4), (4, 2)), ((2, 6, 3), (2, 6, 5))])
@pytest.mark.parametrize("left", [True, False])
@pytest.mark.parametrize("transpose", [False, True])
def test_ormqr_matches_eager(dtype, shapes, left, transpose):
    # Q (or Q^T) of geqrf's reflectors times other: householder_product of
    # the reflectors padded to a square, then a matmul (eager: LAPACK ormqr).
    (a_shape, c_shape) = shapes
    qa, tau = torch.geqrf(rnd(*a_shape, dtype=dtype, seed=11))
    c = rnd(*c_shape, dtype=dtype, seed=12)
    if not left:
        c = c.transpose(-1, -2).contiguous()
    check(lambda q, t, o: torch.ormqr(q, t, o, left=left, transpose=transpose), [qa, tau, c],
          ["aten::linalg_householder_product"], dtype, grad=False)


def test_ormqr_bad_shapes_raise_eagers_error():
    qa, tau = torch.geqrf(torch.randn(5, 3))
    c = torch.randn(2, 5)
    with pytest.raises(RuntimeError) as eager:
        torch.ormqr(qa, tau, c)
    with pytest.raises(RuntimeError) as lazy:
        torch.ormqr(qa.to("lazy"), tau.to("lazy"), c.to("lazy")).cpu()
    assert str(lazy.value).splitlines()[0] == str(eager.value).splitlines()[0]
