"""Every lowered op, end to end: lazy device through ltc_mlir vs eager CPU.

Each case runs forward (and backward where the op has one), asserts the values
(explicit tolerances) and that the graph ran as native code with no fallback.
"""
import pytest
import torch
import torch.nn.functional as F

import ltc_mlir

from lazy_testing import assert_all_native, assert_close, run_both

g = torch.Generator().manual_seed(1234)


def rnd(*shape, dtype=torch.float32):
    return torch.randn(*shape, generator=g).to(dtype)


def pos(*shape):
    return torch.rand(*shape, generator=g) + 0.5


# name, fn, inputs, indices of inputs that get gradients
CASES = [
    ("add", lambda a, b: a + b, [rnd(4, 5), rnd(4, 5)], (0, 1)),
    ("add_broadcast", lambda a, b: a + b, [rnd(4, 5), rnd(5)], (0, 1)),
    ("add_broadcast_both", lambda a, b: a + b, [rnd(4, 1), rnd(1, 5)], (0, 1)),
    ("add_alpha", lambda a, b: torch.add(a, b, alpha=2.5), [rnd(3, 4), rnd(3, 4)], (0, 1)),
    ("add_scalar", lambda a: a + 2.5, [rnd(3, 4)], (0,)),
    ("add_int_scalar", lambda a: a + 3, [rnd(3, 4)], (0,)),
    ("sub", lambda a, b: a - b, [rnd(4, 5), rnd(4, 5)], (0, 1)),
    ("sub_alpha", lambda a, b: torch.sub(a, b, alpha=0.5), [rnd(4, 5), rnd(1, 5)], (0, 1)),
    ("sub_scalar", lambda a: a - 1.5, [rnd(6)], (0,)),
    ("rsub_scalar", lambda a: 1.5 - a, [rnd(6)], (0,)),
    ("mul", lambda a, b: a * b, [rnd(4, 5), rnd(4, 5)], (0, 1)),
    ("mul_broadcast", lambda a, b: a * b, [rnd(2, 3, 4), rnd(3, 1)], (0, 1)),
    ("mul_scalar", lambda a: a * 0.25, [rnd(3, 4)], (0,)),
    ("div", lambda a, b: a / b, [rnd(4, 5), pos(4, 5)], (0, 1)),
    ("div_scalar", lambda a: a / 3.0, [rnd(4, 5)], (0,)),
    ("neg", lambda a: -a, [rnd(7)], (0,)),
    ("pow_2", lambda a: a ** 2, [rnd(4, 5)], (0,)),
    ("pow_3f", lambda a: a ** 3.0, [rnd(4, 5)], (0,)),
    ("pow_half", lambda a: a ** 0.5, [pos(4, 5)], (0,)),
    ("relu", F.relu, [rnd(8, 9)], (0,)),
    ("exp", torch.exp, [rnd(4, 5)], (0,)),
    ("log", torch.log, [pos(4, 5)], (0,)),
    ("tanh", torch.tanh, [rnd(4, 5)], (0,)),
    ("sigmoid", torch.sigmoid, [rnd(4, 5)], (0,)),
    ("sqrt", torch.sqrt, [pos(4, 5)], (0,)),
    ("mm", torch.mm, [rnd(6, 7), rnd(7, 5)], (0, 1)),
    ("mm_large", torch.mm, [rnd(64, 784), rnd(784, 130)], (0, 1)),
    ("addmm", lambda b, x, w: torch.addmm(b, x, w), [rnd(5), rnd(3, 4), rnd(4, 5)], (0, 1, 2)),
    ("addmm_beta_alpha", lambda b, x, w: torch.addmm(b, x, w, beta=0.5, alpha=2.0),
     [rnd(3, 5), rnd(3, 4), rnd(4, 5)], (0, 1, 2)),
    ("linear", lambda x, w, b: F.linear(x, w, b), [rnd(8, 16), rnd(10, 16), rnd(10)], (0, 1, 2)),
    ("bmm", torch.bmm, [rnd(2, 3, 4), rnd(2, 4, 5)], (0, 1)),
    ("t", lambda a: a.t() * 1.0, [rnd(3, 4)], (0,)),
    ("transpose", lambda a: a.transpose(0, 2) * 1.0, [rnd(2, 3, 4)], (0,)),
    ("permute", lambda a: a.permute(2, 0, 1) * 1.0, [rnd(2, 3, 4)], (0,)),
    ("view", lambda a: a.view(6, 4) * 1.0, [rnd(2, 3, 4)], (0,)),
    ("view_infer", lambda a: a.reshape(-1) * 1.0, [rnd(2, 3, 4)], (0,)),
    ("expand", lambda a: a.expand(3, 4, 5) * 1.0, [rnd(4, 1)], (0,)),
    ("unsqueeze", lambda a: a.unsqueeze(1) * 1.0, [rnd(3, 4)], (0,)),
    ("sum_all", lambda a: a.sum(), [rnd(4, 5)], (0,)),
    ("sum_dim", lambda a: a.sum(1), [rnd(4, 5, 6)], (0,)),
    ("sum_dims_keepdim", lambda a: a.sum((0, 2), keepdim=True), [rnd(4, 5, 6)], (0,)),
    ("sum_neg_dim", lambda a: a.sum(-1), [rnd(4, 5)], (0,)),
    ("mean_all", lambda a: a.mean(), [rnd(4, 5)], (0,)),
    ("mean_dim", lambda a: a.mean(0, keepdim=True), [rnd(4, 5)], (0,)),
    ("log_softmax", lambda a: F.log_softmax(a, dim=1), [rnd(6, 10)], (0,)),
    ("log_softmax_dim0", lambda a: F.log_softmax(a, dim=0), [rnd(6, 10)], (0,)),
    ("softmax", lambda a: F.softmax(a, dim=-1), [rnd(6, 10)], (0,)),
    ("clone", lambda a: a.clone() * 1.0, [rnd(3, 4)], (0,)),
    ("detach", lambda a: a.detach() * 2.0, [rnd(3, 4)], ()),
    # Backward of tanh/sigmoid is tanh_backward/sigmoid_backward; backward of
    # unsqueeze is squeeze_copy.dim; gradient accumulation (e.g. "add": both
    # inputs get the same gradient) emits as_strided_copy with an
    # IntImplicit(literal 0) offset.
    ("tanh_backward_chain", lambda a: torch.tanh(a * 2.0) * a, [rnd(4, 5)], (0,)),
    ("sigmoid_backward_chain", lambda a: torch.sigmoid(a * 2.0) * a, [rnd(4, 5)], (0,)),
    ("squeeze", lambda a: a.squeeze() * 1.0, [rnd(3, 1, 4, 1)], (0,)),
    ("squeeze_dim", lambda a: a.squeeze(1) * 1.0, [rnd(3, 1, 4)], (0,)),
    ("squeeze_dim_not_one", lambda a: a.squeeze(0) * 1.0, [rnd(3, 1, 4)], (0,)),
    ("unsqueeze_squeeze", lambda a: a.unsqueeze(0).squeeze(0) * 1.0, [rnd(3, 4)], (0,)),
    # The general as_strided gather (offset 2, overlapping strides); its
    # backward scatters into zeros with as_strided_scatter (index_add when
    # the strides overlap, which LTC runs on CPU).
    ("as_strided", lambda a: torch.as_strided(a * 1.0, (3, 3), (1, 4), 2),
     [rnd(4, 5)], (0,)),
    ("as_strided_broadcast_stride", lambda a: torch.as_strided(a * 1.0, (2, 3, 4), (0, 4, 1)),
     [rnd(3, 4)], ()),
    # Comparisons: masks in differentiable expressions (forward + backward),
    # and bool outputs compared exactly.
    ("gt_scalar_mask", lambda a: a * (a > 0.25), [rnd(4, 5)], (0,)),
    ("lt_tensor_mask", lambda a, b: a * (a < b) + b, [rnd(4, 5), rnd(5)], (0, 1)),
    ("ge_le_scalar_mask", lambda a: a * (a >= -0.5) * (a <= 0.5), [rnd(4, 5)], (0,)),
    ("eq_ne_tensor_mask", lambda a, b: a * (a == b) + b * (a != b),
     [rnd(4, 5).round(), rnd(4, 5).round()], (0, 1)),
    ("compare_scalars", lambda a: (a > 0.5, a < -1, a >= 0, a <= 0.25, a == 1.0, a != 0),
     [rnd(6, 7).round()], ()),
    ("compare_tensors_broadcast", lambda a, b: (a > b, a < b, a >= b, a <= b, a == b, a != b),
     [rnd(6, 7).round(), rnd(7).round()], ()),
    # si64 against a float scalar compares in f32 (ATen's result_type).
    ("compare_int_float_scalar", lambda i: (i > 2.5, i == 3, i != 2.0, i <= -1.5, i < 1),
     [torch.randint(-4, 5, (5, 6), generator=g)], ()),
    ("compare_0dim_tensor", lambda a, s: (a > s, a == s, a.le(s)),
     [rnd(4, 5), torch.tensor(0.5, dtype=torch.float64)], ()),
    ("compare_nan", lambda a, b: (a > b, a < b, a == b, a != b, a >= 0.0, a != 1.0),
     [torch.tensor([float("nan"), 1.0, 2.0, float("nan"), -1.0]),
      torch.tensor([1.0, float("nan"), 2.0, float("nan"), 3.0])], ()),
    # clamp and cos: their backward formulas use where.self (clamp) and sin
    # (cos), which have our lazy kernel (torch's LTC has none).
    ("clamp", lambda a: a.clamp(-0.5, 0.5), [rnd(4, 5)], (0,)),
    ("clamp_min", lambda a: a.clamp(min=-0.25) * 1.0, [rnd(4, 5)], (0,)),
    ("clamp_max", lambda a: a.clamp(max=0.25) * 1.0, [rnd(4, 5)], (0,)),
    ("clamp_min_gt_max", lambda a: a.clamp(0.5, -0.5), [rnd(4, 5)], ()),
    # NaN propagates (checked as c != c: assert_close does not equate NaNs).
    ("clamp_nan", lambda a: (lambda c: (c != c, c == 0.5, c == -0.5))(a.clamp(-0.5, 0.5)),
     [torch.tensor([float("nan"), 1.0, -2.0, 0.25])], ()),
    ("clamp_int", lambda i: i.clamp(-2, 3), [torch.randint(-9, 9, (4, 5), generator=g)], ()),
    ("clamp_int_float_bounds", lambda i: i.clamp(-2.5, 3.5),
     [torch.randint(-9, 9, (4, 5), generator=g)], ()),
    ("cos", torch.cos, [rnd(4, 5) * 4.0], (0,)),
]


