"""nn ops that ltc_mlir records as a few lowered lazy ops
(ltc_backend/lazy_kernels/decomposed_kernels.cpp): F.unfold / F.fold
(im2col / col2im), nll_loss2d (segmentation losses), max_unpool2d/3d,
bicubic upsampling. torch 2.14's LTC has no Lazy kernel for them except
nll_loss2d_forward/_backward (single nodes, replaced by ours). Forward and
backward against eager CPU, with no fallback; bad values raise a Python
error like eager.

Tolerances: unfold and max_unpool move values (exact); fold and the nll
losses sum in eager's order up to one rounding (1e-6); bicubic multiplies by
interpolation matrices whose zero terms and merged border taps change the
rounding (1e-5 in f32, 1e-12 in f64).
"""
import pytest
import torch
import torch.nn.functional as F

import ltc_mlir
from lazy_testing import assert_all_native, assert_close, assert_ops_native, run_both

gen = torch.Generator().manual_seed(7)


def rnd(*shape, dtype=torch.float32):
    return torch.randn(*shape, generator=gen).to(dtype)


# ---------------------------------------------------------------------------
# F.unfold / F.fold
# ---------------------------------------------------------------------------

# input shape, kernel, dilation, padding, stride
UNFOLD_CASES = [
    ((2, 3, 7, 8), 3, 1, 1, 2),
    ((1, 2, 6, 6), 2, 1, 0, 2),              # non-overlapping patches (ViT-style)
    ((2, 2, 9, 7), (2, 3), (2, 1), (1, 2), (1, 2)),
    ((1, 1, 5, 5), 5, 1, 0, 1),              # one block
]


@pytest.mark.parametrize("shape,k,d,p,s", UNFOLD_CASES)
def test_unfold(shape, k, d, p, s):
    fn = lambda a: F.unfold(a, k, d, p, s)
    eager, lazy = run_both(fn, rnd(*shape), grad_inputs=(0,))
    assert_close(eager[:1], lazy[:1], rtol=0, atol=0)
    assert_close(eager[1:], lazy[1:], rtol=1e-6, atol=1e-6)  # the gradient is a fold
    assert_all_native()


@pytest.mark.parametrize("shape,k,d,p,s", UNFOLD_CASES)
def test_fold(shape, k, d, p, s):
    blocks = F.unfold(torch.zeros(shape), k, d, p, s)
    fn = lambda a: F.fold(a, shape[2:], k, d, p, s)
    eager, lazy = run_both(fn, rnd(*blocks.shape), grad_inputs=(0,))
    assert_close(eager, lazy, rtol=1e-6, atol=1e-6)
    assert_all_native()


def test_unfold_fold_float64_and_unbatched_col2im():
    x = rnd(2, 3, 6, 5, dtype=torch.float64)
    fn = lambda a: F.fold(F.unfold(a, 3, padding=1), (6, 5), 3, padding=1) * a
    eager, lazy = run_both(fn, x, grad_inputs=(0,))
    assert_close(eager, lazy, rtol=1e-12, atol=1e-12)
    # col2im of [C*K, L] (no batch dim) through the op itself.
    cols = rnd(3 * 4, 9)
    fn = lambda a: torch.ops.aten.col2im(a, [4, 4], [2, 2], [1, 1], [0, 0], [1, 1])
    eager, lazy = run_both(fn, cols)
    assert_close(eager, lazy, rtol=1e-6, atol=1e-6)
    assert_all_native()


def test_unfold_fold_empty_batch():
    fn = lambda a: F.fold(F.unfold(a, 3, 1, 1, 2), (5, 5), 3, 1, 1, 2)
    eager, lazy = run_both(fn, rnd(0, 2, 5, 5), grad_inputs=(0,))
    assert_close(eager, lazy, rtol=0, atol=0)
    assert ltc_mlir.metrics()["fallback_ops"] == {}


