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
