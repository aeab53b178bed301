"""Pipelined execution (ltc_mlir.set_pipelined, LTC_MLIR_PIPELINE=1): each
step's graph runs on the pipeline thread while the next step traces. The
numbers must be the default mode's (and eager's), reads must wait for the
graph computing them, errors must reach Python at the next sync point, and
the process must exit cleanly with graphs still queued. Each case runs in
its own process (a pipeline thread outlives a failed test)."""
import textwrap

import pytest

from isolated import run_isolated

HELPERS = """
import copy
import torch.nn as nn
import torch.nn.functional as F

def train(model, opt, batches, device, read_loss_every=0):
    losses = []
    for i, (x, y) in enumerate(batches):
        opt.zero_grad(set_to_none=True)
        loss = F.cross_entropy(model(x.to(device)), y.to(device))
        loss.backward()
        opt.step()
        if device == "lazy":
            torch._lazy.mark_step()
        losses.append(loss.detach())
        if read_loss_every and i % read_loss_every == 0:
            losses[-1] = loss.item()  # a host read in the middle of the pipeline
    return [float(l) for l in losses]

def max_rel(a, b):
    return max(((x - y.cpu()).abs().max() / (x.abs().max() + 1e-12)).item() for x, y in zip(a, b))
"""


def run(body, **kw):
    return run_isolated(HELPERS + textwrap.dedent(body), **kw)


MODELS = {
    "mlp": ("nn.Sequential(nn.Linear(20, 64), nn.ReLU(), nn.Linear(64, 5))",
            "(torch.randn(16, 20, generator=g), torch.randint(0, 5, (16,), generator=g))"),
    "cnn": ("nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.BatchNorm2d(8), nn.ReLU(), "
            "nn.Conv2d(8, 8, 3, groups=8, padding=1), nn.Flatten(), nn.Linear(8 * 8 * 8, 5))",
            "(torch.randn(4, 3, 8, 8, generator=g), torch.randint(0, 5, (4,), generator=g))"),
}


@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("name", sorted(MODELS))
def test_pipelined_training_matches_eager(name, threads):
    model, batch = MODELS[name]
    r = run(f"""
        torch.manual_seed(0)
        g = torch.Generator().manual_seed(1)
        batches = [{batch} for _ in range(16)]
        eager = {model}
        lazy = copy.deepcopy(eager).to("lazy")
        opt_e = torch.optim.SGD(eager.parameters(), lr=0.05, momentum=0.9)
        opt_l = torch.optim.SGD(lazy.parameters(), lr=0.05, momentum=0.9)
        ltc_mlir.set_pipelined(True)
        ltc_mlir.reset_metrics()
        losses_e = train(eager, opt_e, batches, "cpu")
        losses_l = train(lazy, opt_l, batches, "lazy", read_loss_every=5)
        torch._lazy.wait_device_ops()
        m = ltc_mlir.metrics()
        emit({{"pipelined": ltc_mlir.get_pipelined(),
               "losses": [losses_e, losses_l],
               "params": max_rel(list(eager.parameters()), list(lazy.parameters())),
               "buffers": max_rel(list(eager.buffers())[:2], list(lazy.buffers())[:2])
                          if list(eager.buffers()) else 0.0,
               "native": m["native_execute_count"], "executions": m["execute_count"],
               "fallback": m["fallback_execute_count"]}})
    """, env={"LTC_MLIR_NUM_THREADS": str(threads)})
    assert r["pipelined"]
    losses_e, losses_l = r["losses"]
    for step, (e, l) in enumerate(zip(losses_e, losses_l)):
        assert abs(e - l) <= 1e-4 * max(1.0, abs(e)), (step, e, l)
    assert r["params"] < 1e-4 and r["buffers"] < 1e-4, r
    # Every step's graph ran natively (counted once it ran: metrics() waits).
    assert r["executions"] >= 16 and r["native"] == r["executions"] and r["fallback"] == 0, r


