"""Memory stays flat over a training loop, and errors a user can catch
leave the lazy device usable (issue: memory growth and recoverable errors).
"""
import warnings

import pytest
import torch
import torch._lazy.metrics as lazy_metrics
import torch.nn.functional as F

import ltc_mlir
from isolated import run_isolated
from lazy_testing import assert_all_native

# ---------------------------------------------------------------- memory

_MLP_TRAINING = """
import time
import torch.nn.functional as F
import torch._lazy.metrics as M

def rss_mb():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * 4096 / 2**20

def live_lazy_tensors():
    return (M.counter_value("CreateLtcTensor") or 0) - (M.counter_value("DestroyLtcTensor") or 0)

torch.manual_seed(0)
model = torch.nn.Sequential(torch.nn.Linear(784, 512), torch.nn.ReLU(), torch.nn.Linear(512, 512),
                            torch.nn.ReLU(), torch.nn.Linear(512, 10)).to("lazy")
opt = torch.optim.SGD(model.parameters(), lr=0.01)
x = torch.randn(64, 784).to("lazy")
y = torch.randint(0, 10, (64,)).to("lazy")
samples = {}
for step in range(1, STEPS + 1):
    if SET_TO_NONE is None:
        opt.zero_grad()  # torch's default: set_to_none=True on 2.14
    else:
        opt.zero_grad(set_to_none=SET_TO_NONE)
    loss = F.cross_entropy(model(x), y)
    loss.backward()
    opt.step()
    torch._lazy.mark_step()
    if step in (WARMUP, STEPS):
        samples[step] = (rss_mb(), live_lazy_tensors(), time.perf_counter())
(r0, n0, t0), (r1, n1, t1) = samples[WARMUP], samples[STEPS]
emit({"rss_growth_mb": r1 - r0, "live_tensor_growth": n1 - n0,
      "ms_per_step": (t1 - t0) * 1000 / (STEPS - WARMUP), "loss": loss.item(),
      "native_execute_count": ltc_mlir.metrics()["native_execute_count"]})
"""


@pytest.mark.parametrize("set_to_none", [None, False, True],
                         ids=["zero_grad_default", "set_to_none_False", "set_to_none_True"])
def test_mlp_training_memory_is_flat(set_to_none):
    # Before the fix, zero_grad() with set_to_none=False grew ~5 MB per step
    # (every step's in-place updates stayed queued on the functional storage).
    steps, warmup = 300, 50
    body = (_MLP_TRAINING.replace("SET_TO_NONE", repr(set_to_none))
            .replace("STEPS", str(steps)).replace("WARMUP", str(warmup)))
    r = run_isolated(body, timeout=240)
    assert r["live_tensor_growth"] == 0, r
    assert r["rss_growth_mb"] < 20, r
    assert r["native_execute_count"] >= steps, r


def _train(device, opt_name, steps, set_to_none, seed=0):
    torch.manual_seed(seed)
    model = torch.nn.Sequential(torch.nn.Linear(12, 16), torch.nn.Tanh(), torch.nn.Linear(16, 5))
    model = model.to(device)
    params = list(model.parameters())
    opt = {"sgd": lambda: torch.optim.SGD(params, lr=0.1),
           "momentum": lambda: torch.optim.SGD(params, lr=0.1, momentum=0.9, nesterov=True),
           "adam": lambda: torch.optim.Adam(params, lr=0.01),
           "adamw": lambda: torch.optim.AdamW(params, lr=0.01)}[opt_name]()
    g = torch.Generator().manual_seed(seed + 1)
    losses, live = [], []
    for _ in range(steps):
        x = torch.randn(8, 12, generator=g).to(device)
        y = torch.randint(0, 5, (8,), generator=g).to(device)
        opt.zero_grad(set_to_none=set_to_none)
        loss = F.cross_entropy(model(x), y)
        loss.backward()
        opt.step()
        if device == "lazy":
            torch._lazy.mark_step()
            live.append((lazy_metrics.counter_value("CreateLtcTensor") or 0)
                        - (lazy_metrics.counter_value("DestroyLtcTensor") or 0))
        losses.append(loss.detach().cpu())
    return torch.stack(losses), [p.detach().cpu() for p in model.parameters()], live


@pytest.mark.parametrize("set_to_none", [False, True])
@pytest.mark.parametrize("opt_name", ["sgd", "momentum", "adam", "adamw"])
def test_optimizers_match_eager_and_keep_no_tensors_alive(opt_name, set_to_none):
    eager_losses, eager_params, _ = _train("cpu", opt_name, 12, set_to_none)
    lazy_losses, lazy_params, live = _train("lazy", opt_name, 12, set_to_none)
    torch.testing.assert_close(lazy_losses, eager_losses, rtol=1e-4, atol=1e-5)
    for e, l in zip(eager_params, lazy_params):
        torch.testing.assert_close(l, e, rtol=1e-4, atol=1e-5)
    # Steady state: every step frees as many lazy tensors as it creates.
    assert live[-1] == live[3], live
    assert_all_native()


