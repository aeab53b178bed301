"""Tensor.unfold (unfold_copy) and its gradient (unfold_backward) on the lazy
device vs eager CPU (TorchToLinalg Unfold.cpp): overlapping, touching and
gapped windows, negative dims, f32/f64/int64; both ops compiled natively."""
import pytest
import torch

import ltc_mlir
from lazy_testing import assert_all_native, assert_ops_native


@pytest.fixture(autouse=True)
def _init():
    ltc_mlir.init()
    ltc_mlir.reset_metrics()


CASES = [((2, 9), 1, 4, 3), ((10,), 0, 3, 1), ((3, 7, 2), 1, 2, 2), ((5, 4), 0, 5, 2),
         ((6,), 0, 2, 4), ((4, 6), -1, 3, 2)]


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
@pytest.mark.parametrize("shape,dim,size,step", CASES)
def test_unfold_and_gradient_match_eager(shape, dim, size, step, dtype):
    g = torch.Generator().manual_seed(len(shape) * 10 + size)
    x = torch.randn(*shape, generator=g, dtype=dtype)
    results = []
    for device in ("cpu", "lazy"):
        t = x.detach().clone().to(device).requires_grad_()
        y = t.unfold(dim, size, step)
        cot = torch.randn(y.shape, generator=torch.Generator().manual_seed(1), dtype=dtype)
        (y * cot.to(device)).sum().backward()
        if device == "lazy":
            torch._lazy.mark_step()
        results.append((y.detach().cpu(), t.grad.cpu()))
    torch.testing.assert_close(results[1][0], results[0][0], rtol=0, atol=0)
    torch.testing.assert_close(results[1][1], results[0][1], rtol=1e-6, atol=1e-6)
    assert_ops_native("aten::unfold_copy", "aten::unfold_backward")
    assert_all_native()


def test_unfold_int64_sliding_window_sum():
    x = torch.arange(20).view(4, 5)
    eager = x.unfold(1, 3, 1).sum(-1)
    lazy = x.to("lazy").unfold(1, 3, 1).sum(-1).cpu()
    assert torch.equal(lazy, eager)
    assert_all_native()


@pytest.mark.parametrize("size", [0, 1])
def test_unfold_of_a_zero_dim_tensor(size):
    # A 0-d tensor has one window of size 1 (or none of size 0): [size].
    x = torch.tensor(2.5)
    eager = x.unfold(0, size, 1)
    t = x.to("lazy").requires_grad_()
    y = t.unfold(0, size, 1)
    (y * 3).sum().backward()
    torch._lazy.mark_step()
    assert y.shape == eager.shape
    torch.testing.assert_close(y.detach().cpu(), eager, rtol=0, atol=0)
    torch.testing.assert_close(t.grad.cpu(), torch.tensor(3.0 * size), rtol=0, atol=0)
    assert_all_native()
