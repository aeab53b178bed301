"""gather and the scatter family, index_fill/copy/add, roll, triangles and
diagonals, matrix-vector products and cross on the lazy device vs eager CPU.

All are registered with RegisterAtenOpKernel (torch 2.14's LTC has Lazy
kernels only for gather, scatter_add, tril, triu, trace and mv; ours
replace them).
Scatters run ATen's sequential loop, so duplicate indices resolve as in
eager (the last write wins; sums add in index order). Out-of-range indices
raise a RuntimeError at mark_step (eager: "index ... is out of bounds for
dimension ..."). Every case asserts values, gradients where differentiable,
and that the graphs ran natively.
"""
import pytest
import torch

import ltc_mlir
from lazy_testing import assert_all_native, assert_close, run_both

g = torch.Generator().manual_seed(777)


def rnd(*shape):
    return torch.randn(*shape, generator=g)


def idx(hi, *shape):
    return torch.randint(0, hi, shape, generator=g)


DUP = torch.tensor([[0, 0, 2], [1, 1, 1], [3, 0, 3]])  # duplicates per row

CASES = [
    ("gather_dim1", lambda x, i: torch.gather(x, 1, i), [rnd(4, 5), idx(5, 4, 3)], (0,)),
    ("gather_dim0_smaller", lambda x, i: torch.gather(x, 0, i), [rnd(4, 5), idx(4, 2, 3)], (0,)),
    ("gather_0d", lambda x, i: torch.gather(x, 0, i), [torch.tensor(1.5), torch.tensor(0)], (0,)),
    ("take_along_dim", lambda x, i: torch.take_along_dim(x, i, 1), [rnd(3, 6), idx(6, 3, 2)], (0,)),
    ("scatter_src_dup", lambda x, s, i: x.scatter(1, i, s), [rnd(3, 4), rnd(3, 3), DUP], (0, 1)),
    ("scatter_value", lambda x, i: x.scatter(0, i, -2.5), [rnd(4, 4), DUP], (0,)),
    ("scatter_reduce_add_mul", lambda x, s, i: (x.scatter(1, i, s, reduce="add"),
                                                 x.scatter(1, i, s, reduce="multiply")),
     [rnd(3, 4), rnd(3, 3), DUP], ()),
    ("scatter_add_dup", lambda x, s, i: x.scatter_add(1, i, s), [rnd(3, 4), rnd(3, 3), DUP], (0, 1)),
    ("scatter_add_int", lambda x, s, i: x.scatter_add(0, i, s), [idx(9, 4, 4), idx(9, 3, 3), DUP], ()),
    ("tril_triu", lambda x: (x.tril(), x.triu(1), x.tril(-2)), [rnd(2, 4, 5)], (0,)),
    ("triu_int", lambda i: i.triu(-1), [idx(9, 5, 3)], ()),
    ("diag_of_matrix", lambda x: (torch.diag(x), torch.diag(x, 2), torch.diag(x, -1)), [rnd(4, 5)], (0,)),
    ("diag_of_vector", lambda v: (torch.diag(v), torch.diag(v, -2)), [rnd(3)], (0,)),
    ("trace", lambda x: torch.trace(x), [rnd(5, 3)], ()),
    ("trace_int", lambda i: torch.trace(i), [idx(9, 4, 4)], ()),
    ("dot_vdot", lambda a, b: (torch.dot(a, b), torch.vdot(a, b)), [rnd(37), rnd(37)], (0, 1)),
    ("mv", lambda m, v: torch.mv(m, v), [rnd(6, 300), rnd(300)], (0, 1)),
    ("addmv", lambda s, m, v: torch.addmv(s, m, v, beta=0.5, alpha=-2), [rnd(1), rnd(4, 5), rnd(5)], (0, 1, 2)),
    ("addbmm", lambda s, a, b: torch.addbmm(s, a, b, alpha=1.5), [rnd(3, 4), rnd(2, 3, 5), rnd(2, 5, 4)], (0, 1, 2)),
    ("baddbmm", lambda s, a, b: torch.baddbmm(s, a, b, beta=0.25), [rnd(2, 3, 4), rnd(2, 3, 5), rnd(2, 5, 4)], (0, 1, 2)),
    ("index_fill", lambda x, i: (x.index_fill(1, i, -1.5), x.index_fill(0, i[1:], torch.tensor(3.0))),
     [rnd(4, 5), torch.tensor([4, -1, 0])], (0,)),
    ("index_fill_0d", lambda x, i: x.index_fill(0, i, 2.0), [torch.tensor(1.5), torch.tensor([0])], (0,)),
    ("index_copy_add", lambda x, s, i: (x.index_copy(0, i, s), x.index_add(0, i, s, alpha=2.0)),
     [rnd(5, 3), rnd(4, 3), torch.tensor([4, 0, 4, 2])], ()),
    ("index_add_int", lambda x, s, i: x.index_add(1, i, s), [idx(9, 2, 4), idx(9, 2, 3), torch.tensor([3, 3, 1])], ()),
    ("roll", lambda x: (x.roll(2, 1), x.roll((-1, 7), (0, 2)), x.roll(5)), [rnd(3, 4, 5)], (0,)),
    ("linalg_cross", lambda a, b: (torch.linalg.cross(a, b), torch.linalg.cross(a[:, :1], b, dim=-1)),
     [rnd(4, 2, 3), rnd(4, 2, 3)], (0, 1)),
    ("matvec_int", lambda m, v: torch.mv(m, v), [idx(9, 3, 4), idx(9, 4)], ()),
]