def test_in_place_updates_through_views_match_eager():
    def fn(a, b):
        v = a.view(-1)
        v.add_(1)                     # through a view, then the base is read
        a[0].mul_(3)                  # a row
        c = a.clone()
        c[:, 1].zero_()               # a column of a copy
        a[1:3].copy_(b)               # a slice
        a.t_().add_(2)                # an in-place view op, then an update
        return a * 2, v.clone(), c
    results = []
    for device in ("cpu", "lazy"):
        torch.manual_seed(0)
        a, b = torch.randn(4, 3).to(device), torch.randn(2, 3).to(device)
        out = fn(a, b)
        if device == "lazy":
            torch._lazy.mark_step()
        results.append([o.cpu() for o in out])
    for e, l in zip(*results):
        torch.testing.assert_close(l, e)


def test_zero_grad_graph_does_not_read_the_old_gradients():
    # LTC recorded zero_ as aten::zero(old): the old gradient was an input
    # of every step's graph.
    g = torch.randn(64, 32).to("lazy")
    torch._lazy.mark_step()
    g.zero_()
    text = torch._C._lazy._get_tensors_text([g])
    assert "aten::zero(" not in text, text
    torch._lazy.mark_step()
    assert g.cpu().abs().sum().item() == 0


# ---------------------------------------------------------------- errors

def test_item_error_is_raised_once_and_next_value_is_eager():
    logits = torch.randn(4, 3)
    bad = torch.tensor([0, 1, 5, 2])
    for _ in range(2):  # twice: the compiled graph is reused
        with pytest.raises(IndexError, match="out of bounds"):
            F.cross_entropy(logits.to("lazy"), bad.to("lazy")).item()
        torch._lazy.wait_device_ops()  # LTC alone raises it again here
        torch._lazy.mark_step()
        good = torch.tensor([0, 1, 2, 2])
        lazy = F.cross_entropy(logits.to("lazy"), good.to("lazy")).item()
        assert lazy == pytest.approx(F.cross_entropy(logits, good).item(), rel=1e-6)
    assert ltc_mlir.metrics()["fallback_graph_count"] == 0


def _step(model, opt, x, y):
    opt.zero_grad()
    loss = F.cross_entropy(model(x), y)
    loss.backward()
    opt.step()
    return loss


def test_failed_training_step_raises_once_and_training_goes_on_like_eager():
    torch.manual_seed(0)
    eager = torch.nn.Sequential(torch.nn.Linear(6, 8), torch.nn.ReLU(), torch.nn.Linear(8, 3))
    lazy = torch.nn.Sequential(torch.nn.Linear(6, 8), torch.nn.ReLU(), torch.nn.Linear(8, 3))
    lazy.load_state_dict(eager.state_dict())
    lazy = lazy.to("lazy")
    opt_e = torch.optim.SGD(eager.parameters(), lr=0.1, momentum=0.9)
    opt_l = torch.optim.SGD(lazy.parameters(), lr=0.1, momentum=0.9)
    x = torch.randn(5, 6)
    good, bad = torch.tensor([0, 1, 2, 0, 1]), torch.tensor([0, 1, 7, 0, 1])

    for _ in range(2):
        _step(eager, opt_e, x, good)
        _step(lazy, opt_l, x.to("lazy"), good.to("lazy"))
        torch._lazy.mark_step()
    # Eager raises inside cross_entropy, before backward and step: the
    # parameters and the momentum buffers keep their values.
    with pytest.raises((IndexError, RuntimeError), match="out of bounds"):
        _step(eager, opt_e, x, bad)
    with pytest.raises(IndexError, match="out of bounds") as err:
        _step(lazy, opt_l, x.to("lazy"), bad.to("lazy"))
        torch._lazy.mark_step()
    assert "nll_loss_forward" in str(err.value)
    ltc_mlir.reset_metrics()
    for _ in range(3):
        loss_e = _step(eager, opt_e, x, good)
        loss_l = _step(lazy, opt_l, x.to("lazy"), good.to("lazy"))
        torch._lazy.mark_step()
        torch.testing.assert_close(loss_l.cpu(), loss_e, rtol=1e-5, atol=1e-6)
    for e, l in zip(eager.parameters(), lazy.parameters()):
        torch.testing.assert_close(l.detach().cpu(), e.detach(), rtol=1e-5, atol=1e-6)
    assert_all_native()


def test_value_of_a_failed_graph_says_why_it_has_none():
    logits = torch.randn(3, 4).to("lazy")
    with pytest.raises(IndexError, match="out of bounds"):
        loss = F.cross_entropy(logits, torch.tensor([0, 9, 1]).to("lazy"))
        torch._lazy.mark_step()
    with pytest.raises(RuntimeError, match="has no value: it comes from graph .*which failed.*"
                       "out of bounds"):
        loss.item()
    with pytest.raises(RuntimeError, match="has no value"):
        (loss * 2).item()


