"""Pointwise math on the lazy device against eager CPU (UnaryMath.cpp,
BinaryMath.cpp, Division.cpp, Shrink.cpp, Gated.cpp): forward with NaN,
infinities and signed zeros among the inputs, backward where the op is
differentiable, f32/f64 and f16/bf16 (computed in f32 and rounded once),
integer and bool dtypes where ATen has them. Every case asserts that the
graph ran natively and the op did not go through the per-op eager fallback.
"""
import math

import pytest
import torch
import torch.nn.functional as F

import ltc_mlir
from lazy_testing import assert_all_native, assert_close, run_both

g = torch.Generator().manual_seed(1234)
NAN, INF = float("nan"), float("inf")
SPECIAL = torch.tensor([NAN, INF, -INF, 0.0, -0.0, 1.0, -1.0, 0.5, -2.5, 3.0])
TOL = {
    torch.float32: dict(rtol=2e-5, atol=1e-6),
    torch.float64: dict(rtol=1e-12, atol=1e-13),
    torch.float16: dict(rtol=1e-3, atol=1e-3),
    torch.bfloat16: dict(rtol=8e-3, atol=8e-3),
}


def rnd(*shape, dtype=torch.float32, lo=-3.0, hi=3.0):
    x = torch.rand(*shape, generator=g, dtype=torch.float64) * (hi - lo) + lo
    return x.to(dtype)


def with_special(x):
    flat = x.flatten().clone()
    n = min(len(SPECIAL), flat.numel())
    flat[:n] = SPECIAL[:n].to(x.dtype)
    return flat.view_as(x)


def check(fn, *xs, dtype=torch.float32, grads=(), ops=(), equal_nan=True, tol=None):
    ltc_mlir.reset_metrics()
    try:
        eager, lazy = run_both(fn, *xs, grad_inputs=grads)
    except RuntimeError as e:
        # No eager CPU kernel for f16 ("not implemented for 'Half'"): the
        # reference is the op in f32 rounded to f16 (lazy computes in f32).
        if "not implemented for" not in str(e):
            raise
        outs = fn(*[x.float() for x in xs])
        eager = [o.to(dtype) for o in (outs if isinstance(outs, list) else [outs])]
        outs = fn(*[x.to("lazy") for x in xs])
        torch._lazy.mark_step()
        lazy = [o.cpu() for o in (outs if isinstance(outs, list) else [outs])]
    assert_close(eager, lazy, equal_nan=equal_nan, **(tol or TOL.get(dtype, {})))
    m = assert_all_native()
    for op in ops:
        assert f"aten::{op}" not in m["fallback_ops"], m["fallback_ops"]


# (name, fn, domain (lo, hi) for smooth values, differentiable)
UNARY = [
    ("reciprocal", torch.reciprocal, (0.2, 3), True),
    ("ceil", torch.ceil, (-3, 3), False),
    ("floor", torch.floor, (-3, 3), False),
    ("trunc", torch.trunc, (-3, 3), False),
    ("frac", torch.frac, (-3, 3), True),
    ("acos", torch.acos, (-0.9, 0.9), True),
    ("asin", torch.asin, (-0.9, 0.9), True),
    ("atan", torch.atan, (-3, 3), True),
    ("acosh", torch.acosh, (1.1, 4), True),
    ("asinh", torch.asinh, (-3, 3), True),
    ("atanh", torch.atanh, (-0.9, 0.9), True),
    ("tan", torch.tan, (-1.2, 1.2), True),
    ("sinh", torch.sinh, (-3, 3), True),
    ("cosh", torch.cosh, (-3, 3), True),
    ("log1p", torch.log1p, (-0.9, 3), True),
    ("log10", torch.log10, (0.1, 3), True),
    ("log2", torch.log2, (0.1, 3), True),
    ("exp2", torch.exp2, (-3, 3), True),
    ("expm1", torch.expm1, (-3, 3), True),
    ("erfc", torch.erfc, (-3, 3), True),
    ("sinc", torch.sinc, (-3, 3), True),
    ("sign", torch.sign, (-3, 3), True),
    ("angle", torch.angle, (-3, 3), True),
    ("logit", torch.logit, (0.05, 0.95), True),
    ("logit_eps", lambda x: torch.logit(x, eps=0.2), (0.05, 0.95), True),
    ("nan_to_num", torch.nan_to_num, (-3, 3), True),
    ("nan_to_num_args", lambda x: torch.nan_to_num(x, 1.5, 2.0, -3.0), (-3, 3), True),
    ("threshold", lambda x: F.threshold(x, 0.5, -2.0), (-3, 3), True),
    ("softshrink", lambda x: F.softshrink(x, 0.7), (-3, 3), True),
    ("hardshrink", lambda x: F.hardshrink(x, 0.7), (-3, 3), True),
    ("logsigmoid", F.logsigmoid, (-5, 5), True),
    ("clamp_min", lambda x: torch.clamp_min(x, 0.25), (-3, 3), True),
    ("clamp_max", lambda x: torch.clamp_max(x, 0.25), (-3, 3), True),
    ("rsub", lambda x: torch.rsub(x, 2.0, alpha=3), (-3, 3), True),
    ("pow_scalar", lambda x: torch.pow(2.5, x), (-3, 3), True),
    ("remainder_scalar", lambda x: torch.remainder(x, -1.5), (-3, 3), False),
    ("fmod_scalar", lambda x: torch.fmod(x, 1.5), (-3, 3), False),
]


