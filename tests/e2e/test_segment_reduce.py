"""torch.segment_reduce and its gradient on the lazy device
(segment_reduce_kernel.cpp; torch's LTC runs both eagerly) against eager CPU:
every reduction, with and without `initial`, lengths and offsets (batched
along leading dims), empty segments, offsets that skip positions, and a
NaN, a zero and a tie inside segments (max/min/prod gradients follow
ATen's rules there). f32 at 1e-5; both ops compiled natively.
"""
import itertools

import pytest
import torch

import ltc_mlir
from lazy_testing import assert_all_native, eager_fallback_ops

g = torch.Generator().manual_seed(0)
SPECIAL = torch.randn(5, 5, generator=g)
SPECIAL[1, 2] = 0.0
SPECIAL[3, 1] = float("nan")
SPECIAL[0, 0] = SPECIAL[0, 1]

CASES = {
    "lengths_1d": (torch.randn(6, generator=g), dict(lengths=torch.tensor([2, 0, 3, 1]), axis=0)),
    "lengths_rows": (torch.randn(5, 4, generator=g), dict(lengths=torch.tensor([1, 4, 0]), axis=0)),
    "offsets_batched": (torch.randn(3, 7, 2, generator=g),
                        dict(offsets=torch.tensor([[0, 2, 2, 7], [1, 3, 5, 6], [0, 0, 4, 7]]), axis=1)),
    "offsets_special": (SPECIAL, dict(offsets=torch.tensor([[0, 1, 2, 4, 5]] * 5), axis=1)),
    "lengths_special": (SPECIAL, dict(lengths=torch.tensor([[2, 0, 3]] * 5), axis=1)),
}


def run(device, data, kwargs, reduce):
    x = data.to(device).requires_grad_()
    k = {a: (b.to(device) if isinstance(b, torch.Tensor) else b) for a, b in kwargs.items()}
    out = torch.segment_reduce(x, reduce, **k)
    cot = torch.randn(out.shape, generator=torch.Generator().manual_seed(1)).to(device)
    (grad,) = torch.autograd.grad((out * cot).sum(), [x])
    if device == "lazy":
        torch._lazy.mark_step()
    return out.detach().cpu(), grad.cpu()


@pytest.mark.parametrize("name,reduce,initial", list(itertools.product(
    sorted(CASES), ["sum", "mean", "max", "min", "prod"], [None, 2.0])))
def test_segment_reduce_and_gradient_match_eager(name, reduce, initial):
    data, kwargs = CASES[name]
    kwargs = dict(kwargs)
    if initial is not None:
        kwargs["initial"] = initial
    eager = run("cpu", data, kwargs, reduce)
    ltc_mlir.reset_metrics()
    import torch._lazy.metrics as lazy_metrics
    lazy_metrics.reset()
    lazy = run("lazy", data, kwargs, reduce)
    for e, l in zip(eager, lazy):
        assert e.shape == l.shape
        torch.testing.assert_close(l, e, rtol=1e-5, atol=1e-6, equal_nan=True)
    assert_all_native()
    assert eager_fallback_ops() == []


@pytest.mark.parametrize("lengths,message", [
    (torch.tensor([3, -1, 4]), "negative"),
    (torch.tensor([1, 2]), "sum"),
])
def test_invalid_lengths_raise_eagers_error(lengths, message):
    data = torch.randn(6)
    with pytest.raises(RuntimeError, match=message):
        torch.segment_reduce(data, "sum", lengths=lengths)
    with pytest.raises(RuntimeError, match=message):
        torch.segment_reduce(data.to("lazy"), "sum", lengths=lengths.to("lazy"))
