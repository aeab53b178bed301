"""Common ops of real models that torch's LTC has no Lazy kernel (or we had
no lowering) for, end to end: where (all overloads), masked_fill (Scalar,
Tensor, in place), logical_and/or/xor/not, bitwise_not, sin/cos/erf,
round(.decimals), mish, elu, leaky_relu, softplus, gelu(tanh), mse_loss,
one_hot, eye; forward and backward, lazy
device vs eager CPU with explicit tolerances. Each case asserts that the
graph ran as native code and that the op did not run through the per-op
eager fallback (no `aten::<op>` in fallback_ops).
"""
import warnings

import pytest
import torch
import torch.nn.functional as F

import ltc_mlir
from lazy_testing import assert_all_native, assert_close, run_both

g = torch.Generator().manual_seed(4242)

FLOATS = [torch.float32, torch.float64]
HALVES = [torch.float16, torch.bfloat16]
# Tolerances per dtype: transcendental functions differ from ATen's
# vectorized (Sleef) versions by an ulp or so; f16/bf16 results by one ulp of
# the dtype (both compute in f32 and round once).
TOL = {
    torch.float32: dict(rtol=1e-5, atol=1e-6),
    torch.float64: dict(rtol=1e-12, atol=1e-13),
    torch.float16: dict(rtol=1e-3, atol=1e-3),
    torch.bfloat16: dict(rtol=8e-3, atol=8e-3),
}


def rnd(*shape, dtype=torch.float32, scale=1.0):
    return (torch.randn(*shape, generator=g, dtype=torch.float64) * scale).to(dtype)


def assert_native(*ops):
    m = assert_all_native()
    for op in ops:
        assert f"aten::{op}" not in m["fallback_ops"], m["fallback_ops"]
    return m


def run_half(fn, *xs, grad_inputs=()):
    """run_both, except where eager CPU has no kernel for the dtype ("not
    implemented for 'Half'"): then the reference is the op in f32 rounded to
    the inputs' dtype (the f16 decision, README "Numerics and dtypes"), and
    the second result says so (compare within the dtype's tolerance)."""
    try:
        fn(*xs)
        return run_both(fn, *xs, grad_inputs=grad_inputs), False
    except RuntimeError as e:
        if "not implemented for" not in str(e):
            raise
    ref = fn(*[x.float() for x in xs]).to(xs[0].dtype)
    out = fn(*[x.to("lazy") for x in xs])
    torch._lazy.mark_step()
    return ([ref], [out.cpu()]), True


# ---------------------------------------------------------------- where

@pytest.mark.parametrize("dtype", FLOATS + HALVES)
def test_where_tensors_forward_backward(dtype):
    x, y = rnd(4, 7, dtype=dtype), rnd(7, dtype=dtype)
    grads = (0, 1) if dtype in FLOATS else ()
    eager, lazy = run_both(lambda a, b: torch.where(a > 0.1, a, b), x, y,
                           grad_inputs=grads)
    assert_close(eager, lazy, rtol=0, atol=0)
    assert_native("where")


@pytest.mark.parametrize("form", ["scalar_self", "scalar_other", "scalars"])
def test_where_scalar_overloads(form):
    x = rnd(3, 9)
    fns = {
        "scalar_self": lambda a: torch.where(a > 0, 2.5, a),
        "scalar_other": lambda a: torch.where(a > 0, a * 3, -1.0),
        "scalars": lambda a: torch.where(a > 0, 1.0, 0.0) * a,
    }
    eager, lazy = run_both(fns[form], x, grad_inputs=(0,))
    assert_close(eager, lazy, rtol=0, atol=0)
    assert_native("where")


# ---------------------------------------------------------- masked_fill

@pytest.mark.parametrize("dtype", FLOATS + HALVES)
def test_masked_fill_scalar_broadcast_mask(dtype):
    x = rnd(5, 6, dtype=dtype)
    mask = rnd(6) > 0
    grads = (0,) if dtype in FLOATS else ()
    eager, lazy = run_both(lambda a, m: a.masked_fill(m, -1e4), x, mask,
                           grad_inputs=grads)
    assert_close(eager, lazy, rtol=0, atol=0)
    assert_native("masked_fill")


