"""Activations of mobile CNNs, end to end: hardtanh / ReLU6 (in place, as
nn.ReLU6(inplace=True)), hardswish, hardsigmoid and silu, forward and
backward, lazy device vs eager CPU. Each case asserts the values (explicit
tolerances), that the graph ran as native code and that no op went through
the per-op eager fallback (torch's LTC has no Lazy kernel for hardtanh,
hardtanh_backward, hardswish(_backward), hardsigmoid_backward: ours is
registered by ltc_mlir.init()).
"""
import pytest
import torch
import torch.nn as nn
import torch.nn.functional as F

import ltc_mlir
from lazy_testing import assert_all_native, assert_close, run_both

g = torch.Generator().manual_seed(777)


def rnd(*shape, dtype=torch.float32):
    return torch.randn(*shape, generator=g).to(dtype)


def with_boundaries(x, values):
    """x with some elements set exactly to `values` (the kinks)."""
    flat = x.reshape(-1).clone()
    for i, v in enumerate(values):
        flat[i * 3] = v
    return flat.reshape(x.shape)


def test_relu6_inplace_forward_backward_matches_eager_at_the_bounds():
    # The input of ReLU6 is computed (conv/bn output in a real model), so
    # the in-place op writes a graph value; autograd's hardtanh_backward
    # reads the result: gradient 0 at exactly 0 and 6, like eager.
    x = with_boundaries(rnd(4, 37) * 5, [0.0, 6.0, -0.0, 5.999, 0.001, -3.0, 9.0])

    def fn(a):
        y = a * 1.0
        return nn.ReLU6(inplace=True)(y)

    eager, lazy = run_both(fn, x, grad_inputs=(0,))
    assert_close(eager, lazy, rtol=0, atol=0)
    grad = lazy[1]
    assert grad.reshape(-1)[0] == 0 and grad.reshape(-1)[3] == 0  # at 0 and 6
    assert_all_native()


@pytest.mark.parametrize("bounds", [(-1.0, 1.0), (0.0, 6.0), (-2.5, 0.5)])
def test_hardtanh_functional(bounds):
    lo, hi = bounds
    x = with_boundaries(rnd(3, 5, 7) * 4, [lo, hi, 0.5 * (lo + hi)])
    eager, lazy = run_both(lambda a: F.hardtanh(a, lo, hi), x, grad_inputs=(0,))
    assert_close(eager, lazy, rtol=0, atol=0)
    assert_all_native()


def test_hardtanh_float64():
    x = rnd(6, 11, dtype=torch.float64) * 8
    eager, lazy = run_both(lambda a: F.relu6(a), x, grad_inputs=(0,))
    assert_close(eager, lazy, rtol=0, atol=0)
    assert_all_native()


def test_relu6_module_trains_like_eager():
    torch.manual_seed(0)
    eager = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.BatchNorm2d(8), nn.ReLU6(inplace=True),
                          nn.Conv2d(8, 4, 1), nn.ReLU6(inplace=True), nn.Flatten(),
                          nn.Linear(4 * 6 * 6, 3))
    import copy
    lazy = copy.deepcopy(eager).to("lazy")
    x = rnd(2, 3, 6, 6) * 2
    y = torch.tensor([0, 2])
    grads = []
    for model, dev in ((eager, "cpu"), (lazy, "lazy")):
        loss = F.cross_entropy(model(x.to(dev)), y.to(dev))
        loss.backward()
        if dev == "lazy":
            torch._lazy.mark_step()
        grads.append([p.grad.cpu() for p in model.parameters()])
    for e, l in zip(*grads):
        torch.testing.assert_close(l, e, rtol=1e-4, atol=1e-5)
    assert_all_native()


# hardswish/hardsigmoid: ATen's formulas, exact up to an ulp of the division
# by 6 (vectorized ATen multiplies some terms in another order).
@pytest.mark.parametrize("fn", [F.hardswish, F.hardsigmoid], ids=["hardswish", "hardsigmoid"])
def test_hard_activations(fn):
    x = with_boundaries(rnd(5, 29) * 4, [-3.0, 3.0, 0.0, -2.999, 2.999, -7.0, 7.0])
    eager, lazy = run_both(fn, x, grad_inputs=(0,))
    assert_close(eager, lazy, rtol=1e-6, atol=1e-7)
    assert_all_native()


# silu: exp differs from ATen's vectorized (Sleef) exp by an ulp or so.
def test_silu():
    x = rnd(4, 31) * 6
    eager, lazy = run_both(F.silu, x, grad_inputs=(0,))
    assert_close(eager, lazy, rtol=1e-5, atol=1e-6)
    assert_all_native()


def test_hard_activations_float64():
    x = rnd(3, 13, dtype=torch.float64) * 5
    for fn in (F.hardswish, F.hardsigmoid, F.silu):
        eager, lazy = run_both(fn, x, grad_inputs=(0,))
        assert_close(eager, lazy, rtol=1e-12, atol=1e-13)
    assert_all_native()