# (rtol, atol) where 1e-5 is too tight for a legitimate reason.
TOLERANCES = {
    # f32 dot products of length 784 summed in another order (vectorized
    # accumulators) differ from BLAS by a few ulp of the ~30-magnitude result.
    "mm_large": (1e-4, 1e-4),
}


@pytest.mark.parametrize("name,fn,inputs,grads", CASES, ids=[c[0] for c in CASES])
def test_op(name, fn, inputs, grads):
    eager, lazy = run_both(fn, *inputs, grad_inputs=grads)
    rtol, atol = TOLERANCES.get(name, (1e-5, 1e-5))
    assert_close(eager, lazy, rtol=rtol, atol=atol)
    assert_all_native()


def test_nll_loss_mean_with_ignore_index():
    logp = F.log_softmax(rnd(8, 5), dim=1)
    target = torch.tensor([0, 4, -100, 2, 1, -100, 3, 3])
    eager, lazy = run_both(lambda x, t: F.nll_loss(x, t, ignore_index=-100), logp, target,
                           grad_inputs=(0,))
    assert_close(eager, lazy)
    assert_all_native()


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_cross_entropy(reduction):
    logits = rnd(16, 10)
    target = torch.randint(0, 10, (16,), generator=g)
    eager, lazy = run_both(lambda x, t: F.cross_entropy(x, t, reduction=reduction),
                           logits, target, grad_inputs=(0,))
    assert_close(eager, lazy)
    assert_all_native()


