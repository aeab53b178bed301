"""F.ctc_loss on the lazy device vs eager: _ctc_loss and _ctc_loss_backward
are lazy ops lowered to the runtime's CTC recursions (runtime/ctc_loss.h),
computed per batch element in eager's order, so the values are equal to the
last bit here (tolerances: f32 1e-6, f64 1e-12). Every case asserts that
both ops ran natively. Arguments the lowering does not take run eagerly."""
import pytest
import torch
import torch.nn as nn
import torch.nn.functional as F
import torch._lazy

import ltc_mlir
from lazy_testing import assert_all_native, assert_ops_native

TOL = {torch.float32: dict(rtol=1e-6, atol=1e-6), torch.float64: dict(rtol=1e-12, atol=1e-12)}


def _inputs(T, B, C, S, dtype, concatenated, seed=0, input_lengths=None, target_lengths=None):
    g = torch.Generator().manual_seed(seed)
    lp = torch.randn(T, B, C, generator=g, dtype=dtype).log_softmax(2)
    tl = target_lengths or [int(x) for x in torch.randint(1, S + 1, (B,), generator=g)]
    il = input_lengths or [int(x) for x in torch.randint(min(2 * max(tl) + 1, T), T + 1, (B,), generator=g)]
    targets = torch.randint(1, C, (B, S), generator=g)
    if concatenated:
        targets = torch.cat([targets[b, :tl[b]] for b in range(B)])
    return lp, targets, il, tl


def _run(device, lp, targets, il, tl, lengths_as_tensors=True, **kwargs):
    x = lp.clone().to(device).requires_grad_()
    lengths = (torch.tensor(il), torch.tensor(tl)) if lengths_as_tensors else (il, tl)
    loss = F.ctc_loss(x, targets.to(device), *lengths, **kwargs)
    (loss.sum() if loss.dim() else loss).backward()
    return loss.detach().cpu(), x.grad.cpu()


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
@pytest.mark.parametrize("concatenated", [False, True])
@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_ctc_loss_and_gradient_match_eager_natively(dtype, concatenated, reduction):
    lp, targets, il, tl = _inputs(12, 3, 6, 4, dtype, concatenated)
    eager = _run("cpu", lp, targets, il, tl, reduction=reduction)
    ltc_mlir.reset_metrics()
    lazy = _run("lazy", lp, targets, il, tl, lengths_as_tensors=reduction != "sum",
                reduction=reduction)
    for e, l in zip(eager, lazy):
        torch.testing.assert_close(l, e, **TOL[dtype])
    assert_ops_native("aten::_ctc_loss", "aten::_ctc_loss_backward")
    assert_all_native()


@pytest.mark.parametrize("zero_infinity", [False, True])
def test_impossible_alignment_is_inf_or_zeroed_like_eager(zero_infinity):
    # Target length 4 cannot fit 3 steps: the loss is inf (NaN gradients),
    # or 0 with zero gradients under zero_infinity, as in eager.
    lp, targets, il, tl = _inputs(3, 2, 5, 4, torch.float32, False, input_lengths=[3, 3],
                                  target_lengths=[4, 2])
    kwargs = dict(reduction="none", zero_infinity=zero_infinity)
    eager = _run("cpu", lp, targets, il, tl, **kwargs)
    ltc_mlir.reset_metrics()
    lazy = _run("lazy", lp, targets, il, tl, **kwargs)
    for e, l in zip(eager, lazy):
        torch.testing.assert_close(l, e, rtol=1e-6, atol=1e-6, equal_nan=True)
    assert bool(torch.isinf(eager[0][0])) != zero_infinity
    assert_ops_native("aten::_ctc_loss", "aten::_ctc_loss_backward")


@pytest.mark.parametrize("bad", ["input_length_above_T", "blank_out_of_range"])
def test_invalid_arguments_raise_eagers_error(bad):
    lp, targets, il, tl = _inputs(6, 2, 5, 2, torch.float32, False)
    kwargs = dict(blank=0)
    if bad == "input_length_above_T":
        il = [7, 6]
    else:
        kwargs["blank"] = 5
    with pytest.raises(RuntimeError) as eager:
        _run("cpu", lp, targets, il, tl, **kwargs)
    with pytest.raises(RuntimeError) as lazy:
        _run("lazy", lp, targets, il, tl, **kwargs)
    assert str(lazy.value).splitlines()[0] == str(eager.value).splitlines()[0]


def test_int32_targets_match_natively():
    # F.ctc_loss converts int32 targets to int64 before _ctc_loss.
    lp, targets, il, tl = _inputs(8, 2, 5, 3, torch.float32, False)
    eager = _run("cpu", lp, targets.int(), il, tl)
    ltc_mlir.reset_metrics()
    lazy = _run("lazy", lp, targets.int(), il, tl)
    for e, l in zip(eager, lazy):
        torch.testing.assert_close(l, e, rtol=1e-6, atol=1e-6)
    assert_ops_native("aten::_ctc_loss", "aten::_ctc_loss_backward")


class _Recognizer(nn.Module):
    """A CRNN-style recognizer: conv features, a bidirectional LSTM, CTC."""

    def __init__(self, classes=7):
        super().__init__()
        self.conv = nn.Conv1d(4, 8, 3, padding=1)
        self.rnn = nn.LSTM(8, 12, bidirectional=True)
        self.head = nn.Linear(24, classes)

    def forward(self, x):  # x [B, 4, T]
        f = F.relu(self.conv(x)).permute(2, 0, 1)  # [T, B, 8]
        return self.head(self.rnn(f)[0]).log_softmax(2)


def test_lstm_ctc_model_trains_natively_like_eager():
    def train(device):
        torch.manual_seed(0)
        model = _Recognizer().to(device)
        opt = torch.optim.Adam(model.parameters(), lr=1e-2)
        g = torch.Generator().manual_seed(1)
        for _ in range(3):
            x = torch.randn(3, 4, 16, generator=g)
            targets = torch.randint(1, 7, (3, 5), generator=g)
            loss = F.ctc_loss(model(x.to(device)), targets.to(device), [16, 14, 12], [5, 3, 4])
            opt.zero_grad()
            loss.backward()
            opt.step()
            if device == "lazy":
                torch._lazy.mark_step()
        return [p.detach().cpu() for p in model.parameters()]
    eager = train("cpu")
    ltc_mlir.reset_metrics()
    lazy = train("lazy")
    for e, l in zip(eager, lazy):
        torch.testing.assert_close(l, e, rtol=1e-4, atol=1e-5)
    m = assert_all_native()
    assert m["native_execute_count"] == m["execute_count"] >= 3, m
    assert_ops_native("aten::_ctc_loss", "aten::_ctc_loss_backward")
