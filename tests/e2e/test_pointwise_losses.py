"""smooth_l1_loss, huber_loss, soft_margin_loss, binary_cross_entropy (and
with_logits, which decomposes into elementwise ops), forward and backward,
lazy device vs eager CPU, every reduction.

ltc_mlir registers these ops (AtenOpNode; the backward ops shaped as
self), in place of torch 2.14's Lazy kernels for smooth_l1_loss and
binary_cross_entropy (+ backward); huber_loss and soft_margin_loss have none.
Elementwise math in f32 with sums blocked differently from ATen's:
rtol 1e-5.
"""
import pytest
import torch
import torch.nn.functional as F

from lazy_testing import assert_all_native, assert_close, assert_ops_native, run_both

gen = torch.Generator().manual_seed(11)


def rnd(*shape, dtype=torch.float32):
    return torch.randn(*shape, generator=gen).to(dtype)


REDUCTIONS = ["none", "mean", "sum"]


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("beta", [1.0, 0.3])
def test_smooth_l1_loss(reduction, beta):
    x, y = rnd(4, 7), rnd(4, 7)
    eager, lazy = run_both(lambda a, b: F.smooth_l1_loss(a, b, reduction=reduction, beta=beta),
                           x, y, grad_inputs=(0,))
    assert_close(eager, lazy, rtol=1e-5, atol=1e-6)
    assert_all_native()
    assert_ops_native("aten::smooth_l1_loss", "aten::smooth_l1_loss_backward")


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("delta", [1.0, 0.5, 2.0])
def test_huber_loss(reduction, delta):
    x, y = rnd(3, 5, 6) * 2, rnd(3, 5, 6)
    eager, lazy = run_both(lambda a, b: F.huber_loss(a, b, reduction=reduction, delta=delta),
                           x, y, grad_inputs=(0,))
    assert_close(eager, lazy, rtol=1e-5, atol=1e-6)
    assert_all_native()
    assert_ops_native("aten::huber_loss", "aten::huber_loss_backward")


@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_soft_margin_loss(reduction):
    x = rnd(6, 9)
    y = torch.randint(0, 2, (6, 9), generator=gen).float() * 2 - 1
    eager, lazy = run_both(lambda a, b: F.soft_margin_loss(a, b, reduction=reduction),
                           x, y, grad_inputs=(0,))
    assert_close(eager, lazy, rtol=1e-5, atol=1e-6)
    assert_all_native()
    assert_ops_native("aten::soft_margin_loss", "aten::soft_margin_loss_backward")


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("weighted", [False, True])
def test_binary_cross_entropy(reduction, weighted):
    x = torch.sigmoid(rnd(5, 8))
    x[0, 0], x[0, 1] = 0.0, 1.0  # log clamped at -100
    y = torch.rand(5, 8, generator=gen)
    w = torch.rand(8, generator=gen) if weighted else None
    inputs = (x, y) + ((w,) if weighted else ())
    fn = lambda a, b, *ws: F.binary_cross_entropy(a, b, weight=ws[0] if ws else None,
                                                 reduction=reduction)
    eager, lazy = run_both(fn, *inputs, grad_inputs=(0,))
    assert_close(eager, lazy, rtol=1e-5, atol=1e-5)
    assert_all_native()
    assert_ops_native("aten::binary_cross_entropy", "aten::binary_cross_entropy_backward")


def test_binary_cross_entropy_float64_training_step():
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(6, 4), torch.nn.Sigmoid()).double()
    x = rnd(8, 6, dtype=torch.float64)
    y = torch.rand(8, 4, generator=gen, dtype=torch.float64)

    def grads(device):
        m = torch.nn.Sequential(torch.nn.Linear(6, 4), torch.nn.Sigmoid()).double()
        m.load_state_dict(model.state_dict())
        m = m.to(device)
        F.binary_cross_entropy(m(x.to(device)), y.to(device)).backward()
        if device == "lazy":
            torch._lazy.mark_step()
        return [p.grad.cpu() for p in m.parameters()]

    assert_close(grads("cpu"), grads("lazy"), rtol=1e-10, atol=1e-12)
    assert_all_native()


def test_binary_cross_entropy_input_out_of_range_raises():
    x = torch.tensor([0.5, 1.5]).to("lazy")
    with pytest.raises(RuntimeError, match="binary_cross_entropy: all elements of input"):
        loss = F.binary_cross_entropy(x * 1.0, torch.ones(2).to("lazy"))
        torch._lazy.mark_step()
        loss.cpu()


def test_binary_cross_entropy_with_logits():
    x, y = rnd(4, 6), torch.rand(4, 6, generator=gen)
    pw = torch.rand(6, generator=gen) + 0.5
    eager, lazy = run_both(lambda a, b, p: F.binary_cross_entropy_with_logits(a, b, pos_weight=p),
                           x, y, pw, grad_inputs=(0,))
    assert_close(eager, lazy, rtol=1e-5, atol=1e-6)
    assert_all_native()