def test_pipelined_mode_gives_the_default_modes_numbers_with_dropout():
    # The random seed of a graph is drawn when the step is submitted, in the
    # same order as in the default mode: the same masks, the same numbers.
    body = """
        torch.manual_seed(0)
        model = nn.Sequential(nn.Linear(12, 32), nn.Dropout(0.3), nn.ReLU(), nn.Linear(32, 3)).to("lazy")
        opt = torch.optim.Adam(model.parameters(), lr=1e-2)
        ltc_mlir.set_pipelined(PIPELINED)
        out = []
        for i in range(8):
            x = torch.randn(6, 12).to("lazy")  # CPU random numbers between the graphs
            loss = model(x).square().mean()
            loss.backward(); opt.step(); opt.zero_grad()
            torch._lazy.mark_step()
            out.append(loss.detach())
        emit([float(l) for l in out] + [as_list(p) for p in model.parameters()])
    """
    pipelined = run(body.replace("PIPELINED", "True"))
    default = run(body.replace("PIPELINED", "False"))
    assert pipelined == default


def test_reading_a_value_waits_for_its_graph():
    r = run("""
        ltc_mlir.set_pipelined(True)
        x = torch.arange(6.).to("lazy")
        values = []
        for i in range(20):
            x = x * 2 + 1
            torch._lazy.mark_step()
            if i % 7 == 3:
                values.append(x.sum().item())
            torch._lazy.mark_step()
        eager = torch.arange(6.)
        expected = []
        for i in range(20):
            eager = eager * 2 + 1
            if i % 7 == 3:
                expected.append(eager.sum().item())
        emit({"values": values, "expected": expected, "last": as_list(x),
              "last_expected": as_list(eager)})
    """)
    assert r["values"] == r["expected"]
    assert r["last"] == r["last_expected"]


def test_error_of_a_pipelined_graph_reaches_the_next_sync():
    # A target out of range fails inside the compiled code on the pipeline
    # thread: the next sync raises eager's kind of error, and the values that
    # graph was to compute say which graph failed. The next good step works.
    r = run("""
        torch.manual_seed(0)
        ltc_mlir.set_pipelined(True)
        w = torch.randn(10, 4).to("lazy").requires_grad_()
        x = torch.randn(6, 4).to("lazy")
        good = torch.tensor([0, 1, 2, 3, 4, 5]).to("lazy")
        bad = torch.tensor([0, 1, 12, 3, 4, 5]).to("lazy")
        def step(target):
            loss = F.cross_entropy(x @ w.t(), target)
            loss.backward()
            torch._lazy.mark_step()
            return loss
        step(good); torch._lazy.wait_device_ops()
        failed = F.cross_entropy(x @ w.t(), bad)
        failed.backward()
        # The mark_step that queues the graph raises if it failed already.
        syncs = [raised(torch._lazy.mark_step), raised(torch._lazy.wait_device_ops),
                 raised(torch._lazy.wait_device_ops)]
        use = raised(lambda: failed.item())
        w.grad = None
        loss = step(good)
        emit({"syncs": syncs, "use": use, "after": loss.item(),
              "expected": F.cross_entropy(x.cpu() @ w.detach().cpu().t(), good.cpu()).item()})
    """)
    errors = [e for e in r["syncs"] if e]
    assert len(errors) == 1 and r["syncs"][2] is None, r  # raised once
    assert errors[0][0] == "IndexError" and "out of bounds" in errors[0][1], r
    assert r["use"][0] == "RuntimeError" and "which failed" in r["use"][1], r
    assert abs(r["after"] - r["expected"]) < 1e-5, r


def test_error_is_raised_by_a_mark_step():
    r = run("""
        ltc_mlir.set_pipelined(True)
        logits = torch.randn(4, 5).to("lazy")
        loss = F.cross_entropy(logits, torch.tensor([0, 9, 1, 2]).to("lazy"))
        # Queued; it fails on the pipeline thread, before this mark_step
        # returns or after.
        first = raised(torch._lazy.mark_step)
        y = logits * 2
        emit({"mark_steps": [first, raised(torch._lazy.mark_step)], "y": as_list(y),
              "expected": as_list(logits * 2)})
    """)
    errors = [e for e in r["mark_steps"] if e]
    assert len(errors) == 1 and errors[0][0] == "IndexError", r
    assert r["y"] == r["expected"]


