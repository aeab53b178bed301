"""Runtime checks: invalid values that only the compiled code sees (an
nll_loss target outside [0, C)) raise a Python RuntimeError, never a silent
number, and the process keeps working afterwards."""
import pytest
import torch
import torch.nn.functional as F

import ltc_mlir
from lazy_testing import assert_all_native
from lazy_testing import assert_close as _assert_close

# Eager raises IndexError("Target 12 is out of bounds."); the lazy device
# raises RuntimeError (mark_step cannot tell the kinds of error apart).
EAGER_ERRORS = (IndexError, RuntimeError)


def assert_close(eager, lazy):
    _assert_close([eager], [lazy])


def _cross_entropy_step(logits, targets, **kwargs):
    x = logits.clone().requires_grad_()
    loss = F.cross_entropy(x, targets, **kwargs)
    loss.backward()
    return loss, x.grad


def test_cross_entropy_target_out_of_bounds_raises():
    torch.manual_seed(0)
    logits = torch.randn(8, 10)
    bad = torch.tensor([1, 2, 12, 3, 4, 5, 6, 7])
    with pytest.raises(EAGER_ERRORS, match="out of bounds"):
        F.cross_entropy(logits, bad)  # eager: "Target 12 is out of bounds."
    with pytest.raises(IndexError, match="out of bounds") as err:
        loss = F.cross_entropy(logits.to("lazy"), bad.to("lazy"))
        torch._lazy.mark_step()
    message = str(err.value)
    assert "nll_loss_forward" in message and "[0, 10)" in message, message
    assert "ignore_index (-100)" in message, message
    assert ltc_mlir.metrics()["fallback_graph_count"] == 0

    # The next good graph (the same compiled code) runs natively and gives
    # eager's numbers.
    ltc_mlir.reset_metrics()
    good = torch.tensor([1, 2, 9, 3, 4, 5, 6, 7])
    loss = F.cross_entropy(logits.to("lazy"), good.to("lazy"))
    assert_close(F.cross_entropy(logits, good), loss.cpu())
    assert_all_native()


@pytest.mark.parametrize("bad_value", [10, -1, -7])
def test_training_step_with_bad_target_raises(bad_value):
    torch.manual_seed(1)
    logits = torch.randn(6, 10)
    bad = torch.tensor([0, 1, bad_value, 3, 4, 5])
    with pytest.raises(EAGER_ERRORS, match="out of bounds"):
        _cross_entropy_step(logits, bad)
    with pytest.raises(IndexError, match="Target is out of bounds"):
        loss, grad = _cross_entropy_step(logits.to("lazy"), bad.to("lazy"))
        torch._lazy.mark_step()

    good = torch.tensor([0, 1, 2, 3, 4, 5])
    ltc_mlir.reset_metrics()
    eager = _cross_entropy_step(logits, good)
    lazy = _cross_entropy_step(logits.to("lazy"), good.to("lazy"))
    torch._lazy.mark_step()
    assert_close(eager[0], lazy[0].cpu())
    assert_close(eager[1], lazy[1].cpu())
    assert_all_native()


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_ignore_index_targets_do_not_trigger_the_check(reduction):
    torch.manual_seed(2)
    logits = torch.randn(5, 4)
    targets = torch.tensor([0, -100, 3, -100, 1])
    eager = _cross_entropy_step(logits, targets, reduction=reduction) \
        if reduction != "none" else (F.cross_entropy(logits, targets, reduction="none"),)
    if reduction == "none":
        lazy = (F.cross_entropy(logits.to("lazy"), targets.to("lazy"), reduction="none"),)
    else:
        lazy = _cross_entropy_step(logits.to("lazy"), targets.to("lazy"), reduction=reduction)
    torch._lazy.mark_step()
    for e, l in zip(eager, lazy):
        assert_close(e, l.cpu())
    assert_all_native()


def test_custom_ignore_index_and_weight():
    torch.manual_seed(3)
    logits = torch.randn(4, 3)
    weight = torch.tensor([0.5, 2.0, 1.5])
    ok = torch.tensor([2, 7, 0, 1])  # 7 is ignore_index
    eager = F.nll_loss(F.log_softmax(logits, 1), ok, weight=weight, ignore_index=7)
    lazy = F.nll_loss(F.log_softmax(logits.to("lazy"), 1), ok.to("lazy"),
                      weight=weight.to("lazy"), ignore_index=7)
    assert_close(eager, lazy.cpu())
    assert_all_native()

    bad = torch.tensor([2, 7, 3, 1])  # 3 == C is not ignored
    with pytest.raises(EAGER_ERRORS, match="out of bounds"):
        F.nll_loss(F.log_softmax(logits, 1), bad, weight=weight, ignore_index=7)
    with pytest.raises(IndexError, match=r"\[0, 3\) or equal to ignore_index \(7\)"):
        lazy = F.nll_loss(F.log_softmax(logits.to("lazy"), 1), bad.to("lazy"),
                          weight=weight.to("lazy"), ignore_index=7)
        torch._lazy.mark_step()


def test_error_is_raised_only_once():
    logits = torch.randn(2, 3)
    with pytest.raises(IndexError, match="out of bounds"):
        loss = F.cross_entropy(logits.to("lazy"), torch.tensor([0, 5]).to("lazy"))
        torch._lazy.mark_step()
    torch._lazy.wait_device_ops()  # LTC alone would raise it again here
    good = torch.tensor([0, 2])
    loss = F.cross_entropy(logits.to("lazy"), good.to("lazy"))
    assert_close(F.cross_entropy(logits, good), loss.cpu())
