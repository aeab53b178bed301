"""torch.rot90 on the lazy device (ltc_backend/lazy_kernels/rot90_kernel.cpp):
every k (negative and beyond 4), dim pairs in either order and negative,
forward and backward, in one native graph; bad dims raise eager's error.
Before, k = 1 and 3 reached the eager fallback through as_strided_.
"""
import pytest
import torch
import torch._lazy.metrics

import ltc_mlir
from lazy_testing import assert_all_native, assert_close, eager_fallback_ops, run_both

g = torch.Generator().manual_seed(90)


@pytest.mark.parametrize("k", [-5, -1, 0, 1, 2, 3, 4, 7])
@pytest.mark.parametrize("dims", [(0, 1), (1, 0), (-1, 0), (0, 2)], ids=str)
def test_rot90(k, dims):
    ltc_mlir.reset_metrics()
    torch._lazy.metrics.reset()
    x = torch.randn(3, 4, 5, generator=g)
    eager, lazy = run_both(lambda t: torch.rot90(t * 2.0, k, dims), x, grad_inputs=(0,))
    assert_close(eager, lazy, rtol=0, atol=0)
    assert_all_native()
    assert eager_fallback_ops() == []


@pytest.mark.parametrize("dims", [(0,), (0, 0), (0, 3)], ids=str)
def test_rot90_bad_dims_raise_eagers_error(dims):
    x = torch.randn(3, 4)
    # torch 2.x raises IndexError for a dim out of range, RuntimeError else.
    with pytest.raises((RuntimeError, IndexError)) as eager:
        torch.rot90(x, 1, dims)
    with pytest.raises((RuntimeError, IndexError)) as lazy:
        torch.rot90(x.to("lazy"), 1, dims)
    assert lazy.type is eager.type
    assert str(eager.value).split(",")[0] in str(lazy.value)
