"""Tensor indexing and concatenation on the lazy device vs eager CPU.

torch 2.14's LTC records x[i] / x[:, i] / x[..., -1] as select_copy.int,
slices (x[1:5:2], x[-3:]) as slice_copy.Tensor, and their backward as
select_scatter / slice_scatter into zeros; torch.cat as aten.cat over a
prim.ListConstruct of tensors of different shapes (its backward is
slice_copy); abs's backward uses sgn. index_select has a lazy kernel, but its
backward (index_add) has none, so it is tested forward only; chunk/split
(split_copy) has no lazy kernel at all. (A backward through unbind's
pieces fails on lazy tensors in torch 2.14 itself: "... returned an invalid
gradient ... expected device lazy:0 but got cpu".)
Every case asserts the values (explicit tolerances) and that the graph ran
as native code with no fallback.
"""
import pytest
import torch

import ltc_mlir

from lazy_testing import assert_all_native, assert_close, run_both

g = torch.Generator().manual_seed(4321)


def rnd(*shape, dtype=torch.float32):
    return torch.randn(*shape, generator=g).to(dtype)


# name, fn, inputs, indices of inputs that get gradients
CASES = [
    ("select_col", lambda x: x[:, 1], [rnd(4, 5)], (0,)),
    ("select_row", lambda x: x[2] * 2.0, [rnd(4, 5)], (0,)),
    ("select_neg_ellipsis", lambda x: x[..., -1], [rnd(3, 4, 5)], (0,)),
    ("select_to_0d", lambda x: x[3] * 1.0, [rnd(6)], (0,)),
    ("select_twice", lambda x: x[1, 2] + x[:, 0].sum(), [rnd(3, 4)], (0,)),
    ("slice_step", lambda x: x[1:5:2], [rnd(6, 5)], (0,)),
    ("slice_neg_start", lambda x: x[-3:], [rnd(6, 5)], (0,)),
    ("slice_neg_end", lambda x: x[:, 1:-1], [rnd(4, 6)], (0,)),
    ("slice_out_of_range", lambda x: x[2:100] * 1.0, [rnd(5, 3)], (0,)),
    ("slice_neg_out_of_range", lambda x: x[:, -100:2] * 1.0, [rnd(3, 5)], (0,)),
    ("slice_step_3_inner", lambda x: x[..., ::3], [rnd(2, 3, 8)], (0,)),
    ("slice_then_select", lambda x: x[1:4, 2], [rnd(5, 4)], (0,)),
    ("narrow", lambda x: x.narrow(1, 1, 2) * 3.0, [rnd(3, 5)], (0,)),
    ("cat_dim1", lambda a, b: torch.cat([a, b], 1), [rnd(3, 2), rnd(3, 4)], (0, 1)),
    ("cat_dim0_three", lambda a, b, c: torch.cat([a, b, c]),
     [rnd(1, 4), rnd(3, 4), rnd(2, 4)], (0, 1, 2)),
    ("cat_neg_dim", lambda a, b: torch.cat([a, b], -1) * 2.0,
     [rnd(2, 3, 2), rnd(2, 3, 5)], (0, 1)),
    ("cat_same_tensor", lambda a: torch.cat([a, a * 2.0, a]), [rnd(2, 3)], (0,)),
    ("stack", lambda a, b: torch.stack([a, b], 1), [rnd(3, 4), rnd(3, 4)], (0, 1)),
    ("stack_last_three", lambda a, b: torch.stack([a, b, a], -1) * 2.0,
     [rnd(2, 3), rnd(2, 3)], (0, 1)),
    ("abs", lambda x: x.abs(), [rnd(4, 5)], (0,)),
    # sgn is 0 (not -0.0: 1 / sgn is +inf) for -0.0 and NaN.
    ("sgn", lambda x: (torch.sgn(x), torch.ones_like(x) / torch.sgn(x)),
     [torch.tensor([float("nan"), -0.0, 0.0, 2.0, -3.0, float("inf")])], ()),
    ("sgn_int", lambda i: torch.sgn(i), [torch.randint(-3, 4, (4, 5), generator=g)], ()),
    ("index_select", lambda x, i: x.index_select(1, i),
     [rnd(4, 5), torch.tensor([4, 0, 2, 2])], ()),
    ("index_select_dim0_int32", lambda x, i: torch.index_select(x, 0, i) * 1.0,
     [rnd(4, 3), torch.tensor([3, 1], dtype=torch.int32)], ()),
    ("index_select_0d_index", lambda x, i: x.index_select(-1, i),
     [rnd(2, 3), torch.tensor(1)], ()),
]


@pytest.mark.parametrize("name,fn,inputs,grads", CASES, ids=[c[0] for c in CASES])
def test_indexing_op(name, fn, inputs, grads):
    eager, lazy = run_both(fn, *inputs, grad_inputs=grads)
    # Pure data movement is exact; sums of gradients are within a few ulp.
    assert_close(eager, lazy, rtol=1e-6, atol=1e-6)
    assert_all_native()


def test_int_and_bool_slices():
    i = torch.randint(-9, 9, (4, 6), generator=g)
    m = rnd(4, 6) > 0
    eager, lazy = run_both(lambda a, b: (a[1:3, ::2], b[:, -1], torch.cat([b, b[:1]])), i, m)
    assert_close(eager, lazy, rtol=0, atol=0)
    assert_all_native()


def test_cat_promotes_dtypes():
    eager, lazy = run_both(lambda a, b: torch.cat([a, b], 0),
                           rnd(2, 3), rnd(1, 3, dtype=torch.float64))
    assert lazy[0].dtype == torch.float64
    assert_close(eager, lazy, rtol=0, atol=0)
    assert_all_native()


def test_slice_assignment():
    # In-place writes into views are functionalized into scatters.
    def fn(x, y):
        z = x * 1.0
        z[1:3] = y
        z[:, 0] = 0.5
        return z
    eager, lazy = run_both(fn, rnd(4, 3), rnd(2, 3), grad_inputs=(0, 1))
    assert_close(eager, lazy, rtol=1e-6, atol=1e-6)
    assert_all_native()


def test_index_select_out_of_range_raises():
    x = rnd(4, 5)
    bad = torch.tensor([0, 5])
    # Eager CPU: RuntimeError "INDICES element is out of DATA bounds" (or
    # IndexError "index out of range in self" on other paths).
    with pytest.raises((IndexError, RuntimeError), match="out of"):
        x.index_select(1, bad)
    with pytest.raises(IndexError, match="index out of range in self") as err:
        x.to("lazy").index_select(1, bad.to("lazy")).cpu()
    try:  # torch's LTC raises a parked execution error once more
        torch._lazy.wait_device_ops()
    except RuntimeError:
        pass
    assert "[0, 5)" in str(err.value), str(err.value)
    assert ltc_mlir.metrics()["fallback_graph_count"] == 0
