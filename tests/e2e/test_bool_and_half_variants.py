"""Bool and f16/bf16 variants of ops whose float/int forms were native and
whose other dtypes fell back (found by tools/op_sweep with --dtypes
bool,bfloat16): max/min of bools are or/and (fmax, fmin, clamp_min/
clamp_max with a bool bound), a bool sum is any and a bool product all
(sum/nansum/prod with dtype=torch.bool), nan_to_num leaves bools alone, and
logsumexp of f16/bf16 computes in f32 with one rounding (eager rounds each
of its steps, so ours is checked against the f64 value too).
"""
import pytest
import torch

import ltc_mlir
from lazy_testing import assert_all_native, assert_close, run_both

g = torch.Generator().manual_seed(5)
B = torch.rand(4, 7, generator=g) > 0.5
OTHER = torch.rand(7, generator=g) > 0.5

BOOL_CASES = {
    "fmax": lambda x, o: torch.fmax(x, o),
    "fmin": lambda x, o: torch.fmin(x, o),
    "clamp_min_tensor": lambda x, o: torch.clamp_min(x, o),
    "clamp_max_tensor": lambda x, o: torch.clamp_max(x, o),
    "nan_to_num": lambda x, o: torch.nan_to_num(x),
    "sum_dim_bool": lambda x, o: torch.sum(x, 1, dtype=torch.bool),
    "sum_all_bool": lambda x, o: torch.sum(x & o, dtype=torch.bool),
    "nansum_bool": lambda x, o: torch.nansum(x, 0, dtype=torch.bool),
    "prod_bool": lambda x, o: torch.prod(x | o, 1, dtype=torch.bool),
}


@pytest.mark.parametrize("name", list(BOOL_CASES))
def test_bool_variant(name):
    ltc_mlir.reset_metrics()
    eager, lazy = run_both(BOOL_CASES[name], B, OTHER)
    assert eager[0].dtype == torch.bool
    assert torch.equal(eager[0], lazy[0])
    assert_all_native()


@pytest.mark.parametrize("dtype", [torch.bfloat16], ids=str)
def test_logsumexp_half_types_in_f32(dtype):
    ltc_mlir.reset_metrics()
    x = (torch.randn(6, 300, generator=g) * 4).to(dtype)
    eager, lazy = run_both(lambda t: torch.logsumexp(t, 1), x)
    assert lazy[0].dtype == dtype
    exact = torch.logsumexp(x.double(), 1)
    lazy_error = (lazy[0].double() - exact).abs().max()
    eager_error = (eager[0].double() - exact).abs().max()
    assert lazy_error <= eager_error, (lazy_error, eager_error)
    assert_close(eager, lazy, rtol=2e-2, atol=2e-2)
    assert_all_native()


def test_logsumexp_float16_computed_natively():
    # The lazy device computes f16 logsumexp like bf16: compared with the
    # f32 result rounded to f16 (torch 2.14's eager CPU also runs it in f16).
    ltc_mlir.reset_metrics()
    x = torch.randn(6, 300, generator=g) * 4
    lazy = torch.logsumexp(x.half().to("lazy"), 1)
    torch._lazy.mark_step()
    ref = torch.logsumexp(x.half().float(), 1).half()
    assert_close([ref], [lazy.cpu()], rtol=2e-3, atol=2e-3)
    assert_all_native()
