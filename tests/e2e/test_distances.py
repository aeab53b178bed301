"""torch.cdist (direct and matmul paths, every p, batch broadcasting, empty
inputs) and F.pdist on the lazy device vs eager CPU, forward and gradients
(ltc_backend/lazy_kernels/distance_kernels.cpp): native graphs, nothing
through the eager fallback."""
import pytest
import torch
import torch.nn.functional as F
import torch._lazy.metrics as lazy_metrics

import ltc_mlir
from lazy_testing import assert_all_native, eager_fallback_ops


@pytest.fixture(autouse=True)
def _init():
    ltc_mlir.init()
    ltc_mlir.reset_metrics()
    lazy_metrics.reset()


def gen(seed):
    return torch.Generator().manual_seed(seed)


def check(fn, *inputs, rtol=1e-5, atol=1e-5):
    results = []
    for device in ("cpu", "lazy"):
        args = [t.detach().clone().to(device).requires_grad_() for t in inputs]
        out = fn(*args)
        cot = torch.randn(out.shape, generator=gen(9)).to(device)
        grads = torch.autograd.grad((out * cot).sum(), args, allow_unused=True)
        if device == "lazy":
            torch._lazy.mark_step()
        results.append([out.detach().cpu()] + [g.cpu() for g in grads])
    for e, l in zip(*results):
        torch.testing.assert_close(l, e, rtol=rtol, atol=atol)
    assert eager_fallback_ops() == []
    assert_all_native()


@pytest.mark.parametrize("p", [0.0, 1.0, 2.0, 3.0, float("inf")])
@pytest.mark.parametrize("shapes", [((5, 3), (4, 3)), ((2, 1, 6, 3), (4, 5, 3)),
                                    ((30, 4), (7, 4))])
def test_cdist_matches_eager(p, shapes):
    a = torch.randn(*shapes[0], generator=gen(1))
    b = torch.randn(*shapes[1], generator=gen(2))
    check(lambda x, y: torch.cdist(x, y, p=p), a, b)


@pytest.mark.parametrize("mode", ["use_mm_for_euclid_dist", "donot_use_mm_for_euclid_dist"])
def test_cdist_compute_modes(mode):
    a = torch.randn(6, 4, generator=gen(3))
    b = torch.randn(5, 4, generator=gen(4))
    check(lambda x, y: torch.cdist(x, y, compute_mode=mode), a, b)


def test_cdist_empty_and_repeated_rows():
    check(lambda x, y: torch.cdist(x, y), torch.randn(0, 3), torch.randn(4, 3))
    a = torch.randn(3, 2, generator=gen(5))
    check(lambda x, y: torch.cdist(x, y, p=1.0), a, a.clone())


@pytest.mark.parametrize("p", [0.0, 1.0, 2.0, float("inf")])
def test_pdist_matches_eager(p):
    check(lambda x: F.pdist(x, p=p), torch.randn(6, 3, generator=gen(6)))


def test_pdist_single_row():
    check(lambda x: F.pdist(x), torch.randn(1, 3, generator=gen(7)))