def test_masked_fill_tensor_value_and_inplace():
    x = rnd(4, 8)
    mask = rnd(4, 8) > 0.3
    mask[:, 0] = False  # no row fully masked
    keep = rnd(4, 8) > 0

    def fn(a, m, k):
        y = a * 2
        y.masked_fill_(m, float("-inf"))          # attention-mask style
        z = y.softmax(-1)
        return z.masked_fill(k, torch.tensor(0.25))

    eager, lazy = run_both(fn, x, mask, keep, grad_inputs=(0,))
    assert_close(eager, lazy, rtol=1e-6, atol=1e-7)
    assert_native("masked_fill", "masked_fill_")


def test_masked_fill_int_and_bool():
    x = torch.arange(12).reshape(3, 4)
    mask = x % 3 == 0
    eager, lazy = run_both(lambda a, m: (a.masked_fill(m, 7), m.masked_fill(a > 5, True)),
                           x, mask)
    assert_close(eager, lazy, rtol=0, atol=0)
    assert_native("masked_fill")


# ------------------------------------------------- logical ops, bitwise_not

def test_logical_ops_and_bitwise_not():
    a = rnd(4, 6)
    a[0, :3] = torch.tensor([0.0, -0.0, float("nan")])
    b = torch.randint(-2, 3, (6,), generator=g)

    def fn(x, y):
        m = x > 0
        return (torch.logical_and(x, y), torch.logical_or(m, y), torch.logical_xor(x, m),
                torch.logical_not(x), ~m, ~y, y.bitwise_not().to(torch.uint8))

    eager, lazy = run_both(fn, a, b)
    assert_close(eager, lazy, rtol=0, atol=0)
    assert_native("logical_and", "logical_or", "logical_xor", "logical_not", "bitwise_not")


def test_clamp_backward_uses_logical_and_and_where():
    x = rnd(5, 7)
    x.view(-1)[:4] = torch.tensor([-0.5, 0.5, 0.0, 2.0])
    eager, lazy = run_both(lambda a: a.clamp(-0.5, 0.5), x, grad_inputs=(0,))
    assert_close(eager, lazy, rtol=0, atol=0)
    assert_native("logical_and", "where")


# ----------------------------------------------------- sin cos erf round

@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("name", ["sin", "cos", "erf"])
def test_unary_math_forward_backward(name, dtype):
    fn = getattr(torch, name)
    x = rnd(6, 13, dtype=dtype, scale=3)
    eager, lazy = run_both(fn, x, grad_inputs=(0,))
    assert_close(eager, lazy, **TOL[dtype])
    assert_native(name)


@pytest.mark.parametrize("dtype", HALVES)
@pytest.mark.parametrize("name", ["sin", "cos", "erf"])
def test_unary_math_half(name, dtype):
    fn = getattr(torch, name)
    x = rnd(6, 13, dtype=dtype, scale=2)
    (eager, lazy), _ = run_half(fn, x)
    assert_close(eager, lazy, **TOL[dtype])
    assert_native(name)


def test_erf_int_input_promotes():
    x = torch.arange(-3, 4)
    eager, lazy = run_both(torch.erf, x)
    assert_close(eager, lazy, **TOL[torch.float32])
    assert_native("erf")


HALF_WAY = [0.5, 1.5, 2.5, -0.5, -1.5, -2.5, 0.49999997, 3.5, -0.0, 1e8 + 0.5]


@pytest.mark.parametrize("dtype", FLOATS + HALVES)
def test_round_half_to_even(dtype):
    x = torch.cat([torch.tensor(HALF_WAY, dtype=torch.float64).to(dtype),
                   rnd(40, dtype=dtype, scale=10)])
    grads = (0,) if dtype in FLOATS else ()
    (eager, lazy), _ = run_half(torch.round, x, grad_inputs=grads)
    assert_close(eager, lazy, rtol=0, atol=0)
    assert_native("round")


