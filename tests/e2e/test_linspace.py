"""torch.linspace / torch.logspace on the lazy device (linspace_kernel.cpp;
torch's LTC runs them eagerly) against eager CPU, natively.

Eager's vectorized loop computes whole chunks from their first index, which
moves the last bit of some values by the host's vector width (AVX2 or
AVX-512): f32/f64 are compared to 1 ulp of the value (rtol 2 eps), f16/bf16
to 1 ulp of their format. Integer linspace is compared with the exact ramp
truncated: eager truncates the step to an integer in its vector loop, a
staircase that differs between hosts.
"""
import pytest
import torch

import ltc_mlir
from lazy_testing import assert_all_native, eager_fallback_ops

RANGES = [(0, 1, 5), (-1, 1, 7), (0.5, 10.7, 5), (3, -2.5, 11), (0, 1, 1), (2, 2, 0),
          (-1, 1, 1000), (1e-3, 7, 33)]
ULP = {torch.float32: 2 ** -23, torch.float64: 2 ** -52, torch.float16: 2 ** -10,
       torch.bfloat16: 2 ** -7}


def lazy(fn):
    import torch._lazy.metrics as lazy_metrics
    lazy_metrics.reset()
    ltc_mlir.reset_metrics()
    out = fn("lazy")
    torch._lazy.mark_step()
    out = out.cpu()
    assert eager_fallback_ops() == []
    if out.numel():
        assert_all_native()
    return out


@pytest.mark.parametrize("dtype", list(ULP))
@pytest.mark.parametrize("start,end,steps", RANGES)
def test_linspace_matches_eager(start, end, steps, dtype):
    eager = torch.linspace(start, end, steps, dtype=dtype)
    got = lazy(lambda d: torch.linspace(start, end, steps, dtype=dtype, device=d))
    assert got.dtype == dtype and got.shape == eager.shape
    ulp = ULP[dtype]
    torch.testing.assert_close(got.double(), eager.double(), rtol=2 * ulp,
                               atol=2 * ulp * max(abs(start), abs(end)))
    if steps:
        assert got[0].item() == eager[0].item() and got[-1].item() == eager[-1].item()


@pytest.mark.parametrize("dtype", [torch.int64, torch.int32, torch.uint8])
def test_integer_linspace_is_the_truncated_ramp(dtype):
    got = lazy(lambda d: torch.linspace(0, 7, 33, dtype=dtype, device=d))
    assert torch.equal(got, torch.linspace(0, 7, 33, dtype=torch.float64).to(dtype))


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
def test_logspace_matches_eager(dtype):
    for start, end, steps, base in [(0, 2, 5, 10.0), (-1, 1, 7, 2.0), (0, 3, 100, 1.5)]:
        eager = torch.logspace(start, end, steps, base, dtype=dtype)
        got = lazy(lambda d: torch.logspace(start, end, steps, base, dtype=dtype, device=d))
        torch.testing.assert_close(got, eager, rtol=1e-6, atol=0)


def test_negative_steps_raise_eagers_error():
    with pytest.raises(RuntimeError, match="number of steps must be non-negative"):
        torch.linspace(0, 1, -1, device="lazy")
