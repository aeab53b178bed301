"""exp, expm1, log1p and erf of f32 tensors are computed by polynomial
approximations in the vectorized code (ltc-approximate-vector-math) instead
of per-lane libm calls (tanh stays libm's; it is checked here as well).

Accuracy is measured in ulps of the float64 result over each function's
range, with an explicit bound (eager's Sleef kernels stay within 1 ulp;
these within ~5), and special values (NaN, infinities, signed zeros, the
overflow and underflow limits) must equal eager's.
"""
import pytest
import torch

import ltc_mlir
from lazy_testing import assert_all_native

g = torch.Generator().manual_seed(4)

RANGES = {
    "exp": (torch.cat([torch.linspace(-100, 90, 50000), torch.randn(20000, generator=g) * 3]), 6.0),
    "expm1": (torch.cat([torch.linspace(-20, 20, 50000), torch.randn(20000, generator=g) * 1e-4]), 3.0),
    "log1p": (torch.cat([torch.linspace(-0.999, 100, 50000), torch.randn(20000, generator=g) * 1e-4]), 3.0),
    "tanh": (torch.cat([torch.linspace(-12, 12, 50000), torch.randn(20000, generator=g) * 1e-2]), 5.0),
    "erf": (torch.cat([torch.linspace(-6, 6, 50000), torch.randn(20000, generator=g) * 1e-2]), 5.0),
}
SPECIAL = torch.tensor([0.0, -0.0, float("inf"), float("-inf"), float("nan"), 88.7, 89.0,
                        -87.3, -104.0, 1.0, -1.0, 1e-30, -1e-30, 20.0, -20.0, 5.0] * 2)


def ulps(got, ref):
    """|got - ref| in units of the f32 spacing at ref (finite, normal refs)."""
    ref32 = ref.float().abs()
    spacing = (torch.nextafter(ref32, torch.tensor(float("inf"))) - ref32).double()
    return (got.double() - ref).abs() / spacing


@pytest.mark.parametrize("name", sorted(RANGES))
def test_accuracy_in_ulps(name):
    x, bound = RANGES[name]
    fn = getattr(torch, name)
    ltc_mlir.reset_metrics()
    got = fn(x.to("lazy")).cpu()
    assert_all_native()
    ref = fn(x.double())
    normal = torch.isfinite(ref.float()) & (ref.abs() >= 1.2e-38)
    err = ulps(got[normal], ref[normal])
    assert err.max() <= bound, (name, float(err.max()), x[normal][err.argmax()].item())
    # Outside the normal range: the same overflow / underflow as eager.
    eager = fn(x)
    assert torch.equal(torch.isinf(got), torch.isinf(eager))
    assert torch.equal(got[~normal & (eager == 0)], eager[~normal & (eager == 0)])


@pytest.mark.parametrize("name", sorted(RANGES))
def test_special_values_match_eager(name):
    fn = getattr(torch, name)
    got, eager = fn(SPECIAL.to("lazy")).cpu(), fn(SPECIAL)
    assert torch.equal(torch.isnan(got), torch.isnan(eager))
    finite = ~torch.isnan(eager)
    assert torch.allclose(got[finite], eager[finite], rtol=1e-6, atol=0)
    assert torch.equal(torch.signbit(got[finite & (eager == 0)]), torch.signbit(eager[finite & (eager == 0)]))
