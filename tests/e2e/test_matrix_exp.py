"""torch.linalg.matrix_exp on the lazy device (matrix_exp_kernel.cpp; torch's
LTC runs it and its backward eagerly) against eager CPU, values and
gradients, small and large norms (scaling and squaring), batched, 1 x 1.
Relative to the largest entry: f32 2e-5, f64 1e-13 (eager uses another
approximant chosen from the norm: equal up to rounding)."""
import pytest
import torch

import ltc_mlir
from lazy_testing import assert_all_native, eager_fallback_ops


@pytest.mark.parametrize("dtype,tol", [(torch.float32, 2e-5), (torch.float64, 1e-13)])
@pytest.mark.parametrize("shape,scale", [((5, 5), 1), ((5, 5, 5), 1), ((3, 4, 4), 10),
                                         ((2, 2), 0.01), ((1, 1), 3), ((6, 6), 50)])
def test_matrix_exp_and_gradient_match_eager(shape, scale, dtype, tol):
    g = torch.Generator().manual_seed(shape[-1] * 7 + int(scale))
    A = torch.randn(*shape, generator=g, dtype=dtype) * scale / shape[-1] ** 0.5
    results = []
    for device in ("cpu", "lazy"):
        a = A.to(device).requires_grad_()
        out = torch.linalg.matrix_exp(a)
        cot = torch.randn(out.shape, generator=torch.Generator().manual_seed(1), dtype=dtype)
        (grad,) = torch.autograd.grad((out * cot.to(device)).sum(), [a])
        if device == "lazy":
            import torch._lazy.metrics as lazy_metrics
            lazy_metrics.reset()
            ltc_mlir.reset_metrics()
            torch._lazy.mark_step()
        results.append((out.detach().cpu(), grad.cpu()))
    for e, l in zip(*results):
        assert ((e - l).abs().max() / e.abs().max()).item() <= tol
    assert_all_native()
    assert eager_fallback_ops() == []
