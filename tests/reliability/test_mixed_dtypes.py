"""Operands of different floating dtypes where eager CPU raises: the lazy
device raises eager's own error (device_guard.cpp), instead of computing
(mm, bmm, F.linear without bias, layer norm with f64 parameters gave
numbers) or failing later inside TorchScript with another message."""
import pytest
import torch
import torch.nn.functional as F

import ltc_mlir

g = torch.Generator().manual_seed(0)
A, B = torch.randn(3, 3, generator=g), torch.randn(3, 3, generator=g, dtype=torch.float64)
V, VD = torch.randn(3, generator=g), torch.randn(3, generator=g, dtype=torch.float64)

CASES = {
    "mm": lambda d: torch.mm(A.to(d), B.to(d)),
    "mm_reversed": lambda d: torch.mm(B.to(d), A.to(d)),
    "bmm": lambda d: torch.bmm(A[None].to(d), B[None].to(d)),
    "linear_no_bias": lambda d: F.linear(A.to(d), B.to(d)),
    "matmul": lambda d: A.to(d) @ B.to(d),
    "mv": lambda d: torch.mv(A.to(d), VD.to(d)),
    "dot": lambda d: torch.dot(V.to(d), VD.to(d)),
    "addmv": lambda d: torch.addmv(V.to(d), A.to(d), VD.to(d)),
    "baddbmm": lambda d: torch.baddbmm(A[None].to(d), A[None].to(d), B[None].to(d)),
    "addbmm": lambda d: torch.addbmm(A.to(d), A[None].to(d), B[None].to(d)),
    "conv2d": lambda d: F.conv2d(A[None, None].to(d), B[None, None].to(d)),
    "conv_transpose2d": lambda d: F.conv_transpose2d(A[None, None].to(d), B[None, None].to(d)),
    "layer_norm_f64_weight": lambda d: F.layer_norm(A.to(d), (3,), VD.to(d)),
    "group_norm_f64_weight": lambda d: F.group_norm(A[None].to(d), 1, VD.to(d)),
    "batch_norm_f64_weight": lambda d: F.batch_norm(A.to(d), V.to(d), V.abs().to(d), VD.to(d), V.to(d)),
    "cross": lambda d: torch.cross(A.to(d), B.to(d)),
    "prelu": lambda d: F.prelu(A.to(d), torch.tensor([0.2], dtype=torch.float64).to(d)),
    "binary_cross_entropy": lambda d: F.binary_cross_entropy(A.sigmoid().to(d), B.sigmoid().to(d)),
    "nll_loss_weight": lambda d: F.nll_loss(A.to(d), torch.tensor([0, 1, 2]).to(d), weight=VD.to(d)),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_mixed_dtypes_raise_eagers_error(name):
    with pytest.raises(RuntimeError) as eager:
        CASES[name]("cpu")
    with pytest.raises(RuntimeError) as lazy:
        CASES[name]("lazy").cpu()
    assert str(lazy.value).splitlines()[0] == str(eager.value).splitlines()[0]


def test_reduced_precision_input_with_f32_norm_parameters_still_runs():
    # Eager accepts f32 batch-norm parameters on a bf16 input: so does lazy.
    x = torch.randn(4, 3, generator=g).bfloat16()
    w, b = torch.ones(3), torch.zeros(3)
    eager = F.batch_norm(x, None, None, w, b, training=True)
    lazy = F.batch_norm(x.to("lazy"), None, None, w.to("lazy"), b.to("lazy"), training=True).cpu()
    assert lazy.dtype == eager.dtype
    torch.testing.assert_close(lazy.float(), eager.float(), rtol=2e-2, atol=2e-2)


def test_one_dtype_still_compiles():
    ltc_mlir.reset_metrics()
    out = torch.mm(A.to("lazy"), A.to("lazy")).cpu()
    torch.testing.assert_close(out, A @ A, rtol=1e-5, atol=1e-5)
    m = ltc_mlir.metrics()
    assert m["fallback_ops"] == {} and m["native_execute_count"] >= 1, m
