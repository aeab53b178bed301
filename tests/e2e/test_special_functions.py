"""Special functions on the lazy device against eager CPU
(SpecialFunctions.cpp: series and rational approximations computed in f64):
lgamma, digamma, polygamma, erfinv, i0/i0e/i1/i1e, ndtri, log_ndtr, erfcx,
entr; forward over wide ranges (poles, negative arguments, tails) and with
NaN/inf, backward where ATen has one, f32 and f64. Every case asserts that
the graph ran natively with no per-op eager fallback.
"""
import pytest
import torch

import ltc_mlir
from lazy_testing import assert_all_native, assert_close, run_both

g = torch.Generator().manual_seed(99)
NAN, INF = float("nan"), float("inf")
SPECIAL = [NAN, INF, -INF, 0.0, -0.0, 1.0, -1.0, 2.0, -2.0, 0.5, 10.0]
TOL = {
    torch.float32: dict(rtol=1e-5, atol=1e-6),
    torch.float64: dict(rtol=1e-10, atol=1e-12),
}


def rnd(n, lo, hi, dtype):
    return (torch.rand(n, generator=g, dtype=torch.float64) * (hi - lo) + lo).to(dtype)


def check(fn, *xs, dtype, grads=(), tol=None):
    ltc_mlir.reset_metrics()
    eager, lazy = run_both(fn, *xs, grad_inputs=grads)
    assert_close(eager, lazy, equal_nan=True, **(tol or TOL[dtype]))
    assert_all_native()


FUNCS = [
    # name, fn, value ranges, differentiable
    ("lgamma", torch.lgamma, [(-30, -0.01), (0.01, 3), (3, 1e3)], True),
    ("digamma", torch.digamma, [(-30, -0.01), (0.01, 12), (12, 1e4)], True),
    ("polygamma1", lambda x: torch.polygamma(1, x), [(-5, -0.01), (0.01, 20)], True),
    ("polygamma2", lambda x: torch.polygamma(2, x), [(-5, -0.01), (0.05, 20)], True),
    ("polygamma4", lambda x: torch.polygamma(4, x), [(0.2, 30)], False),
    ("erfinv", torch.erfinv, [(-0.999, 0.999)], True),
    ("i0", torch.i0, [(-20, 20)], True),
    ("i0e", torch.special.i0e, [(-40, 40)], True),
    ("i1", torch.special.i1, [(-20, 20)], True),
    ("i1e", torch.special.i1e, [(-40, 40)], True),
    ("ndtri", torch.special.ndtri, [(1e-12, 0.1), (0.1, 0.9), (0.9, 1 - 1e-9)], True),
    ("log_ndtr", torch.special.log_ndtr, [(-30, -1), (-1, 8)], True),
    ("erfcx", torch.special.erfcx, [(-5, 5), (5, 60), (60, 1e4)], True),
    ("entr", torch.special.entr, [(0.01, 5)], True),
]


@pytest.mark.parametrize("name,fn,ranges,diff", FUNCS, ids=[f[0] for f in FUNCS])
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
def test_special(name, fn, ranges, diff, dtype):
    x = torch.cat([rnd(24, lo, hi, dtype) for lo, hi in ranges] +
                  [torch.tensor(SPECIAL, dtype=dtype)])
    check(fn, x, dtype=dtype)
    lo, hi = ranges[-1]
    if diff:
        check(fn, rnd(16, lo, min(hi, 50), dtype), dtype=dtype, grads=(0,))


def test_integer_inputs_give_floats():
    x = torch.tensor([-3, -1, 0, 1, 2, 5])
    check(lambda a: [torch.lgamma(a), torch.digamma(a), torch.special.i0e(a),
                     torch.special.entr(a)], x, dtype=torch.float32)


# igamma / igammac: the runtime's double-precision series and continued
# fraction (runtime/incomplete_gamma.h). Eager's f64 kernel carries ~2e-9
# relative error, its f32 one ~1e-5: compared with eager at those bounds,
# and with closed forms (P(1, x) = 1 - e^-x, P(1/2, x) = erf(sqrt x)) at 1e-13.
@pytest.mark.parametrize("dtype,rtol", [(torch.float32, 5e-5), (torch.float64, 1e-8)])
@pytest.mark.parametrize("fn", [torch.igamma, torch.igammac])
def test_incomplete_gamma_matches_eager(fn, dtype, rtol):
    g = torch.Generator().manual_seed(11)
    a = torch.rand(3000, generator=g, dtype=dtype) * 30
    x = torch.rand(3000, generator=g, dtype=dtype) * 40
    edges_a = torch.tensor([0, -1, float("inf"), 2, 0, 3, float("nan")], dtype=dtype)
    edges_x = torch.tensor([1, 1, 2, float("inf"), 0, 0, 1], dtype=dtype)
    a, x = torch.cat([edges_a, a]), torch.cat([edges_x, x])
    eager, lazy = run_both(fn, a, x)
    assert_close(eager, lazy, rtol=rtol, atol=1e-6 if dtype == torch.float32 else 1e-12,
                 equal_nan=True)
    assert_all_native()


def test_incomplete_gamma_closed_forms_in_double():
    x = torch.linspace(0.01, 50, 500, dtype=torch.float64)
    _, (p1,) = run_both(lambda t: torch.igamma(torch.ones_like(t), t), x)
    _, (half,) = run_both(lambda t: torch.igamma(torch.full_like(t, 0.5), t), x)
    torch.testing.assert_close(p1, -torch.expm1(-x), rtol=1e-13, atol=1e-15)
    torch.testing.assert_close(half, torch.erf(x.sqrt()), rtol=1e-13, atol=1e-15)
    assert_all_native()