def test_unfold_bad_arguments_raise_like_eager():
    x = torch.randn(1, 2, 3, 3)
    for device in ("cpu", "lazy"):
        with pytest.raises(RuntimeError, match="must be at least one"):
            F.unfold(x.to(device), 5)
    cols = torch.randn(1, 8, 10)
    for device in ("cpu", "lazy"):
        with pytest.raises(RuntimeError, match="expected size of input's dimension 2"):
            F.fold(cols.to(device), (4, 5), 2)


# ---------------------------------------------------------------------------
# nll_loss2d (cross_entropy / nll_loss of [N, C, H, W])
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("weighted", [False, True])
def test_nll_loss2d(reduction, weighted):
    x = rnd(2, 5, 4, 6)
    target = torch.randint(0, 5, (2, 4, 6), generator=gen)
    target[0, 1, 2] = -100          # ignored
    target[1, 3, :2] = 3
    weight = torch.rand(5, generator=gen) + 0.5 if weighted else None
    fn = lambda a, t, w: F.cross_entropy(a, t, weight=w, reduction=reduction)
    eager, lazy = run_both(fn, x, target, weight, grad_inputs=(0,))
    assert_close(eager, lazy, rtol=1e-6, atol=1e-6)
    assert_all_native()
    assert_ops_native("aten::nll_loss_forward", "aten::nll_loss_backward")


def test_nll_loss2d_ignore_index_and_float64():
    x = rnd(3, 4, 5, 5, dtype=torch.float64)
    target = torch.randint(0, 4, (3, 5, 5), generator=gen)
    fn = lambda a, t: F.nll_loss(F.log_softmax(a, 1), t, ignore_index=2)
    eager, lazy = run_both(fn, x, target, grad_inputs=(0,))
    assert_close(eager, lazy, rtol=1e-12, atol=1e-12)
    assert_all_native()


def test_nll_loss2d_bad_target_raises():
    x = torch.randn(2, 3, 4, 4)
    bad = torch.randint(0, 3, (2, 4, 4))
    bad[1, 2, 3] = 3
    with pytest.raises((IndexError, RuntimeError), match="out of bounds"):
        F.cross_entropy(x, bad)
    with pytest.raises(IndexError, match="Target is out of bounds") as err:
        loss = F.cross_entropy(x.to("lazy"), bad.to("lazy"))
        torch._lazy.mark_step()
    assert "[0, 3)" in str(err.value), err.value
    # The process keeps working, and a good target gives eager's loss.
    ltc_mlir.reset_metrics()
    good = bad.clamp(max=2)
    loss = F.cross_entropy(x.to("lazy"), good.to("lazy"))
    assert_close([F.cross_entropy(x, good)], [loss.cpu()], rtol=1e-6, atol=1e-6)
    assert_all_native()


def test_nll_loss2d_bad_shapes_raise_like_eager():
    x = torch.randn(2, 3, 4, 4)
    t = torch.zeros(2, 4, 5, dtype=torch.long)
    for device in ("cpu", "lazy"):
        with pytest.raises(RuntimeError, match="size mismatch|sizes don't match"):
            F.nll_loss(x.to(device), t.to(device))


# ---------------------------------------------------------------------------
# max_unpool2d / max_unpool3d
# ---------------------------------------------------------------------------

def test_max_unpool2d():
    x = rnd(2, 3, 8, 8)
    values, indices = F.max_pool2d(x, 2, return_indices=True)
    fn = lambda v, i: F.max_unpool2d(v, i, 2)
    eager, lazy = run_both(fn, values, indices, grad_inputs=(0,))
    assert_close(eager, lazy, rtol=0, atol=0)
    assert_all_native()


def test_max_unpool2d_output_size_and_unbatched():
    x = rnd(3, 9, 9)
    values, indices = F.max_pool2d(x, 3, 2, 1, return_indices=True)
    fn = lambda v, i: F.max_unpool2d(v, i, 3, 2, 1, output_size=(9, 9))
    eager, lazy = run_both(fn, values, indices, grad_inputs=(0,))
    assert_close(eager, lazy, rtol=0, atol=0)
    assert_all_native()


