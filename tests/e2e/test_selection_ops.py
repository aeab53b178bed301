"""Selection, scans and flat indexing on the lazy device vs eager CPU:
median / nanmedian (all and .dim), kthvalue, mode, cummax / cummin,
logcumsumexp, logsumexp, take, put / put_.

torch's LTC has no Lazy kernel for any of them (each falls back to eager
and cuts the graph): ltc_backend/lazy_kernels/selection_kernels.cpp
keeps them in the graph, TorchToLinalg Selection.cpp / CumulativeOps.cpp /
Gather.cpp lower them.

Indices. cummax/cummin, mode, kthvalue (eager's own algorithms, run by
the runtime: test_sorting_ties.py checks their indices exactly) and the NaN
positions of median equal eager's. median/nanmedian with tied values: ours
is the stable order; the tie cases check that the index points at an
element equal to the value (the backward scatters the gradient there).
"""
import pytest
import torch

import ltc_mlir
from lazy_testing import assert_all_native, assert_close, assert_ops_native, run_both

g = torch.Generator().manual_seed(4321)
NAN = float("nan")
INF = float("inf")


def rnd(*shape):
    return torch.randn(*shape, generator=g)


def ints(*shape, lo=-5, hi=5):
    return torch.randint(lo, hi, shape, generator=g)


def flat(fn):
    """fn with its (nested) tuple results flattened into one tuple."""
    def run(*args):
        out = []

        def add(r):
            if isinstance(r, torch.Tensor):
                out.append(r)
            else:
                for x in r:
                    add(x)
        add(fn(*args))
        return tuple(out)
    return run


WITH_NAN = torch.tensor([[1.0, NAN, 3.0, NAN, 0.5], [2.5, 2.0, -1.0, 0.0, 4.0],
                         [NAN, NAN, NAN, NAN, NAN], [-2.0, NAN, 7.0, 1.0, 3.0]])
TIES = torch.tensor([[3.0, 1.0, 3.0, 1.0, 2.0, 1.0], [5.0, 5.0, 4.0, 4.0, 4.0, 0.0],
                     [1.0, 1.0, 1.0, 1.0, 1.0, 1.0]])

