"""arange (every overload LTC records: arange.start_out, emitted as
arange.start_step), cumsum and flip (cumsum's backward) against eager CPU,
each asserted to run natively with the op in the compiled module.
"""
import pytest
import torch

import ltc_mlir

from lazy_testing import assert_all_native, assert_close, run_both

g = torch.Generator().manual_seed(4321)


@pytest.fixture(scope="module")
def dump_dir(tmp_path_factory):
    path = tmp_path_factory.mktemp("arange_cumsum_dumps")
    ltc_mlir.set_dump_dir(path)
    yield path
    ltc_mlir.set_dump_dir(None)


def assert_native_with(dump_dir, *ops):
    m = assert_all_native()
    names = m["compiled_graphs"]
    assert names, "no graph compiled in this test (a cache hit?): use shapes of its own"
    text = "\n".join((dump_dir / f"{n}.torch.mlir").read_text() for n in names)
    for op in ops:
        assert f'"torch.aten.{op}"' in text, f"{op} not in the compiled modules"


# --- arange ------------------------------------------------------------------

# (id, args, kwargs). Each case has its own length or dtype so that its graph
# is compiled in its own test. Fractional f32/f64 steps follow ATen's
# vectorized loop (blocks of 8 f32 / 4 f64, FMA), so every case is exact.
ARANGE = [
    ("end_int", (7,), {}),
    ("start_end_int", (2, 11), {}),
    ("long_dtype", (0, 13), dict(dtype=torch.long)),
    ("neg_step_int", (10, -4, -3), {}),
    ("int32", (1, 40, 3), dict(dtype=torch.int32)),
    ("int16_neg", (-5, 6), dict(dtype=torch.int16)),
    ("uint8", (0, 17, 4), dict(dtype=torch.uint8)),
    ("float_start_long_dtype", (0.5, 5), dict(dtype=torch.long)),  # start truncated: 0..4
    ("float_step_int32", (0, 5, 1.5), dict(dtype=torch.int32)),  # 4 values, step truncated
    ("float_step_f32", (0.5, 3.2, 0.3), {}),
    ("float_neg_step_f32", (1.0, -1.0, -0.3), {}),
    ("float_end_f32", (9.5,), {}),
    ("int_args_f32", (0, 19, 2), dict(dtype=torch.float32)),
    ("f64", (-1.0, 1.0, 0.0625), dict(dtype=torch.float64)),
    ("f64_fraction", (0.1, 2.3, 0.1), dict(dtype=torch.float64)),
    # f16: torch 2.14's LTC raises before any graph ("compute_shape_arange_out"
    # not implemented for 'Half'; bf16 gets through). The f16/bf16 lowering is
    # covered by the lit test.
    ("long_large", (0, 5000), {}),
    ("f32_fraction_long", (-3.7, 250.1, 0.173), {}),
    ("f64_fraction_long", (2.9, -40.0, -0.0371), dict(dtype=torch.float64)),
]


@pytest.mark.parametrize("args,kwargs", [(a, k) for _, a, k in ARANGE],
                         ids=[n for n, _, _ in ARANGE])
def test_arange(dump_dir, args, kwargs):
    eager = torch.arange(*args, **kwargs)
    lazy = torch.arange(*args, device="lazy", **kwargs)
    torch._lazy.mark_step()
    lazy = lazy.cpu()
    assert lazy.dtype == eager.dtype and lazy.shape == eager.shape
    # Bit-identical: the lowering reproduces ATen's vectorized loop.
    assert torch.equal(lazy, eager), (lazy - eager).abs().max()
    assert_native_with(dump_dir, "arange.start_step")


def test_arange_in_expression(dump_dir):
    """nanoGPT's positions and OPT's causal mask condition."""
    x = torch.randn(2, 9, generator=g)

    def fn(x):
        T = x.shape[1]
        pos = torch.arange(0, T, dtype=torch.long, device=x.device)
        cond = torch.arange(T, device=x.device)
        mask = cond < (cond + 1).view(T, 1)
        return x * pos + 1.0, mask

    eager, lazy = run_both(fn, x)
    assert_close(eager, lazy, rtol=0, atol=0)
    assert_native_with(dump_dir, "arange.start_step")


# --- cumsum and flip ---------------------------------------------------------

def rnd(*shape, dtype=torch.float32):
    return torch.randn(*shape, generator=g).to(dtype)