def test_max_unpool3d():
    x = rnd(1, 2, 4, 6, 6)
    values, indices = F.max_pool3d(x, 2, return_indices=True)
    fn = lambda v, i: F.max_unpool3d(v, i, 2)
    eager, lazy = run_both(fn, values, indices, grad_inputs=(0,))
    assert_close(eager, lazy, rtol=0, atol=0)
    assert_all_native()


def test_max_unpool_bad_index_raises():
    values = torch.randn(1, 1, 2, 2)
    bad = torch.tensor([[[[0, 3], [8, 40]]]])   # 40 >= 4 * 4
    with pytest.raises(RuntimeError, match="invalid max index"):
        F.max_unpool2d(values, bad, 2)
    with pytest.raises(RuntimeError, match="out of bounds") as err:
        F.max_unpool2d(values.to("lazy"), bad.to("lazy"), 2).cpu()
    assert "[0, 16)" in str(err.value), err.value
    with pytest.raises(RuntimeError, match="int64"):
        F.max_unpool2d(values.to("lazy"), bad.int().to("lazy"), 2)


# ---------------------------------------------------------------------------
# upsample_bicubic2d
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("kw", [
    dict(scale_factor=2),
    dict(scale_factor=1.5, align_corners=True),
    dict(size=(7, 9)),
    dict(size=(3, 4), align_corners=True),   # downsampling
    dict(size=(1, 5)),
])
def test_upsample_bicubic2d(kw):
    x = rnd(2, 3, 5, 6)
    fn = lambda a: F.interpolate(a, mode="bicubic", **kw)
    eager, lazy = run_both(fn, x, grad_inputs=(0,))
    assert_close(eager, lazy, rtol=1e-5, atol=1e-5)
    assert_all_native()


def test_upsample_bicubic2d_float64():
    x = rnd(1, 2, 4, 5, dtype=torch.float64)
    fn = lambda a: F.interpolate(a, scale_factor=2.5, mode="bicubic")
    eager, lazy = run_both(fn, x, grad_inputs=(0,))
    assert_close(eager, lazy, rtol=1e-12, atol=1e-12)
    assert_all_native()


# ---------------------------------------------------------------------------
# multi_margin_loss
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("p", [1, 2])
@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_multi_margin_loss(p, reduction):
    x = rnd(6, 5)
    target = torch.randint(0, 5, (6,), generator=gen)
    fn = lambda a, t: F.multi_margin_loss(a, t, p=p, margin=0.7, reduction=reduction)
    eager, lazy = run_both(fn, x, target, grad_inputs=(0,))
    assert_close(eager, lazy, rtol=1e-6, atol=1e-6)
    assert_all_native()


def test_multi_margin_loss_weighted_float64_and_1d():
    x = rnd(4, 7, dtype=torch.float64)
    target = torch.randint(0, 7, (4,), generator=gen)
    w = torch.rand(7, generator=gen, dtype=torch.float64)
    fn = lambda a, t, w: F.multi_margin_loss(a, t, p=2, weight=w)
    eager, lazy = run_both(fn, x, target, w, grad_inputs=(0,))
    assert_close(eager, lazy, rtol=1e-12, atol=1e-12)
    fn = lambda a, t: F.multi_margin_loss(a, t, reduction="none")
    eager, lazy = run_both(fn, rnd(5), torch.tensor(3), grad_inputs=(0,))
    assert_close(eager, lazy, rtol=1e-6, atol=1e-6)
    assert_all_native()


def test_multi_margin_loss_bad_target_raises():
    x = torch.randn(3, 4)
    bad = torch.tensor([0, 4, 1])
    with pytest.raises(RuntimeError, match="out of range"):
        F.multi_margin_loss(x, bad)
    with pytest.raises(RuntimeError, match="out of bounds") as err:
        F.multi_margin_loss(x.to("lazy"), bad.to("lazy")).cpu()
    assert "[0, 4)" in str(err.value), err.value
    with pytest.raises((ValueError, RuntimeError), match="only p == 1 and p == 2 supported"):
        F.multi_margin_loss(x.to("lazy"), bad.to("lazy"), p=3)