@pytest.mark.parametrize("decimals", [0, 2, -1])
@pytest.mark.parametrize("dtype", FLOATS + HALVES)
def test_round_decimals(decimals, dtype):
    x = torch.cat([torch.tensor([0.125, 0.135, 15.0, 25.0, -0.005], dtype=torch.float64),
                   torch.randn(30, generator=g, dtype=torch.float64) * 50]).to(dtype)
    fn = lambda a: torch.round(a, decimals=decimals)  # noqa: E731
    (eager, lazy), from_f32 = run_half(fn, x)
    # Eager's kernel scales and rounds in f32 (the opmath type) for f16 and
    # bf16 too, and so do we: exact. Against an f32 reference (run_half's
    # fallback where eager lacks the dtype) one rounding may differ.
    step = 10.0 ** -decimals
    assert_close(eager, lazy, **(dict(rtol=TOL[dtype]["rtol"], atol=step) if from_f32
                                 else dict(rtol=0, atol=0)))
    assert_native("round")


def test_round_int_is_copy():
    x = torch.arange(-5, 5)
    eager, lazy = run_both(torch.round, x)
    assert_close(eager, lazy, rtol=0, atol=0)
    assert_native("round")


# ------------------------------------------------------------ activations

ACTS = {
    "mish": F.mish,
    "elu": F.elu,
    "elu_alpha": lambda a: F.elu(a, alpha=0.7),
    "selu": F.selu,
    "celu": lambda a: F.celu(a, alpha=1.3),
    "leaky_relu": F.leaky_relu,
    "leaky_relu_0.2": lambda a: F.leaky_relu(a, 0.2),
    "softplus": F.softplus,
    "softplus_beta": lambda a: F.softplus(a, beta=2.0, threshold=5.0),
    "gelu_tanh": lambda a: F.gelu(a, approximate="tanh"),
}
ACT_OPS = {"mish": "mish", "elu": "elu", "elu_alpha": "elu", "selu": "elu", "celu": "elu",
           "leaky_relu": "leaky_relu", "leaky_relu_0.2": "leaky_relu",
           "softplus": "softplus", "softplus_beta": "softplus", "gelu_tanh": "gelu"}


def act_input(dtype):
    # Kinks (0), softplus thresholds (20 / beta*x = 5) and large values.
    x = rnd(5, 23, dtype=torch.float64, scale=4)
    flat = x.reshape(-1)
    for i, v in enumerate([0.0, -0.0, 20.0, 2.5, 25.0, -30.0, 1e-3, -1e-3, -1e-8]):
        flat[i * 5] = v
    return x.to(dtype)


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("name", list(ACTS))
def test_activation_forward_backward(name, dtype):
    eager, lazy = run_both(ACTS[name], act_input(dtype), grad_inputs=(0,))
    tol = dict(TOL[dtype])
    if name == "gelu_tanh" and dtype == torch.float32:
        # tanh's derivative term cancels near x = -4.5: ~1e-6 absolute.
        tol["atol"] = 1e-5
    assert_close(eager, lazy, **tol)
    op = ACT_OPS[name]
    assert_native(op, op + "_backward")


@pytest.mark.parametrize("dtype", HALVES)
@pytest.mark.parametrize("name", list(ACTS))
def test_activation_half(name, dtype):
    x = act_input(dtype)
    (eager, lazy), _ = run_half(ACTS[name], x)
    assert_close(eager, lazy, **TOL[dtype])
    assert_native(ACT_OPS[name])


@pytest.mark.parametrize("name", ["elu", "leaky_relu"])
def test_inplace_activation_backward(name):
    # elu_ / leaky_relu_ save the result: elu_backward(is_result=True).
    fn = {"elu": lambda a: F.elu(a * 1.0, alpha=0.5, inplace=True),
          "leaky_relu": lambda a: F.leaky_relu(a * 1.0, 0.1, inplace=True)}[name]
    eager, lazy = run_both(fn, act_input(torch.float32), grad_inputs=(0,))
    assert_close(eager, lazy, **TOL[torch.float32])
    assert_native(name, name + "_backward")


