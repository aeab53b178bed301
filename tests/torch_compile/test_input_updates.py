"""Inputs a torch.compile(backend="ltc_mlir") graph updates in place (an
optimizer's parameters and state, `x.add_(y)` on an argument). AOTAutograd
keeps these updates in the graph; the replay writes the new values into
the caller's tensors, straight from the compiled code where it is safe
(ltc-mark-overwritable-inputs), else by a copy after the run. Every result
is compared with eager PyTorch on the CPU, and the metrics say which way
each update went."""
import copy

import pytest
import torch
import torch.nn as nn
import torch.nn.functional as F

import ltc_mlir

TOL = dict(rtol=1e-4, atol=1e-5)


def _updates():
    m = ltc_mlir.metrics()
    return m["replay_inputs_written_in_place"], m["replay_inputs_copied_back"]


@pytest.mark.parametrize("optimizer,state_per_param", [("sgd_momentum", 1), ("adamw", 2)])
def test_optimizer_step_writes_parameters_in_place(optimizer, state_per_param):
    ctor = {"sgd_momentum": lambda p: torch.optim.SGD(p, lr=0.1, momentum=0.9),
            "adamw": lambda p: torch.optim.AdamW(p, lr=1e-2)}[optimizer]
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(20, 64), nn.ReLU(), nn.Linear(64, 5))
    ref = copy.deepcopy(model)
    opt, ref_opt = ctor(model.parameters()), ctor(ref.parameters())
    step = torch.compile(opt.step, backend="ltc_mlir")
    g = torch.Generator().manual_seed(1)
    addresses = [p.data_ptr() for p in model.parameters()]
    for i in range(5):
        x, y = torch.randn(8, 20, generator=g), torch.randint(0, 5, (8,), generator=g)
        for m, o, s in ((model, opt, step), (ref, ref_opt, ref_opt.step)):
            o.zero_grad()
            F.cross_entropy(m(x), y).backward()
            s()
        if i == 1:
            before = _updates()
    for p, r in zip(model.parameters(), ref.parameters()):
        torch.testing.assert_close(p, r, **TOL)
    for (name, s), (_, rs) in zip(opt.state.items(), ref_opt.state.items()):
        for key in rs:
            torch.testing.assert_close(s[key], rs[key], **TOL)
    assert [p.data_ptr() for p in model.parameters()] == addresses
    # Steady steps: every parameter and its state tensors written by the
    # compiled code itself (AdamW's step counts are 0-d updates too).
    in_place, copied = (a - b for a, b in zip(_updates(), before))
    n = len(list(model.parameters()))
    expected = 3 * n * (1 + state_per_param) + (3 * n if optimizer == "adamw" else 0)
    assert (in_place, copied) == (expected, 0), (in_place, copied)


def _run_both(f, *make_args):
    """f on fresh arguments, eagerly and compiled: results and arguments equal."""
    compiled = torch.compile(f, backend="ltc_mlir")
    for _ in range(3):
        args = [m() for m in make_args]
        ref_args = [a.clone() for a in args]
        out, ref_out = compiled(*args), f(*ref_args)
        torch.testing.assert_close(out, ref_out, **TOL)
        for a, r in zip(args, ref_args):
            torch.testing.assert_close(a, r, **TOL)


def test_elementwise_update_of_an_argument_is_written_in_place():
    before = _updates()

    def f(x, y):
        x.mul_(y).add_(1.0)
        return x * 2.0
    _run_both(f, lambda: torch.randn(64, 32), lambda: torch.randn(64, 32))
    in_place, copied = (a - b for a, b in zip(_updates(), before))
    assert (in_place, copied) == (3, 0), (in_place, copied)  # 3 calls


@pytest.mark.parametrize("case", ["transposed", "read_again", "flipped"])
def test_updates_that_cannot_overwrite_their_input_are_copied(case):
    """Writing these results into the input's buffer while the graph runs
    would change values the graph still reads: the compiled code gets a
    buffer of its own and the new value is copied back."""
    before = _updates()
    if case == "transposed":
        def f(x):
            x.add_(x.t().clone())
            return x.sum()
    elif case == "read_again":
        def f(x):
            s = x.sum(dim=0)
            x.add_(1.0)
            return s
    else:
        def f(x):
            x.copy_(x.flip(0) * 3.0)
            return x[0].clone()
    _run_both(f, lambda: torch.randn(48, 48))
    in_place, copied = (a - b for a, b in zip(_updates(), before))
    assert (in_place, copied) == (0, 3), (in_place, copied)


def test_updated_arguments_sharing_memory_are_copied():
    """Two arguments on one storage: the update of one is never written into
    memory the other is read from while the graph runs."""
    before = _updates()

    def f(a, b):
        a.add_(b)
        return a + 0.0
    base = torch.randn(2, 4096)
    compiled = torch.compile(f, backend="ltc_mlir")
    ref_base = base.clone()
    for _ in range(3):
        out = compiled(base[0], base[1].flip(0))
        ref = f(ref_base[0], ref_base[1].flip(0))
        torch.testing.assert_close(out, ref, **TOL)
        torch.testing.assert_close(base, ref_base, **TOL)
    assert ltc_mlir.metrics()["replay_eager_graphs"] == 0


def test_non_contiguous_argument_is_updated():
    def f(x):
        x.mul_(3.0)
        return x + 1.0
    _run_both(f, lambda: torch.randn(32, 16).t())


def test_update_in_place_is_seen_by_autograd():
    """A parameter written in place gets a new version (AOTAutograd bumps
    the inputs its graph mutates), as eager's in-place update gives it: a
    graph that saved the old value for its backward raises instead of
    computing a gradient from the new one."""
    w = nn.Parameter(torch.randn(16, 16))
    opt = torch.optim.SGD([w], lr=0.1, momentum=0.9)
    step = torch.compile(opt.step, backend="ltc_mlir")
    for _ in range(3):  # build, then replays
        w.grad = torch.randn(16, 16)
        step()
    before = _updates()
    x = torch.randn(16, 16, requires_grad=True)
    y = (x * w).sum()  # saves w for x's gradient
    version = w._version
    w.grad = torch.randn(16, 16)
    step()
    assert _updates()[0] - before[0] == 2  # w and its momentum, in place
    assert w._version > version
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        y.backward()


def test_parameters_sharing_one_storage():
    """Parameters that are views of one flat buffer: each update is copied
    back (never written over memory the graph still reads), through the
    parameter's detached alias as eager's optimizer writes it."""
    def make():
        flat = torch.randn(2 * 64 * 32)
        return [nn.Parameter(flat[: 64 * 32].view(64, 32)), nn.Parameter(flat[64 * 32:].view(64, 32))]
    torch.manual_seed(0)
    params = make()
    ref = [nn.Parameter(p.detach().clone()) for p in params]
    opt = torch.optim.SGD(params, lr=0.1, momentum=0.9)
    ref_opt = torch.optim.SGD(ref, lr=0.1, momentum=0.9)
    step = torch.compile(opt.step, backend="ltc_mlir")
    g = torch.Generator().manual_seed(2)
    for _ in range(4):
        grads = [torch.randn(64, 32, generator=g) for _ in params]
        for ps, s in ((params, step), (ref, ref_opt.step)):
            for p, gr in zip(ps, grads):
                p.grad = gr.clone()
            s()
    for p, r in zip(params, ref):
        torch.testing.assert_close(p, r, **TOL)
    assert params[0].untyped_storage().data_ptr() == params[1].untyped_storage().data_ptr()
    assert ltc_mlir.metrics()["replay_eager_graphs"] == 0
