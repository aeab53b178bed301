"""Batch, group and instance norm end to end: forward and backward on the lazy
device through ltc_mlir vs eager CPU.

On the lazy device (torch 2.14) batch and instance norm reach the graph as
native_batch_norm / native_batch_norm_backward (InstanceNorm over
[1, N * C, ...] with the parameters repeated N times), GroupNorm as
native_group_norm / native_group_norm_backward. Each case checks
the values with explicit tolerances, that every graph ran natively and that
the op itself is in the compiled torch-dialect module.

Tolerances: f32 forward rtol 1e-5 / atol 1e-6 (eager sums in f64 or
vectorized f32, we sum in blocked f32); backward rtol 1e-4 / atol 1e-5
(grad_input is a difference of O(1) terms that cancel).
"""
import pytest
import torch
import torch.nn as nn
import torch.nn.functional as F

import ltc_mlir
from lazy_testing import assert_all_native, assert_close, run_both

g = torch.Generator().manual_seed(2024)

FWD = dict(rtol=1e-5, atol=1e-6)
BWD = dict(rtol=1e-4, atol=1e-5)


def rnd(*shape, dtype=torch.float32):
    return torch.randn(*shape, generator=g).to(dtype)


@pytest.fixture(scope="module")
def dump_dir(tmp_path_factory):
    path = tmp_path_factory.mktemp("normalization_dumps")
    ltc_mlir.set_dump_dir(path)
    yield path
    ltc_mlir.set_dump_dir(None)


def assert_native_with(dump_dir, *ops):
    """Every graph since the test started ran natively, and the modules
    compiled meanwhile contain each of `ops` (torch.aten.<op>)."""
    m = assert_all_native()
    names = m["compiled_graphs"]
    assert names, "no graph compiled in this test (a cache hit?): use shapes of its own"
    text = "\n".join((dump_dir / f"{n}.torch.mlir").read_text() for n in names)
    for op in ops:
        assert f'"torch.aten.{op}"' in text, f"{op} not in the compiled modules"
    return text


def split_close(eager, lazy, n_forward):
    """Forward outputs with FWD, gradients with BWD tolerances."""
    assert_close(eager[:n_forward], lazy[:n_forward], **FWD)
    assert_close(eager[n_forward:], lazy[n_forward:], **BWD)


SHAPES = [(8, 3), (4, 3, 7), (2, 3, 5, 6), (2, 3, 3, 4, 5)]


# --- native_batch_norm through F.batch_norm -----------------------------------

@pytest.mark.parametrize("shape", SHAPES, ids=lambda s: f"{len(s)}d")
@pytest.mark.parametrize("affine", [True, False], ids=["affine", "plain"])
@pytest.mark.parametrize("running", [True, False], ids=["running", "no_running"])
def test_batch_norm_training(dump_dir, shape, affine, running):
    c = shape[1]
    x = rnd(*shape) * 2 + 0.5
    w, b = rnd(c), rnd(c)
    rm, rv = rnd(c), rnd(c).abs() + 0.5

    def fn(x, w, b, rm, rv):
        return F.batch_norm(x, rm if running else None, rv if running else None,
                            w if affine else None, b if affine else None,
                            training=True, momentum=0.1, eps=1e-5)
    grads = (0, 1, 2) if affine else (0,)
    eager, lazy = run_both(fn, x, w, b, rm, rv, grad_inputs=grads)
    split_close(eager, lazy, 1)
    assert_native_with(dump_dir, "native_batch_norm", "native_batch_norm_backward")


@pytest.mark.parametrize("shape", SHAPES, ids=lambda s: f"{len(s)}d")
@pytest.mark.parametrize("affine", [True, False], ids=["affine", "plain"])
def test_batch_norm_eval(dump_dir, shape, affine):
    c = shape[1]
    x = rnd(*shape) * 2 - 0.3
    w, b = rnd(c), rnd(c)
    rm, rv = rnd(c), rnd(c).abs() + 0.2

    def fn(x, w, b, rm, rv):
        return F.batch_norm(x, rm, rv, w if affine else None, b if affine else None,
                            training=False, momentum=0.1, eps=1e-3)
    grads = (0, 1, 2) if affine else (0,)
    eager, lazy = run_both(fn, x, w, b, rm, rv, grad_inputs=grads)
    split_close(eager, lazy, 1)
    assert_native_with(dump_dir, "native_batch_norm", "native_batch_norm_backward")