@pytest.mark.parametrize("name,fn,domain,diff", UNARY, ids=[u[0] for u in UNARY])
def test_unary_f32_forward_backward(name, fn, domain, diff):
    x = rnd(4, 6, lo=domain[0], hi=domain[1])
    check(fn, x, grads=(0,) if diff else ())
    check(fn, with_special(rnd(4, 6)))


@pytest.mark.parametrize("name", ["acos", "log1p", "sinc", "logit", "ceil", "reciprocal",
                                  "nan_to_num", "softshrink"])
@pytest.mark.parametrize("dtype", [torch.float64, torch.float16, torch.bfloat16])
def test_unary_other_floats(name, dtype):
    fn, domain = {u[0]: (u[1], u[2]) for u in UNARY}[name]
    x = with_special(rnd(3, 7, dtype=dtype, lo=domain[0], hi=domain[1]))
    check(fn, x, dtype=dtype)


@pytest.mark.parametrize("dtype", [torch.int64, torch.int32, torch.uint8, torch.bool])
def test_classification(dtype):
    if dtype == torch.bool:
        x = torch.tensor([True, False, True])
    else:
        x = torch.tensor([0, 1, 5, 100], dtype=dtype)
        if dtype != torch.uint8:
            x = x - 3
    fns = [torch.isnan, torch.isinf, torch.isposinf, torch.isneginf, torch.isfinite,
           torch.signbit]
    check(lambda a: [f(a) for f in fns], x)
    check(lambda a: [f(a) for f in fns], with_special(rnd(12)).to(torch.float32))
    check(lambda a: [f(a) for f in fns], with_special(rnd(12)).half())


@pytest.mark.parametrize("dtype", [torch.int64, torch.int8, torch.uint8])
def test_integer_unary(dtype):
    x = torch.tensor([0, 1, 2, 7, 100], dtype=dtype)
    if dtype != torch.uint8:
        x = x - 3
    fns = [torch.ceil, torch.floor, torch.trunc, torch.sign, torch.nan_to_num,
           lambda a: torch.clamp_min(a, 2), lambda a: torch.clamp_max(a, 2),
           lambda a: F.threshold(a, 1, 9), torch.reciprocal, torch.acos,
           torch.angle]
    check(lambda a: [f(a) for f in fns], x)


