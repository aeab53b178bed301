"""torch.special's orthogonal polynomials, Bessel and Airy functions and
Hurwitz zeta on the lazy device against eager CPU (TorchToLinalg
OrthogonalPolynomials.cpp, BesselFunctions.cpp, SpecialFunctions.cpp).

Polynomials: every degree path ATen has (negative and NaN degrees give 0,
the interval ends, the trigonometric form of high-degree Chebyshev
polynomials, the recurrence), in the computation dtype as ATen. Bessel and
Airy in f64. Where ATen's own approximation is off (J/Y just above x = 5,
Ai on (-4, -2.09)), the tolerance is ATen's error, and a separate test pins
our value to the exact one. Every case asserts the op ran natively.
"""
from fractions import Fraction

import pytest
import torch

import ltc_mlir
from lazy_testing import assert_close, assert_ops_native, run_both

NAN, INF = float("nan"), float("inf")
POLYNOMIALS = ["chebyshev_polynomial_t", "chebyshev_polynomial_u",
               "chebyshev_polynomial_v", "chebyshev_polynomial_w",
               "shifted_chebyshev_polynomial_t", "shifted_chebyshev_polynomial_u",
               "shifted_chebyshev_polynomial_v", "shifted_chebyshev_polynomial_w",
               "hermite_polynomial_h", "hermite_polynomial_he",
               "laguerre_polynomial_l", "legendre_polynomial_p"]
TOL = {torch.float32: dict(rtol=1e-4, atol=1e-5), torch.float64: dict(rtol=1e-10, atol=1e-12)}


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64], ids=str)
@pytest.mark.parametrize("name", POLYNOMIALS)
def test_polynomial(name, dtype):
    ltc_mlir.reset_metrics()
    x = torch.cat([torch.linspace(-1.5, 1.5, 31, dtype=torch.float64),
                   torch.tensor([1.0, -1.0, 0.0, 0.5, 0.999999, NAN, INF])]).to(dtype)
    n = torch.tensor([0, 1, 2, 3, 5, 6, 7, 9, 12, -1, 2.5, NAN], dtype=dtype)
    fn = getattr(torch.special, name)
    eager, lazy = run_both(lambda a, b: fn(a[:, None], b[None, :]), x, n)
    assert_close(eager, lazy, equal_nan=True, **TOL[dtype])
    assert_ops_native(f"aten::special_{name}")


def test_polynomial_scalar_degree_and_integer_input():
    ltc_mlir.reset_metrics()
    x = torch.tensor([-2, -1, 0, 1, 3])
    eager, lazy = run_both(lambda a: [torch.special.legendre_polynomial_p(a * 0.25, 4),
                                      torch.special.hermite_polynomial_h(a, 3)], x)
    assert_close(eager, lazy)
    assert_ops_native("aten::special_legendre_polynomial_p", "aten::special_hermite_polynomial_h")


BESSEL = [
    # name, range, extra tolerance (ATen's own error)
    ("bessel_j0", (-30, 30), 1e-6), ("bessel_j1", (-30, 30), 1e-6),
    ("bessel_y0", (0, 30), 1e-6), ("bessel_y1", (0, 30), 1e-6),
    ("modified_bessel_i0", (-30, 30), 0), ("modified_bessel_i1", (-30, 30), 0),
    ("modified_bessel_k0", (0, 40), 0), ("modified_bessel_k1", (0, 40), 0),
    ("scaled_modified_bessel_k0", (0, 800), 0), ("scaled_modified_bessel_k1", (0, 800), 0),
    ("spherical_bessel_j0", (-30, 30), 0), ("airy_ai", (-30, 30), 3e-6),
]


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64], ids=str)
@pytest.mark.parametrize("name,bounds,aten_error", BESSEL, ids=[b[0] for b in BESSEL])
def test_bessel_and_airy(name, bounds, aten_error, dtype):
    ltc_mlir.reset_metrics()
    lo, hi = bounds
    x = torch.cat([torch.linspace(lo, hi, 301, dtype=torch.float64),
                   torch.tensor([0.0, 1e-8, 2.0, 1.99999, 1e3, NAN, INF, -INF])]).to(dtype)
    fn = getattr(torch.special, name)
    eager, lazy = run_both(fn, x)
    tol = dict(TOL[dtype])
    tol["atol"] = max(tol["atol"], aten_error)
    assert_close(eager, lazy, equal_nan=True, **tol)
    assert_ops_native(f"aten::special_{name}")


def exact_j0(x):
    z, term, total = Fraction(x) ** 2 / 4, Fraction(1), Fraction(0)
    for k in range(1, 90):
        total += term
        term = -term * z / (k * k)
    return float(total)


def test_bessel_j0_is_exact_where_aten_is_off():
    x = torch.tensor([5.1, 6.0, 7.3], dtype=torch.float64)
    lazy = torch.special.bessel_j0(x.to("lazy")).cpu()
    exact = torch.tensor([exact_j0(v) for v in x.tolist()], dtype=torch.float64)
    assert_close([exact], [lazy], rtol=1e-14, atol=1e-15)


def test_airy_ai_is_exact_where_aten_is_off():
    # Ai(-2.5) and Ai(-3) to 15 digits (DLMF tables); ATen is off by ~2e-7.
    x = torch.tensor([-2.5, -3.0], dtype=torch.float64)
    lazy = torch.special.airy_ai(x.to("lazy")).cpu()
    exact = torch.tensor([-0.112325067692966, -0.378814293677658], dtype=torch.float64)
    assert_close([exact], [lazy], rtol=1e-13, atol=1e-14)


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64], ids=str)
def test_hurwitz_zeta(dtype):
    ltc_mlir.reset_metrics()
    s = torch.tensor([0.5, 1.0, 1.5, 2.0, 3.0, 4.5, 10.0, -2.0, NAN], dtype=dtype)
    q = torch.tensor([0.5, 1.0, 2.0, 3.5, -1.0, -1.5, 0.0, 10.0, 1e3], dtype=dtype)
    eager, lazy = run_both(lambda a, b: torch.special.zeta(a[:, None], b[None, :]), s, q)
    assert_close(eager, lazy, equal_nan=True, rtol=1e-6 if dtype == torch.float32 else 1e-12,
                 atol=1e-12)
    assert_ops_native("aten::special_zeta")