def test_zero_and_fill():
    def fn(a):
        b = a * 1.0
        c = a * 1.0
        b.zero_()
        c.fill_(3.5)
        return b + a, c
    eager, lazy = run_both(fn, rnd(3, 4))
    assert_close(eager, lazy)
    assert_all_native()


def test_scalar_promotion_0dim_tensors():
    # f64 and i64 0-dim tensors do not promote a f32 tensor (ATen rules).
    def fn(a, s64, i64):
        return a * s64 + i64, a / s64
    eager, lazy = run_both(fn, rnd(3, 4), torch.tensor(0.3, dtype=torch.float64),
                           torch.tensor(2, dtype=torch.int64))
    assert_close(eager, lazy)
    assert all(t.dtype == torch.float32 for t in lazy)
    assert_all_native()


def test_float64_tensors():
    eager, lazy = run_both(lambda a, b: torch.mm(a, b) + 1.0, rnd(3, 4, dtype=torch.float64),
                           rnd(4, 2, dtype=torch.float64), grad_inputs=(0, 1))
    assert_close(eager, lazy, rtol=1e-12, atol=1e-12)
    assert_all_native()


def test_int64_arithmetic():
    a = torch.randint(-50, 50, (4, 5), generator=g)
    b = torch.randint(-50, 50, (4, 5), generator=g)
    eager, lazy = run_both(lambda x, y: (x + y * 3 - x, (x * y).sum()), a, b)
    assert_close(eager, lazy, rtol=0, atol=0)
    assert_all_native()


