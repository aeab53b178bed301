"""Both kinds of fallback keep results correct and are reported.

1. Eager per-op fallback: ops with no lazy kernel in torch 1.13 (huber_loss,
   linalg_det; mse_loss now has ours) run on CPU through the boxed fallback
   for the Lazy key.
2. Graph fallback: a graph holding an op our lowering does not support runs
   whole through the TorchScript executor, and the op is named.
"""
import warnings

import pytest
import torch
import torch.nn.functional as F

import ltc_mlir
from lazy_testing import assert_close, run_both


def test_eager_op_fallback_huber_loss():
    a, b = torch.randn(4, 5), torch.randn(4, 5)
    eager, lazy = run_both(lambda x, y: F.huber_loss(x * 2.0, y), a, b)
    assert_close(eager, lazy)
    m = ltc_mlir.metrics()
    assert m["fallback_ops"].get("aten::huber_loss", 0) >= 1, m["fallback_ops"]
    # The surrounding lazy graph (x * 2.0) still compiled natively.
    assert m["native_execute_count"] >= 1


def test_eager_op_fallback_linalg_det():
    a = torch.randn(3, 4, 4, dtype=torch.float64)
    eager, lazy = run_both(lambda x: torch.linalg.det(x + 1.0), a)
    assert_close(eager, lazy, rtol=1e-10, atol=1e-10)
    ops = ltc_mlir.metrics()["fallback_ops"]
    # torch 1.13 dispatches linalg_det to _linalg_det, which has no lazy kernel.
    assert ops.get("aten::_linalg_det", 0) + ops.get("aten::linalg_det", 0) >= 1, ops


def test_graph_fallback_unsupported_op_is_named_and_correct():
    a = torch.randn(5, 6)
    with warnings.catch_warnings(record=True):
        warnings.simplefilter("always")
        # frac and trace have lazy kernels in torch 1.13 but no lowering.
        eager, lazy = run_both(lambda x: torch.frac(x * 3.0).trace() + x, a)
    assert_close(eager, lazy)
    m = ltc_mlir.metrics()
    assert m["fallback_graph_count"] == 1, m
    assert m["fallback_execute_count"] == 1
    assert m["fallback_ops"].get("aten::frac", 0) == 1, m["fallback_ops"]
    assert m["native_execute_count"] == 0
    reason = " ".join(m["fallback_reasons"])
    assert "aten::frac" in reason and "aten::trace" in reason, reason


def test_graph_fallback_is_cached_and_counted_per_execution():
    a = torch.randn(5, 6)
    with warnings.catch_warnings(record=True):
        warnings.simplefilter("always")
        for _ in range(3):
            run_both(lambda x: torch.frac(x) * 2.0, a)
    m = ltc_mlir.metrics()
    assert m["fallback_execute_count"] == 3
    assert m["fallback_ops"]["aten::frac"] == 3
    assert m["fallback_graph_count"] <= 1  # compiled (or rejected) once


def test_training_step_with_eager_fallback_loss():
    torch.manual_seed(0)
    eager = torch.nn.Linear(6, 3)
    lazy = torch.nn.Linear(6, 3)
    lazy.load_state_dict(eager.state_dict())
    lazy = lazy.to("lazy")
    x, y = torch.randn(8, 6), torch.randn(8, 3)
    for model, dev in ((eager, "cpu"), (lazy, "lazy")):
        opt = torch.optim.SGD(model.parameters(), lr=0.05)
        for _ in range(3):
            opt.zero_grad()
            F.huber_loss(model(x.to(dev)), y.to(dev)).backward()
            opt.step()
            if dev == "lazy":
                torch._lazy.mark_step()
    for p, q in zip(lazy.parameters(), eager.parameters()):
        torch.testing.assert_close(p.cpu(), q.detach(), rtol=1e-5, atol=1e-6)
    m = ltc_mlir.metrics()
    assert m["fallback_ops"].get("aten::huber_loss", 0) >= 3
    assert m["fallback_ops"].get("aten::huber_loss_backward", 0) >= 3 or \
        "aten::huber_loss_backward" not in m["fallback_ops"]
