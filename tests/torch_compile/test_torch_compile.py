"""torch.compile(backend="ltc_mlir"): Dynamo's graphs compiled through the
lazy device and replayed (python/ltc_mlir/dynamo_backend.py,
ltc_backend/replay_graph.h). Every result is compared with eager PyTorch on
the CPU, and the metrics say what was built, replayed and run natively."""
import copy
import os
import subprocess
import sys

import pytest
import torch
import torch.nn as nn
import torch.nn.functional as F

import ltc_mlir
from isolated import run_isolated

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "models"))
import zoo  # noqa: E402

TOL = dict(rtol=1e-4, atol=1e-5)


def _mlp():
    torch.manual_seed(0)
    return nn.Sequential(nn.Linear(20, 32), nn.ReLU(), nn.Linear(32, 5))


def _train(model, opt_ctor, batches, compiled):
    """Loss per step and the final parameters of a plain training loop;
    compiled: the model and the optimizer step through torch.compile."""
    opt = opt_ctor(model.parameters())
    forward, opt_step = model, opt.step
    if compiled:
        forward = torch.compile(model, backend="ltc_mlir")
        opt_step = torch.compile(opt.step, backend="ltc_mlir")
    losses = []
    for x, y in batches:
        opt.zero_grad()
        loss = F.cross_entropy(forward(x), y)
        loss.backward()
        opt_step()
        losses.append(loss.item())
    return losses, [p.detach().clone() for p in model.parameters()]


def _batches(n, shape, classes=5, seed=1):
    g = torch.Generator().manual_seed(seed)
    return [(torch.randn(*shape, generator=g), torch.randint(0, classes, (shape[0],), generator=g))
            for _ in range(n)]


@pytest.mark.parametrize("optimizer", ["sgd_momentum", "adamw"])
def test_training_matches_eager_and_replays(optimizer):
    ctor = {"sgd_momentum": lambda p: torch.optim.SGD(p, lr=0.1, momentum=0.9),
            "adamw": lambda p: torch.optim.AdamW(p, lr=1e-2)}[optimizer]
    batches = _batches(6, (8, 20))
    model = _mlp()
    ref_losses, ref_params = _train(copy.deepcopy(model), ctor, batches, compiled=False)
    losses, params = _train(model, ctor, batches, compiled=True)
    torch.testing.assert_close(torch.tensor(losses), torch.tensor(ref_losses), **TOL)
    for p, r in zip(params, ref_params):
        torch.testing.assert_close(p, r, **TOL)
    m = ltc_mlir.metrics()
    # Forward, backward, and the optimizer step (its first call, before the
    # state exists, is a graph of its own).
    assert 3 <= m["replay_graphs"] <= 5, m["replay_graphs"]
    assert m["replay_eager_graphs"] == 0, m["fallback_reasons"]
    assert m["fallback_ops"] == {} and m["fallback_execute_count"] == 0, m["fallback_ops"]
    # Every call after a graph's first is a replay: 6 steps x 3 graphs.
    assert m["replay_calls"] == 18
    assert m["native_execute_count"] == 18


def test_steady_state_compiles_nothing():
    model = _mlp()
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    forward = torch.compile(model, backend="ltc_mlir")

    @torch.compile(backend="ltc_mlir")
    def opt_step():
        opt.step()

    def step(x, y):
        opt.zero_grad()
        F.cross_entropy(forward(x), y).backward()
        opt_step()
    batches = _batches(5, (8, 20))
    step(*batches[0])
    step(*batches[1])
    before = ltc_mlir.metrics()
    for x, y in batches[2:]:
        step(x, y)
    after = ltc_mlir.metrics()
    assert after["compile_count"] == before["compile_count"]
    assert after["replay_graphs"] == before["replay_graphs"]
    assert after["replay_calls"] - before["replay_calls"] == 9


def test_replayed_outputs_reuse_their_buffers():
    """A graph that runs every step writes into the buffers its earlier
    outputs released (OutputBufferPool): no fresh pages per call. Handing
    the pool's own tensors to Python kept them referenced forever, and a
    16 MB output faulted in 4096 new pages on every call."""
    import resource
    f = torch.compile(lambda x, w: torch.relu(x * w + 1.0), backend="ltc_mlir")
    x, w = torch.randn(1 << 22), torch.randn(1 << 22)
    expected = torch.relu(x * w + 1.0)
    for _ in range(4):  # build, then the pool fills
        torch.testing.assert_close(f(x, w), expected, **TOL)
    faults = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
    for _ in range(6):
        y = f(x, w)
        del y
    faults = resource.getrusage(resource.RUSAGE_SELF).ru_minflt - faults
    assert faults < (1 << 22) * 4 // 4096, f"{faults} page faults in 6 calls"
    assert ltc_mlir.metrics()["replay_eager_graphs"] == 0


