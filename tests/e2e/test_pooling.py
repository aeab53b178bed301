"""Pooling and upsampling, forward and backward, lazy device vs eager CPU.

Every case checks values (explicit tolerances), that the graph ran as native
code with no fallback, and that the op itself is in the compiled
torch-dialect module (read from the dump of the graph compiled by the case;
each case builds a graph no other case builds, so it is compiled, not
taken from the cache).

Max pooling picks elements, so values, indices and gradients are exact
(gradients sum the same terms in ATen's order). Averages and interpolations
sum in ATen's order too, but the divisions and weights may round one ulp
apart: rtol 1e-6 in f32, 1e-12 in f64, 1e-2 in bf16.

Ops torch's LTC has no Lazy kernel for (the 3-d ones, 1-d upsampling,
adaptive max pooling; max_pool3d_with_indices has one, which runs the eager
fallback) get ours (REGISTERED; lazy_kernels/pooling_kernels.cpp).
"""
import pytest
import torch
import torch.nn.functional as F

import ltc_mlir
from lazy_testing import assert_all_native, assert_close, assert_ops_native, run_both

gen = torch.Generator().manual_seed(2024)


def rnd(*shape, dtype=torch.float32):
    return torch.randn(*shape, generator=gen).to(dtype)


@pytest.fixture
def dump_dir(tmp_path):
    ltc_mlir.set_dump_dir(tmp_path)
    yield tmp_path
    ltc_mlir.set_dump_dir(None)


def assert_compiled_ops(dump_dir, *ops):
    """The ops are in the torch-dialect modules compiled since the reset."""
    m = assert_all_native()
    names = m["compiled_graphs"]
    assert names, "no graph compiled: the case's graph came from the cache"
    text = "".join((dump_dir / f"{n}.torch.mlir").read_text() for n in names)
    for op in ops:
        assert f'"torch.aten.{op}"' in text, f"{op} not in the compiled graphs"


TOL = {torch.float32: (1e-6, 1e-6), torch.float64: (1e-12, 1e-12),
       torch.bfloat16: (1e-2, 1e-2)}

# ---------------------------------------------------------------------------
# max_pool2d_with_indices (+ backward)
# ---------------------------------------------------------------------------

# shape, kernel, stride, padding, dilation, ceil_mode
MAX_CASES = [
    ((2, 3, 8, 8), 2, None, 0, 1, False),
    ((2, 3, 11, 11), 3, 2, 1, 1, False),          # ResNet's stem pooling
    ((1, 2, 10, 10), 3, 2, 1, 1, True),
    ((2, 2, 9, 9), 3, 1, 1, 2, False),            # dilation
    ((1, 3, 7, 9), (2, 3), (1, 2), (1, 1), (1, 2), True),
    ((1, 2, 8, 8), 3, 3, 0, 1, True),             # last window hangs over
    ((3, 7, 7), 2, 1, 1, 1, False),               # unbatched [C, H, W]
    ((1, 2, 12, 12), 9, 1, 4, 1, False),          # 81 > 64: table gather
    ((1, 2, 13, 11), (9, 8), (3, 2), (4, 3), 1, True),
]


@pytest.mark.parametrize("shape,k,s,p,d,ceil", MAX_CASES)
def test_max_pool2d(dump_dir, shape, k, s, p, d, ceil):
    x = rnd(*shape)
    fn = lambda a: F.max_pool2d(a, k, s, p, d, ceil_mode=ceil, return_indices=True)
    eager, lazy = run_both(fn, x, grad_inputs=(0,))
    assert_close(eager, lazy, rtol=0, atol=0)
    assert_compiled_ops(dump_dir, "max_pool2d_with_indices",
                        "max_pool2d_with_indices_backward")


@pytest.mark.parametrize("dtype", [torch.float64, torch.bfloat16])
def test_max_pool2d_dtypes(dump_dir, dtype):
    x = rnd(2, 3, 9, 9, dtype=dtype)
    fn = lambda a: F.max_pool2d(a, 3, 2, 1, return_indices=True)
    eager, lazy = run_both(fn, x, grad_inputs=(0,))
    assert_close(eager[:2], lazy[:2], rtol=0, atol=0)
    # The input gradient sums the gradients of overlapping windows: eager
    # rounds bf16 after each addition, we add in f32 and round once. Where
    # the terms cancel, eager's error is relative to the terms, not to the
    # sum: one ulp of the largest gradient, absolute.
    ulp = 2.0 ** -7 if dtype == torch.bfloat16 else 0.0
    assert_close(eager[2:], lazy[2:], rtol=ulp,
                 atol=ulp * float(eager[2].abs().max()))
    assert_compiled_ops(dump_dir, "max_pool2d_with_indices",
                        "max_pool2d_with_indices_backward")


