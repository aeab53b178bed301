"""Helpers for comparing ltc_mlir (lazy device) against eager PyTorch on CPU."""
import os

import torch
import ltc_mlir

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BUILD_DIR = os.environ.get("LTC_MLIR_BUILD_DIR", os.path.join(ROOT, "build"))
LTC_MLIR_OPT = os.path.join(BUILD_DIR, "bin", "ltc-mlir-opt")


def _to(obj, device):
    if isinstance(obj, torch.Tensor):
        return obj.detach().to(device)
    return obj


def run_both(fn, *inputs, grad_inputs=(), seed=0):
    """Runs fn on eager CPU and on the lazy device (one mark_step).

    Tensors in `grad_inputs` (indices into inputs) get requires_grad and the
    sum of fn's first output * a fixed random cotangent is backpropagated, so
    the gradients are compared too. Returns (eager_outputs, lazy_outputs) as
    lists of CPU tensors: outputs first, then gradients.
    """
    results = []
    for device in ("cpu", "lazy"):
        args = [_to(x, device) for x in inputs]
        for i in grad_inputs:
            args[i].requires_grad_(True)
        outs = fn(*args)
        if not isinstance(outs, (tuple, list)):
            outs = [outs]
        outs = list(outs)
        if grad_inputs:
            g = torch.Generator().manual_seed(seed)
            cot = torch.randn(outs[0].shape, generator=g, dtype=outs[0].dtype).to(device)
            (outs[0] * cot).sum().backward()
            outs = [o.detach() for o in outs] + [args[i].grad for i in grad_inputs]
        if device == "lazy":
            torch._lazy.mark_step()
        results.append([o.cpu() for o in outs])
    return results[0], results[1]


def eager_then_lazy(run):
    """run("cpu"), then run("lazy") with both metric sets reset in between,
    so that the metrics afterwards are the lazy run's. Returns both results."""
    ltc_mlir.init()
    import torch._lazy.metrics as lazy_metrics
    eager = run("cpu")
    lazy_metrics.reset()
    ltc_mlir.reset_metrics()
    return eager, run("lazy")


def assert_close(eager, lazy, rtol=1e-5, atol=1e-6, equal_nan=False):
    assert len(eager) == len(lazy)
    for i, (e, l) in enumerate(zip(eager, lazy)):
        assert e.dtype == l.dtype, f"output {i}: dtype {l.dtype} != eager {e.dtype}"
        assert e.shape == l.shape, f"output {i}: shape {tuple(l.shape)} != eager {tuple(e.shape)}"
        torch.testing.assert_close(l, e, rtol=rtol, atol=atol, equal_nan=equal_nan,
                                   msg=lambda m: f"output {i}: {m}")


def assert_all_native():
    """The graphs since the last reset ran as native code, with no fallback."""
    m = ltc_mlir.metrics()
    assert m["fallback_ops"] == {}, m["fallback_reasons"] or m["fallback_ops"]
    assert m["fallback_graph_count"] == 0, m["fallback_reasons"]
    assert m["native_execute_count"] >= 1, m
    return m


def assert_ops_native(*ops):
    """Each of `ops` ("aten::mm") ran inside a native graph since the last
    reset, and none of them ran outside native code."""
    m = ltc_mlir.metrics()
    for op in ops:
        assert m["native_ops"].get(op, 0) >= 1, f"{op} did not run natively: {m['native_ops']}"
        assert op not in m["fallback_ops"], f"{op} fell back: {m['fallback_reasons']}"
    return m


def eager_fallback_ops():
    """The aten ops LTC ran through the per-op eager fallback since the last
    torch._lazy.metrics.reset() (reading a scalar back is not one)."""
    import torch._lazy.metrics as lazy_metrics
    return sorted(n for n in lazy_metrics.counter_names()
                  if n.startswith("aten::") and n != "aten::_local_scalar_dense"
                  and lazy_metrics.counter_value(n))