def test_batch_norm_training_and_eval_run_natively():
    """AOTAutograd's graphs use _native_batch_norm_legit_functional (train)
    and _native_batch_norm_legit_no_training (eval): our Lazy kernels keep
    them in the compiled graph, with eager's running statistics."""
    torch.manual_seed(0)
    model = zoo.SmallCNN()
    ref = copy.deepcopy(model)
    batches = _batches(3, (4, 3, 16, 16), classes=10)
    ctor = lambda p: torch.optim.SGD(p, lr=0.05, momentum=0.9)  # noqa: E731
    ref_losses, _ = _train(ref, ctor, batches, compiled=False)
    losses, _ = _train(model, ctor, batches, compiled=True)
    torch.testing.assert_close(torch.tensor(losses), torch.tensor(ref_losses), **TOL)
    for name, buf in model.named_buffers():
        torch.testing.assert_close(buf, dict(ref.named_buffers())[name], **TOL)
    assert ltc_mlir.metrics()["fallback_ops"] == {}
    model.eval()
    ref.eval()
    x = batches[0][0]
    with torch.no_grad():
        out = torch.compile(model, backend="ltc_mlir")(x)
        torch.testing.assert_close(out, ref(x), **TOL)
    m = ltc_mlir.metrics()
    assert m["fallback_ops"] == {}, m["fallback_ops"]
    assert m["replay_eager_graphs"] == 0


def test_graph_breaks_compile_each_piece():
    def f(x):
        y = torch.sin(x) * 2
        if y.sum() > 0:  # data-dependent branch: Dynamo breaks the graph here
            return torch.relu(y) + 1
        return torch.tanh(y) - 1

    compiled = torch.compile(f, backend="ltc_mlir")
    for seed in range(4):
        x = torch.randn(6, 7, generator=torch.Generator().manual_seed(seed))
        torch.testing.assert_close(compiled(x), f(x), **TOL)
    m = ltc_mlir.metrics()
    assert m["replay_graphs"] >= 2 and m["replay_eager_graphs"] == 0


def test_dynamic_batch_sizes_are_correct():
    """dynamic=True hands our compiler graphs with symbolic sizes: each
    distinct size is built once (and reused when it comes back); the second
    size compiles code for every batch size, which the third one runs."""
    ltc_mlir._C._reset_batch_families()
    model = _mlp().eval()
    compiled = torch.compile(model, backend="ltc_mlir", dynamic=True)
    sizes = [3, 7, 3, 12, 7]
    with torch.no_grad():
        for b in sizes:
            x = torch.randn(b, 20)
            torch.testing.assert_close(compiled(x), model(x), **TOL)
    m = ltc_mlir.metrics()
    assert m["replay_graphs"] == len(set(sizes))
    assert m["replay_calls"] == len(sizes)
    assert m["compile_count"] == 2 and m["batch_generic_compiles"] == 1, m
    assert m["batch_generic_hits"] == 1, m


def test_dynamic_training_compiles_forward_backward_and_step_once_for_every_size():
    """Training with dynamic=True over 8 batch sizes: the forward and
    backward graphs compile at the first two sizes (the second time as code
    for every batch size) and run that code at the six others; the
    optimizer step has no batch dim. Losses and parameters match eager."""
    ltc_mlir._C._reset_batch_families()
    sizes = [9, 4, 17, 6, 33, 5, 12, 21]
    g = torch.Generator().manual_seed(3)
    batches = [(torch.randn(b, 20, generator=g), torch.randint(0, 5, (b,), generator=g))
               for b in sizes]
    eager_model, compiled_model = _mlp(), _mlp()
    opts = [torch.optim.SGD(m.parameters(), lr=0.1) for m in (eager_model, compiled_model)]
    forward = torch.compile(compiled_model, backend="ltc_mlir", dynamic=True)
    for x, y in batches:
        for model, opt in ((eager_model, opts[0]), (forward, opts[1])):
            opt.zero_grad()
            F.cross_entropy(model(x), y).backward()
            opt.step()
    for e, c in zip(eager_model.parameters(), compiled_model.parameters()):
        torch.testing.assert_close(c, e, **TOL)
    m = ltc_mlir.metrics()
    assert m["batch_generic_compiles"] == 2 and m["batch_generic_refusals"] == 0, m
    assert m["batch_generic_hits"] == 2 * (len(sizes) - 2), m
    assert m["replay_eager_graphs"] == 0 and m["fallback_graph_count"] == 0, m


