"""F.grid_sample (grid_sampler_2d) on the lazy device vs eager CPU: every
interpolation (bilinear, nearest, bicubic), padding (zeros, border,
reflection) and align_corners, f32 and f64, forward and both gradients
(input and grid), with grid points outside [-1, 1]. Each case runs natively
(grid_sample_kernel.cpp, in place of torch 2.14's grid_sampler_2d nodes).

Tolerances: f32 values and input gradients 1e-5 (ATen's vectorized kernel
orders a few operations differently); the grid gradient 1e-4 relative (ATen
differentiates analytically, autograd through the same arithmetic). f64 1e-10.
"""
import itertools

import pytest
import torch
import torch.nn.functional as F

import ltc_mlir
from lazy_testing import assert_all_native, eager_fallback_ops


def run(device, x, grid, **kwargs):
    xi = x.to(device).requires_grad_()
    gi = grid.to(device).requires_grad_()
    out = F.grid_sample(xi, gi, **kwargs)
    cot = torch.randn(out.shape, generator=torch.Generator().manual_seed(1), dtype=x.dtype)
    gx, gg = torch.autograd.grad((out * cot.to(device)).sum(), [xi, gi])
    if device == "lazy":
        torch._lazy.mark_step()
    return [t.detach().cpu() for t in (out, gx, gg)]


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
@pytest.mark.parametrize("mode,padding_mode,align_corners", list(itertools.product(
    ["bilinear", "nearest", "bicubic"], ["zeros", "border", "reflection"], [False, True])))
def test_grid_sample_matches_eager(mode, padding_mode, align_corners, dtype):
    g = torch.Generator().manual_seed(7)
    x = torch.randn(2, 3, 5, 7, generator=g, dtype=dtype)
    grid = torch.rand(2, 4, 6, 2, generator=g, dtype=dtype) * 2.6 - 1.3
    kwargs = dict(mode=mode, padding_mode=padding_mode, align_corners=align_corners)
    eager = run("cpu", x, grid, **kwargs)
    ltc_mlir.reset_metrics()
    import torch._lazy.metrics as lazy_metrics
    lazy_metrics.reset()
    lazy = run("lazy", x, grid, **kwargs)
    tol = 1e-5 if dtype == torch.float32 else 1e-10
    torch.testing.assert_close(lazy[0], eager[0], rtol=tol, atol=tol)
    torch.testing.assert_close(lazy[1], eager[1], rtol=tol, atol=tol)
    grid_tol = 1e-4 if dtype == torch.float32 else 1e-10
    torch.testing.assert_close(lazy[2], eager[2], rtol=grid_tol, atol=grid_tol)
    assert_all_native()
    assert eager_fallback_ops() == []


@pytest.mark.parametrize("padding_mode", ["border", "reflection"])
def test_identity_grid_gradients_at_the_clip_borders(padding_mode):
    # affine_grid of the identity with align_corners puts points exactly on
    # the borders, where eager's grid gradient is zero (clip is exclusive).
    x = torch.randn(1, 2, 4, 5, generator=torch.Generator().manual_seed(2))
    theta = torch.tensor([[[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]]])
    grid = F.affine_grid(theta, (1, 2, 4, 5), align_corners=True)
    eager = run("cpu", x, grid, padding_mode=padding_mode, align_corners=True)
    lazy = run("lazy", x, grid, padding_mode=padding_mode, align_corners=True)
    for e, l in zip(eager, lazy):
        torch.testing.assert_close(l, e, rtol=1e-5, atol=1e-5)


def test_spatial_transformer_step_stays_native():
    torch.manual_seed(0)
    loc = torch.nn.Linear(16, 6)
    x = torch.randn(3, 1, 4, 4)
    expected = None
    for device in ("cpu", "lazy"):
        model = loc.to(device)
        xi = x.to(device)
        theta = model(xi.flatten(1)).view(-1, 2, 3)
        grid = F.affine_grid(theta, (3, 1, 4, 4), align_corners=False)
        out = F.grid_sample(xi, grid, align_corners=False)
        (g,) = torch.autograd.grad(out.square().sum(), [model.weight])
        if device == "lazy":
            torch._lazy.mark_step()
        result = (out.detach().cpu(), g.cpu())
        if expected is None:
            expected = result
            ltc_mlir.reset_metrics()
    for e, l in zip(expected, result):
        torch.testing.assert_close(l, e, rtol=1e-5, atol=1e-5)
    assert_all_native()


def test_argument_errors_are_eagers():
    x = torch.randn(1, 1, 3, 3)
    for grid, message in [(torch.zeros(1, 2, 2, 3), "to have size 2 in last dimension"),
                          (torch.zeros(2, 2, 2, 2), "same batch size"),
                          (torch.zeros(1, 2, 2, 2, dtype=torch.float64), "expected scalar type Float but found Double")]:
        with pytest.raises(RuntimeError, match=message):
            F.grid_sample(x, grid, align_corners=False)
        with pytest.raises(RuntimeError, match=message):
            F.grid_sample(x.to("lazy"), grid.to("lazy"), align_corners=False)
