"""count_nonzero, isin, searchsorted, bucketize, repeat_interleave with a
repeats tensor, index_reduce, renorm, histc, histogram and bincount on the
lazy device vs eager CPU,
with gradients where eager has them (ltc_backend/lazy_kernels/
search_kernels.cpp). Each stays in native graphs: no op through the eager
fallback."""
import pytest
import torch
import torch._lazy.metrics as lazy_metrics

import ltc_mlir
from lazy_testing import assert_all_native, eager_fallback_ops


@pytest.fixture(autouse=True)
def _init():
    ltc_mlir.init()
    ltc_mlir.reset_metrics()
    lazy_metrics.reset()


def gen(seed):
    return torch.Generator().manual_seed(seed)


def check(fn, *inputs, grad=None, rtol=0, atol=0):
    outs = []
    for device in ("cpu", "lazy"):
        args = [t.detach().to(device) for t in inputs]
        if grad is not None:
            args[grad].requires_grad_()
        out = fn(*args)
        results = [out]
        if grad is not None:
            (out * torch.arange(out.numel(), dtype=out.dtype).view(out.shape).to(device)).sum().backward()
            results.append(args[grad].grad)
        if device == "lazy":
            torch._lazy.mark_step()
        outs.append([r.detach().cpu() for r in results])
    for e, l in zip(*outs):
        assert e.dtype == l.dtype and e.shape == l.shape
        torch.testing.assert_close(l, e, rtol=rtol, atol=atol)
    assert eager_fallback_ops() == []
    assert_all_native()


X = torch.randn(4, 6, generator=gen(0))
I = torch.randint(-3, 4, (5, 7), generator=gen(1))
SORTED = torch.sort(torch.randn(9, generator=gen(2))).values
SORTED_2D = torch.sort(torch.randn(4, 9, generator=gen(3)), dim=-1).values