# (id, fn, inputs, grad input indices, rtol/atol). f32 accumulates in double
# and f16/bf16 in float, in order, as ATen does: the values are identical.
CUMSUM = [
    ("f32_dim1", lambda a: torch.cumsum(a, 1), [rnd(4, 9)], (0,)),
    ("f32_dim0", lambda a: torch.cumsum(a, 0), [rnd(6, 5)], (0,)),
    ("f32_neg_dim_3d", lambda a: torch.cumsum(a, -1), [rnd(2, 3, 11)], (0,)),
    ("f32_middle_dim", lambda a: a.cumsum(1), [rnd(3, 7, 4)], (0,)),
    ("f32_1d_long", lambda a: a.cumsum(0), [rnd(3000)], (0,)),
    ("f32_dtype_f64", lambda a: torch.cumsum(a, 1, dtype=torch.float64), [rnd(3, 8)], ()),
    ("f64", lambda a: torch.cumsum(a, 1), [rnd(3, 10, dtype=torch.float64)], (0,)),
    ("bf16", lambda a: torch.cumsum(a, 0), [rnd(50, 3, dtype=torch.bfloat16)], ()),
    ("int64", lambda a: torch.cumsum(a, 1), [torch.randint(-9, 9, (3, 12), generator=g)], ()),
    ("int32_to_int64", lambda a: torch.cumsum(a, 0),
     [torch.randint(-9, 9, (13, 2), generator=g, dtype=torch.int32)], ()),
    ("uint8_to_int64", lambda a: torch.cumsum(a, 0),
     [torch.randint(200, 255, (14,), generator=g, dtype=torch.uint8)], ()),
    ("bool_to_int64", lambda a: torch.cumsum(a > 0, 1), [rnd(3, 15)], ()),
    ("int_dtype_f32", lambda a: torch.cumsum(a, 1, dtype=torch.float32),
     [torch.randint(-9, 9, (2, 16), generator=g)], ()),
    ("f32_dtype_int32", lambda a: torch.cumsum(a * 10, 1, dtype=torch.int32), [rnd(2, 17)], ()),
    ("zero_dim", lambda a: torch.cumsum(a * 2.0, 0), [torch.tensor(1.5)], (0,)),
    ("size_one_dim", lambda a: torch.cumsum(a, 1), [rnd(5, 1)], (0,)),
    # OPT's positions from the attention mask.
    ("opt_positions", lambda m: (torch.cumsum(m, dim=1).type_as(m) * m).long() - 1,
     [torch.tensor([[1] * 12, [0] * 3 + [1] * 9])], ()),
    ("flip", lambda a: torch.flip(a, [0, 2]), [rnd(3, 4, 5)], (0,)),
    ("flip_neg_dim", lambda a: a.flip(-1), [rnd(2, 18)], (0,)),
    ("flip_int", lambda a: a.flip(0), [torch.randint(0, 99, (19, 2), generator=g)], ()),
]


@pytest.mark.parametrize("name,fn,inputs,grads", CUMSUM, ids=[c[0] for c in CUMSUM])
def test_cumsum_flip(dump_dir, name, fn, inputs, grads):
    eager, lazy = run_both(fn, *inputs, grad_inputs=grads)
    # Same accumulation order and type as ATen: exact.
    assert_close(eager, lazy, rtol=0, atol=0)
    op = "flip" if name.startswith("flip") else "cumsum"
    # cumsum's backward is grad.flip(dim).cumsum(dim).flip(dim) (just grad
    # when dim has fewer than 2 elements).
    backward_flips = grads and op == "cumsum" and inputs[0].dim() and max(inputs[0].shape) > 1 \
        and name != "size_one_dim"
    assert_native_with(dump_dir, op, *(["flip"] if backward_flips else []))


def test_cumsum_f16_matches_eager():
    """torch 2.14's CPU cumsum takes f16. The lowering refuses f16 (not
    lowered yet): the graph runs it through ATen, reported as a fallback,
    with eager's values."""
    x = rnd(3, 4, dtype=torch.float16)
    ltc_mlir.reset_metrics()
    lazy = torch.cumsum(x.to("lazy"), 1).cpu()
    assert torch.equal(lazy, torch.cumsum(x, 1))
    assert "aten::cumsum" in ltc_mlir.metrics()["fallback_ops"]


# --- masked_fill and where.self (attention masks) ----------------------------

# torch 2.x's LTC passes a Python number as a 0-dim tensor graph input, so
# masked_fill(mask, number) reaches the graph as masked_fill.Tensor.
MASKED = [
    ("scalar_neg_inf", lambda a, m: a.masked_fill(m, float("-inf")).exp(),
     [rnd(2, 3, 5, 5), torch.tril(torch.ones(5, 5)) == 0], (0,), "masked_fill.Tensor"),
    ("scalar_broadcast_mask", lambda a, m: a.masked_fill(m, 0.5),
     [rnd(4, 6), torch.rand(6, generator=g) > 0.5], (0,), "masked_fill.Tensor"),
    # (A mask larger than self: eager broadcasts the result, torch's LTC
    # types it as self; the lowering refuses the mismatch and it falls back.)
    ("int_self_float_value", lambda a, m: a.masked_fill(m, 2.7),
     [torch.randint(-5, 5, (4, 8), generator=g), torch.rand(4, 8, generator=g) > 0.5], (),
     "masked_fill.Tensor"),
    ("bool_self", lambda a, m: (a > 0).masked_fill(m, True),
     [rnd(9), torch.rand(9, generator=g) > 0.5], (), "masked_fill.Tensor"),
    ("tensor_value", lambda a, m, v: a.masked_fill(m, v),
     [rnd(3, 10), torch.rand(3, 10, generator=g) > 0.5, torch.tensor(-1.25, dtype=torch.float64)],
     (0,), "masked_fill.Tensor"),
    # where.self has no Lazy kernel in torch's LTC: ours (AtenOpNode) keeps
    # it in the graph; maximum's backward uses it.
    ("where", lambda c, a, b: torch.where(c, a, b),
     [torch.rand(4, 11, generator=g) > 0.5, rnd(4, 11), rnd(11)], (1, 2), "where.self"),
    ("max_with_floor", lambda a: torch.max(a, torch.tensor(-0.5)),
     [rnd(3, 12)], (0,), "where.self"),
]


@pytest.mark.parametrize("name,fn,inputs,grads,op", MASKED, ids=[c[0] for c in MASKED])
def test_masked_fill_where(dump_dir, name, fn, inputs, grads, op):
    eager, lazy = run_both(fn, *inputs, grad_inputs=grads)
    assert_close(eager, lazy, rtol=1e-6, atol=1e-6)
    assert_native_with(dump_dir, op)