# ---------------------------------------------------------------------------
# multilabel_margin_loss
# ---------------------------------------------------------------------------

MULTILABEL_TARGET = torch.tensor([[3, 0, -1, 1, 2],     # after -1: ignored
                                  [1, 2, 3, 0, 4],     # every class
                                  [-1, 0, 0, 0, 0],    # none
                                  [2, 2, 4, -1, -1]])  # a duplicate counts twice


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_multilabel_margin_loss(reduction):
    x = rnd(4, 5)
    fn = lambda a, t: F.multilabel_margin_loss(a, t, reduction=reduction)
    eager, lazy = run_both(fn, x, MULTILABEL_TARGET, grad_inputs=(0,))
    assert_close(eager, lazy, rtol=1e-6, atol=1e-6)
    assert_all_native()


def test_multilabel_margin_loss_float64_and_1d():
    x = rnd(4, 5, dtype=torch.float64)
    fn = lambda a, t: F.multilabel_margin_loss(a, t)
    eager, lazy = run_both(fn, x, MULTILABEL_TARGET, grad_inputs=(0,))
    assert_close(eager, lazy, rtol=1e-12, atol=1e-12)
    fn = lambda a, t: torch.ops.aten.multilabel_margin_loss_forward(a, t, 0)
    eager, lazy = run_both(fn, rnd(5), torch.tensor([4, 1, -1, 0, 0]))
    assert_close(eager, lazy, rtol=1e-6, atol=1e-6)  # loss and is_target
    assert_all_native()


def test_multilabel_margin_loss_bad_target_raises():
    x = torch.randn(2, 4)
    # Eager checks every value is in [-1, C), also after the first -1.
    for bad in (torch.tensor([[1, 4, -1, 0], [0, -1, 0, 0]]),
                torch.tensor([[1, 3, -1, 0], [0, -1, -7, 0]])):
        with pytest.raises(RuntimeError, match="out of range"):
            F.multilabel_margin_loss(x, bad)
        with pytest.raises(RuntimeError, match="out of bounds"):
            F.multilabel_margin_loss(x.to("lazy"), bad.to("lazy")).cpu()


# ---------------------------------------------------------------------------
# A model using them: two training steps, one graph per step, all native
# ---------------------------------------------------------------------------

class _Seg3d(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.c1 = torch.nn.Conv3d(2, 4, 3, padding=1)
        self.c2 = torch.nn.Conv2d(4, 5, 3, padding=1)

    def forward(self, x):  # [N, 2, D, H, W] -> per-pixel logits [N, 5, 12, 12]
        y = F.max_pool3d(F.relu(self.c1(x)), 2)
        y = F.interpolate(y, scale_factor=2, mode="nearest")
        y = F.adaptive_avg_pool3d(y, (1, 8, 8)).squeeze(2)
        y = F.interpolate(self.c2(y), size=(12, 12), mode="bicubic")
        return y + F.fold(F.unfold(y, 2, stride=2), (12, 12), 2, stride=2)


def test_segmentation_training_steps_native():
    torch.manual_seed(0)
    eager = _Seg3d()
    lazy = _Seg3d()
    lazy.load_state_dict(eager.state_dict())
    lazy = lazy.to("lazy")
    x, t = torch.randn(2, 2, 4, 8, 8), torch.randint(0, 5, (2, 12, 12))
    for model, dev in ((eager, "cpu"), (lazy, "lazy")):
        opt = torch.optim.SGD(model.parameters(), lr=0.1)
        for _ in range(2):
            opt.zero_grad()
            F.cross_entropy(model(x.to(dev)), t.to(dev)).backward()
            opt.step()
            if dev == "lazy":
                torch._lazy.mark_step()
    for p, q in zip(lazy.parameters(), eager.parameters()):
        torch.testing.assert_close(p.cpu(), q.detach(), rtol=1e-4, atol=1e-5)
    m = assert_all_native()
    assert m["native_execute_count"] == 2, m