def test_batch_norm_statistics_training(dump_dir):
    # save_mean and save_invstd themselves (torch.native_batch_norm).
    x = rnd(5, 4, 3, 2) * 3 + 1
    w, b = rnd(4), rnd(4)
    eager, lazy = run_both(
        lambda x, w, b: torch.native_batch_norm(x, w, b, None, None, True, 0.1, 1e-5),
        x, w, b)
    assert_close(eager, lazy, **FWD)
    assert_native_with(dump_dir, "native_batch_norm")


def test_batch_norm_long_reduction(dump_dir):
    # 2 * 4096 values per channel: blocked sums, a mean far from 0.
    x = rnd(2, 3, 64, 64) * 0.5 + 4
    w, b = rnd(3), rnd(3)
    fn = lambda x, w, b: F.batch_norm(x, None, None, w, b, training=True)
    eager, lazy = run_both(fn, x, w, b, grad_inputs=(0, 1, 2))
    split_close(eager, lazy, 1)
    assert_native_with(dump_dir, "native_batch_norm", "native_batch_norm_backward")


@pytest.mark.parametrize("wanted", ["input", "weight", "weight_bias"])
def test_batch_norm_backward_output_mask(dump_dir, wanted):
    # Only some gradients are asked for: output_mask is a subset.
    x = rnd(3, 4, 5) + 0.1 * len(wanted)
    w, b = rnd(4), rnd(4)
    grads = {"input": (0,), "weight": (1,), "weight_bias": (1, 2)}[wanted]
    fn = lambda x, w, b: F.batch_norm(x, None, None, w, b, training=True)
    eager, lazy = run_both(fn, x, w, b, grad_inputs=grads)
    split_close(eager, lazy, 1)
    text = assert_native_with(dump_dir, "native_batch_norm_backward")
    assert "torch.prim.ListConstruct" in text


def test_batch_norm_weight_only_backward(dump_dir):
    # weight without bias, and bias without weight.
    x = rnd(6, 2, 3) * 1.5
    w, b = rnd(2), rnd(2)
    eager, lazy = run_both(lambda x, w: F.batch_norm(x, None, None, w, None, training=True),
                           x, w, grad_inputs=(0, 1))
    split_close(eager, lazy, 1)
    eager, lazy = run_both(lambda x, b: F.batch_norm(x, None, None, None, b, training=True),
                           x, b, grad_inputs=(0, 1))
    split_close(eager, lazy, 1)
    assert_native_with(dump_dir, "native_batch_norm", "native_batch_norm_backward")


def test_batch_norm_float64(dump_dir):
    x = rnd(4, 3, 6, dtype=torch.float64) * 2 + 1
    w, b = rnd(3, dtype=torch.float64), rnd(3, dtype=torch.float64)
    rm, rv = rnd(3, dtype=torch.float64), rnd(3, dtype=torch.float64).abs() + 0.5
    for training in (True, False):
        fn = lambda x, w, b: F.batch_norm(x, rm.to(x.device), rv.to(x.device), w, b,
                                          training=training)
        eager, lazy = run_both(fn, x, w, b, grad_inputs=(0, 1, 2))
        assert_close(eager, lazy, rtol=1e-10, atol=1e-12)
    assert_native_with(dump_dir, "native_batch_norm", "native_batch_norm_backward")


@pytest.mark.parametrize("params", [torch.bfloat16, torch.float32], ids=["bf16", "mixed_f32"])
def test_batch_norm_bfloat16(dump_dir, params):
    # bf16 input; parameters bf16 or f32 (eager's mixed-dtype path). Sums
    # accumulate in f32 and the output is rounded once: within 1 bf16 ulp.
    # The statistics (f32 on both sides when mixed) are checked in f32.
    x = rnd(4, 3, 8 + (params == torch.float32)).to(torch.bfloat16)
    w, b = rnd(3).to(params), rnd(3).to(params)
    fn = lambda x, w, b: F.batch_norm(x, None, None, w, b, training=True)
    eager, lazy = run_both(fn, x, w, b, grad_inputs=(0, 1, 2))
    assert_close(eager, lazy, rtol=1e-2, atol=1e-2)
    assert_native_with(dump_dir, "native_batch_norm", "native_batch_norm_backward")
    if params == torch.float32:
        stats = lambda x, w, b: torch.native_batch_norm(x, w, b, None, None, True, 0.1, 1e-5)[1:]
        eager, lazy = run_both(stats, x, w, b)
        assert_close(eager, lazy, **FWD)


