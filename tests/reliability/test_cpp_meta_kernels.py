"""In-place ops on lazy tensors check their operands with C++ Meta kernels
(ltc_backend/lazy_kernels/cpp_meta_kernels.cpp).

torch 2.x functionalization runs every in-place op on meta copies of its
operands first (that is how `a.add_(b)` that would grow `a` is rejected), and
`import torch` makes that a Python function for add_, mul_, addcmul_, lerp_,
relu_, ...: 40-60 us per call, about half of nanoGPT's per-step trace under
AdamW. These tests fail if such an op reaches Python meta code again, if a
check no longer raises eager's error, and if operands with symbolic sizes
(torch.compile(dynamic=True)), which the C++ kernels cannot take, stop
working in a process that runs ltc_mlir.
"""
import sys

import ltc_mlir
import pytest
import torch

# Python code these checks must not run (their files under torch/).
_PYTHON_META_FILES = ("_meta_registrations.py", "/_refs/", "/_prims/", "/_prims_common/")


def _python_meta_calls(fn):
    """The Python meta/ref functions called while fn() runs."""
    calls = []

    def profile(frame, event, arg):
        if event == "call":
            path = frame.f_code.co_filename
            if any(p in path for p in _PYTHON_META_FILES):
                calls.append(f"{path.rsplit('torch/', 1)[-1]}:{frame.f_code.co_name}")

    sys.setprofile(profile)
    try:
        fn()
    finally:
        sys.setprofile(None)
    return calls


def _tensors(device, dtype=torch.float32):
    g = torch.Generator().manual_seed(0)
    return [torch.randn(4, 8, generator=g).to(dtype).to(device) for _ in range(3)]


# (name, in-place call on a, b, c): the optimizer updates of SGD, Adam,
# AdamW, RMSprop and Adagrad, BatchNorm's statistics, in-place activations.
_OPS = [
    ("add_", lambda a, b, c: a.add_(b, alpha=-0.1)),
    ("add_ number", lambda a, b, c: a.add_(1e-8)),
    ("sub_", lambda a, b, c: a.sub_(b, alpha=2)),
    ("mul_ number", lambda a, b, c: a.mul_(0.9)),
    ("mul_", lambda a, b, c: a.mul_(b)),
    ("div_", lambda a, b, c: a.div_(c.abs() + 1)),
    ("div_ floor", lambda a, b, c: a.div_(c.abs() + 1, rounding_mode="floor")),
    ("addcmul_", lambda a, b, c: a.addcmul_(b, c, value=0.001)),
    ("addcdiv_", lambda a, b, c: a.addcdiv_(b, c.abs() + 1, value=-0.01)),
    ("lerp_", lambda a, b, c: a.lerp_(b, 0.1)),
    ("lerp_ tensor", lambda a, b, c: a.lerp_(b, c.sigmoid())),
    ("clamp_", lambda a, b, c: a.clamp_(-0.5, 0.5)),
    ("clamp_min_", lambda a, b, c: a.clamp_min_(0.1)),
    ("clamp_max_", lambda a, b, c: a.clamp_max_(0.1)),
    ("sqrt_", lambda a, b, c: a.abs().sqrt_()),
    ("neg_", lambda a, b, c: a.neg_()),
    ("zero_", lambda a, b, c: a.zero_()),
    ("fill_", lambda a, b, c: a.fill_(3)),
    ("relu_", lambda a, b, c: a.relu_()),
    ("hardtanh_", lambda a, b, c: torch.nn.functional.relu6(a, inplace=True)),
    ("threshold_", lambda a, b, c: torch.nn.functional.threshold(a, 0.1, 2.0, inplace=True)),
    ("silu_", lambda a, b, c: torch.nn.functional.silu(a, inplace=True)),
    ("sigmoid_", lambda a, b, c: a.sigmoid_()),
    ("tanh_", lambda a, b, c: a.tanh_()),
]


@pytest.mark.parametrize("name,op", _OPS, ids=[n for n, _ in _OPS])
def test_inplace_op_runs_no_python_meta_and_matches_eager(name, op):
    # The first call may probe the out-of-place op's shapes on meta tensors
    # (cached per signature: meta_shape_cache.h); a training step's later
    # calls are what must not run Python.
    op(*_tensors("lazy"))
    a, b, c = _tensors("lazy")
    calls = _python_meta_calls(lambda: op(a, b, c))
    assert calls == [], f"{name} on a lazy tensor ran Python meta code: {calls[:5]}"
    ea, eb, ec = _tensors("cpu")
    expected = op(ea, eb, ec)
    torch._lazy.mark_step()
    torch.testing.assert_close(a.cpu(), ea, rtol=1e-6, atol=1e-6)
    assert ltc_mlir.metrics()["fallback_ops"] == {}


