"""Both kinds of fallback keep results correct and are reported.

1. Eager per-op fallback: ops with no lazy kernel in torch's LTC and none of
   ours (linalg_ldl_factor_ex, unique with sorted=False, max-mode
   embedding_bag; ormqr, _ctc_loss,
   histc, rrelu, matrix_exp, mse_loss, det and many more now have ours) run
   on CPU through the boxed fallback for the Lazy key.
2. Graph fallback: a graph holding an op our lowering does not support runs
   whole through the TorchScript executor, and the op is named.
"""
import warnings

import pytest
import torch
import torch.nn.functional as F

import ltc_mlir
from lazy_testing import assert_close, run_both


def test_eager_op_fallback_ldl_factor():
    a = torch.randn(4, 4, generator=torch.Generator().manual_seed(0))
    a = a + a.T
    eager, lazy = run_both(lambda x: torch.linalg.ldl_factor(x * 2.0), a)
    assert_close(eager, lazy)
    m = ltc_mlir.metrics()
    assert m["fallback_ops"].get("aten::linalg_ldl_factor_ex", 0) >= 1, m["fallback_ops"]
    # The surrounding lazy graph (x * 2.0) still compiled natively.
    assert m["native_execute_count"] >= 1


def test_eager_op_fallback_unsorted_unique():
    # sorted=False returns eager's hash-set order: only its kernel gives it.
    x = torch.tensor([3.0, 1.0, 2.0, 3.0, 1.0, 7.0])
    eager, lazy = run_both(lambda t: torch.unique(t * 2.0, sorted=False, return_inverse=True), x)
    assert_close(eager, lazy, rtol=0, atol=0)
    m = ltc_mlir.metrics()
    assert m["fallback_ops"].get("aten::_unique2", 0) >= 1, m["fallback_ops"]
    assert m["native_execute_count"] >= 1  # t * 2.0


def test_graph_fallback_unsupported_op_is_named_and_correct(disabled_ops):
    disabled_ops("aten::frac", "trace")
    assert ltc_mlir.get_disabled_ops() == ["aten::frac", "aten::trace"]
    a = torch.randn(5, 6)
    with warnings.catch_warnings(record=True):
        warnings.simplefilter("always")
        # frac and trace have lazy kernels, so they are in the graph;
        # disabled, they run in ATen and the rest natively (torch 2.x also
        # records add's alpha as ScalarImplicit of a 0-dim literal).
        eager, lazy = run_both(lambda x: torch.frac(x * 3.0).trace() + x, a)
    assert_close(eager, lazy)
    m = ltc_mlir.metrics()
    assert m["fallback_graph_count"] == 1, m
    assert m["fallback_execute_count"] == 1
    assert m["fallback_ops"].get("aten::frac", 0) == 1, m["fallback_ops"]
    assert m["native_execute_count"] == 0
    reason = " ".join(m["fallback_reasons"])
    assert "aten::frac" in reason and "aten::trace" in reason, reason
    assert "disabled by LTC_MLIR_DISABLE_OPS" in reason, reason
    assert "partially native: 3 of 5 ops" in reason, reason
    assert m["native_ops"] == {"aten::mul": 1, "aten::add": 1, "aten::ScalarImplicit": 1}, \
        m["native_ops"]


def test_graph_fallback_is_cached_and_counted_per_execution(disabled_ops):
    disabled_ops("frac")
    a = torch.randn(5, 7)
    with warnings.catch_warnings(record=True):
        warnings.simplefilter("always")
        for _ in range(3):
            run_both(lambda x: torch.frac(x) * 2.0, a)
    m = ltc_mlir.metrics()
    assert m["fallback_execute_count"] == 3
    assert m["fallback_ops"]["aten::frac"] == 3
    assert m["fallback_graph_count"] <= 1  # compiled (or rejected) once


def test_training_step_with_an_eager_fallback_op():
    # embedding_bag in max mode (and its backward) has no lowering: each
    # step runs it eagerly between native graphs, and training still
    # matches eager.
    torch.manual_seed(0)
    eager = torch.nn.ModuleList([torch.nn.EmbeddingBag(10, 6, mode="max"), torch.nn.Linear(6, 4)])
    lazy = torch.nn.ModuleList([torch.nn.EmbeddingBag(10, 6, mode="max"), torch.nn.Linear(6, 4)])
    lazy.load_state_dict(eager.state_dict())
    lazy = lazy.to("lazy")
    ids, target = torch.tensor([[1, 2, 4], [3, 3, 9]]), torch.tensor([1, 3])
    ltc_mlir.reset_metrics()
    for model, dev in ((eager, "cpu"), (lazy, "lazy")):
        opt = torch.optim.SGD(model.parameters(), lr=0.05)
        for _ in range(3):
            opt.zero_grad()
            loss = F.cross_entropy(model[1](model[0](ids.to(dev))), target.to(dev))
            loss.backward()
            opt.step()
            if dev == "lazy":
                torch._lazy.mark_step()
    for p, q in zip(lazy.parameters(), eager.parameters()):
        torch.testing.assert_close(p.cpu(), q.detach(), rtol=1e-5, atol=1e-6)
    m = ltc_mlir.metrics()
    assert m["fallback_ops"].get("aten::_embedding_bag", 0) >= 3, m["fallback_ops"]


def test_native_ops_counts_each_op_per_native_execution(disabled_ops):
    ltc_mlir.reset_metrics()
    x = torch.randn(4, 4).to("lazy")
    for _ in range(2):
        y = (x @ x).relu() + (x @ x)
        torch._lazy.mark_step()
        y.cpu()
    m = ltc_mlir.metrics()
    assert m["native_execute_count"] == 2, m
    assert m["native_ops"]["aten::mm"] == 4 and m["native_ops"]["aten::relu"] == 2, m["native_ops"]
    # An op of a fallback graph is counted as fallen back, never as native.
    ltc_mlir.reset_metrics()
    disabled_ops("aten::trace")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.trace(x * 3.0).cpu()
    m = ltc_mlir.metrics()
    assert m["fallback_graph_count"] == 1 and m["fallback_ops"] == {"aten::trace": 1}, m
    # The graph runs partly natively: mul compiled, trace in ATen.
    assert "aten::trace" not in m["native_ops"] and m["native_ops"]["aten::mul"] == 1, m


def test_disable_ops_environment_variable():
    from isolated import run_isolated
    result = run_isolated('''
        import warnings
        warnings.simplefilter("ignore")
        x = torch.randn(3, 3)
        y = (x.to("lazy") @ x.to("lazy")).relu()
        torch._lazy.mark_step()
        m = ltc_mlir.metrics()
        emit({"ops": ltc_mlir.get_disabled_ops(), "close": torch.allclose(y.cpu(), (x @ x).relu()),
              "fallback": m["fallback_graph_count"], "reasons": m["fallback_reasons"]})
    ''', env={"LTC_MLIR_DISABLE_OPS": "mm, aten::sum"})
    assert result["ops"] == ["aten::mm", "aten::sum"]
    assert result["close"] and result["fallback"] == 1, result
    assert "unsupported aten::mm" in result["reasons"][0], result