def test_batch_norm_bfloat16_running_stats_and_statistics_dtype(dump_dir):
    # All-bf16 training with running stats: save_mean/save_invstd are bf16 as
    # eager's (torch's Meta kernel says f32, which put f32-typed users of
    # the bf16 statistics in the graph and made it fall back); the running
    # variance is computed in f32 from the bf16 input.
    x = rnd(5, 3, 6).to(torch.bfloat16)
    w, b = rnd(3).to(torch.bfloat16), rnd(3).to(torch.bfloat16)

    def fn(x, w, b):
        rm = torch.zeros(3, dtype=torch.bfloat16).to(x.device)  # fresh per device
        rv = torch.ones(3, dtype=torch.bfloat16).to(x.device)
        out = torch.native_batch_norm(x, w, b, rm, rv, True, 0.3, 1e-5)
        return list(out) + [rm, rv]

    eager, lazy = run_both(fn, x, w, b)
    assert [t.dtype for t in lazy] == [t.dtype for t in eager] == [torch.bfloat16] * 5
    assert_close(eager, lazy, rtol=1e-2, atol=1e-2)
    assert_native_with(dump_dir, "native_batch_norm")


# torch's LTC types save_mean/save_invstd f32 here (batch_norm_kernel.cpp).
def test_batch_norm_statistics_dtype_float64(dump_dir):
    x = rnd(3, 2, 4, dtype=torch.float64)
    fn = lambda x: torch.native_batch_norm(x, None, None, None, None, True, 0.1, 1e-5)
    eager, lazy = run_both(fn, x)
    assert_close(eager, lazy, rtol=1e-12, atol=1e-12)


def test_batch_norm_float16_computed_natively(dump_dir):
    # The lazy device computes f16 batch norm like bf16 (f32 sums and
    # coefficients, one rounding): compared with eager f32 rounded to f16
    # (torch 2.14's eager CPU also has an f16 batch norm).
    x = rnd(3, 2, 10) * 2 + 1
    w, b = rnd(2), rnd(2)
    ref = F.batch_norm(x, None, None, w, b, training=True).half()
    lazy = F.batch_norm(x.half().to("lazy"), None, None, w.half().to("lazy"),
                        b.half().to("lazy"), training=True)
    torch._lazy.mark_step()
    assert_close([ref], [lazy.cpu()], rtol=2e-3, atol=2e-3)
    assert_native_with(dump_dir, "native_batch_norm")


def test_batch_norm_of_a_permuted_view(dump_dir):
    # The input is a permute of another lazy tensor (channels-last data
    # viewed as NCHW).
    x = rnd(2, 5, 4, 3) - 0.25
    w, b = rnd(3), rnd(3)
    fn = lambda x, w, b: F.batch_norm(x.permute(0, 3, 1, 2), None, None, w, b, training=True)
    eager, lazy = run_both(fn, x, w, b, grad_inputs=(0, 1, 2))
    split_close(eager, lazy, 1)
    assert_native_with(dump_dir, "native_batch_norm", "permute_copy")


def test_batch_norm_single_value_per_channel(dump_dir):
    # torch.native_batch_norm accepts one value per channel in training
    # (F.batch_norm refuses): var = 0, invstd = 1 / sqrt(eps).
    x = rnd(1, 4)
    fn = lambda x: torch.native_batch_norm(x, None, None, None, None, True, 0.1, 1e-5)
    eager, lazy = run_both(fn, x)
    # The output is x - mean = 0 times 1/sqrt(eps) ~ 316: eager's is rounding
    # noise of that size (up to ~3e-5), ours exactly 0.
    assert_close(eager[:1], lazy[:1], rtol=0, atol=1e-4)
    assert_close(eager[1:], lazy[1:], **FWD)
    assert_native_with(dump_dir, "native_batch_norm")


# --- nn.BatchNorm modules: parameters' gradients, train and eval ---------------