# name, fn, inputs, grad inputs, aten ops that must have run natively.
# Tie-free inputs: values, indices and gradients equal eager's.
CASES = [
    ("median_all", lambda x: x.median(), [rnd(5, 7)], (0,), ["aten::median"]),
    ("median_all_even", lambda x: x.median(), [rnd(4, 6)], (), ["aten::median"]),
    ("nanmedian_all", lambda x: x.nanmedian(), [WITH_NAN], (), ["aten::nanmedian"]),
    ("median_dim", lambda x: x.median(1), [rnd(4, 7)], (0,), ["aten::median"]),
    ("median_dim0_keepdim", lambda x: x.median(0, keepdim=True), [rnd(6, 3, 2)], (0,),
     ["aten::median"]),
    ("median_dim_nan", lambda x: (x.median(1), x.median(0)), [WITH_NAN], (), ["aten::median"]),
    ("nanmedian_dim", lambda x: x.nanmedian(-1), [rnd(3, 8)], (0,), ["aten::nanmedian"]),
    ("nanmedian_dim_nan", lambda x: x.nanmedian(1), [WITH_NAN[[0, 1, 3]]], (),
     ["aten::nanmedian"]),
    ("median_int", lambda x: (x.median(1), x.median()), [torch.randperm(24, generator=g).view(4, 6)],
     (), ["aten::median"]),
    ("nanmedian_int", lambda x: (x.nanmedian(1), x.nanmedian()),
     [torch.randperm(20, generator=g).view(4, 5)], (), ["aten::nanmedian"]),
    ("kthvalue", lambda x: x.kthvalue(3, 1), [rnd(4, 6)], (0,), ["aten::kthvalue"]),
    ("kthvalue_dim0_keepdim", lambda x: x.kthvalue(1, 0, keepdim=True), [rnd(5, 3)], (0,),
     ["aten::kthvalue"]),
    ("kthvalue_0d", lambda x: x.kthvalue(1), [torch.tensor(2.5)], (0,), ["aten::kthvalue"]),
    ("mode", lambda x: x.mode(1), [ints(4, 9, lo=0, hi=4).float()], (0,), ["aten::mode"]),
    ("mode_ties_int", lambda x: (x.mode(1), x.mode(0)), [TIES.long()], (), ["aten::mode"]),
    ("mode_float_ties", lambda x: x.mode(1), [TIES], (), ["aten::mode"]),
    ("mode_bool", lambda x: x.mode(0), [rnd(7, 3) > 0], (), ["aten::mode"]),
    ("cummax", lambda x: x.cummax(1), [rnd(4, 7)], (0,), ["aten::cummax"]),
    ("cummin_dim0", lambda x: x.cummin(0), [rnd(6, 3)], (0,), ["aten::cummin"]),
    ("cummax_cummin_ties_nan", lambda x: (x.cummax(1), x.cummin(1)),
     [torch.cat([WITH_NAN, TIES[:, :5]])], (), ["aten::cummax", "aten::cummin"]),
    ("cummax_int", lambda x: (x.cummax(0), x.cummin(1)), [ints(5, 4)], (),
     ["aten::cummax", "aten::cummin"]),
    ("logcumsumexp", lambda x: x.logcumsumexp(1), [rnd(3, 9)], (0,), ["aten::logcumsumexp"]),
    ("logcumsumexp_dim0_f64", lambda x: x.logcumsumexp(0), [rnd(6, 4).double()], (0,),
     ["aten::logcumsumexp"]),
    ("logcumsumexp_wide_inf", lambda x: x.logcumsumexp(1),
     [torch.tensor([[-1000.0, 0.0, 1000.0, -INF, 3.0], [-INF, -INF, 2.0, INF, INF],
                    [NAN, 1.0, 2.0, 3.0, 4.0]])], (), ["aten::logcumsumexp"]),
    ("logsumexp", lambda x: x.logsumexp(1), [rnd(4, 9)], (0,), ["aten::logsumexp"]),
    ("logsumexp_dims_keepdim", lambda x: torch.logsumexp(x, (0, 2), keepdim=True),
     [rnd(3, 4, 5) * 30], (0,), ["aten::logsumexp"]),
    ("logsumexp_inf", lambda x: x.logsumexp(0),
     [torch.tensor([[-INF, INF, 1.0], [-INF, 2.0, NAN]])], (), ["aten::logsumexp"]),
    ("logsumexp_int", lambda x: x.logsumexp(1), [ints(3, 5)], (), ["aten::logsumexp"]),
    ("take", lambda x, i: x.take(i), [rnd(4, 5), torch.tensor([[0, 19, -1], [7, 7, -20]])], (0,),
     ["aten::take", "aten::put"]),
    ("take_0d", lambda x, i: x.take(i), [torch.tensor(3.0), torch.tensor(-1)], (0,),
     ["aten::take", "aten::put"]),
    ("put", lambda x, i, s: x.put(i, s), [rnd(3, 4), torch.tensor([1, -2, 5]), rnd(3)],
     (0, 2), ["aten::put"]),
    ("put_accumulate_dups", lambda x, i, s: x.clone().put_(i, s, accumulate=True),
     [rnd(3, 4), torch.tensor([[1, 1], [-1, 11]]), rnd(2, 2)], (0, 2), ["aten::put"]),
    ("put_dups_last_wins", lambda x, i, s: x.put(i, s), [ints(6), torch.tensor([2, 2, 0, 2]),
                                                         ints(4)], (), ["aten::put"]),
]


@pytest.mark.parametrize("name,fn,inputs,grads,ops", CASES, ids=[c[0] for c in CASES])
def test_selection(name, fn, inputs, grads, ops):
    eager, lazy = run_both(flat(fn), *inputs, grad_inputs=grads)
    assert_close(eager, lazy, rtol=1e-6, atol=1e-6, equal_nan=True)
    assert_all_native()
    assert_ops_native(*ops)


