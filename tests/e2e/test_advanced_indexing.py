"""Advanced indexing with integer index tensors (x[i], x[:, i], x[i, j],
x[i] = v, x[i] += v, index_put with accumulate, and index's backward) runs
as native code: our Lazy kernels (ltc_backend/lazy_kernels/indexing_kernels.cpp)
keep aten::index.Tensor / index_put / _index_put_impl in the graph, and
TorchToLinalg AdvancedIndexing.cpp lowers them. Each case is compared with
eager CPU. Bool/uint8 masks (data-dependent shapes) still run through the
eager fallback and are only checked for values. Out-of-range indices raise
(runtime check) in a subprocess."""
import pytest
import torch

import ltc_mlir
from isolated import run_isolated
from lazy_testing import assert_close, assert_ops_native, run_both

INDEX = "aten::index"
INDEX_PUT = "aten::index_put"
# index's backward: torch's index_backward takes index_put(accumulate=True)
# for functional tensors (lazy ones are: isTensorSubclassLike). The
# gradients' values check the accumulation.
INDEX_BACKWARD = INDEX_PUT

# Exact for gathers and plain writes; sums of a few values in index order
# (eager's CPU loop adds in the same order).
TOL = {
    torch.float32: dict(rtol=1e-6, atol=1e-6),
    torch.float64: dict(rtol=1e-12, atol=1e-12),
    torch.float16: dict(rtol=1e-3, atol=1e-3),
    torch.bfloat16: dict(rtol=1e-2, atol=1e-2),
}
EXACT = dict(rtol=0, atol=0)


def tol(dtype):
    return TOL.get(dtype, EXACT)


def native_op_names():
    return set(ltc_mlir.metrics()["native_ops"])


def assert_native(*ops):
    """No fallback at all since the reset, and each op ran in native code."""
    m = ltc_mlir.metrics()
    assert m["fallback_ops"] == {}, m["fallback_reasons"] or m["fallback_ops"]
    assert m["fallback_graph_count"] == 0, m["fallback_reasons"]
    for op in ops:
        assert m["native_ops"].get(op, 0) >= 1, f"{op} did not run natively: {m['native_ops']}"
    return m


def idx(*values):
    return torch.tensor(values, dtype=torch.long)


def values_of(dtype, *shape, seed=0):
    g = torch.Generator().manual_seed(seed)
    if dtype == torch.bool:
        return torch.rand(shape, generator=g) > 0.5
    if dtype.is_floating_point:
        return torch.randn(shape, generator=g).to(dtype)
    return torch.randint(-50, 50, shape, generator=g, dtype=dtype)


# --- x[indices] ----------------------------------------------------------------

GATHERS = {
    # name: (self shape, fn(x, *indices), indices)
    "1d": ((7,), lambda x, i: x[i], (idx(0, 3, 3, -1, 6),)),
    "2d_rows": ((6, 5), lambda x, i: x[i], (idx(5, 0, 2),)),
    "2d_cols": ((6, 5), lambda x, i: x[:, i], (idx(4, -5, 1, 1),)),
    "2d_elements": ((6, 5), lambda x, i, j: x[i, j], (idx(0, 5, 2), idx(4, 0, -1))),
    "index_tensor_2d": ((6, 5), lambda x, i: x[i], (idx(0, 1, 2, 3, 4, 5).view(2, 3),)),
    "none_slot_middle": ((3, 6, 4), lambda x, i: x[:, i], (idx(1, 5, -6),)),
    "none_slot_last": ((3, 4, 6), lambda x, i: x[..., i], (idx(2, 0),)),
    "adjacent_pair_middle": ((3, 6, 5, 2), lambda x, i, j: x[:, i, j], (idx(0, 5), idx(4, 1))),
    "non_adjacent": ((6, 3, 5), lambda x, i, j: x[i, :, j], (idx(0, 2, 5, 1), idx(4, 4, 0, 2))),
    "non_adjacent_4d": ((6, 2, 3, 5), lambda x, i, j: x[:, i, :, j], (idx(1, 0), idx(3, 4))),
    "broadcast_outer": ((6, 5), lambda x, i, j: x[i[:, None], j[None, :]], (idx(0, 2, 5), idx(1, 4))),
    "broadcast_rank": ((6, 5, 4), lambda x, i, j: x[i, j], (idx(0, 1, 2, 3, 4, 5).view(3, 2), idx(3, -1))),
    "negative": ((6, 5), lambda x, i, j: x[i, j], (idx(-1, -6, -3), idx(-5, -1, 0))),
    "zero_dim_index": ((6, 5), lambda x, i, j: x[i, j], (torch.tensor(4), idx(0, 1, 2))),
    "empty_index": ((6, 5), lambda x, i: x[i], (torch.zeros(0, dtype=torch.long),)),
    "logits_targets": ((4, 10), lambda x, i, j: x[i, j], (torch.arange(4), idx(3, 9, 0, 3))),
}