def test_graph_identity_guard_in_pipelined_mode():
    # Two graphs with one LTC hash and different wiring (dot's backward after
    # vdot's) must not share compiled code, pipelined too.
    r = run("""
        ltc_mlir.set_pipelined(True)
        def grads(fn, device):
            g = torch.Generator().manual_seed(0)
            a, b, cot = torch.randn(5, generator=g), torch.randn(5, generator=g), torch.randn((), generator=g)
            a = a.to(device).requires_grad_(); b = b.to(device).requires_grad_()
            ga, gb = torch.autograd.grad((fn(a, b) * cot.to(device)).sum(), [a, b])
            if device == "lazy":
                torch._lazy.mark_step()
            return [ga.cpu(), gb.cpu()]
        errs = []
        for fn in (torch.vdot, torch.dot, torch.vdot):
            e, l = grads(fn, "cpu"), grads(fn, "lazy")
            errs.append(max((x - y).abs().max().item() for x, y in zip(e, l)))
        emit(errs)
    """)
    assert max(r) < 1e-6, r


def test_exit_with_graphs_still_queued():
    # The interpreter exits right after mark_step: the atexit hook drains the
    # pipeline before libtorch's memory goes away.
    r = run("""
        ltc_mlir.set_pipelined(True)
        model = nn.Sequential(nn.Linear(256, 256), nn.ReLU(), nn.Linear(256, 256)).to("lazy")
        for _ in range(3):
            model(torch.randn(64, 256).to("lazy")).sum().backward()
            torch._lazy.mark_step()
        emit("queued")
    """)
    assert r == "queued"


def test_forked_child_runs_its_graphs_itself():
    # A child forked while pipelining (a DataLoader worker) has no pipeline
    # thread: its graphs run in mark_step, and it exits normally.
    r = run("""
        import os
        ltc_mlir.set_pipelined(True)
        x = torch.arange(4.).to("lazy") * 3
        torch._lazy.mark_step()
        pid = os.fork()
        if pid == 0:
            y = torch.arange(4.).to("lazy") + 1
            torch._lazy.mark_step()
            ok = y.cpu().tolist() == [1., 2., 3., 4.] and not ltc_mlir.get_pipelined()
            sys.stdout.flush()
            os._exit(0 if ok else 3)
        _, status = os.waitpid(pid, 0)
        emit({"child_status": status, "parent": as_list(x), "pipelined": ltc_mlir.get_pipelined()})
    """, timeout=120)
    assert r["child_status"] == 0, r
    assert r["parent"] == [0., 3., 6., 9.] and r["pipelined"], r


def test_fallback_graph_runs_after_the_pipeline():
    # A graph that cannot run natively (an op disabled for the test) runs on
    # the caller's thread once the queued native graphs have run.
    r = run("""
        ltc_mlir.set_pipelined(True)
        x = torch.arange(8.).to("lazy")
        for _ in range(3):
            x = x + 1
            torch._lazy.mark_step()
        ltc_mlir.set_disabled_ops(["aten::sin"])
        y = torch.sin(x) * 2
        torch._lazy.mark_step()
        emit({"y": as_list(y), "expected": as_list(torch.sin(torch.arange(8.) + 3) * 2),
              "fallback": ltc_mlir.metrics()["fallback_execute_count"]})
    """)
    assert max(abs(a - b) for a, b in zip(r["y"], r["expected"])) < 1e-6, r
    assert r["fallback"] >= 1, r


def test_environment_variable():
    r = run("""
        emit(ltc_mlir.get_pipelined())
    """, env={"LTC_MLIR_PIPELINE": "1"})
    assert r is True
    r = run("""
        import os
        os.environ["LTC_MLIR_PIPELINE"] = "yes"
        emit(raised(ltc_mlir.init))
    """)
    assert r[0] == "ValueError" and "LTC_MLIR_PIPELINE='yes'" in r[1], r