def _long(device):
    return torch.ones(3, dtype=torch.long, device=device)


# Bad in-place calls: the lazy device raises eager's exception and message.
_BAD = [
    ("broadcast grows self", lambda d: torch.zeros(3, device=d).add_(torch.ones(2, 3, device=d))),
    ("float into long", lambda d: _long(d).add_(torch.ones(3, device=d))),
    ("true division of longs", lambda d: _long(d).div_(_long(d))),
    ("lerp dtypes", lambda d: torch.ones(3, device=d).lerp_(
        torch.ones(3, dtype=torch.float64, device=d), 0.5)),
    ("addcdiv of longs", lambda d: _long(d).addcdiv_(_long(d), _long(d))),
    ("sqrt of long", lambda d: _long(d).sqrt_()),
    ("clamp without bounds", lambda d: torch.ones(3, device=d).clamp_()),
    ("clamp tensor grows self", lambda d: torch.ones(3, device=d).clamp_(
        torch.zeros(2, 3, device=d))),
    ("relu of bool", lambda d: torch.zeros(3, dtype=torch.bool, device=d).relu_()),
    ("hardtanh of bool", lambda d: torch._C._nn.hardtanh_(
        torch.zeros(3, dtype=torch.bool, device=d))),
    ("hardtanh of uint8, negative limit", lambda d: torch._C._nn.hardtanh_(
        torch.zeros(3, dtype=torch.uint8, device=d), -1.0, 1.0)),
]


def _error(fn):
    try:
        fn()
    except Exception as e:  # noqa: BLE001 - comparing what each device raises
        return type(e), str(e).splitlines()[0]
    return None


@pytest.mark.parametrize("name,op", _BAD, ids=[n for n, _ in _BAD])
def test_bad_inplace_call_raises_eagers_error(name, op):
    expected = _error(lambda: op("cpu"))
    assert expected is not None, f"eager accepts {name}"
    assert _error(lambda: op("lazy")) == expected


def test_symbolic_operands_keep_torchs_python_meta():
    """FakeTensor with symbolic sizes (torch.compile(dynamic=True)) reaches the
    same Meta kernels; the C++ ones cannot take symbolic sizes, so ours hands
    them to the Python kernel it replaced: one compile serves every size, and
    a bad broadcast is still rejected while tracing."""
    torch._dynamo.reset()

    def step(a, b):
        a = a.clone()
        a.add_(b, alpha=2)
        a.mul_(b)
        a.addcmul_(b, b, value=0.5)
        a.lerp_(b, 0.3)
        a.relu_()
        return a

    compiled = torch.compile(step, dynamic=True, backend="aot_eager")
    for n in (3, 5, 7):
        a, b = torch.randn(n, 4), torch.randn(n, 4)
        torch.testing.assert_close(compiled(a, b), step(a, b))

    def grow(a, b):
        a = a.clone()
        a.add_(b)
        return a

    with pytest.raises(Exception, match="doesn't match the broadcast shape"):
        torch.compile(grow, dynamic=True, backend="aot_eager")(torch.randn(3), torch.randn(2, 3))
    torch._dynamo.reset()


@pytest.mark.parametrize("optimizer", ["sgd", "adamw"])
def test_warm_training_step_runs_no_python_meta(optimizer):
    """A training step after the first ones (graphs compiled, shapes probed)
    runs no Python meta function: not for the in-place updates, not for
    empty_like (~190 calls per nanoGPT step before it had a C++ kernel)."""
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(16, 32), torch.nn.ReLU(inplace=True),
                                torch.nn.LayerNorm(32), torch.nn.Linear(32, 4)).to("lazy")
    if optimizer == "sgd":
        opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9, weight_decay=1e-4)
    else:
        opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
    x, y = torch.randn(8, 16).to("lazy"), torch.randint(0, 4, (8,)).to("lazy")

    def step():
        opt.zero_grad(set_to_none=True)
        torch.nn.functional.cross_entropy(model(x), y).backward()
        opt.step()
        torch._lazy.mark_step()

    for _ in range(3):
        step()
    calls = _python_meta_calls(step)
    assert calls == [], f"{len(calls)} Python meta calls, e.g. {sorted(set(calls))[:8]}"
    assert ltc_mlir.metrics()["fallback_ops"] == {}
