"""Operands of different dtypes where eager CPU raises: the lazy device
raises eager's own error (device_guard.cpp), instead of computing (mm, bmm,
F.linear without bias, layer norm with f64 parameters gave numbers; the
matrix products of a floating and an integral tensor too) or failing later
inside TorchScript with another message. And where eager accepts a mix, the
result has eager's dtype (huber_loss is its input's)."""
import pytest
import torch
import torch.nn.functional as F

import ltc_mlir

g = torch.Generator().manual_seed(0)
A, B = torch.randn(3, 3, generator=g), torch.randn(3, 3, generator=g, dtype=torch.float64)
I = torch.randint(0, 4, (3, 3), generator=g)
V, VD = torch.randn(3, generator=g), torch.randn(3, generator=g, dtype=torch.float64)

CASES = {
    "mm": lambda d: torch.mm(A.to(d), B.to(d)),
    "mm_reversed": lambda d: torch.mm(B.to(d), A.to(d)),
    "bmm": lambda d: torch.bmm(A[None].to(d), B[None].to(d)),
    "linear_no_bias": lambda d: F.linear(A.to(d), B.to(d)),
    "mm_int64": lambda d: torch.mm(A.to(d), I.to(d)),
    "mm_uint8_f16": lambda d: torch.mm(I.to(torch.uint8).to(d), A.half().to(d)),
    "bmm_int32": lambda d: torch.bmm(I[None].int().to(d), A[None].to(d)),
    "linear_int_weight": lambda d: F.linear(A.to(d), I.to(d)),
    "dot_uint8_bool": lambda d: torch.dot(I[0].to(torch.uint8).to(d), I[1].bool().to(d)),
    "addmm_int_bias": lambda d: torch.addmm(I.to(d), A.to(d), A.to(d)),
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


BOOLS = torch.rand(4, 5, generator=g) > 0.5
BOOL_CASES = {
    "argmax": lambda t: t.argmax(1), "argmin": lambda t: t.argmin(), "round": torch.round,
    "kthvalue": lambda t: torch.kthvalue(t, 2)[0], "topk": lambda t: t.topk(2)[0],
    "trace": torch.trace,
}


@pytest.mark.parametrize("name", sorted(BOOL_CASES))
def test_ops_without_a_bool_kernel_raise_eagers_error(name):
    # Eager's CPU kernels have no bool version; the lazy ones computed.
    with pytest.raises(RuntimeError) as eager:
        BOOL_CASES[name](BOOLS)
    with pytest.raises(RuntimeError) as lazy:
        BOOL_CASES[name](BOOLS.to("lazy")).cpu()
    assert str(lazy.value).splitlines()[0] == str(eager.value).splitlines()[0]
    # Other integral dtypes still compute, as eager.
    ints = BOOLS.to(torch.uint8)
    assert torch.equal(BOOL_CASES[name](ints.to("lazy")).cpu(), BOOL_CASES[name](ints))


def test_reduced_precision_input_with_f32_norm_parameters_still_runs():
    # Eager accepts f32 batch-norm parameters on a bf16 input: so does lazy.
    x = torch.randn(4, 3, generator=g).bfloat16()
    w, b = torch.ones(3), torch.zeros(3)
    eager = F.batch_norm(x, None, None, w, b, training=True)
    lazy = F.batch_norm(x.to("lazy"), None, None, w.to("lazy"), b.to("lazy"), training=True).cpu()
    assert lazy.dtype == eager.dtype
    torch.testing.assert_close(lazy.float(), eager.float(), rtol=2e-2, atol=2e-2)


@pytest.mark.parametrize("input_dtype,target_dtype", [
    (torch.float32, torch.float64), (torch.float64, torch.float32),
    (torch.float16, torch.float32), (torch.bfloat16, torch.float64)])
@pytest.mark.parametrize("reduction", ["mean", "none"])
def test_huber_loss_has_its_inputs_dtype(input_dtype, target_dtype, reduction):
    # Computed natively in the promoted dtype, then cast (as eager).
    x = torch.randn(4, 5, generator=g).to(input_dtype)
    y = torch.randn(4, 5, generator=g).to(target_dtype)
    eager = F.huber_loss(x, y, reduction=reduction, delta=0.7)
    ltc_mlir.reset_metrics()
    lazy = F.huber_loss(x.to("lazy"), y.to("lazy"), reduction=reduction, delta=0.7).cpu()
    m = ltc_mlir.metrics()
    assert m["fallback_ops"] == {} and m["native_execute_count"] == m["execute_count"] >= 1, m
    assert lazy.dtype == eager.dtype == input_dtype
    tol = 1e-5 if input_dtype in (torch.float32, torch.float64) else 1e-2
    torch.testing.assert_close(lazy, eager, rtol=tol, atol=tol)


def test_huber_loss_rejects_non_positive_delta():
    with pytest.raises(RuntimeError, match="non-positive values for delta"):
        F.huber_loss(A.to("lazy"), A.to("lazy"), delta=0.0).cpu()


def test_one_dtype_still_compiles():
    ltc_mlir.reset_metrics()
    out = torch.mm(A.to("lazy"), A.to("lazy")).cpu()
    torch.testing.assert_close(out, A @ A, rtol=1e-5, atol=1e-5)
    m = ltc_mlir.metrics()
    assert m["fallback_ops"] == {} and m["native_execute_count"] >= 1, m