@pytest.mark.parametrize("name,fn", [
    ("to_f64", lambda a: a.to(torch.float64) * 2),
    ("to_long_truncates", lambda a: (a * 3).long()),
    ("to_bool", lambda a: (a * 0.5).round().bool()),
    ("bool_to_float", lambda a: (a > 0).float() + a),
    ("long_to_float", lambda a: a.long().float() / 2),
])
def test_dtype_conversion(name, fn):
    x = torch.randn(5, 7, generator=g)
    eager, lazy = run_both(fn, x)
    assert_close(eager, lazy, rtol=0, atol=0)
    assert_all_native()  # round has our lazy kernel (torch's LTC has none)


def test_dtype_conversion_backward():
    eager, lazy = run_both(lambda a: (a.to(torch.float64) ** 2).sum(), rnd(4, 6),
                           grad_inputs=(0,))
    assert_close(eager, lazy)
    assert_all_native()


@pytest.mark.parametrize("name,fn,shapes", [
    ("addcmul", lambda s, a, b: torch.addcmul(s, a, b, value=0.3), [(4, 6)] * 3),
    ("addcmul_broadcast", lambda s, a, b: torch.addcmul(s, a, b, value=-2), [(4, 6), (4, 1), (6,)]),
    ("addcdiv", lambda s, a, b: torch.addcdiv(s, a, b * b + 0.5, value=0.7), [(4, 6)] * 3),
])
def test_addc_ops(name, fn, shapes):
    eager, lazy = run_both(fn, *[rnd(*shape) for shape in shapes], grad_inputs=(0, 1, 2))
    assert_close(eager, lazy)
    assert_all_native()
