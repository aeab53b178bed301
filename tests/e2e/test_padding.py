"""Reflection and replication padding (F.pad modes "reflect" / "replicate",
Conv2d(padding_mode=...)), forward and backward, lazy device vs eager CPU.

torch's LTC has no Lazy kernel for these ops: ltc_mlir registers them
(AtenOpNode, InitBackend), three backward ops shaped as self (they have
only Python Meta kernels). The forward copies elements (exact); the
backward sums the gradients of the outputs that read each input element in
ATen's order (f32: exact up to the multi-dim accumulation order, rtol 1e-6).
"""
import pytest
import torch
import torch.nn.functional as F

import ltc_mlir
from lazy_testing import assert_all_native, assert_close, assert_ops_native, run_both

gen = torch.Generator().manual_seed(7)


def rnd(*shape, dtype=torch.float32):
    return torch.randn(*shape, generator=gen).to(dtype)


# shape, pad (F.pad order: last dim first)
CASES = {
    1: [((2, 3, 7), (2, 3)), ((3, 5), (4, 0)), ((1, 2, 4), (3, 3)), ((2, 2, 6), (0, 0))],
    2: [((2, 3, 7, 6), (2, 3, 1, 2)), ((3, 5, 4), (1, 1, 3, 0)), ((1, 1, 3, 3), (2, 2, 2, 2))],
    3: [((2, 3, 4, 7, 6), (2, 3, 1, 2, 1, 1)), ((2, 3, 3, 4), (1, 0, 2, 1, 2, 2))],
}
MODES = {"reflect": "reflection", "replicate": "replication"}


@pytest.mark.parametrize("mode", sorted(MODES))
@pytest.mark.parametrize("n,case", [(n, i) for n in CASES for i in range(len(CASES[n]))])
def test_pad(mode, n, case):
    shape, pad = CASES[n][case]
    eager, lazy = run_both(lambda a: F.pad(a, pad, mode=mode), rnd(*shape), grad_inputs=(0,))
    assert_close(eager, lazy, rtol=1e-6, atol=1e-6)
    assert_all_native()
    op = f"aten::{MODES[mode]}_pad{n}d"
    assert_ops_native(op, op + "_backward")


@pytest.mark.parametrize("mode", sorted(MODES))
def test_pad_float64(mode):
    x = rnd(2, 3, 5, 4, dtype=torch.float64)
    eager, lazy = run_both(lambda a: F.pad(a, (3, 1, 2, 4), mode=mode) * 1.5, x,
                           grad_inputs=(0,))
    assert_close(eager, lazy, rtol=1e-12, atol=1e-12)
    assert_ops_native(f"aten::{MODES[mode]}_pad2d", f"aten::{MODES[mode]}_pad2d_backward")


def test_replicate_pad_wider_than_input():
    # Replication (unlike reflection) may pad by more than the dim's size.
    eager, lazy = run_both(lambda a: F.pad(a, (5, 7), mode="replicate"), rnd(2, 3, 2),
                           grad_inputs=(0,))
    assert_close(eager, lazy, rtol=1e-6, atol=1e-6)
    assert_ops_native("aten::replication_pad1d", "aten::replication_pad1d_backward")


def test_reflect_pad_too_wide_raises():
    x = rnd(2, 3, 3).to("lazy")
    with pytest.raises(RuntimeError, match="Padding size should be less than"):
        F.pad(x, (3, 0), mode="reflect")


@pytest.mark.parametrize("padding_mode", ["reflect", "replicate"])
def test_conv_padding_mode_training_step(padding_mode):
    torch.manual_seed(0)
    conv = torch.nn.Conv2d(3, 4, 3, padding=1, padding_mode=padding_mode)
    x = rnd(2, 3, 8, 8)
    ref = torch.nn.Conv2d(3, 4, 3, padding=1, padding_mode=padding_mode)
    ref.load_state_dict(conv.state_dict())
    xe = x.clone().requires_grad_()
    ref(xe).square().sum().backward()
    lazy_conv = conv.to("lazy")
    xl = x.to("lazy").requires_grad_()
    lazy_conv(xl).square().sum().backward()
    torch._lazy.mark_step()
    assert_close([ref.weight.grad, ref.bias.grad, xe.grad],
                 [lazy_conv.weight.grad.cpu(), lazy_conv.bias.grad.cpu(), xl.grad.cpu()],
                 rtol=1e-5, atol=1e-5)
    assert_all_native()
    kind = MODES[padding_mode]
    assert_ops_native(f"aten::{kind}_pad2d", f"aten::{kind}_pad2d_backward")

