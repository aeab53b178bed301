"""torch.linalg.lstsq on the lazy device (lstsq_kernel.cpp; torch's LTC has
no Lazy kernel for it) against eager CPU: every driver's outputs (solution,
residuals, rank, singular values, each empty where eager's is), tall,
square, wide and batched problems, and the gradients of A and B through
the solution. Full-rank problems (their solution is unique). f32 at 1e-4,
f64 at 1e-9.
"""
import itertools

import pytest
import torch

import ltc_mlir
from lazy_testing import assert_all_native, eager_fallback_ops

SHAPES = [(4, 3, 2, ()), (3, 3, 3, ()), (2, 3, 3, ()), (6, 4, 2, (2,)), (5, 2, 1, (2, 3))]


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
@pytest.mark.parametrize("shape,driver", list(itertools.product(
    SHAPES, [None, "gels", "gelsy", "gelsd", "gelss"])))
def test_lstsq_matches_eager(shape, driver, dtype):
    m, n, k, batch = shape
    g = torch.Generator().manual_seed(m * 10 + n)
    A = torch.randn(*batch, m, n, generator=g, dtype=dtype)
    B = torch.randn(*batch, m, k, generator=g, dtype=dtype)
    kwargs = {} if driver is None else dict(driver=driver)
    results = []
    for device in ("cpu", "lazy"):
        a, b = A.to(device).requires_grad_(), B.to(device).requires_grad_()
        r = torch.linalg.lstsq(a, b, **kwargs)
        cot = torch.randn(r.solution.shape, generator=torch.Generator().manual_seed(1), dtype=dtype)
        ga, gb = torch.autograd.grad((r.solution * cot.to(device)).sum(), [a, b])
        if device == "lazy":
            import torch._lazy.metrics as lazy_metrics
            lazy_metrics.reset()
            ltc_mlir.reset_metrics()
            torch._lazy.mark_step()
        results.append([t.detach().cpu() for t in r] + [ga.cpu(), gb.cpu()])
    tol = 1e-4 if dtype == torch.float32 else 1e-9
    for e, l in zip(*results):
        assert e.shape == l.shape and e.dtype == l.dtype
        torch.testing.assert_close(l, e, rtol=tol, atol=tol)
    assert_all_native()
    assert eager_fallback_ops() == []


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
@pytest.mark.parametrize("hermitian", [False, True])
def test_batched_pinv_matches_eager(hermitian, dtype):
    # torch 2.14's own LTC kernel raised on batches (a view inside its
    # functionalized matmul); ours computes eager's formula (lstsq_kernel.cpp).
    g = torch.Generator().manual_seed(3)
    A = torch.randn(2, 3, 5, 4 if not hermitian else 5, generator=g, dtype=dtype)
    if hermitian:
        A = A + A.transpose(-2, -1)
    cot = torch.randn(A.shape[:-2] + (A.shape[-1], A.shape[-2]), generator=g, dtype=dtype)
    results = []
    for device, kind in (("cpu", dtype), ("lazy", dtype), ("cpu", torch.float64)):
        a = A.to(kind).to(device).requires_grad_()
        p = torch.linalg.pinv(a, hermitian=hermitian)
        (ga,) = torch.autograd.grad((p * cot.to(kind).to(device)).sum(), [a])
        if device == "lazy":
            ltc_mlir.reset_metrics()
            torch._lazy.mark_step()
        results.append([p.detach().cpu(), ga.cpu()])
    tol = 1e-4 if dtype == torch.float32 else 1e-9
    for e, l, exact in zip(*results):
        # Close to eager, or at least as close to the float64 result as
        # eager is: the f32 gradient through eigh amplifies rounding by
        # 1/|eigenvalue|, and eager's own f32 error differs between CPUs
        # (5e-3 on an Intel Xeon, where ours was 1.4e-4).
        if not torch.allclose(l, e, rtol=tol, atol=tol):
            ours = (l.double() - exact).abs().max()
            eagers = (e.double() - exact).abs().max()
            assert ours <= eagers + tol, (float(ours), float(eagers))
    assert_all_native()
    assert eager_fallback_ops() == []
