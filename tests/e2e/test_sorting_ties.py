"""sort, argsort, topk, kthvalue and mode give eager's exact indices, ties
included, for every dtype (runtime/sorting.h: eager's std::sort,
std::stable_sort, std::partial_sort / std::nth_element, Sedgewick's
quickselect, run eagerly's way on the same initial order).

Which tied element comes first is not specified by PyTorch; on CPU it is
what those algorithms do, which a stable sort does not reproduce for lines
longer than 16 (and topk / kthvalue differ even on short lines). Inputs
here are drawn from a few values, so every line has many ties (and NaNs
for float dtypes). Lines of 8000 elements ran through the eager fallback
before (the n^2 rank sort was refused); they are native now.
"""
import pytest
import torch

import ltc_mlir
from lazy_testing import assert_ops_native

DTYPES = [torch.float32, torch.float64, torch.bfloat16, torch.float16, torch.int64,
          torch.int32, torch.int16, torch.int8, torch.uint8, torch.bool]
SHAPES = [((8000,), 0), ((40, 33), 1), ((7, 50, 3), 1), ((17,), 0), ((5, 9), 0),
          ((3, 200, 4), -2)]


def tied(shape, dtype, seed):
    g = torch.Generator().manual_seed(seed)
    if dtype == torch.bool:
        return torch.randint(0, 2, shape, generator=g).bool()
    if dtype.is_floating_point:
        x = torch.randint(-5, 5, shape, generator=g).to(dtype)
        x.view(-1)[::7] = float("nan")
        return x
    return torch.randint(0, 6, shape, generator=g).to(dtype)


def assert_same(eager, lazy):
    for e, l in zip(eager, lazy):
        l = l.cpu()
        assert l.dtype == e.dtype and l.shape == e.shape
        assert torch.equal(e.isnan() if e.is_floating_point() else e,
                           l.isnan() if l.is_floating_point() else l)
        if e.is_floating_point():
            assert torch.equal(torch.nan_to_num(e), torch.nan_to_num(l))


def run(fn, x):
    eager = fn(x)
    lazy = fn(x.to("lazy"))
    torch._lazy.mark_step()
    assert_same(eager, lazy)


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
@pytest.mark.parametrize("shape,dim", SHAPES, ids=[str(s[0]) for s in SHAPES])
def test_sort_and_argsort(dtype, shape, dim):
    ltc_mlir.reset_metrics()
    x = tied(shape, dtype, seed=len(shape) * 31 + abs(dim))
    for descending in (False, True):
        for stable in (False, True):
            run(lambda t: torch.sort(t, dim=dim, descending=descending, stable=stable), x)
        run(lambda t: (torch.argsort(t, dim=dim, descending=descending),), x)
    assert_ops_native("aten::sort")


@pytest.mark.parametrize("dtype", [d for d in DTYPES if d not in (torch.bool, torch.float16)],
                         ids=str)  # eager has no bool/f16 topk, no f16 kthvalue
@pytest.mark.parametrize("shape,dim", SHAPES, ids=[str(s[0]) for s in SHAPES])
def test_topk_and_kthvalue(dtype, shape, dim):
    ltc_mlir.reset_metrics()
    x = tied(shape, dtype, seed=7 + len(shape))
    n = x.shape[dim]
    # k * 64 <= n takes eager's partial_sort, larger k its nth_element.
    for k in sorted({1, 2, max(n // 64, 1), n // 3, n}):
        for largest in (True, False):
            for is_sorted in (True, False):
                run(lambda t: torch.topk(t, k, dim=dim, largest=largest, sorted=is_sorted), x)
    for k in sorted({1, n // 2 + 1, n}):
        run(lambda t: torch.kthvalue(t, k, dim=dim), x)
    assert_ops_native("aten::topk", "aten::kthvalue")


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
def test_mode(dtype):
    ltc_mlir.reset_metrics()
    for shape, dim in SHAPES:
        run(lambda t: torch.mode(t, dim=dim), tied(shape, dtype, seed=3))
    assert_ops_native("aten::mode")


def test_topk_backward_scatters_to_eagers_indices():
    x = tied((6, 40), torch.float32, seed=11).nan_to_num(0.5)
    grads = []
    for device in ("cpu", "lazy"):
        t = x.clone().to(device).requires_grad_(True)
        values, _ = torch.topk(t * 2.0, 5, dim=1)
        values.sum().backward()
        torch._lazy.mark_step()
        grads.append(t.grad.cpu())
    assert torch.equal(grads[0], grads[1])