# --------------------------------------------------------------- mse_loss

@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
def test_mse_loss_forward_backward(reduction, dtype):
    x, y = rnd(8, 33, dtype=dtype), rnd(8, 33, dtype=dtype)
    fn = lambda a, b: F.mse_loss(a, b, reduction=reduction)  # noqa: E731
    eager, lazy = run_both(fn, x, y, grad_inputs=(0, 1))
    tol = TOL[dtype] if reduction == "none" else dict(rtol=TOL[dtype]["rtol"] * 10,
                                                     atol=TOL[dtype]["atol"] * 10)
    assert_close(eager, lazy, **tol)
    assert_native("mse_loss", "mse_loss_backward")


def test_mse_loss_bfloat16():
    x, y = rnd(4, 16, dtype=torch.bfloat16), rnd(4, 16, dtype=torch.bfloat16)
    (eager, lazy), _ = run_half(F.mse_loss, x, y)
    assert_close(eager, lazy, **TOL[torch.bfloat16])
    assert_native("mse_loss")


def test_mse_loss_regression_step_trains_like_eager():
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(6, 16), torch.nn.Mish(),
                                torch.nn.Linear(16, 1))
    import copy
    lazy_model = copy.deepcopy(model).to("lazy")
    x, y = rnd(10, 6), rnd(10, 1)
    grads = []
    for m, dev in ((model, "cpu"), (lazy_model, "lazy")):
        F.mse_loss(m(x.to(dev)), y.to(dev)).backward()
        if dev == "lazy":
            torch._lazy.mark_step()
        grads.append([p.grad.cpu() for p in m.parameters()])
    for e, l in zip(*grads):
        torch.testing.assert_close(l, e, rtol=1e-5, atol=1e-6)
    assert_native("mse_loss", "mse_loss_backward", "mish")


# -------------------------------------------------------- one_hot and eye

def test_one_hot_explicit_num_classes():
    labels = torch.tensor([[0, 3, 1], [4, 2, 0]])
    eager, lazy = run_both(lambda t: F.one_hot(t, 5) * 2, labels)
    assert_close(eager, lazy, rtol=0, atol=0)
    assert_native("one_hot", "scatter", "max", "min")
    assert ltc_mlir.metrics()["native_execute_count"] == 1  # no .item() syncs


def test_one_hot_label_smoothing_loss_backward():
    logits, labels = rnd(6, 4), torch.tensor([0, 1, 3, 2, 3, 0])

    def fn(z, t):
        target = F.one_hot(t, 4).float() * 0.9 + 0.025
        return -(target * z.log_softmax(-1)).sum(-1).mean()

    eager, lazy = run_both(fn, logits, labels, grad_inputs=(0,))
    assert_close(eager, lazy, rtol=1e-5, atol=1e-6)
    assert_native("one_hot")


@pytest.mark.parametrize("bad", [-1, 5])
def test_one_hot_out_of_range_raises(bad):
    t = torch.tensor([0, bad, 1]).to("lazy")
    with pytest.raises(RuntimeError, match="Class values must be"):
        F.one_hot(t, 5).cpu()


def test_one_hot_inferred_num_classes_falls_back_with_warning():
    labels = torch.tensor([0, 2, 1])
    with warnings.catch_warnings(record=True):
        warnings.simplefilter("always")
        lazy = F.one_hot(labels.to("lazy")).cpu()
    torch.testing.assert_close(lazy, F.one_hot(labels))


@pytest.mark.parametrize("args", [(4,), (3, 5), (5, 2)])
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.int64, torch.bool])
def test_eye(args, dtype):
    def fn(device):
        return torch.eye(*args, dtype=dtype, device=device)
    lazy = fn("lazy")
    lazy = (lazy.to(torch.float32) * 3 + 1).cpu()   # used inside a graph
    torch._lazy.mark_step()
    torch.testing.assert_close(lazy, fn("cpu").to(torch.float32) * 3 + 1, rtol=0, atol=0)
    assert_native("eye")