def test_fallback_graph_error_is_raised_once_and_next_step_works():
    z = torch.randn(4, dtype=torch.complex64)  # complex: runs through TorchScript
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for _ in range(2):
            with pytest.raises(RuntimeError, match="out of range"):
                r = torch.index_select(z.to("lazy") * 2, 0, torch.tensor([1, 9]).to("lazy"))
                torch._lazy.mark_step()
            torch._lazy.wait_device_ops()
            ok = torch.index_select(z.to("lazy") * 2, 0, torch.tensor([3, 1]).to("lazy"))
            torch._lazy.mark_step()
            torch.testing.assert_close(ok.cpu(), torch.index_select(z * 2, 0, torch.tensor([3, 1])))
    m = ltc_mlir.metrics()
    assert m["fallback_graph_count"] == 1 and m["fallback_execute_count"] == 4, m


# ------------------------------------------------- layer_norm output_mask

@pytest.mark.parametrize("case", ["detached_input", "frozen_affine", "input_only_no_affine",
                                  "weight_only", "all"])
def test_layer_norm_backward_with_unwanted_gradients_compiles_natively(case):
    # native_layer_norm_backward gets output_mask = which of (input,
    # weight, bias) need a gradient; an unwanted one is an undefined tensor.
    results = []
    for device in ("cpu", "lazy"):
        torch.manual_seed(0)
        ln = torch.nn.LayerNorm([3, 8], elementwise_affine=case != "input_only_no_affine")
        ln = ln.to(device)
        x = torch.randn(5, 3, 8).to(device)
        if case == "frozen_affine":
            ln.requires_grad_(False)
        if case == "weight_only":
            ln.bias.requires_grad_(False)
        if case != "detached_input" and case != "weight_only":
            x.requires_grad_()
        cot = torch.linspace(-1, 1, 24).reshape(3, 8).to(device)
        out = ln(x)
        (out * cot).sum().backward()
        grads = [t.grad for t in (x, *ln.parameters()) if t.requires_grad]
        if device == "lazy":
            torch._lazy.mark_step()
        results.append([out.detach().cpu()] + [g.cpu() for g in grads])
    for e, l in zip(*results):
        torch.testing.assert_close(l, e, rtol=1e-5, atol=1e-5)
    assert len(results[1]) > 1
    assert_all_native()


# ---------------------------------------------------------------- config

def _python(code, **env):
    import os
    import subprocess
    import sys
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=120, env=dict(os.environ, **env))


@pytest.mark.parametrize("value", ["zero", "0", "-2", "3.5", "99999"])
def test_bad_thread_count_is_reported_by_init(value):
    p = _python("import ltc_mlir\n"
                "try:\n"
                "    ltc_mlir.init()\n"
                "except ValueError as e:\n"
                "    print('ValueError:', e)\n", LTC_MLIR_NUM_THREADS=value)
    assert p.returncode == 0, p.stderr
    assert f"LTC_MLIR_NUM_THREADS must be a positive integer (1 to 4096), got '{value}'" \
        in p.stdout, p.stdout + p.stderr
    assert "Exception raised from" not in p.stdout  # no C++ backtrace


def test_unwritable_dump_dir_warns_once_at_init_and_graphs_still_run():
    p = _python("import warnings, torch, ltc_mlir\n"
                "with warnings.catch_warnings(record=True) as w:\n"
                "    warnings.simplefilter('always')\n"
                "    ltc_mlir.init(); ltc_mlir.init()\n"
                "    x = torch.ones(3).to('lazy') * 2\n"
                "    torch._lazy.mark_step()\n"
                "    print('value', x.cpu().tolist())\n"
                "print('warnings', [str(m.message) for m in w])\n",
                LTC_MLIR_DUMP_DIR="/proc/ltc_mlir_dumps")
    assert p.returncode == 0, p.stderr
    assert "value [2.0, 2.0, 2.0]" in p.stdout, p.stdout
    line = [l for l in p.stdout.splitlines() if l.startswith("warnings")][0]
    assert line.count("LTC_MLIR_DUMP_DIR='/proc/ltc_mlir_dumps' cannot be written") == 1, line
    assert "writable directory" in line, line


def test_set_dump_dir_to_unwritable_path_raises(tmp_path):
    with pytest.raises(PermissionError, match="cannot write dumps to '/proc/x'"):
        ltc_mlir.set_dump_dir("/proc/x")
    with pytest.raises(PermissionError, match="cannot write reproducers"):
        ltc_mlir.set_reproducer_dir("/proc/x")
    assert ltc_mlir.get_dump_dir() is None


def test_unsupported_ops_leave_no_reproducer(tmp_path, disabled_ops):
    disabled_ops("aten::frac")
    previous = ltc_mlir.get_reproducer_dir()
    ltc_mlir.set_reproducer_dir(tmp_path / "repro")
    try:
        assert ltc_mlir.get_reproducer_dir() == str(tmp_path / "repro")
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            y = torch.frac(torch.randn(5, 6).to("lazy") * 3.0).cumsum(0)  # frac disabled
            torch._lazy.mark_step()
            y.cpu()
        m = ltc_mlir.metrics()
        assert m["fallback_graph_count"] == 1, m
        assert "reproducer" not in " ".join(m["fallback_reasons"]), m["fallback_reasons"]
        repro = tmp_path / "repro"
        assert not repro.exists() or list(repro.iterdir()) == []
    finally:
        ltc_mlir.set_reproducer_dir(previous)