# median/nanmedian/kthvalue with ties: the values equal eager's, the indices
# point at an element of that value (ATen's tied order is unspecified).
TIE_CASES = [
    ("median_dim", lambda x: x.median(1)),
    ("median_dim0", lambda x: x.median(0)),
    ("nanmedian_dim", lambda x: x.nanmedian(1)),
    ("kthvalue_2", lambda x: x.kthvalue(2, 1)),
    ("kthvalue_5", lambda x: x.kthvalue(5, 1)),
]


@pytest.mark.parametrize("name,fn", TIE_CASES, ids=[c[0] for c in TIE_CASES])
def test_ties_pick_an_equal_element(name, fn):
    x = torch.cat([TIES, WITH_NAN[:, :4].repeat(1, 2)[:, :6]])
    ev, ei = fn(x)
    lv, li = (t.cpu() for t in fn(x.to("lazy")))
    assert_close([ev], [lv], rtol=0, atol=0, equal_nan=True)
    assert li.dtype == torch.int64 and li.shape == ei.shape
    dim = 0 if name == "median_dim0" else 1
    picked = x.gather(dim, li.unsqueeze(dim)).squeeze(dim)
    assert_close([ev], [picked], rtol=0, atol=0, equal_nan=True)
    assert_all_native()


INT_TIE_CASES = [c for c in TIE_CASES if not c[0].startswith("nan")]


@pytest.mark.parametrize("name,fn", INT_TIE_CASES, ids=[c[0] for c in INT_TIE_CASES])
def test_int_ties_pick_an_equal_element(name, fn):
    x = TIES.long()
    ev, ei = fn(x)
    lv, li = (t.cpu() for t in fn(x.to("lazy")))
    assert_close([ev], [lv], rtol=0, atol=0)
    dim = 0 if name == "median_dim0" else 1
    assert torch.equal(x.gather(dim, li.unsqueeze(dim)).squeeze(dim), ev)
    assert_all_native()


def test_median_backward_with_ties_sums_like_eager():
    # The gradient lands on one of the tied elements (eager's may be another).
    x = TIES.clone()
    eager, lazy = run_both(lambda t: t.median(1)[0], x, grad_inputs=(0,))
    assert_close(eager[:1], lazy[:1], rtol=0, atol=0)
    assert_close([eager[1].sum(1)], [lazy[1].sum(1)], rtol=1e-6, atol=1e-6)
    assert_all_native()


def test_kthvalue_k_out_of_range_raises_at_the_call():
    x = rnd(3, 4)
    with pytest.raises(RuntimeError, match="kthvalue\\(\\): selected number k out of range"):
        x.to("lazy").kthvalue(5, 1)
    with pytest.raises(IndexError, match="out of range"):
        x.to("lazy").median(2)


@pytest.mark.parametrize("bad", [20, -21])
def test_take_out_of_range_raises(bad):
    x = rnd(4, 5)
    i = torch.tensor([0, bad, 3])
    with pytest.raises(IndexError):
        x.take(i)
    with pytest.raises(IndexError, match="take\\(\\): out of range: every index must be in \\[-20, 20\\)"):
        x.to("lazy").take(i.to("lazy")).cpu()
    assert ltc_mlir.metrics()["fallback_graph_count"] == 0
    # The same compiled code runs good indices.
    ltc_mlir.reset_metrics()
    good = i.clamp(-20, 19)
    assert_close([x.take(good)], [x.to("lazy").take(good.to("lazy")).cpu()], rtol=0, atol=0)
    assert_all_native()


@pytest.mark.parametrize("accumulate", [False, True])
def test_put_out_of_range_raises(accumulate):
    x = rnd(3, 4)
    i = torch.tensor([1, 12])
    s = rnd(2)
    with pytest.raises(IndexError):
        x.clone().put_(i, s, accumulate=accumulate)
    with pytest.raises(IndexError, match="put\\(\\): out of range: every index must be in \\[-12, 12\\)"):
        x.to("lazy").put_(i.to("lazy"), s.to("lazy"), accumulate=accumulate).cpu()
    assert ltc_mlir.metrics()["fallback_graph_count"] == 0


def test_put_source_count_mismatch_raises_at_the_call():
    x = rnd(3, 4).to("lazy")
    with pytest.raises(IndexError, match="same number of elements"):
        x.put(torch.tensor([0, 1]).to("lazy"), torch.ones(3).to("lazy"))
