"""x.set_(y) on the lazy device (ltc_backend/lazy_kernels/storage_ops.cpp):
x joins y's alias group, so later writes through either are seen by both,
as with eager's shared storage; and what needs it: nn.utils.parametrize
(register_parametrization, assigning through right_inverse,
remove_parametrizations) and parametrizations.orthogonal, trained against
eager CPU and compiled natively."""
import copy

import pytest
import torch
import torch._lazy.metrics
import torch.nn.utils.parametrize as parametrize
from torch.nn.utils import parametrizations

import ltc_mlir
from lazy_testing import assert_all_native, eager_fallback_ops


def on_both(fn):
    """fn(device) -> list of tensors, run on CPU and on the lazy device."""
    eager = [t.clone() for t in fn("cpu")]
    ltc_mlir.reset_metrics()
    torch._lazy.metrics.reset()
    lazy = [t.cpu() for t in fn("lazy")]
    assert len(eager) == len(lazy)
    for e, l in zip(eager, lazy):
        assert e.shape == l.shape and e.dtype == l.dtype
        torch.testing.assert_close(l, e, rtol=1e-5, atol=1e-6)


def test_writes_are_shared_both_ways():
    def fn(device):
        a = torch.arange(6.).to(device)
        b = torch.full((2, 4), 3.).to(device)
        a.set_(b)
        b.add_(1)
        first = a.clone()
        a.mul_(2)
        torch._lazy.mark_step() if device == "lazy" else None
        b[0, 1] = -1.
        return [first, a, b, torch.tensor(a.shape)]
    on_both(fn)


def test_source_is_a_view():
    def fn(device):
        base = torch.arange(12.).view(3, 4).to(device)
        a = torch.zeros(5).to(device)
        a.set_(base[1])
        base.add_(10)
        seen = a.clone()
        a.fill_(-2)
        return [seen, a, base]
    on_both(fn)


def test_earlier_views_keep_the_old_values():
    def fn(device):
        a = torch.arange(4.).to(device)
        old_view = a[1:3]
        a.set_(torch.ones(7).to(device))
        a.add_(1)
        old_view.mul_(3)
        return [a, old_view]
    on_both(fn)


def test_set_to_itself_and_metadata_frozen_tensors():
    def fn(device):
        a = torch.arange(4.).to(device)
        a.set_(a)
        d = torch.zeros(2).to(device)
        d.data.set_(torch.ones(3).to(device))  # eager allows it through .data
        return [a, d]
    on_both(fn)


class Symmetric(torch.nn.Module):
    def forward(self, x):
        return x.triu() + x.triu(1).transpose(-1, -2)


class Skew(torch.nn.Module):
    def forward(self, x):
        a = x.triu(1)
        return a - a.transpose(-1, -2)

    def right_inverse(self, a):
        return a.triu(1)


def train(device, model, steps=3):
    model = model.to(device)
    opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    g = torch.Generator().manual_seed(1)
    losses = []
    for _ in range(steps):
        x = torch.randn(5, model[0].in_features, generator=g).to(device)
        loss = model(x).pow(2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        if device == "lazy":
            torch._lazy.mark_step()
        losses.append(loss.detach())
    return losses + [p.detach() for p in model.state_dict().values()]


@pytest.mark.parametrize("parametrization", ["symmetric", "skew", "orthogonal",
                                             "orthogonal_cayley", "orthogonal_householder"])
def test_parametrized_training_matches_eager(parametrization):
    torch.manual_seed(0)
    width = 5 if parametrization == "orthogonal_householder" else 4
    model = torch.nn.Sequential(torch.nn.Linear(4, width), torch.nn.Tanh(),
                                torch.nn.Linear(width, 4))

    def build():
        torch.manual_seed(1)  # orthogonal's trivialization draws a random base
        m = copy.deepcopy(model)
        if parametrization == "symmetric":
            parametrize.register_parametrization(m[2], "weight", Symmetric())
        elif parametrization == "skew":
            parametrize.register_parametrization(m[2], "weight", Skew())
        else:
            kind = {"orthogonal": None, "orthogonal_cayley": "cayley",
                    "orthogonal_householder": "householder"}[parametrization]
            layer = m[0] if kind == "householder" else m[2]
            parametrizations.orthogonal(layer, orthogonal_map=kind)
        return m

    eager = train("cpu", build())
    ltc_mlir.reset_metrics()
    torch._lazy.metrics.reset()
    lazy = [t.cpu() for t in train("lazy", build())]
    for e, l in zip(eager, lazy):
        torch.testing.assert_close(l, e, rtol=1e-4, atol=1e-5)
    assert eager_fallback_ops() == []
    assert_all_native()


def test_assign_and_remove_parametrization_keep_the_parameter():
    def fn(device):
        layer = torch.nn.Linear(3, 3).to(device)
        parametrize.register_parametrization(layer, "weight", Skew())
        original = layer.parametrizations.weight.original
        w = torch.arange(9.).view(3, 3)
        layer.weight = (w - w.t()).to(device)  # through right_inverse: original.set_
        assigned = layer.weight.detach().clone()
        parametrize.remove_parametrizations(layer, "weight", leave_parametrized=True)
        assert layer.weight is original
        with torch.no_grad():
            layer.weight.add_(1)
        return [assigned, layer.weight.detach(), original.detach()]
    on_both(fn)


def test_errors_are_clear():
    a = torch.zeros(3).to("lazy")
    # set_'s own check, eager's message.
    with pytest.raises(RuntimeError, match="Could not set tensor of type double to a tensor of type float"):
        a.set_(torch.zeros(3, dtype=torch.float64).to("lazy"))
    with pytest.raises(RuntimeError, match="between two lazy tensors"):
        a.set_(torch.zeros(3))
    p = torch.nn.Parameter(torch.zeros(3).to("lazy"))
    with pytest.raises(RuntimeError, match="leaf Variable that requires grad"):
        p.set_(torch.ones(3).to("lazy"))
    with pytest.raises(RuntimeError, match="Lazy tensors have no storage"):
        a.set_(torch.zeros(3).to("lazy").storage())
    with pytest.raises(RuntimeError, match="not supported on lazy tensors: it addresses raw storage"):
        a.set_(torch.zeros(3).storage())


def test_set_in_inference_mode():
    # Without the autograd keys set_ reaches the Functionalize kernel.
    def fn(device):
        x = torch.randn(3, generator=torch.Generator().manual_seed(0)).to(device)
        with torch.inference_mode():
            y = torch.arange(4.).to(device)
            before = x._version
            x.set_(y)
            bumped = x._version - before
            y.add_(1)
            return [x.clone(), torch.tensor([bumped, int(x.is_inference())])]
    on_both(fn)