CASES = {
    "count_nonzero": (lambda t: torch.count_nonzero(t), I),
    "count_nonzero_dim": (lambda t: torch.count_nonzero(t, dim=1), I),
    "count_nonzero_dims": (lambda t: torch.count_nonzero(t, dim=(0, 1)), X > 0),
    "isin": (lambda a, b: torch.isin(a, b), I, torch.tensor([0, 2, 3])),
    "isin_invert": (lambda a, b: torch.isin(a, b, invert=True), I, torch.tensor([[1], [-3]])),
    "isin_float_nan": (lambda a, b: torch.isin(a, b), torch.tensor([1., float("nan"), 2.]),
                       torch.tensor([float("nan"), 2.])),
    "searchsorted_left": (lambda s, v: torch.searchsorted(s, v), SORTED, X),
    "searchsorted_right_int32": (lambda s, v: torch.searchsorted(s, v, right=True, out_int32=True),
                                 SORTED, X),
    "searchsorted_side": (lambda s, v: torch.searchsorted(s, v, side="right"), SORTED, X),
    "searchsorted_batched": (lambda s, v: torch.searchsorted(s, v), SORTED_2D, X),
    "searchsorted_ties_and_nan": (lambda s, v: torch.searchsorted(s, v),
                                  torch.tensor([1., 2., 2., 3.]),
                                  torch.tensor([[2., 0., float("nan"), 9.]])),
    "searchsorted_sorter": (lambda s, v, o: torch.searchsorted(s, v, sorter=o),
                            SORTED.flip(0), X, torch.arange(8, -1, -1)),
    "searchsorted_empty_boundaries": (lambda s, v: torch.searchsorted(s, v), torch.zeros(0), X),
    "bucketize": (lambda v, b: torch.bucketize(v, b), X, SORTED),
    "bucketize_scalar": (lambda v, b: torch.bucketize(v, b), torch.tensor(0.3), SORTED),
    "bucketize_right": (lambda v, b: torch.bucketize(v, b, right=True),
                        torch.tensor([1, 2, 3, 5]), torch.tensor([1, 3, 5])),
    "repeat_interleave_indices": (lambda r: torch.repeat_interleave(r),
                                  torch.tensor([2, 0, 1, 3, 0])),
    "repeat_interleave_tensor_repeats": (lambda t, r: torch.repeat_interleave(t, r, dim=0),
                                         X, torch.tensor([1, 0, 2, 3])),
    "index_reduce_prod": (lambda s, i, src: s.index_reduce(0, i, src, "prod"), X,
                          torch.tensor([0, 2, 0, 3, 2]), torch.randn(5, 6, generator=gen(4))),
    "index_reduce_mean_excl": (lambda s, i, src: s.index_reduce(1, i, src, "mean", include_self=False),
                               X, torch.tensor([5, 0, 5]), torch.randn(4, 3, generator=gen(5))),
    "index_reduce_amax": (lambda s, i, src: s.index_reduce(0, i, src, "amax"), X,
                          torch.tensor([1, 1, 3]), torch.randn(3, 6, generator=gen(6))),
    "renorm": (lambda t: torch.renorm(t, 2, 0, 1.5), X),
    "renorm_p1_dim1": (lambda t: torch.renorm(t, 1, 1, 0.8), X),
    # histc: eager's bins in f32/f64 arithmetic; edges hit exactly (0.1 and
    # 0.2 are not representable: the rounded edges decide), the data's own
    # range when min == max (one sync), a constant input (range +-1).
    "histc_range": (lambda t: torch.histc(t, bins=7, min=-1, max=1), torch.randn(5000, generator=gen(7))),
    "histc_edges": (lambda t: torch.histc(t, bins=10, min=0.1, max=0.2),
                    torch.linspace(0.09, 0.21, 1201)),
    "histc_data_range": (lambda t: torch.histc(t, bins=13), torch.randn(3, 700, generator=gen(8))),
    "histc_constant": (lambda t: torch.histc(t, bins=4), torch.full((6,), 2.0)),
    "histc_f64": (lambda t: torch.histc(t, bins=100, min=-2.3, max=1.7),
                  torch.randn(4000, generator=gen(9), dtype=torch.float64)),
    # bincount: the data's largest value sizes the result (one sync), or
    # minlength; int64 counts, f32 weights summed in f32 in element order,
    # other weights in f64 (eager's dtypes).
    "bincount": (lambda t: torch.bincount(t), torch.randint(0, 50, (3000,), generator=gen(12))),
    "bincount_minlength": (lambda t: torch.bincount(t, minlength=80),
                           torch.randint(0, 50, (300,), generator=gen(13)).to(torch.uint8)),
    "bincount_small_minlength": (lambda t: torch.bincount(t, minlength=3),
                                 torch.randint(0, 9, (40,), generator=gen(14)).int()),
    "bincount_f32_weights": (lambda t, w: torch.bincount(t, w), torch.randint(0, 20, (5000,), generator=gen(15)),
                             torch.randn(5000, generator=gen(16))),
    "bincount_f16_weights": (lambda t, w: torch.bincount(t, w, minlength=30),
                             torch.randint(0, 20, (500,), generator=gen(17)).to(torch.int8),
                             torch.randn(500, generator=gen(18)).half()),
    "bincount_empty": (lambda t, w: torch.bincount(t, w, minlength=4), torch.zeros(0, dtype=torch.long),
                       torch.zeros(0)),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_matches_eager(name):
    fn, *inputs = CASES[name]
    check(fn, *inputs)


@pytest.mark.parametrize("name", ["renorm", "index_reduce_prod", "index_reduce_mean_excl",
                                  "repeat_interleave_tensor_repeats"])
def test_gradients_match_eager(name):
    fn, *inputs = CASES[name]
    check(fn, *inputs, grad=0, rtol=1e-5, atol=1e-6)


def test_histc_skips_nan_and_counts_bfloat16_exactly():
    # Lazy skips NaN, as eager does, and counts exactly, rounded once to
    # bf16; torch 2.14's eager counts bf16 histograms inexactly (1000 zeros
    # give 512).
    x = torch.tensor([float("nan"), -1.0, -0.5, 0.5, 1.0, 3.0])
    got = torch.histc(x.to("lazy"), bins=4, min=-1, max=1).cpu()
    assert torch.equal(got, torch.tensor([1.0, 1.0, 0.0, 2.0]))
    b = torch.zeros(1000, dtype=torch.bfloat16)
    got = torch.histc(b.to("lazy"), bins=2, min=-1, max=1).cpu()
    assert got.dtype == torch.bfloat16
    assert torch.equal(got, torch.tensor([0.0, 1000.0]).to(torch.bfloat16))
    assert_all_native()


HX = torch.randn(3, 500, generator=gen(10))
HW = torch.rand(3, 500, generator=gen(11))


@pytest.mark.parametrize("args,kwargs", [
    ((10,), {}), ((7,), dict(range=(-1.0, 1.0))), ((5,), dict(weight=HW)),
    ((13,), dict(density=True)), ((6,), dict(range=(-2.0, 2.5), weight=HW, density=True)),
    ((torch.tensor([-1.0, -0.5, 0.0, 2.0]),), {}),
    ((torch.tensor([-3.0, 0.0, 0.1, 5.0]),), dict(weight=HW, density=True)),
])
def test_histogram_matches_eager(args, kwargs):
    # Bin counts (data range: one sync) or given edges, weights, density.
    eager = torch.histogram(HX, *args, **kwargs)
    to_lazy = lambda v: v.to("lazy") if isinstance(v, torch.Tensor) else v
    lazy = torch.histogram(HX.to("lazy"), *map(to_lazy, args),
                           **{k: to_lazy(v) for k, v in kwargs.items()})
    torch._lazy.mark_step()
    for e, l in zip(eager, lazy):
        torch.testing.assert_close(l.cpu(), e, rtol=1e-5, atol=1e-6)
    assert eager_fallback_ops() == []
    assert_all_native()


def test_histc_errors_are_eagers():
    for kwargs, message in [(dict(bins=0), "bins must be > 0"),
                            (dict(bins=3, min=2, max=1), "max must be larger than min"),
                            (dict(bins=3, min=0, max=float("inf")), "is not finite")]:
        with pytest.raises(RuntimeError, match=message):
            torch.histc(torch.ones(3), **kwargs)
        with pytest.raises(RuntimeError, match=message):
            torch.histc(torch.ones(3).to("lazy"), **kwargs)
    with pytest.raises(RuntimeError, match="not implemented for 'Long'"):
        torch.histc(torch.ones(3, dtype=torch.long).to("lazy"), bins=3)


@pytest.mark.parametrize("args", [
    (torch.tensor([1, -2, 3]),), (torch.tensor([[1, 2]]),), (torch.tensor([1.0, 2.0]),),
    (torch.tensor([1, 2]), torch.ones(3)), (torch.tensor([1, 2]), None, -1),
])
def test_bincount_errors_are_eagers(args):
    with pytest.raises(RuntimeError) as eager:
        torch.bincount(*args)
    lazy_args = [a.to("lazy") if isinstance(a, torch.Tensor) else a for a in args]
    with pytest.raises(RuntimeError) as lazy:
        torch.bincount(*lazy_args).cpu()
    assert str(lazy.value).splitlines()[0] == str(eager.value).splitlines()[0]


def test_errors_are_eagers():
    with pytest.raises(RuntimeError, match="repeats can not be negative"):
        torch.repeat_interleave(torch.tensor([1, -1]).to("lazy"))
    with pytest.raises(RuntimeError) as eager:
        torch.searchsorted(SORTED_2D, X[None])
    with pytest.raises(RuntimeError) as lazy:
        torch.searchsorted(SORTED_2D.to("lazy"), X[None].to("lazy"))
    assert str(lazy.value) == str(eager.value)
    with pytest.raises(IndexError):
        X.to("lazy").index_reduce(2, torch.tensor([0]).to("lazy"), X.to("lazy"), "prod")


@pytest.mark.parametrize("bad", [3, -1])
def test_index_reduce_index_out_of_range_is_eagers_index_error(bad):
    self, source = torch.zeros(3, 2), torch.ones(2, 2)
    index = torch.tensor([0, bad])
    with pytest.raises(IndexError, match="index out of range in self"):
        self.index_reduce(0, index, source, "prod")
    with pytest.raises(IndexError, match="index out of range in self"):
        self.to("lazy").index_reduce(0, index.to("lazy"), source.to("lazy"), "prod").cpu()
    # The next valid call runs, natively.
    ltc_mlir.reset_metrics()
    good = torch.tensor([0, 2])
    lazy = self.to("lazy").index_reduce(0, good.to("lazy"), source.to("lazy"), "prod").cpu()
    torch.testing.assert_close(lazy, self.index_reduce(0, good, source, "prod"))
    assert_all_native()