BINARY = [
    ("atan2", torch.atan2, True),
    ("hypot", torch.hypot, True),
    ("copysign", torch.copysign, True),
    ("logaddexp", torch.logaddexp, True),
    ("logaddexp2", torch.logaddexp2, True),
    ("xlogy", torch.xlogy, True),
    ("xlog1py", torch.special.xlog1py, True),
    ("fmax", torch.fmax, True),
    ("fmin", torch.fmin, True),
    ("heaviside", torch.heaviside, False),
    ("lerp_scalar", lambda a, b: torch.lerp(a, b, 0.3), True),
    ("lerp_tensor", lambda a, b: torch.lerp(a, b, a * 0.5), True),
    ("clamp_min_t", torch.clamp_min, True),
    ("clamp_max_t", torch.clamp_max, True),
    ("clamp_t", lambda a, b: torch.clamp(a, b, b + 1), True),
    ("clamp_t_max_only", lambda a, b: torch.clamp(a, max=b), True),
    ("rsub_t", lambda a, b: torch.rsub(a, b, alpha=2), True),
    ("div_trunc", lambda a, b: torch.div(a, b, rounding_mode="trunc"), False),
    ("div_floor", lambda a, b: torch.div(a, b, rounding_mode="floor"), False),
    ("floor_divide", torch.floor_divide, False),
    ("remainder", torch.remainder, True),
    ("fmod", torch.fmod, True),
]


@pytest.mark.parametrize("name,fn,diff", BINARY, ids=[b[0] for b in BINARY])
def test_binary_f32_forward_backward(name, fn, diff):
    a, b = rnd(4, 5), rnd(5, lo=0.3, hi=2.0)
    if name in ("xlogy", "xlog1py"):
        a = rnd(4, 5, lo=0.1, hi=2)
    check(fn, a, b, grads=(0, 1) if diff else ())
    # Special values in both operands, each against each.
    sa = SPECIAL.repeat_interleave(len(SPECIAL))
    sb = SPECIAL.repeat(len(SPECIAL))
    check(fn, sa, sb)


@pytest.mark.parametrize("name", ["atan2", "hypot", "logaddexp", "div_floor", "remainder",
                                  "lerp_scalar", "fmax"])
@pytest.mark.parametrize("dtype", [torch.float64, torch.float16, torch.bfloat16])
def test_binary_other_floats(name, dtype):
    fn = {b[0]: b[1] for b in BINARY}[name]
    a, b = with_special(rnd(4, 5, dtype=dtype)), rnd(5, dtype=dtype, lo=0.3, hi=2.0)
    check(fn, a, b, dtype=dtype)
    check(fn, rnd(4, 5, dtype=dtype, lo=-50, hi=50), -b, dtype=dtype)


@pytest.mark.parametrize("dtype", [torch.int64, torch.int32, torch.int8, torch.uint8])
def test_integer_division(dtype):
    lo = 0 if dtype == torch.uint8 else -20
    a = torch.randint(lo, 20, (6, 7), generator=g).to(dtype)
    b = torch.randint(1, 6, (7,), generator=g).to(dtype)
    if dtype != torch.uint8:
        b = b * torch.tensor([1, -1, 1, -1, 1, -1, 1], dtype=dtype)
    fns = [lambda x, y: torch.div(x, y, rounding_mode="trunc"),
           lambda x, y: torch.div(x, y, rounding_mode="floor"),
           torch.floor_divide, torch.remainder, torch.fmod,
           lambda x, y: torch.remainder(x, 3), lambda x, y: torch.fmod(x, -3 if lo else 3),
           torch.fmax, torch.fmin, torch.heaviside, torch.clamp_min, torch.clamp_max,
           lambda x, y: torch.rsub(x, y, alpha=2), torch.bitwise_and, torch.bitwise_or,
           torch.bitwise_xor, lambda x, y: torch.bitwise_and(x, 6)]
    check(lambda x, y: [f(x, y) for f in fns], a, b)


def test_integer_min_by_minus_one_wraps():
    # Eager CPU traps (SIGFPE) on INT_MIN % -1; the lazy code gives the
    # mathematical remainder 0 and the wrapped quotient INT_MIN.
    a = torch.tensor([-2**63, 7, -7], dtype=torch.int64).to("lazy")
    b = torch.tensor([-1, -1, -1], dtype=torch.int64).to("lazy")
    outs = [torch.remainder(a, b), torch.fmod(a, b), torch.floor_divide(a, b)]
    torch._lazy.mark_step()
    rem, fmod, quot = [o.cpu() for o in outs]
    assert rem.tolist() == [0, 0, 0] and fmod.tolist() == [0, 0, 0]
    assert quot.tolist() == [-2**63, -7, 7]