@pytest.mark.parametrize("name", sorted(GATHERS))
def test_index_matches_eager(name):
    shape, fn, indices = GATHERS[name]
    x = values_of(torch.float32, *shape)
    eager, lazy = run_both(lambda x, *ii: fn(x, *ii) * 2, x, *indices)
    assert_close(eager, lazy, **EXACT)
    if lazy[0].numel():
        assert_native(INDEX)


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.float16,
                                   torch.bfloat16, torch.int64, torch.int32, torch.bool])
def test_index_dtypes(dtype):
    x = values_of(dtype, 6, 5)
    eager, lazy = run_both(lambda x, i, j: x[i, j], x, idx(0, 5, 5, -2), idx(1, 1, -1, 3))
    assert_close(eager, lazy, **EXACT)
    assert_native(INDEX)


def test_index_with_cpu_index_tensors():
    # Eager lets a device tensor be indexed by CPU index tensors; they are
    # uploaded as graph inputs.
    x = values_of(torch.float32, 6, 5)
    i, j = idx(5, 0, 3), idx(-1, 2, 2)
    ltc_mlir.reset_metrics()
    lazy = x.to("lazy")[:, j][i] + 1
    torch._lazy.mark_step()
    torch.testing.assert_close(lazy.cpu(), x[:, j][i] + 1, **EXACT)
    assert_native(INDEX)


def test_new_index_values_reuse_the_compiled_graph():
    # The index tensors are graph inputs: other values, same shapes, no compile.
    x_cpu = values_of(torch.float32, 6, 5)
    x = x_cpu.to("lazy")
    (x[idx(0, 1)] * 2).cpu()
    before = ltc_mlir.metrics()["compile_count"]
    for i in ([4, 5], [-1, 3], [2, 2]):
        out = (x[idx(*i).to("lazy")] * 2).cpu()
        torch.testing.assert_close(out, x_cpu[idx(*i)] * 2, **EXACT)
    assert ltc_mlir.metrics()["compile_count"] == before


def test_int32_indices_like_eager():
    # torch 2.14 takes int32 index tensors as long ones.
    def fn(x, v, i, j):
        y = x.index_put((i,), v, accumulate=True)
        y[j] = v
        return x[i] * 2, x[i, j], y

    x, v = values_of(torch.float32, 6, 5), values_of(torch.float32, 3, 5, seed=7)
    i = torch.tensor([1, -2, 1], dtype=torch.int32)
    j = torch.tensor([4, 0, -3], dtype=torch.int32)
    eager, lazy = run_both(fn, x, v, i, j)
    assert_close(eager, lazy, **TOL[torch.float32])
    assert_native(INDEX, INDEX_PUT)


@pytest.mark.parametrize("dtype", [torch.int16, torch.int8, torch.float32])
def test_other_index_dtypes_raise_like_eager(dtype):
    # (int8 is no mask: only bool and uint8 are.)
    x = values_of(torch.float32, 6, 5)
    i = torch.tensor([1, 0, 1, 1, 0, 0], dtype=dtype)
    message = "tensors used as indices must be long, int, byte or bool tensors"
    with pytest.raises(IndexError, match=message):
        x[i]
    with pytest.raises(IndexError, match=message):
        x.to("lazy")[i.to("lazy")]
    with pytest.raises(IndexError, match=message):
        x.to("lazy").index_put((i.to("lazy"),), torch.ones(6, 5).to("lazy"))


