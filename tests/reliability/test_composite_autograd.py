"""Gradients of CompositeImplicitAutograd ops that have a Lazy kernel
(ltc_backend/lazy_kernels/composite_autograd.cpp).

torch 2.x gives such an op (ours: diag, logdet, svd; torch's own LTC: std,
std.dim) no autograd kernel on the lazy device: its backward silently
returned None, so `x.std(1)` or `torch.diag(w)` in a lazy training step
left the parameter without a gradient. Our AutogradLazy kernel runs the
op's differentiable decomposition when a gradient is wanted and the one
graph node otherwise.
"""
import ltc_mlir
import pytest
import torch

from lazy_testing import assert_close, run_both

CASES = [
    ("diag_of_matrix", lambda x: torch.diag(x, 1), (4, 5)),
    ("diag_of_vector", lambda x: torch.diag(x, -1), (5,)),
    ("std_all", lambda x: x.std(), (4, 5)),
    ("std_dim", lambda x: x.std(1, keepdim=True), (4, 5)),
    ("std_dims_unbiased_false", lambda x: torch.std(x, (0, 1), False), (4, 5)),
    ("logdet", lambda x: torch.logdet(x @ x.mT + torch.eye(4, device=x.device)), (4, 4)),
    ("svd_values", lambda x: torch.svd(x)[1], (4, 3)),
]


@pytest.mark.parametrize("fn,shape", [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_gradient_matches_eager(fn, shape):
    x = torch.randn(*shape, generator=torch.Generator().manual_seed(0))
    eager, lazy = run_both(fn, x, grad_inputs=(0,))
    assert lazy[-1] is not None, "the lazy input got no gradient"
    assert_close(eager, lazy, rtol=1e-4, atol=1e-5)


def test_every_such_op_has_an_autograd_kernel():
    ltc_mlir.init()
    missing = []
    for name in torch._C._dispatch_get_registrations_for_dispatch_key("Lazy"):
        if not name.startswith("aten::"):
            continue
        has = lambda key: torch._C._dispatch_has_kernel_for_dispatch_key(name, key)  # noqa: E731
        if not has("CompositeImplicitAutograd") or has("Autograd"):
            continue
        schema = torch._C._get_schema(*(name.split(".", 1) + [""])[:2])
        if any(a.alias_info is not None for a in schema.arguments):
            continue  # out= and in-place variants: no gradient to lose
        if not has("AutogradLazy"):
            missing.append(name)
    assert missing == []


def test_without_grad_the_op_stays_one_native_node():
    ltc_mlir.init()
    x = torch.randn(4, 5).to("lazy")
    ltc_mlir.reset_metrics()
    y = torch.diag(x) + x.std(1)
    torch._lazy.mark_step()
    m = ltc_mlir.metrics()
    assert m["native_ops"].get("aten::diag") == 1, m["native_ops"]
    assert m["native_ops"].get("aten::std") == 1, m["native_ops"]
    assert m["fallback_ops"] == {}
    xc = x.cpu()
    torch.testing.assert_close(y.cpu(), torch.diag(xc) + xc.std(1))