@pytest.mark.parametrize("fn", [torch.remainder, torch.fmod, torch.floor_divide,
                                lambda x, y: torch.div(x, y, rounding_mode="trunc")])
def test_integer_division_by_zero_raises(fn):
    a = torch.tensor([5, 6, 7]).to("lazy")
    b = torch.tensor([1, 0, 2]).to("lazy")
    with pytest.raises(RuntimeError, match="ZeroDivisionError"):
        fn(a, b).cpu()


def test_bool_ops():
    a = torch.tensor([True, False, True, False])
    b = torch.tensor([True, True, False, False])
    fns = [torch.bitwise_and, torch.bitwise_or, torch.bitwise_xor, torch.heaviside,
           lambda x, y: torch.bitwise_xor(x, True), lambda x, y: torch.sign(x)]
    check(lambda x, y: [f(x, y) for f in fns], a, b)


@pytest.mark.parametrize("dim", [0, -1, 1])
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.bfloat16])
def test_glu(dim, dtype):
    x = rnd(4, 6, 2, dtype=dtype)
    grads = (0,) if dtype != torch.bfloat16 else ()
    check(lambda a: F.glu(a, dim), x, dtype=dtype, grads=grads)


@pytest.mark.parametrize("shape,channels", [((3, 4, 5), 4), ((2, 3, 4, 4), 1), ((5, 3), 3)])
def test_prelu(shape, channels):
    x, w = rnd(*shape), rnd(channels, lo=0.05, hi=0.5)
    check(lambda a, b: F.prelu(a, b), with_special(x), w)
    check(lambda a, b: F.prelu(a, b), x, w, grads=(0, 1))


def test_glu_empty():
    x = torch.zeros(0, 4)
    check(lambda a: F.glu(a, 1), x, grads=(0,))


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.float16, torch.bfloat16])
def test_frexp_is_exact_and_native(dtype):
    # (ltc_backend/lazy_kernels/frexp_kernel.cpp) Specials, range ends,
    # subnormals, values just below powers of two, and random magnitudes
    # (f16 and bf16 go through f32; out-of-range magnitudes become inf or 0).
    import torch._lazy.metrics as lazy_metrics
    from lazy_testing import eager_fallback_ops
    lazy_metrics.reset()
    fi = torch.finfo(dtype)
    g = torch.Generator().manual_seed(11)
    special = torch.tensor([0., -0., 1., 0.75, -3., float("inf"), -float("inf"), float("nan"),
                            fi.tiny, fi.max, -fi.max, fi.tiny * fi.eps, 8.0, 1 - fi.eps / 2],
                           dtype=dtype)
    spread = (torch.randn(4000, generator=g, dtype=torch.float64) * torch.exp2(
        torch.randint(-140, 120, (4000,), generator=g).double())).to(dtype)
    x = torch.cat([special, spread])
    m_e, e_e = torch.frexp(x)
    m_l, e_l = torch.frexp(x.to("lazy"))
    torch._lazy.mark_step()
    assert e_l.dtype == torch.int32 and torch.equal(e_l.cpu(), e_e)
    torch.testing.assert_close(m_l.cpu(), m_e, rtol=0, atol=0, equal_nan=True)
    assert torch.equal(torch.signbit(m_l.cpu()), torch.signbit(m_e))
    # The gradient (grad / 2^exponent) through the lazy exponent.
    xs = torch.randn(50, generator=g, dtype=dtype) * 100
    grads = []
    for device in ("cpu", "lazy"):
        t = xs.clone().to(device).requires_grad_()
        torch.frexp(t)[0].sum().backward()
        grads.append(t.grad.cpu())
    torch.testing.assert_close(grads[1], grads[0], rtol=0, atol=0)
    assert eager_fallback_ops() == []
    assert_all_native()
