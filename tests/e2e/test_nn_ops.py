"""Ops of a small transformer block, end to end: gelu, native_layer_norm and
embedding, forward and backward, lazy device through ltc_mlir vs eager CPU.

Each case asserts the values (explicit tolerances) and that the graph ran as
native code with no fallback.
"""
import pytest
import torch
import torch.nn.functional as F

import ltc_mlir
from lazy_testing import assert_all_native, assert_close, run_both

g = torch.Generator().manual_seed(4321)


def rnd(*shape, dtype=torch.float32):
    return torch.randn(*shape, generator=g).to(dtype)


def _drain_parked_error():
    # See test_runtime_checks.py: torch's LTC re-raises an execution error
    # at the next sync; waiting on the device raises and clears it.
    try:
        torch._lazy.wait_device_ops()
    except RuntimeError:
        pass


# gelu: erf and tanh differ from libm's by an ulp or so (MLIR lowers erf to
# libm erff, tanh to a polynomial), hence rtol 1e-5 / atol 1e-6.
@pytest.mark.parametrize("approximate", ["none", "tanh"])
@pytest.mark.parametrize("shape", [(7,), (4, 33), (2, 3, 17)])
def test_gelu(approximate, shape):
    x = rnd(*shape) * 3
    eager, lazy = run_both(lambda a: F.gelu(a, approximate=approximate), x, grad_inputs=(0,))
    assert_close(eager, lazy, rtol=1e-5, atol=1e-6)
    assert_all_native()


def test_gelu_float64():
    x = rnd(5, 9, dtype=torch.float64) * 3
    for approximate in ("none", "tanh"):
        eager, lazy = run_both(lambda a: F.gelu(a, approximate=approximate), x,
                               grad_inputs=(0,))
        assert_close(eager, lazy, rtol=1e-12, atol=1e-12)
    assert_all_native()


def _layer_norm_stats(x, normalized_shape, w, b, eps):
    return torch.native_layer_norm(x, normalized_shape, w, b, eps)


# Layer norm: statistics and output within 1e-5 of ATen's float kernel (we
# sum in f64, ATen uses a cascaded Welford in f32; both are within a few ulp
# of the exact value). Gradients get atol 1e-5: grad_input is a difference
# of O(1) terms that cancel, so its absolute error is a few f32 ulps of 1.
@pytest.mark.parametrize("shape,normalized", [
    ((4, 16), (16,)),
    ((2, 3, 8), (8,)),
    ((2, 3, 4, 5), (4, 5)),
    ((6,), (6,)),
])
@pytest.mark.parametrize("affine", [True, False])
def test_layer_norm(shape, normalized, affine):
    x = rnd(*shape) * 2 + 0.5
    w = rnd(*normalized) if affine else None
    b = rnd(*normalized) if affine else None
    if affine:
        fn = lambda x, w, b: F.layer_norm(x, normalized, w, b, eps=1e-5)
        inputs, grads = [x, w, b], (0, 1, 2)
    else:
        fn = lambda x: F.layer_norm(x, normalized, eps=1e-5)
        inputs, grads = [x], (0,)
    eager, lazy = run_both(fn, *inputs, grad_inputs=grads)
    assert_close(eager, lazy, rtol=1e-5, atol=1e-5)
    assert_all_native()


def test_layer_norm_weight_only_and_mean_rstd():
    x, w = rnd(3, 10) * 4 - 1, rnd(10)
    fn = lambda x, w: torch.native_layer_norm(x, [10], w, None, 1e-3)
    eager, lazy = run_both(fn, x, w, grad_inputs=(0, 1))
    # outputs: out, mean, rstd, then grad x, grad w
    assert [t.shape for t in lazy[:3]] == [(3, 10), (3, 1), (3, 1)]
    assert_close(eager, lazy, rtol=1e-5, atol=1e-5)
    assert_all_native()


def test_layer_norm_float64():
    x, w, b = (rnd(4, 6, dtype=torch.float64), rnd(6, dtype=torch.float64),
               rnd(6, dtype=torch.float64))
    eager, lazy = run_both(lambda x, w, b: F.layer_norm(x, (6,), w, b), x, w, b,
                           grad_inputs=(0, 1, 2))
    assert_close(eager, lazy, rtol=1e-10, atol=1e-10)
    assert_all_native()


@pytest.mark.parametrize("index_shape", [(5,), (3, 4), ()])
@pytest.mark.parametrize("padding_idx", [None, 2])
def test_embedding(index_shape, padding_idx):
    weight = rnd(10, 6)
    idx = torch.randint(0, 10, index_shape, generator=g)
    if idx.dim() > 0:
        idx.view(-1)[0] = 2  # padding_idx occurs (and repeats with 3 below)
        idx.view(-1)[-1] = 3
        if idx.numel() > 2:
            idx.view(-1)[1] = 3
    fn = lambda w, i: F.embedding(i, w, padding_idx=padding_idx)
    eager, lazy = run_both(fn, weight, idx, grad_inputs=(0,))
    # Forward is a gather (exact); the backward sums the same rows in the
    # same order as ATen's index_add.
    assert_close(eager, lazy, rtol=0, atol=0)
    assert_all_native()


def test_embedding_out_of_range_raises():
    weight = rnd(5, 3)
    bad = torch.tensor([0, 4, 5])
    with pytest.raises((IndexError, RuntimeError), match="index out of range"):
        F.embedding(bad, weight)
    with pytest.raises(IndexError, match="index out of range in self") as err:
        out = F.embedding(bad.to("lazy"), weight.to("lazy"))
        torch._lazy.mark_step()
    _drain_parked_error()
    assert "embedding" in str(err.value) and "[0, 5)" in str(err.value), str(err.value)
    assert ltc_mlir.metrics()["fallback_graph_count"] == 0

    ltc_mlir.reset_metrics()
    good = torch.tensor([0, 4, 1])
    out = F.embedding(good.to("lazy"), weight.to("lazy"))
    assert_close([F.embedding(good, weight)], [out.cpu()], rtol=0, atol=0)
    assert_all_native()


# F.scaled_dot_product_attention: on the CPU (and on lazy tensors) the math
# path, whose _safe_softmax is our Lazy kernel (safe_softmax_kernel.cpp).
# dropout_p = 0: dropout's masks are random.
@pytest.mark.parametrize("is_causal", [False, True])
@pytest.mark.parametrize("scale", [None, 0.3])
@pytest.mark.parametrize("with_mask", [False, True])
@pytest.mark.parametrize("grad", [False, True])
def test_scaled_dot_product_attention(is_causal, scale, with_mask, grad):
    q, k, v = rnd(2, 3, 5, 8), rnd(2, 3, 6, 8), rnd(2, 3, 6, 8)
    mask = (rnd(5, 6) > 0.5).float() * -1e4 if with_mask else None

    def fn(q, k, v, mask):
        return F.scaled_dot_product_attention(q, k, v, attn_mask=mask, dropout_p=0.0,
                                              is_causal=is_causal, scale=scale)

    if with_mask and is_causal:  # eager's argument check, raised the same
        with pytest.raises(RuntimeError, match="attn_mask should not be set when is_causal"):
            with torch.set_grad_enabled(grad):
                fn(q.to("lazy"), k.to("lazy"), v.to("lazy"), mask.to("lazy"))
        return
    ltc_mlir.reset_metrics()
    with torch.set_grad_enabled(grad):
        eager, lazy = run_both(fn, q, k, v, mask, grad_inputs=(0, 1, 2) if grad else ())
    assert_close(eager, lazy, rtol=1e-5, atol=1e-5)
    assert_all_native()