def test_bad_index_arguments_raise_like_eager():
    x = values_of(torch.float32, 6, 5)
    cases = [
        (lambda x, d: x[idx(0).to(d), idx(1).to(d), idx(2).to(d)], IndexError, "too many indices"),
        (lambda x, d: x[idx(0, 1).to(d), idx(1, 2, 3).to(d)], IndexError, "could not be broadcast"),
        (lambda x, d: x.index_put((idx(1, 2).to(d),), torch.ones(3, 5).to(d)), RuntimeError,
         r"shape mismatch: value tensor of shape \[3, 5\] cannot be broadcast to indexing result of shape \[2, 5\]"),
        (lambda x, d: x.index_put((idx(1, 2).to(d),), torch.ones(2, 5, dtype=torch.float64).to(d)),
         RuntimeError, "Index put requires the source and destination dtypes match"),
    ]
    for fn, kind, message in cases:
        with pytest.raises(kind, match=message):
            fn(x, "cpu")
        with pytest.raises(kind, match=message):
            fn(x.to("lazy"), "lazy")


# --- x[indices] = values, index_put ---------------------------------------------

PUTS = {
    # name: (self shape, indices, values shape)
    "rows": ((6, 5), (idx(4, 0, -1),), (3, 5)),
    "rows_broadcast_values": ((6, 5), (idx(4, 0, 2),), (5,)),
    "scalar_value": ((6, 5), (idx(4, 0, 2),), ()),
    "elements": ((6, 5), (idx(0, 5, 2), idx(4, 0, -1)), (3,)),
    "none_slot": ((3, 6, 4), (None, idx(1, 5, -6)), (3, 3, 4)),
    "non_adjacent": ((6, 3, 5), (idx(0, 2, 5, 1), None, idx(4, 4, 0, 2)), (4, 3)),
    "broadcast_indices": ((6, 5), (idx(0, 2, 5)[:, None], idx(1, 4)[None, :]), (3, 2)),
}


@pytest.mark.parametrize("accumulate", [False, True])
@pytest.mark.parametrize("name", sorted(PUTS))
def test_index_put_matches_eager(name, accumulate):
    shape, indices, vshape = PUTS[name]
    x, v = values_of(torch.float32, *shape), values_of(torch.float32, *vshape, seed=1)
    tensors = [i for i in indices if i is not None]

    def fn(x, v, *tt):
        it = iter(tt)
        ii = tuple(None if i is None else next(it) for i in indices)
        # (torch.ops: the Tensor.index_put binding does not take None.)
        return torch.ops.aten.index_put(x, list(ii), v, accumulate) * 2

    eager, lazy = run_both(fn, x, v, *tensors)
    assert_close(eager, lazy, **TOL[torch.float32])
    assert_native(INDEX_PUT)


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.float16,
                                   torch.bfloat16, torch.int64, torch.int32, torch.bool])
def test_index_put_accumulate_duplicates(dtype):
    # Duplicates add up (bools: or) in index order, like ATen's CPU loop.
    x = values_of(dtype, 6, 4)
    v = values_of(dtype, 7, 4, seed=2)
    i = idx(1, 3, 1, 1, -5, 0, 3)
    eager, lazy = run_both(lambda x, v, i: x.index_put((i,), v, accumulate=True), x, v, i)
    assert_close(eager, lazy, **tol(dtype))
    assert_native(INDEX_PUT)


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.float16,
                                   torch.bfloat16, torch.int64, torch.int32, torch.bool])
def test_setitem_on_a_clone(dtype):
    # Unique indices: eager does not promise which duplicate wins.
    x = values_of(dtype, 6, 4)
    v = values_of(dtype, 3, 4, seed=3)

    def fn(x, v, i):
        y = x.clone()
        y[i] = v
        return y

    eager, lazy = run_both(fn, x, v, idx(5, -6, 2))
    assert_close(eager, lazy, **EXACT)
    assert_native(INDEX_PUT)


def test_setitem_duplicates_last_write_wins():
    # ATen's CPU loop writes in index order (16 elements: one chunk of its
    # parallel loop on any thread count); the lowering does too, on the
    # runtime's threads (torch.get_num_threads(), not always 1).
    x, v = values_of(torch.float32, 6, 4), values_of(torch.float32, 4, 4, seed=4)

    def fn(x, v, i):
        y = x.clone()
        y[i] = v
        return y

    eager, lazy = run_both(fn, x, v, idx(2, 2, 0, 2))
    assert_close(eager, lazy, **EXACT)
    assert torch.equal(lazy[0][2], v[3]) and torch.equal(lazy[0][0], v[2])
    assert_native(INDEX_PUT)