def test_same_graph_as_mark_step_shares_its_executable():
    """An inference graph compiled through torch.compile and the same graph
    traced with model.to("lazy") + mark_step get one executable."""
    torch._lazy.mark_step()  # no pending lazy tensors of other tests join the graph
    ltc_mlir.reset_metrics()
    model = _mlp().eval()
    x = torch.randn(4, 20)
    with torch.no_grad():
        expected = model(x)
        out = torch.compile(model, backend="ltc_mlir")(x)
        compiled = ltc_mlir.metrics()["compile_count"]
        lazy_model = copy.deepcopy(model).to("lazy")
        lazy_out = lazy_model(x.to("lazy"))
        torch._lazy.mark_step()
    torch.testing.assert_close(out, expected, **TOL)
    torch.testing.assert_close(lazy_out.cpu(), expected, **TOL)
    m = ltc_mlir.metrics()
    assert compiled >= 1
    assert m["compile_count"] == compiled and m["code_reuse_hits"] >= 1, m


def test_untraceable_graph_runs_eagerly_with_a_warning(monkeypatch):
    from ltc_mlir import dynamo_backend

    def refuse(inputs, outputs, handles):
        raise RuntimeError("simulated lowering refusal")
    monkeypatch.setattr(dynamo_backend._C, "_build_replay_graph", refuse)
    f = torch.compile(lambda x: torch.cos(x) + x, backend="ltc_mlir")
    x = torch.randn(5)
    with pytest.warns(UserWarning, match="runs eagerly on the CPU.*simulated lowering refusal"):
        out = f(x)
    torch.testing.assert_close(out, torch.cos(x) + x, **TOL)
    m = ltc_mlir.metrics()
    assert m["replay_eager_graphs"] == 1 and m["replay_calls"] == 0
    assert any("simulated lowering refusal" in r for r in m["fallback_reasons"])


def test_replay_rejects_mismatched_arguments():
    from ltc_mlir import _C
    a = torch.randn(3, 4)
    lazy = _C._make_replay_inputs([a])
    graph = _C._build_replay_graph(lazy, [lazy[0] * 2], _C._replay_input_handles(lazy))
    torch.testing.assert_close(graph.run([a])[0], a * 2)
    with pytest.raises(ValueError, match=r"argument #0 .* compiled for Float \[3, 4\]"):
        graph.run([torch.randn(4, 4)])
    with pytest.raises(ValueError, match=r"argument #0"):
        graph.run([torch.randn(3, 4, dtype=torch.float64)])
    with pytest.raises(ValueError, match=r"takes 1 tensors, got 2"):
        graph.run([a, a])
    # Non-contiguous arguments are bound as contiguous copies.
    b = torch.randn(4, 3).t()
    torch.testing.assert_close(graph.run([b])[0], b * 2)


def test_backend_found_by_name_without_importing_ltc_mlir():
    """The entry point (dist-info in the build tree, pyproject for pip)
    lets torch.compile find backend="ltc_mlir" by itself."""
    code = ("import torch\n"
            "f = torch.compile(lambda x: x * 3 + 1, backend='ltc_mlir')\n"
            "x = torch.randn(4)\n"
            "assert torch.allclose(f(x), x * 3 + 1)\n"
            "import ltc_mlir\n"
            "print('replays', ltc_mlir.metrics()['replay_graphs'])\n")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=300)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "replays 1" in proc.stdout


def test_debug_explains_builds_and_recompiles():
    result = run_isolated('''
        import contextlib, io
        err = io.StringIO()
        with contextlib.redirect_stderr(err):
            f = torch.compile(lambda x: torch.exp(x) * 2, backend="ltc_mlir")
            f(torch.randn(3))
            f(torch.randn(3, 2))
        emit({"explanations": ltc_mlir.metrics()["compile_explanations"]})
    ''', env={"LTC_MLIR_DEBUG": "1"})
    text = "\n".join(result["explanations"])
    assert "inference graph: first signature" in text
