"""torch._foreach_* ops and the foreach=True optimizers on lazy tensors:
torch 2.14's CompositeExplicitAutograd kernels run the per-tensor op on
every element; the values match eager, and the step traces into one graph
compiled natively."""
import pytest
import torch
import torch._lazy

import ltc_mlir
from lazy_testing import assert_all_native, eager_fallback_ops, eager_then_lazy


def _train(device, make_optimizer, steps=3):
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(6, 5), torch.nn.Tanh(), torch.nn.Linear(5, 3))
    model = model.to(device)
    opt = make_optimizer(model.parameters())
    g = torch.Generator().manual_seed(1)
    for _ in range(steps):
        x = torch.randn(8, 6, generator=g).to(device)
        opt.zero_grad()
        model(x).square().mean().backward()
        opt.step()
        if device == "lazy":
            torch._lazy.mark_step()
    return [p.detach().cpu() for p in model.parameters()]


OPTIMIZERS = {
    "sgd_momentum_nesterov": lambda p: torch.optim.SGD(
        p, lr=0.1, momentum=0.9, nesterov=True, weight_decay=0.01, foreach=True),
    "adam": lambda p: torch.optim.Adam(p, lr=0.01, weight_decay=0.01, foreach=True),
    "adam_amsgrad": lambda p: torch.optim.Adam(p, lr=0.01, amsgrad=True, foreach=True),
    "adamw": lambda p: torch.optim.AdamW(p, lr=0.01, foreach=True),
    "adagrad": lambda p: torch.optim.Adagrad(p, lr=0.1, foreach=True),
    "rmsprop_centered": lambda p: torch.optim.RMSprop(
        p, lr=0.01, momentum=0.5, centered=True, foreach=True),
    "adadelta": lambda p: torch.optim.Adadelta(p, foreach=True),
    "adamax": lambda p: torch.optim.Adamax(p, lr=0.01, foreach=True),
    "nadam": lambda p: torch.optim.NAdam(p, lr=0.01, foreach=True),
    "radam": lambda p: torch.optim.RAdam(p, lr=0.01, foreach=True),
}


@pytest.mark.parametrize("name", sorted(OPTIMIZERS))
def test_foreach_optimizer_trains_like_eager(name):
    eager, lazy = eager_then_lazy(lambda device: _train(device, OPTIMIZERS[name]))
    for e, l in zip(eager, lazy):
        torch.testing.assert_close(l, e, rtol=1e-4, atol=1e-5)
    assert_all_native()
    assert eager_fallback_ops() == []


def _lists():
    g = torch.Generator().manual_seed(0)
    a = [torch.randn(3, 4, generator=g), torch.randn(5, generator=g)]
    b = [torch.rand(3, 4, generator=g) + 0.5, torch.rand(5, generator=g) + 0.5]
    return a, b


CASES = {
    "sqrt": lambda a, b: torch._foreach_sqrt(b),
    "exp_": lambda a, b: torch._foreach_exp_(a) or a,
    "add.List_alpha": lambda a, b: torch._foreach_add(a, b, alpha=2),
    "sub_.Scalar": lambda a, b: torch._foreach_sub_(a, 1.5) or a,
    "mul_.List": lambda a, b: torch._foreach_mul_(a, b) or a,
    "div.ScalarList": lambda a, b: torch._foreach_div(a, [2.0, -3.0]),
    "norm": lambda a, b: torch._foreach_norm(a),
    "norm_ord1": lambda a, b: torch._foreach_norm(a, 1),
    "maximum": lambda a, b: torch._foreach_maximum(a, b),
    "minimum_": lambda a, b: torch._foreach_minimum_(a, b) or a,
    "addcdiv.Scalar": lambda a, b: torch._foreach_addcdiv(a, a, b, 0.5),
    "addcmul_.ScalarList": lambda a, b: torch._foreach_addcmul_(a, a, b, [1.0, -2.0]) or a,
    "zero_": lambda a, b: torch._foreach_zero_(a) or a,
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_foreach_op_matches_eager(name):
    def run(device):
        a, b = _lists()
        out = CASES[name]([t.to(device) for t in a], [t.to(device) for t in b])
        if device == "lazy":
            torch._lazy.mark_step()
        assert all(t.device.type == device for t in out)
        return [t.cpu() for t in out]
    eager, lazy = eager_then_lazy(run)
    assert len(lazy) == len(eager)
    for e, l in zip(eager, lazy):
        torch.testing.assert_close(l, e, rtol=1e-6, atol=1e-6)
    assert_all_native()
    assert eager_fallback_ops() == []


@pytest.mark.parametrize("call", [
    lambda a, b: torch._foreach_add(a, b[:1]),
    lambda a, b: torch._foreach_mul_(a, [2.0]),
])
def test_foreach_length_mismatch_raises_like_eager(call):
    ltc_mlir.init()
    a, b = _lists()
    with pytest.raises(RuntimeError) as eager:
        call(a, b)
    la, lb = [t.to("lazy") for t in a], [t.to("lazy") for t in b]
    with pytest.raises(RuntimeError) as lazy:
        call(la, lb)
    assert str(lazy.value).splitlines()[0] == str(eager.value).splitlines()[0]