def run_module(module, x, train=True, steps=1, buffers=False):
    """Forward + backward of `module` on eager CPU and on lazy; returns
    (eager, lazy) lists: output, grad of x, grads of the parameters (then
    the buffers if `buffers`)."""
    results = []
    for device in ("cpu", "lazy"):
        torch.manual_seed(0)
        m = module().to(device)
        m.train(train)
        for step in range(steps):
            xd = (x + step).to(device).requires_grad_(True)
            y = m(xd)
            cot = torch.randn(y.shape, generator=torch.Generator().manual_seed(1)).to(device)
            (y * cot).sum().backward()
            if device == "lazy":
                torch._lazy.mark_step()
        outs = [y.detach(), xd.grad] + [p.grad for p in m.parameters()]
        if buffers:
            outs += list(m.buffers())
        results.append([o.cpu() for o in outs])
    return results


@pytest.mark.parametrize("module,shape", [
    (lambda: nn.BatchNorm1d(5), (6, 5)),
    (lambda: nn.BatchNorm1d(5), (3, 5, 9)),
    (lambda: nn.BatchNorm2d(4), (3, 4, 6, 5)),
    (lambda: nn.BatchNorm3d(2), (2, 2, 3, 4, 5)),
    (lambda: nn.BatchNorm2d(4, affine=False), (2, 4, 3, 3)),
    (lambda: nn.BatchNorm2d(4, track_running_stats=False), (2, 4, 5, 3)),
    (lambda: nn.BatchNorm2d(4, momentum=None), (2, 4, 3, 5)),
], ids=["1d", "1d_seq", "2d", "3d", "2d_no_affine", "2d_no_running", "2d_cumulative"])
@pytest.mark.parametrize("train", [True, False], ids=["train", "eval"])
def test_batch_norm_modules(dump_dir, module, shape, train):
    # Eval gets a batch of its own: without running stats its graph is the
    # training one (which the compile cache would serve).
    shape = shape if train else (shape[0] + 1,) + shape[1:]
    x = rnd(*shape) * 1.5 + 0.25
    eager, lazy = run_module(module, x, train=train)
    split_close(eager, lazy, 1)
    assert_native_with(dump_dir, "native_batch_norm", "native_batch_norm_backward")


def test_batch_norm_running_stats_updated(dump_dir):
    x = rnd(4, 3, 5, 5) + 1
    stats = []
    for device in ("cpu", "lazy"):
        torch.manual_seed(0)
        m = nn.BatchNorm2d(3).to(device).train()
        for step in range(2):
            m(x.to(device) * (step + 1)).sum().backward()
            if device == "lazy":
                torch._lazy.mark_step()
        stats.append([m.running_mean.cpu(), m.running_var.cpu(),
                      m.num_batches_tracked.cpu()])
    assert_close(stats[0], stats[1], **FWD)
    assert_all_native()


def test_batch_norm_relu_is_fused(dump_dir):
    # The ReLU after BatchNorm is an elementwise epilogue of the
    # normalization generic: no generic of its own in the linalg module.
    x = rnd(2, 3, 7, 7) + 0.5
    w, b = rnd(3), rnd(3)
    fn = lambda x, w, b: F.relu(F.batch_norm(x, None, None, w, b, training=True))
    eager, lazy = run_both(fn, x, w, b)
    assert_close(eager, lazy, **FWD)
    assert_native_with(dump_dir, "native_batch_norm", "relu")
    name = ltc_mlir.metrics()["compiled_graphs"][0]
    linalg = (dump_dir / f"{name}.linalg.mlir").read_text()
    full = [block for block in generic_blocks(linalg)
            if block[-1].strip().endswith("-> tensor<2x3x7x7xf32>")]
    # One generic writes the output: x * alpha + beta, then the max; the
    # per-channel invstd (a square root) is not recomputed per element.
    assert len(full) == 1, full
    body = "\n".join(full[0])
    assert "arith.maximumf" in body and "math.sqrt" not in body, body


def generic_blocks(text):
    """The linalg.generic ops of a printed module, as lists of lines."""
    blocks, current = [], None
    for line in text.splitlines():
        if "linalg.generic" in line:
            current = []
        if current is not None:
            current.append(line)
            if line.strip().startswith("} ->"):
                blocks.append(current)
                current = None
    return blocks


