"""Boolean masks on the lazy device vs eager CPU: nonzero / argwhere,
masked_select, masked_scatter, x[mask], x[mask] = v, x[mask] += v, and
their gradients (ltc_backend/lazy_kernels/mask_kernels.cpp).

The number of selected elements is data, so each of these syncs once to read
the count; everything else (cumsum of the mask, scatter of the elements,
gathers) runs in native graphs. Checked: exact values and shapes, no op
through the eager fallback, and every graph native.
"""
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


def run_both(fn, *inputs):
    eager = fn(*inputs)
    lazy = fn(*[t.to("lazy") for t in inputs])
    torch._lazy.mark_step()
    return eager, lazy.cpu()


def check(fn, *inputs):
    eager, lazy = run_both(fn, *inputs)
    assert lazy.shape == eager.shape and lazy.dtype == eager.dtype
    torch.testing.assert_close(lazy, eager, rtol=0, atol=0)
    assert eager_fallback_ops() == []
    assert_all_native()
    assert ltc_mlir.metrics()["native_execute_count"] >= 1


def gen(seed):
    return torch.Generator().manual_seed(seed)


X = torch.randn(4, 5, generator=gen(0))

CASES = {
    "nonzero_bool": (torch.nonzero, X > 0.3),
    "nonzero_int_3d": (torch.nonzero, torch.randint(0, 3, (3, 4, 2), generator=gen(1))),
    "nonzero_float": (torch.nonzero, torch.where(X > 0, X, torch.zeros(()))),
    "nonzero_none_selected": (torch.nonzero, X > 100),
    "nonzero_empty": (torch.nonzero, torch.zeros(3, 0)),
    "nonzero_as_tuple": (lambda t: torch.stack(torch.nonzero(t, as_tuple=True)), X > 0),
    "argwhere": (torch.argwhere, X < 0),
    "masked_select": (torch.masked_select, X, X > 0.3),
    "masked_select_broadcast_mask": (torch.masked_select, X,
                                     torch.tensor([True, False, True, False, True])),
    "masked_select_broadcast_self": (torch.masked_select, X[0], X > 0),
    "masked_select_int": (torch.masked_select, torch.arange(20).view(4, 5), X > 0),
    "masked_scatter": (lambda t, m, s: t.masked_scatter(m, s), X, X > 0.3,
                       torch.arange(20.).view(4, 5)),
    "masked_scatter_broadcast_mask": (lambda t, m, s: t.masked_scatter(m, s), X,
                                      torch.tensor([True, False, True, False, True]),
                                      -torch.arange(20.)),
    "index_mask": (lambda t, m: t[m], X, X > 0),
    "index_mask_dim1": (lambda t, m: t[:, m], X, X[0] > 0),
    "index_mask_3d_partial": (lambda t, m: t[m], torch.randn(3, 4, 2, generator=gen(2)),
                              torch.randn(3, 4, generator=gen(3)) > 0),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_mask_ops_match_eager(name):
    fn, *inputs = CASES[name]
    check(fn, *inputs)


def test_mask_assignment_and_accumulation():
    def fn(t, m):
        t = t.clone()
        t[m] = 0.5
        t[~m] += 2.0
        return t
    check(fn, X, X > 0.2)


@pytest.mark.parametrize("kind", ["masked_select", "index"])
def test_mask_gradients(kind):
    mask = X > 0.1
    grads = []
    for device in ("cpu", "lazy"):
        x = X.detach().to(device).requires_grad_()
        m = mask.to(device)
        picked = torch.masked_select(x, m) if kind == "masked_select" else x[m]
        (picked ** 2 * 3).sum().backward()
        if device == "lazy":
            torch._lazy.mark_step()
        grads.append(x.grad.cpu())
    torch.testing.assert_close(grads[1], grads[0], rtol=1e-6, atol=1e-6)
    assert eager_fallback_ops() == []
    assert_all_native()


def test_masked_loss_training_step_matches_eager():
    # A padded-sequence loss: only positions where the mask is set count.
    torch.manual_seed(0)
    model = torch.nn.Linear(6, 3)
    x = torch.randn(5, 4, 6, generator=gen(4))
    target = torch.randn(5, 4, 3, generator=gen(5))
    keep = torch.rand(5, 4, generator=gen(6)) > 0.3
    params = []
    for device in ("cpu", "lazy"):
        m = torch.nn.Linear(6, 3)
        m.load_state_dict(model.state_dict())
        m.to(device)
        opt = torch.optim.SGD(m.parameters(), lr=0.1)
        for _ in range(3):
            opt.zero_grad()
            k = keep.to(device)
            loss = ((m(x.to(device))[k] - target.to(device)[k]) ** 2).mean()
            loss.backward()
            opt.step()
            if device == "lazy":
                torch._lazy.mark_step()
        params.append([p.detach().cpu() for p in m.parameters()])
    for e, l in zip(*params):
        torch.testing.assert_close(l, e, rtol=1e-5, atol=1e-6)
    assert eager_fallback_ops() == []
    assert_all_native()


def test_mask_errors_are_eagers():
    t = torch.zeros(3)
    with pytest.raises(RuntimeError, match="Number of elements of source < number of ones in mask"):
        t.to("lazy").masked_scatter_(torch.ones(3, dtype=torch.bool).to("lazy"),
                                     torch.ones(2).to("lazy"))
        torch._lazy.mark_step()
    with pytest.raises(RuntimeError, match="expected BoolTensor or ByteTensor for mask"):
        torch.masked_select(t.to("lazy"), torch.ones(3).to("lazy"))
    with pytest.raises(IndexError, match="The shape of the mask"):
        t.to("lazy")[torch.ones(4, dtype=torch.bool).to("lazy")]
    with pytest.raises(RuntimeError, match="same device"):
        torch.masked_select(t.to("lazy"), torch.ones(3, dtype=torch.bool))


UNIQUE_INPUTS = {
    "scalar": torch.tensor(3.0),
    "runs_int64": torch.tensor([1, 1, 2, 2, 2, 3, 1, 1]),
    "random_3d": torch.randint(0, 3, (4, 5, 6), generator=torch.Generator().manual_seed(0)),
    "nan_float": torch.tensor([float("nan"), float("nan"), 1.0, 1.0, 2.0]),
    "bool": torch.tensor([True, True, False, True, True]),
    "unit_dim": torch.randint(0, 2, (5, 1, 5), generator=torch.Generator().manual_seed(1)).float(),
    "constant": torch.zeros(3, 4),
}


def _check_unique_natively(fn, x, kwargs):
    """fn(x.to("lazy"), **kwargs) equals eager (NaN as 9) and ran natively."""
    eager = fn(x, **kwargs)
    lazy_metrics.reset()
    ltc_mlir.reset_metrics()
    lazy = fn(x.to("lazy"), **kwargs)
    torch._lazy.mark_step()
    eager = eager if isinstance(eager, tuple) else (eager,)
    lazy = lazy if isinstance(lazy, tuple) else (lazy,)
    for e, l in zip(eager, lazy):
        l = l.cpu()
        assert e.dtype == l.dtype and e.shape == l.shape, (kwargs, e, l)
        assert torch.equal(e.nan_to_num(9), l.nan_to_num(9)), (kwargs, e, l)
    assert_all_native()
    assert eager_fallback_ops() == []


@pytest.mark.parametrize("name", sorted(UNIQUE_INPUTS))
def test_unique_consecutive_matches_eager(name):
    # Every dim (and dim=None), with and without inverse and counts. NaN
    # never equals the previous element (a group of its own), as in eager.
    x = UNIQUE_INPUTS[name]
    for dim in [None] + list(range(-x.dim(), x.dim())):
        for return_inverse in (False, True):
            for return_counts in (False, True):
                _check_unique_natively(torch.unique_consecutive, x, dict(
                    return_inverse=return_inverse, return_counts=return_counts, dim=dim))


UNIQUE_SORTED_INPUTS = dict(UNIQUE_INPUTS, random_float=torch.randn(4, 5, generator=torch.Generator().manual_seed(2)),
                            int8=torch.randint(-3, 3, (20,), generator=torch.Generator().manual_seed(3)).to(torch.int8),
                            uint8=torch.randint(0, 4, (3, 4), generator=torch.Generator().manual_seed(4)).to(torch.uint8))


@pytest.mark.parametrize("name", sorted(UNIQUE_SORTED_INPUTS))
def test_unique_sorted_matches_eager_natively(name):
    # torch.unique(sorted=True) without dim: the runs of the sorted values,
    # one sync for their count. Eager's inverse and counts are wrong with
    # NaNs (counts 1, 0, 0 for [1, nan, nan]; inverse 0 for the NaNs): for
    # the NaN input only the values are compared.
    x = UNIQUE_SORTED_INPUTS[name]
    flags = (False,) if name == "nan_float" else (False, True)
    for return_inverse in flags:
        for return_counts in flags:
            _check_unique_natively(torch.unique, x, dict(
                sorted=True, return_inverse=return_inverse, return_counts=return_counts))


def test_unique_unsorted_and_half_keep_eagers_kernel():
    # sorted=False returns eager's hash-set order, which only its kernel
    # gives; so does f16 (eager's kernel: torch 2.x has one).
    x = torch.tensor([3, 1, 2, 3, 1, 7, 5, 5])
    ltc_mlir.reset_metrics()
    lazy = torch.unique(x.to("lazy"), sorted=False, return_inverse=True)
    eager = torch.unique(x, sorted=False, return_inverse=True)
    for e, l in zip(eager, lazy):
        assert torch.equal(e, l.cpu())
    half = torch.tensor([2.5, -1.0, 2.5, 0.0]).half()
    assert torch.equal(torch.unique(half.to("lazy")).cpu(), torch.unique(half))