def test_setitem_scalar_and_elements():
    def fn(x, i, j):
        y = x.clone()
        y[i, j] = 7.5
        y[:, j] = -1.0
        return y

    eager, lazy = run_both(fn, values_of(torch.float32, 5, 6), idx(0, 4, 4), idx(5, -6, 1))
    assert_close(eager, lazy, **EXACT)
    assert_native(INDEX_PUT)


def test_augmented_setitem():
    # x[i] += v is index, add, index_put (duplicates: eager reads before any
    # write, so each duplicate writes old + v once: the last one wins).
    def fn(x, v, i):
        y = x.clone()
        y[i] += v
        y[:, idx(0, 3).to(x.device)] *= 2
        return y

    eager, lazy = run_both(fn, values_of(torch.float32, 6, 4), values_of(torch.float32, 3, 4, seed=5),
                           idx(4, 1, -1))
    assert_close(eager, lazy, **TOL[torch.float32])
    assert_native(INDEX, INDEX_PUT)


def test_index_put_in_place_on_a_view():
    def fn(x, i, v):
        y = x.clone()
        y[1:].index_put_((i,), v, accumulate=True)
        return y

    eager, lazy = run_both(fn, values_of(torch.float32, 6, 3), idx(0, 4, 0), values_of(torch.float32, 3, 3))
    assert_close(eager, lazy, **TOL[torch.float32])
    assert_native(INDEX_PUT)


# --- backward --------------------------------------------------------------------

BACKWARD = {
    "rows_duplicates": ((6, 5), lambda x, i: x[i], (idx(1, 3, 1, -5, 1),)),
    "cols": ((6, 5), lambda x, i: x[:, i], (idx(4, 0, 4),)),
    "elements": ((6, 5), lambda x, i, j: x[i, j], (idx(0, 5, 0), idx(4, -1, 4))),
    "non_adjacent": ((6, 3, 5), lambda x, i, j: x[i, :, j], (idx(0, 2, 0), idx(4, 4, 4))),
    "broadcast": ((6, 5), lambda x, i, j: x[i[:, None], j], (idx(0, 2, 2), idx(1, 4))),
}


@pytest.mark.parametrize("name", sorted(BACKWARD))
def test_index_backward(name):
    shape, fn, indices = BACKWARD[name]
    eager, lazy = run_both(fn, values_of(torch.float32, *shape), *indices, grad_inputs=(0,))
    assert_close(eager, lazy, **TOL[torch.float32])
    assert_native(INDEX, INDEX_BACKWARD)


@pytest.mark.parametrize("dtype", [torch.float64, torch.float16, torch.bfloat16])
def test_index_backward_dtypes(dtype):
    fn = lambda x, i: x[i] * 3  # noqa: E731
    eager, lazy = run_both(fn, values_of(dtype, 6, 5), idx(1, 3, 1, -5, 1), grad_inputs=(0,))
    assert_close(eager, lazy, **tol(dtype))
    assert_native(INDEX, INDEX_BACKWARD)


def test_index_put_backward():
    # The gradients of index_put: self's outside the indices, values' gathered.
    def fn(x, v, i):
        return x.index_put((i,), v * 2, accumulate=True) * 3

    eager, lazy = run_both(fn, values_of(torch.float32, 6, 4), values_of(torch.float32, 3, 4, seed=6),
                           idx(5, 0, 5), grad_inputs=(0, 1))
    assert_close(eager, lazy, **TOL[torch.float32])
    assert_native(INDEX_PUT)