# --- GroupNorm (native_group_norm and its backward on the lazy device) ---------------

@pytest.mark.parametrize("groups,channels,shape", [
    (1, 4, (2, 4, 5)),
    (2, 4, (2, 4, 3, 3)),
    (4, 4, (3, 4, 6)),
    (3, 6, (2, 6, 2, 3, 2)),
    (2, 6, (5, 6)),
])
@pytest.mark.parametrize("affine", [True, False], ids=["affine", "plain"])
def test_group_norm(dump_dir, groups, channels, shape, affine):
    x = rnd(*shape) * 2 + 0.75
    module = lambda: nn.GroupNorm(groups, channels, affine=affine)
    eager, lazy = run_module(module, x)
    split_close(eager, lazy, 1)
    assert_native_with(dump_dir, "native_group_norm", "native_group_norm_backward")


def test_group_norm_random_affine(dump_dir):
    x = rnd(3, 6, 4, 4) - 0.5
    w, b = rnd(6), rnd(6)
    eager, lazy = run_both(lambda x, w, b: F.group_norm(x, 3, w, b, eps=1e-4),
                           x, w, b, grad_inputs=(0, 1, 2))
    split_close(eager, lazy, 1)
    assert_native_with(dump_dir, "native_group_norm", "native_group_norm_backward")


# --- InstanceNorm (batch norm over [1, N * C, ...], parameters repeated) -----------

@pytest.mark.parametrize("module,shape", [
    (lambda: nn.InstanceNorm2d(3), (2, 3, 5, 4)),
    (lambda: nn.InstanceNorm2d(3, affine=True), (2, 3, 4, 6)),
    (lambda: nn.InstanceNorm1d(4, affine=True), (3, 4, 7)),
    (lambda: nn.InstanceNorm3d(2), (2, 2, 3, 3, 3)),
], ids=["2d", "2d_affine", "1d_affine", "3d"])
def test_instance_norm(dump_dir, module, shape):
    x = rnd(*shape) * 2 + 1
    eager, lazy = run_module(module, x)
    split_close(eager, lazy, 1)
    assert_native_with(dump_dir, "native_batch_norm", "native_batch_norm_backward")


def test_instance_norm_random_affine(dump_dir):
    x = rnd(2, 3, 4, 5)
    w, b = rnd(3), rnd(3)
    eager, lazy = run_both(lambda x, w, b: F.instance_norm(x, weight=w, bias=b),
                           x, w, b, grad_inputs=(0, 1, 2))
    split_close(eager, lazy, 1)
    assert_native_with(dump_dir, "native_batch_norm", "repeat")


def test_instance_norm_tracking_running_stats(dump_dir):
    x = rnd(2, 3, 4, 4) + 0.5
    module = lambda: nn.InstanceNorm2d(3, affine=True, track_running_stats=True)
    eager, lazy = run_module(module, x, train=True, steps=2, buffers=True)
    split_close(eager, lazy, 1)
    assert_native_with(dump_dir, "native_batch_norm", "repeat")


@pytest.mark.parametrize("shape,normalized,affine", [((3, 3, 0, 3), (3,), False),
                                                     ((0, 4), (4,), True),
                                                     ((2, 0, 5), (5,), True)])
def test_layer_norm_without_rows_runs_natively(shape, normalized, affine):
    # (found by the differential fuzzer) a batch dim of 0: empty results and
    # zero weight/bias gradients, as eager; these fell back before.
    results = []
    for device in ("cpu", "lazy"):
        g = torch.Generator().manual_seed(0)
        x = torch.randn(shape, generator=g).to(device).requires_grad_()
        params = [torch.randn(normalized, generator=g).to(device).requires_grad_()
                  for _ in range(2)] if affine else [None, None]
        ltc_mlir.reset_metrics()
        y = F.layer_norm(x, normalized, *params)
        y.sum().backward()
        results.append([t.detach().cpu() for t in [y, x.grad] + [p.grad for p in params if p is not None]])
    for e, l in zip(*results):
        assert e.shape == l.shape and torch.equal(e, l)
    m = ltc_mlir.metrics()
    assert m["fallback_ops"] == {} and m["native_execute_count"] >= 1, m
