"""Shifts, gcd, lcm and nextafter on the lazy device against eager CPU
(TorchToLinalg IntegerMath.cpp). torch has no Lazy kernel for any of them:
ours keep them in the graph. Shift amounts cover negative values and
amounts at and beyond the bit width, which C leaves undefined and torch 2.x
defines (a left shift gives 0, a signed right shift the sign fill); gcd/lcm cover zeros, negatives and the type's maximum; nextafter covers
zeros, subnormals, infinities, NaN, equal arguments and bf16's grid.
"""
import pytest
import torch

import ltc_mlir
from lazy_testing import assert_all_native, assert_ops_native, run_both

INT_DTYPES = [torch.int8, torch.int16, torch.int32, torch.int64, torch.uint8]


def values_and_shifts(dtype):
    info = torch.iinfo(dtype)
    bits = info.bits
    a = torch.tensor([info.min, -77, -1, 0, 1, 5, 100, info.max], dtype=torch.int64)
    a = a.clamp(info.min, info.max).to(dtype)
    s = torch.tensor([-3, -1, 0, 1, 3, bits - 1, bits, bits + 5], dtype=torch.int64)
    s = s.clamp(info.min, info.max).to(dtype)
    return a[:, None], s[None, :]


@pytest.mark.parametrize("dtype", INT_DTYPES, ids=str)
def test_shifts(dtype):
    ltc_mlir.reset_metrics()
    a, s = values_and_shifts(dtype)
    eager, lazy = run_both(lambda x, y: [torch.bitwise_left_shift(x, y),
                                         torch.bitwise_right_shift(x, y),
                                         x << y, x >> y, x << 2, x >> 3], a, s)
    for e, l in zip(eager, lazy):
        assert torch.equal(e, l), (e, l)
    assert_all_native()
    assert_ops_native("aten::bitwise_left_shift", "aten::bitwise_right_shift")


@pytest.mark.parametrize("dtype", INT_DTYPES, ids=str)
def test_gcd_lcm(dtype):
    ltc_mlir.reset_metrics()
    info = torch.iinfo(dtype)
    a = torch.tensor([0, 0, 12, -12, 7, 1, info.max, 18, 100], dtype=torch.int64)
    b = torch.tensor([0, 5, 18, 8, -21, 1, 3, 0, 75], dtype=torch.int64)
    a, b = a.clamp(info.min, info.max).to(dtype), b.clamp(info.min, info.max).to(dtype)
    eager, lazy = run_both(lambda x, y: [torch.gcd(x, y), torch.lcm(x, y),
                                         torch.gcd(x[:, None], y[None, :])], a, b)
    for e, l in zip(eager, lazy):
        assert torch.equal(e, l), (e, l)
    assert_ops_native("aten::gcd", "aten::lcm")


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.bfloat16], ids=str)
def test_nextafter(dtype):
    ltc_mlir.reset_metrics()
    info = torch.finfo(dtype)
    nan, inf = float("nan"), float("inf")
    x = torch.tensor([0.0, -0.0, 0.0, 1.0, 1.0, -1.0, -1.0, info.tiny, info.max, inf, -inf,
                      nan, 2.5, 3.0, info.tiny / 4], dtype=dtype)
    y = torch.tensor([1.0, -1.0, -0.0, 2.0, 0.0, -2.0, 5.0, 0.0, inf, 0.0, 0.0,
                      1.0, nan, 3.0, -1.0], dtype=dtype)
    eager, lazy = run_both(torch.nextafter, x, y)
    e, l = eager[0], lazy[0]
    assert torch.equal(torch.isnan(e), torch.isnan(l))
    mask = ~torch.isnan(e)
    # Bit-exact, signed zeros included.
    assert torch.equal(e[mask], l[mask]) and torch.equal(e[mask].signbit(), l[mask].signbit())
    assert_ops_native("aten::nextafter")
