"""Partial graphs: a graph holding ops the compiler cannot lower runs its other
ops natively, in segments, and only those ops through ATen's CPU kernels.

The unlowerable ops are chosen with ltc_mlir.set_disabled_ops (the emitter
then treats them as unsupported), so these tests do not depend on which ops
happen to lack a lowering today."""
import warnings

import pytest
import torch
import torch.nn.functional as F

import ltc_mlir
from lazy_testing import assert_close, run_both


@pytest.fixture(autouse=True)
def quiet():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        yield


def test_unlowerable_op_in_the_middle_runs_alone(disabled_ops):
    disabled_ops("aten::topk")
    x, w = torch.randn(6, 8), torch.randn(8, 8) * 0.3

    def f(x, w):
        h = torch.tanh(x @ w) * 2.0
        v, i = torch.topk(h, 3, dim=1)
        return (v.sigmoid() + 1).sum(1), i

    eager, lazy = run_both(f, x, w, grad_inputs=(1,))
    assert_close(eager, lazy)
    m = ltc_mlir.metrics()
    # The forward graph: mm, tanh, mul | topk | sigmoid, add, sum. topk's
    # backward scatters through the eager fallback (no lazy kernel).
    assert m["fallback_ops"].get("aten::topk", 0) >= 1, m["fallback_ops"]
    assert set(m["fallback_ops"]) <= {"aten::topk", "aten::scatter.src", "aten::scatter"}, m
    for op in ("aten::mm", "aten::tanh", "aten::sigmoid", "aten::sum"):
        assert m["native_ops"].get(op, 0) >= 1, (op, m["native_ops"])
    assert all("partially native" in r for r in m["fallback_reasons"]), m["fallback_reasons"]


def test_segments_before_and_after_and_values_through_lists(disabled_ops):
    # The unlowerable op is first and last in its graph, and its result
    # reaches a native op through a list (cat).
    disabled_ops("aten::frac")
    a = torch.randn(4, 5) * 3

    def f(x):
        y = torch.frac(x)
        z = torch.cat([y, x * 2.0], dim=0).relu()
        return torch.frac(z.sum(0) * 1.5)

    eager, lazy = run_both(f, a)
    assert_close(eager, lazy)
    m = ltc_mlir.metrics()
    assert m["fallback_ops"] == {"aten::frac": 2}, m["fallback_ops"]
    assert {"aten::cat", "aten::relu", "aten::sum", "aten::mul"} <= set(m["native_ops"]), m


def test_training_loop_with_an_unlowerable_activation_matches_eager(disabled_ops):
    disabled_ops("aten::gelu", "aten::gelu_backward")
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(10, 16), torch.nn.GELU(), torch.nn.Linear(16, 3))
    import copy
    lazy_model = copy.deepcopy(model).to("lazy")
    opts = [torch.optim.SGD(m.parameters(), lr=0.1, momentum=0.9) for m in (model, lazy_model)]
    for step in range(3):
        x, y = torch.randn(8, 10), torch.randint(0, 3, (8,))
        for net, opt, dev in ((model, opts[0], "cpu"), (lazy_model, opts[1], "lazy")):
            loss = F.cross_entropy(net(x.to(dev)), y.to(dev))
            opt.zero_grad()
            loss.backward()
            opt.step()
        torch._lazy.mark_step()
    for p, q in zip(model.parameters(), lazy_model.parameters()):
        torch.testing.assert_close(q.detach().cpu(), p.detach(), rtol=1e-5, atol=1e-6)
    m = ltc_mlir.metrics()
    assert set(m["fallback_ops"]) == {"aten::gelu", "aten::gelu_backward"}, m["fallback_ops"]
    assert m["fallback_ops"]["aten::gelu"] == 3, m["fallback_ops"]  # once per step
    for op in ("aten::addmm", "aten::mm", "aten::_log_softmax"):
        assert m["native_ops"].get(op, 0) >= 3, (op, m["native_ops"])
    # Steps 2 and 3 share a graph (step 1 also creates the momentum buffers).
    assert m["execute_count"] == 3 and m["cache_hits"] == 1, m


def test_random_ops_in_a_segment_stay_reproducible(disabled_ops):
    disabled_ops("aten::frac")
    x = torch.randn(64, 64)

    def run():
        torch.manual_seed(7)
        y = F.dropout(torch.frac(x.to("lazy")) + 1.0, p=0.5, training=True)
        torch._lazy.mark_step()
        return y.cpu()

    a, b = run(), run()
    assert torch.equal(a, b)
    kept = (a != 0).float().mean().item()
    assert 0.4 < kept < 0.6, kept
    torch.testing.assert_close(a[a != 0], ((torch.frac(x) + 1.0) * 2.0)[a != 0])


def test_all_ops_unlowerable_falls_back_whole(disabled_ops):
    disabled_ops("aten::frac")
    eager, lazy = run_both(lambda x: torch.frac(torch.frac(x)), torch.randn(3, 3) * 4)
    assert_close(eager, lazy)
    m = ltc_mlir.metrics()
    assert m["native_ops"] == {} and m["fallback_ops"] == {"aten::frac": 2}, m
    assert "partially native" not in " ".join(m["fallback_reasons"]), m["fallback_reasons"]