for red in ["sum", "prod", "mean", "amax", "amin"]:
    for include_self in [True, False]:
        CASES.append((f"scatter_reduce_{red}_{include_self}",
                      lambda x, s, i, r=red, inc=include_self: x.scatter_reduce(0, i, s, r, include_self=inc),
                      [rnd(4, 3), rnd(5, 3), idx(4, 5, 3)],
                      (0, 1) if red in ("sum", "mean", "amax", "amin") else ()))
CASES.append(("scatter_reduce_mean_int",
              lambda x, s, i: (x.scatter_reduce(0, i, s, "mean"), x.scatter_reduce(0, i, s, "mean", include_self=False)),
              [idx(20, 4, 3) - 10, idx(20, 5, 3) - 10, idx(4, 5, 3)], ()))


def flat(fn):
    def run(*args):
        r = fn(*args)
        return r if isinstance(r, tuple) else (r,)
    return run


@pytest.mark.parametrize("name,fn,inputs,grads", CASES, ids=[c[0] for c in CASES])
def test_op(name, fn, inputs, grads):
    eager, lazy = run_both(flat(fn), *inputs, grad_inputs=grads)
    assert_close(eager, lazy, rtol=2e-5, atol=1e-5, equal_nan=True)
    assert_all_native()


@pytest.mark.parametrize("name,fn,message", [
    ("gather", lambda x, i: torch.gather(x, 1, i), "gather\\(\\): index out of bounds"),
    ("scatter", lambda x, i: x.scatter(1, i, 1.0), "scatter\\(\\): index out of bounds"),
    ("scatter_add", lambda x, i: x.scatter_add(1, i, x), "scatter_add\\(\\): index out of bounds"),
])
@pytest.mark.parametrize("bad", [4, -1])
def test_index_out_of_bounds_raises(name, fn, message, bad):
    x = rnd(3, 4)
    i = torch.tensor([[0, 1, 2, 3], [1, bad, 0, 0], [3, 3, 3, 3]])
    with pytest.raises(RuntimeError, match="out of bounds"):
        fn(x, i)
    with pytest.raises(RuntimeError, match=message):
        fn(x.to("lazy"), i.to("lazy")).cpu()
    assert ltc_mlir.metrics()["fallback_graph_count"] == 0
    # The same compiled code then runs good indices.
    ltc_mlir.reset_metrics()
    good = i.clamp(0, 3)
    assert_close([fn(x, good)], [fn(x.to("lazy"), good.to("lazy")).cpu()], rtol=0, atol=0)
    assert_all_native()