def test_training_step_with_position_embedding():
    # pos_emb[idx] and logits[arange(B), targets] in one step, twice (the
    # second step runs the cached graph).
    torch.manual_seed(0)
    emb = torch.nn.Parameter(torch.randn(8, 4))
    head = torch.nn.Linear(4, 5)
    tokens, targets = idx(0, 3, 3, 7, 1, 0), idx(4, 0, 2, 2, 1, 3)

    def step(emb, head, device):
        opt = torch.optim.SGD([emb, *head.parameters()], lr=0.1)
        losses = []
        for _ in range(2):
            opt.zero_grad(set_to_none=True)
            logits = head(emb[tokens.to(device)]).log_softmax(-1)
            loss = -logits[torch.arange(6).to(device), targets.to(device)].mean()
            loss.backward()
            opt.step()
            if device == "lazy":
                torch._lazy.mark_step()
            losses.append(loss.detach().cpu())
        return losses + [emb.detach().cpu()]

    lazy_head = torch.nn.Linear(4, 5)
    lazy_head.load_state_dict(head.state_dict())
    eager = step(torch.nn.Parameter(emb.detach().clone()), head, "cpu")
    ltc_mlir.reset_metrics()
    lazy = step(torch.nn.Parameter(emb.detach().clone().to("lazy")), lazy_head.to("lazy"), "lazy")
    assert_close(eager, lazy, rtol=1e-5, atol=1e-6)
    assert_native(INDEX, INDEX_BACKWARD)


# --- bool masks: nonzero after one count sync, then native ---------------------

def test_bool_mask_indexing_stays_native():
    # Masks select a data-dependent number of elements: the Lazy kernel reads
    # the count (one sync) and replaces each mask by its nonzero() indices
    # (ltc_backend/lazy_kernels/mask_kernels.cpp), so nothing runs eagerly.
    x = values_of(torch.float32, 6, 5)
    mask = torch.tensor([True, False, True, True, False, False])
    m2 = x > 0

    def fn(x, mask, m2):
        y = x.clone()
        y[m2] = 0.0
        return x[mask] * 2, x[:, mask[:5]], y, x[m2]

    eager, lazy = run_both(fn, x, mask, m2)
    assert_close(eager, lazy, **EXACT)
    assert ltc_mlir.metrics()["fallback_ops"] == {}
    assert_ops_native("aten::index", "aten::index_put")


def test_bool_mask_backward_is_correct():
    mask = torch.tensor([True, False, True, True, False, False])
    eager, lazy = run_both(lambda x, m: x[m] * 3, values_of(torch.float32, 6, 5), mask, grad_inputs=(0,))
    assert_close(eager, lazy, **TOL[torch.float32])


# --- out-of-range indices: runtime check ------------------------------------------

def test_out_of_range_indices_raise():
    # Eager raises IndexError("index 10 is out of bounds for dimension 0 with
    # size 6") at the call; the lazy device raises an IndexError with the
    # same wording (without the value) at the sync, from the compiled code's
    # runtime check. In a subprocess: an abort must not take pytest down.
    r = run_isolated("""
        x = torch.randn(6, 5)
        i = lambda *v: torch.tensor(v).to("lazy")
        cases = {
            "index_high": lambda x: x[i(0, 10)],
            "index_low": lambda x: x[i(-7)],
            "index_dim1": lambda x: x[:, i(2, 5)],
            "index_pair": lambda x: x[i(1), i(6)],
            "setitem": lambda x: x.clone().index_put((i(6),), torch.ones(5).to("lazy")),
            "accumulate": lambda x: x.index_put((i(3, -8),), torch.ones(2, 5).to("lazy"), accumulate=True),
        }
        out = {}
        for name, fn in cases.items():
            try:
                (fn(x.to("lazy")) * 2).cpu()
                out[name] = "no error"
            except Exception as e:
                out[name] = [type(e).__name__, str(e)]
        # The process keeps working: the same graphs with good indices.
        ltc_mlir.reset_metrics()
        good = (x.to("lazy")[i(0, 5)] * 2).cpu()
        out["good"] = as_list(good - x[torch.tensor([0, 5])] * 2)
        out["fallback"] = dict(ltc_mlir.metrics()["fallback_ops"])
        emit(out)
    """)
    expected = {
        "index_high": "dimension 0 with size 6", "index_low": "dimension 0 with size 6",
        "index_dim1": "dimension 1 with size 5", "index_pair": "dimension 1 with size 5",
        "setitem": "dimension 0 with size 6", "accumulate": "dimension 0 with size 6",
    }
    for name, where in expected.items():
        kind, message = r[name]
        assert kind == "IndexError", r[name]
        assert f"index is out of bounds for {where}" in message, message
        assert "Check the index tensors" in message, message
    assert r["good"] == [[0.0] * 5] * 2
    assert r["fallback"] == {}