def test_max_pool2d_ties_take_the_first_maximum(dump_dir):
    # Few distinct values: most windows hold their maximum several times,
    # and overlapping windows send gradients to the same elements.
    x = torch.randint(-2, 3, (2, 3, 10, 10), generator=gen).float()
    fn = lambda a: F.max_pool2d(a, 3, 1, 1, return_indices=True)
    eager, lazy = run_both(fn, x, grad_inputs=(0,))
    assert_close(eager, lazy, rtol=0, atol=0)
    assert_compiled_ops(dump_dir, "max_pool2d_with_indices",
                        "max_pool2d_with_indices_backward")


@pytest.mark.parametrize("k", [3, 9])  # unrolled and table gather
def test_max_pool2d_nan_and_minus_inf(dump_dir, k):
    x = rnd(1, 2, 10, 10)
    x[0, 0, 2, 3] = float("nan")
    x[0, 0, 2, 5] = float("nan")          # two NaNs in a window: the last wins
    x[0, 1, :5, :5] = float("-inf")       # windows of -inf: first in-image index
    fn = lambda a: F.max_pool2d(a, k, 2, k // 2, return_indices=True)
    eager, lazy = run_both(fn, x, grad_inputs=(0,))
    assert_close(eager, lazy, rtol=0, atol=0, equal_nan=True)  # NaN where eager has NaN
    assert_compiled_ops(dump_dir, "max_pool2d_with_indices",
                        "max_pool2d_with_indices_backward")


def test_max_pool2d_float16_matches_float32(dump_dir):
    # Compared with f32 (exact; torch 2.14's eager also pools f16).
    x = rnd(2, 3, 9, 9).half()
    lazy_x = x.to("lazy").requires_grad_()
    values, indices = F.max_pool2d(lazy_x, 3, 2, 1, return_indices=True)
    cot = rnd(*values.shape).half()
    (values * cot.to("lazy")).sum().backward()
    torch._lazy.mark_step()
    ref_x = x.float().requires_grad_()
    ref_values, ref_indices = F.max_pool2d(ref_x, 3, 2, 1, return_indices=True)
    (ref_values * cot.float()).sum().backward()
    assert_close([ref_values.half(), ref_indices, ref_x.grad.half()],
                 [values.cpu(), indices.cpu(), lazy_x.grad.cpu()], rtol=0, atol=0)
    assert_compiled_ops(dump_dir, "max_pool2d_with_indices",
                        "max_pool2d_with_indices_backward")


def test_max_pool2d_forward_only(dump_dir):
    x = rnd(2, 4, 7, 7)
    eager, lazy = run_both(lambda a: F.max_pool2d(a, 2, 2, 1), x)
    assert_close(eager, lazy, rtol=0, atol=0)
    assert_compiled_ops(dump_dir, "max_pool2d_with_indices")


def test_max_pool1d(dump_dir):
    # Recorded as unsqueeze + max_pool2d_with_indices + squeeze.
    x = rnd(2, 3, 17)
    fn = lambda a: F.max_pool1d(a, 4, 3, 2, return_indices=True)
    eager, lazy = run_both(fn, x, grad_inputs=(0,))
    assert_close(eager, lazy, rtol=0, atol=0)
    assert_compiled_ops(dump_dir, "max_pool2d_with_indices",
                        "max_pool2d_with_indices_backward")


def test_max_pool2d_module(dump_dir):
    pool = torch.nn.MaxPool2d(3, stride=2, padding=1, ceil_mode=True)
    x = rnd(2, 5, 12, 12)
    eager, lazy = run_both(pool, x, grad_inputs=(0,))
    assert_close(eager, lazy, rtol=0, atol=0)
    assert_compiled_ops(dump_dir, "max_pool2d_with_indices",
                        "max_pool2d_with_indices_backward")


# ---------------------------------------------------------------------------
# avg_pool2d (+ backward)
# ---------------------------------------------------------------------------

# shape, kernel, stride, padding, ceil_mode, count_include_pad, divisor_override
AVG_CASES = [
    ((2, 3, 8, 8), 2, None, 0, False, True, None),
    ((2, 3, 11, 11), 3, 2, 1, False, True, None),
    ((2, 3, 11, 11), 3, 2, 1, False, False, None),
    ((1, 2, 10, 10), 3, 2, 1, True, True, None),
    ((1, 2, 10, 10), 3, 2, 1, True, False, None),
    ((1, 2, 9, 7), (3, 2), (2, 1), (1, 1), False, True, 5),
    ((1, 2, 9, 7), (3, 2), (2, 1), (1, 1), True, False, -3),
    ((3, 7, 7), 3, 2, 1, True, False, None),      # unbatched
    ((1, 2, 12, 12), 9, 2, 4, False, True, None), # table gather
    ((1, 2, 12, 12), 9, 2, 4, True, False, None),
]


@pytest.mark.parametrize("shape,k,s,p,ceil,include,divisor", AVG_CASES)
def test_avg_pool2d(dump_dir, shape, k, s, p, ceil, include, divisor):
    x = rnd(*shape)
    fn = lambda a: F.avg_pool2d(a, k, s, p, ceil, include, divisor)
    eager, lazy = run_both(fn, x, grad_inputs=(0,))
    assert_close(eager, lazy, rtol=1e-6, atol=1e-6)
    assert_compiled_ops(dump_dir, "avg_pool2d", "avg_pool2d_backward")


@pytest.mark.parametrize("dtype", [torch.float64, torch.bfloat16])
def test_avg_pool2d_dtypes(dump_dir, dtype):
    x = rnd(2, 3, 9, 9, dtype=dtype)
    eager, lazy = run_both(lambda a: F.avg_pool2d(a, 3, 2, 1, count_include_pad=False),
                           x, grad_inputs=(0,))
    assert_close(eager, lazy, *TOL[dtype])
    assert_compiled_ops(dump_dir, "avg_pool2d", "avg_pool2d_backward")


def test_avg_pool2d_int64(dump_dir):
    # Integer averages truncate toward zero, like ATen's int64 kernel.
    x = torch.randint(-50, 50, (2, 3, 7, 7), generator=gen)
    g = torch.randint(-50, 50, (2, 3, 4, 4), generator=gen)
    fn = lambda a, b: (
        F.avg_pool2d(a, 3, 2, 1, count_include_pad=False),
        torch.ops.aten.avg_pool2d_backward(b, a, [3, 3], [2, 2], [1, 1], False, True, None))
    eager, lazy = run_both(fn, x, g)
    assert_close(eager, lazy, rtol=0, atol=0)
    assert_compiled_ops(dump_dir, "avg_pool2d", "avg_pool2d_backward")


def test_avg_pool1d(dump_dir):
    x = rnd(2, 3, 19)
    fn = lambda a: F.avg_pool1d(a, 5, 2, 2, ceil_mode=True, count_include_pad=False)
    eager, lazy = run_both(fn, x, grad_inputs=(0,))
    assert_close(eager, lazy, rtol=1e-6, atol=1e-6)
    assert_compiled_ops(dump_dir, "avg_pool2d", "avg_pool2d_backward")


# ---------------------------------------------------------------------------
# _adaptive_avg_pool2d (+ backward)
# ---------------------------------------------------------------------------

ADAPTIVE_CASES = [
    ((2, 3, 10, 10), (3, 4)),   # bins of different sizes, overlapping
    ((2, 3, 12, 8), (4, 2)),    # divisible: regular 3x4 windows
    ((1, 2, 5, 7), (8, 9)),     # more outputs than inputs
    ((3, 9, 6), (4, 5)),        # unbatched
    ((1, 2, 14, 14), (7, 7)),
    ((1, 2, 64, 48), (4, 3)),   # divisible, 16x16 windows: table gather
    ((2, 4, 7, 7), (7, 7)),     # identity
]


@pytest.mark.parametrize("shape,out", ADAPTIVE_CASES)
def test_adaptive_avg_pool2d(dump_dir, shape, out):
    x = rnd(*shape)
    eager, lazy = run_both(lambda a: F.adaptive_avg_pool2d(a, out), x, grad_inputs=(0,))
    assert_close(eager, lazy, rtol=1e-6, atol=1e-6)
    assert_compiled_ops(dump_dir, "_adaptive_avg_pool2d", "_adaptive_avg_pool2d_backward")


@pytest.mark.parametrize("dtype", [torch.float64, torch.bfloat16])
def test_adaptive_avg_pool2d_dtypes(dump_dir, dtype):
    x = rnd(2, 3, 11, 9, dtype=dtype)
    eager, lazy = run_both(lambda a: F.adaptive_avg_pool2d(a, (4, 5)), x, grad_inputs=(0,))
    assert_close(eager, lazy, *TOL[dtype])
    assert_compiled_ops(dump_dir, "_adaptive_avg_pool2d", "_adaptive_avg_pool2d_backward")


def test_adaptive_avg_pool1d(dump_dir):
    # Recorded as unsqueeze + _adaptive_avg_pool2d (1 x out) + squeeze.
    x = rnd(2, 3, 17)
    eager, lazy = run_both(lambda a: F.adaptive_avg_pool1d(a, 5), x, grad_inputs=(0,))
    assert_close(eager, lazy, rtol=1e-6, atol=1e-6)
    assert_compiled_ops(dump_dir, "_adaptive_avg_pool2d", "_adaptive_avg_pool2d_backward")


def test_adaptive_avg_pool2d_module(dump_dir):
    pool = torch.nn.AdaptiveAvgPool2d((5, None))
    x = rnd(2, 3, 13, 6)
    eager, lazy = run_both(pool, x, grad_inputs=(0,))
    assert_close(eager, lazy, rtol=1e-6, atol=1e-6)
    assert_compiled_ops(dump_dir, "_adaptive_avg_pool2d", "_adaptive_avg_pool2d_backward")


# ---------------------------------------------------------------------------
# upsample_nearest2d / upsample_bilinear2d (+ backward)
# ---------------------------------------------------------------------------

NEAREST_CASES = [
    ((2, 3, 5, 5), dict(scale_factor=2)),
    ((1, 2, 4, 6), dict(scale_factor=3)),
    ((2, 3, 5, 5), dict(size=(7, 9))),
    ((1, 3, 7, 5), dict(size=(3, 2))),                       # downsampling
    ((1, 2, 6, 6), dict(scale_factor=1.7, recompute_scale_factor=False)),
    ((1, 2, 6, 5), dict(scale_factor=(2.5, 0.6), recompute_scale_factor=False)),
]


@pytest.mark.parametrize("shape,kw", NEAREST_CASES)
def test_upsample_nearest2d(dump_dir, shape, kw):
    x = rnd(*shape)
    eager, lazy = run_both(lambda a: F.interpolate(a, mode="nearest", **kw), x,
                           grad_inputs=(0,))
    assert_close(eager, lazy, rtol=0, atol=0)
    assert_compiled_ops(dump_dir, "upsample_nearest2d", "upsample_nearest2d_backward")


BILINEAR_CASES = [
    ((2, 3, 5, 5), dict(scale_factor=2)),
    ((2, 3, 5, 5), dict(size=(7, 9))),
    ((1, 3, 9, 8), dict(size=(4, 3))),                       # downsampling
    ((1, 2, 6, 6), dict(scale_factor=1.7, recompute_scale_factor=False)),
    ((1, 2, 5, 6), dict(size=(1, 6))),                       # a dim of 1, one copied
]


@pytest.mark.parametrize("align_corners", [False, True])
@pytest.mark.parametrize("shape,kw", BILINEAR_CASES)
def test_upsample_bilinear2d(dump_dir, shape, kw, align_corners):
    x = rnd(*shape)
    fn = lambda a: F.interpolate(a, mode="bilinear", align_corners=align_corners, **kw)
    eager, lazy = run_both(fn, x, grad_inputs=(0,))
    assert_close(eager, lazy, rtol=1e-6, atol=1e-6)
    assert_compiled_ops(dump_dir, "upsample_bilinear2d", "upsample_bilinear2d_backward")


@pytest.mark.parametrize("dtype", [torch.float64, torch.bfloat16])
def test_upsample_dtypes(dump_dir, dtype):
    x = rnd(2, 3, 5, 6, dtype=dtype)
    fn = lambda a: (F.interpolate(a, scale_factor=2, mode="bilinear", align_corners=False)
                    + F.interpolate(a, size=(10, 12), mode="nearest"))
    eager, lazy = run_both(fn, x, grad_inputs=(0,))
    assert_close(eager, lazy, *TOL[dtype])
    assert_compiled_ops(dump_dir, "upsample_bilinear2d", "upsample_bilinear2d_backward",
                        "upsample_nearest2d", "upsample_nearest2d_backward")


@pytest.mark.parametrize("dims,kw", [(1, dict(size=11)), (2, dict(scale_factor=2)),
                                     (2, dict(size=(5, 7))), (3, dict(scale_factor=(2, 1, 3)))])
def test_upsample_nearest_uint8(dump_dir, dims, kw):
    # Images as uint8: eager's nearest kernels copy bytes; so do ours
    # (int32 or bool raise eager's "not implemented", like eager).
    x = torch.randint(0, 256, (2, 3) + (4, 5, 3)[:dims], generator=torch.Generator().manual_seed(3),
                      dtype=torch.uint8)
    eager, lazy = run_both(lambda a: F.interpolate(a, mode="nearest", **kw), x)
    assert_close(eager, lazy, rtol=0, atol=0)
    assert_compiled_ops(dump_dir, f"upsample_nearest{dims}d")


def test_upsampling_modules(dump_dir):
    x = rnd(2, 3, 4, 7)
    fn = lambda a: (torch.nn.UpsamplingNearest2d(scale_factor=3)(a).sum((2, 3))
                    + torch.nn.UpsamplingBilinear2d(size=(6, 5))(a).sum((2, 3)))
    eager, lazy = run_both(fn, x, grad_inputs=(0,))
    assert_close(eager, lazy, rtol=1e-5, atol=1e-5)
    assert_compiled_ops(dump_dir, "upsample_bilinear2d", "upsample_nearest2d")


# ---------------------------------------------------------------------------
# Ops without a (native) Lazy kernel in torch's LTC
# ---------------------------------------------------------------------------

# Ops without an LTC kernel that ltc_mlir registers (AtenOpNode, InitBackend):
# (fn, shape, compiled ops). The 3-d pooling ops and upsample_nearest3d(.vec)
# are registered in lazy_kernels/pooling_kernels.cpp.
REGISTERED = {
    "max_pool3d": (lambda a: F.max_pool3d(a, 2, return_indices=True), (2, 3, 4, 6, 6),
                   ("max_pool3d_with_indices", "max_pool3d_with_indices_backward")),
    "max_pool3d_overlap": (lambda a: F.max_pool3d(a, (3, 2, 3), (2, 1, 2), (1, 0, 1),
                                                  ceil_mode=True, return_indices=True),
                           (1, 2, 5, 6, 7),
                           ("max_pool3d_with_indices", "max_pool3d_with_indices_backward")),
    "max_pool3d_unbatched": (lambda a: F.max_pool3d(a, 2, 1, dilation=2), (2, 5, 6, 6),
                             ("max_pool3d_with_indices", "max_pool3d_with_indices_backward")),
    "avg_pool3d": (lambda a: F.avg_pool3d(a, 3, 2, 1), (2, 3, 5, 6, 6),
                   ("avg_pool3d", "avg_pool3d_backward")),
    "avg_pool3d_ceil": (lambda a: F.avg_pool3d(a, 2, 2, ceil_mode=True, count_include_pad=False),
                        (1, 2, 5, 5, 7), ("avg_pool3d", "avg_pool3d_backward")),
    "adaptive_avg_pool3d": (lambda a: F.adaptive_avg_pool3d(a, (2, 3, 4)), (2, 3, 5, 6, 7),
                            ("_adaptive_avg_pool3d", "_adaptive_avg_pool3d_backward")),
    "adaptive_max_pool3d": (lambda a: F.adaptive_max_pool3d(a, (2, 3, 4), return_indices=True),
                            (2, 3, 5, 6, 7),
                            ("adaptive_max_pool3d", "adaptive_max_pool3d_backward")),
    "adaptive_max_pool1d": (lambda a: F.adaptive_max_pool1d(a, 4, return_indices=True),
                            (2, 3, 9), ("adaptive_max_pool2d", "adaptive_max_pool2d_backward")),
    "upsample_nearest3d": (lambda a: F.interpolate(a, scale_factor=2, mode="nearest"),
                           (1, 2, 3, 4, 5), ("upsample_nearest3d", "upsample_nearest3d_backward")),
    "upsample_nearest3d_size": (lambda a: F.interpolate(a, size=(5, 3, 7), mode="nearest"),
                                (2, 2, 3, 4, 5),
                                ("upsample_nearest3d", "upsample_nearest3d_backward")),
    "upsample_nearest1d_size": (lambda a: F.interpolate(a, size=11, mode="nearest"), (2, 3, 7),
                                ("upsample_nearest1d", "upsample_nearest1d_backward")),
    "upsample_linear1d_size": (lambda a: F.interpolate(a, size=11, mode="linear"), (2, 3, 7),
                               ("upsample_linear1d", "upsample_linear1d_backward")),
    "upsample_linear1d_size_ac": (lambda a: F.interpolate(a, size=4, mode="linear",
                                                          align_corners=True), (2, 3, 7),
                                  ("upsample_linear1d", "upsample_linear1d_backward")),
    "adaptive_max_pool2d": (lambda a: F.adaptive_max_pool2d(a, (3, 4), return_indices=True),
                            (2, 3, 10, 9), ("adaptive_max_pool2d", "adaptive_max_pool2d_backward")),
    "upsample_nearest1d": (lambda a: F.interpolate(a, scale_factor=2, mode="nearest"), (2, 3, 7),
                           ("upsample_nearest1d", "upsample_nearest1d_backward")),
    "upsample_nearest1d_3": (lambda a: F.interpolate(a, scale_factor=3, mode="nearest"),
                             (2, 3, 5), ("upsample_nearest1d", "upsample_nearest1d_backward")),
    "upsample_linear1d": (lambda a: F.interpolate(a, scale_factor=2, mode="linear"), (2, 3, 7),
                          ("upsample_linear1d", "upsample_linear1d_backward")),
    "upsample_linear1d_ac": (lambda a: F.interpolate(a, scale_factor=1.5, mode="linear",
                                                     align_corners=True), (2, 3, 6),
                             ("upsample_linear1d", "upsample_linear1d_backward")),
    "upsample_trilinear3d": (lambda a: F.interpolate(a, scale_factor=2, mode="trilinear"),
                             (1, 2, 3, 4, 5),
                             ("upsample_trilinear3d", "upsample_trilinear3d_backward")),
    "upsample_trilinear3d_size": (lambda a: F.interpolate(a, size=(4, 6, 3), mode="trilinear",
                                                          align_corners=True), (1, 2, 3, 4, 5),
                                  ("upsample_trilinear3d", "upsample_trilinear3d_backward")),
}


@pytest.mark.parametrize("name", sorted(REGISTERED))
def test_registered_pooling_upsampling(dump_dir, name):
    fn, shape, ops = REGISTERED[name]
    eager, lazy = run_both(fn, rnd(*shape), grad_inputs=(0,))
    assert_close(eager, lazy, rtol=1e-5, atol=1e-6)
    assert_compiled_ops(dump_dir, *ops)
    assert_ops_native(*["aten::" + op for op in ops])


@pytest.mark.parametrize("kw,match", [
    (dict(kernel_size=2, padding=2), "half of effective kernel size"),
    (dict(kernel_size=5), "Output size is too small"),
    (dict(kernel_size=(2, 2)), "kernel_size must either be a single int, or a tuple of three"),
])
def test_max_pool3d_bad_arguments_raise_like_eager(kw, match):
    x = torch.randn(1, 2, 4, 4, 4)
    for device in ("cpu", "lazy"):
        with pytest.raises(RuntimeError, match=match):
            F.max_pool3d(x.to(device), **kw)


def test_pooling_3d_float64(dump_dir):
    x = rnd(1, 2, 5, 6, 7, dtype=torch.float64)
    fn = lambda a: (F.max_pool3d(a, 3, 2, 1) + F.avg_pool3d(a, 3, 2, 1)
                    + F.interpolate(F.adaptive_avg_pool3d(a, (1, 2, 2)), size=(3, 3, 4)).sum())
    eager, lazy = run_both(fn, x, grad_inputs=(0,))
    assert_close(eager, lazy, *TOL[torch.float64])
    assert_compiled_ops(dump_dir, "max_pool3d_with_indices", "avg_pool3d",
                        "_adaptive_avg_pool3d", "upsample_nearest3d",
                        "max_pool3d_with_indices_backward", "avg_pool3d_backward",
                        "_adaptive_avg_pool3d_backward", "upsample_nearest3d_backward")
