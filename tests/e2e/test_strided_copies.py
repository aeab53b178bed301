"""Copies bufferization inserts between strided views are compiled loops, not
calls of the generic element-by-element `memrefCopy` runtime function
(ltc-expand-strided-copies): a stride-2 depthwise convolution's training
step made ~20 such calls and ran 20x slower than eager.

Each case compares forward and backward with eager (f32: rtol/atol 1e-4),
asserts native execution, and asserts that the dumped LLVM-dialect modules
call memrefCopy nowhere.
"""
import glob

import pytest
import torch
import torch.nn as nn

import ltc_mlir
from lazy_testing import assert_all_native, assert_close

CASES = {
    "depthwise_stride2": lambda: nn.Conv2d(24, 24, 3, stride=2, padding=1, groups=24, bias=False),
    "depthwise_stride1": lambda: nn.Conv2d(24, 24, 3, stride=1, padding=1, groups=24),
    "conv_stride2": lambda: nn.Conv2d(8, 16, 3, stride=2, padding=1),
    "conv_transpose_stride2": lambda: nn.ConvTranspose2d(16, 8, 3, stride=2, padding=1, output_padding=1),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_strided_convolution_steps_compile_their_copies(name, tmp_path):
    torch.manual_seed(3)
    module = CASES[name]()
    x = torch.randn(2, module.in_channels, 15, 15)
    xe = x.clone().requires_grad_(True)
    module(xe).square().sum().backward()
    expected = [xe.grad] + [p.grad.clone() for p in module.parameters()]
    module.zero_grad(set_to_none=True)

    ltc_mlir.reset_metrics()
    ltc_mlir.set_dump_dir(str(tmp_path))
    try:
        module.to("lazy")
        xl = x.to("lazy").requires_grad_(True)
        module(xl).square().sum().backward()
        torch._lazy.mark_step()
        got = [xl.grad.cpu()] + [p.grad.cpu() for p in module.parameters()]
    finally:
        ltc_mlir.set_dump_dir(None)
    for e, g in zip(expected, got):
        assert_close(e, g, rtol=1e-4, atol=1e-4)
    assert_all_native()
    llvm = "\n".join(open(f).read() for f in glob.glob(str(tmp_path / "*.llvm.mlir")))
    assert "llvm.func @" in llvm
    assert "memrefCopy" not in llvm
