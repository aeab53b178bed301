"""Regressions found by running PyTorch's OpInfo database on the lazy device
(tools/op_sweep): wrong values and errors eager does not have.

Each case is the smallest reproducer found, compared with eager CPU with
explicit tolerances.
"""
import pytest
import torch
import torch._lazy
import torch._lazy.metrics

import ltc_mlir

from isolated import run_isolated
from lazy_testing import assert_all_native, assert_close, eager_fallback_ops


def _lazy(t):
    return t.detach().clone().to("lazy")


# --- LTC's graph hash ignores which node an operand is -----------------------

def _permuted_roots(second):
    # Fresh tensors moved to lazy are device-data roots of the next sync;
    # a and b hash alike, so both graphs have one hash (sync_trace.h).
    a = _lazy(torch.tensor([1., 2.]))
    b = _lazy(torch.tensor([10., 20.]))
    c = (b if second else a) * 3
    d = (a if second else b) * 5
    torch._lazy.mark_step()
    return c.cpu(), d.cpu()


def test_same_hash_other_wiring_gets_its_own_code():
    assert_close([torch.tensor([3., 6.]), torch.tensor([50., 100.])],
                 list(_permuted_roots(False)), rtol=0, atol=0)
    assert_close([torch.tensor([30., 60.]), torch.tensor([5., 10.])],
                 list(_permuted_roots(True)), rtol=0, atol=0)
    # The second wiring is a graph of its own that shares the first one's
    # code with its arguments permuted (arguments are numbered by first
    # use): one compile, one reuse, and no compile when they repeat.
    m = ltc_mlir.metrics()
    compiles = m["compile_count"]
    assert compiles == 1, m["compiled_graphs"]
    assert m["code_reuse_hits"] == 1
    assert_close([torch.tensor([3., 6.]), torch.tensor([50., 100.])],
                 list(_permuted_roots(False)), rtol=0, atol=0)
    assert_close([torch.tensor([30., 60.]), torch.tensor([5., 10.])],
                 list(_permuted_roots(True)), rtol=0, atol=0)
    assert ltc_mlir.metrics()["compile_count"] == compiles


def _dot_grads(fn, device):
    g = torch.Generator().manual_seed(0)
    a, b, cot = torch.randn(5, generator=g), torch.randn(5, generator=g), torch.randn((), generator=g)
    a = a.to(device).requires_grad_()
    b = b.to(device).requires_grad_()
    ga, gb = torch.autograd.grad((fn(a, b) * cot.to(device)).sum(), [a, b])
    if device == "lazy":
        torch._lazy.mark_step()
    return [ga.cpu(), gb.cpu()]


def test_dot_backward_after_vdot_backward():
    # OpInfo "vdot"/"dot" backward: the second graph reused the first's code
    # with the two gradients swapped.
    for fn in (torch.vdot, torch.dot, torch.vdot):
        assert_close(_dot_grads(fn, "cpu"), _dot_grads(fn, "lazy"), rtol=1e-6, atol=1e-6)


# --- CompositeExplicitAutograd kernels taking views below functionalization --

def _eager_vs_lazy(fn, inputs, grad=()):
    """fn on eager CPU and on lazy copies; with `grad`, the gradients of
    sum(out * fixed cotangent) w.r.t. those inputs too."""
    results = []
    for device in ("cpu", "lazy"):
        args = [x.detach().clone().to(device) if isinstance(x, torch.Tensor) else x
                for x in inputs]
        for i in grad:
            args[i].requires_grad_(True)
        out = fn(*args)
        outs = list(out) if isinstance(out, (tuple, list)) else [out]
        if grad:
            gen = torch.Generator().manual_seed(1)
            loss = sum((o * torch.randn(o.shape, generator=gen).to(device)).sum()
                       for o in outs if o.dtype.is_floating_point)
            outs += list(torch.autograd.grad(loss, [args[i] for i in grad]))
        if device == "lazy":
            torch._lazy.mark_step()
        results.append([o.detach().cpu() for o in outs])
    return results


_g = torch.Generator().manual_seed(0)
COMPOSITE_CASES = {
    # diagonal() of the result, written in place
    "diag_embed": (lambda x: torch.diag_embed(x, offset=1), [torch.randn(2, 3, generator=_g)], (0,)),
    # view of the outer product
    "addr": (lambda a, u, v: torch.addr(a, u, v, beta=0.5, alpha=2.0),
             [torch.randn(3, 4, generator=_g), torch.randn(3, generator=_g),
              torch.randn(4, generator=_g)], (0, 1, 2)),
    # expand of the mask, then masked_scatter_ of a clone
    "masked_scatter": (torch.masked_scatter,
                       [torch.randn(4, 5, generator=_g), torch.randn(5, generator=_g) > 0,
                        torch.randn(4, 5, generator=_g)], (0, 2)),
    # its backward is masked_scatter
    "masked_select": (torch.masked_select,
                      [torch.randn(4, 5, generator=_g), torch.randn(4, 1, generator=_g) > 0],
                      (0,)),
    "mvlgamma": (lambda x: torch.mvlgamma(x, 3), [torch.rand(2, 3, generator=_g) + 2.0], (0,)),
    # the backward of det/slogdet/svd takes diag_embed
    "linalg.det": (torch.linalg.det, [torch.randn(2, 3, 3, generator=_g)], (0,)),
    "linalg.slogdet": (lambda x: torch.linalg.slogdet(x)[1], [torch.randn(3, 3, generator=_g)], (0,)),
    "linalg.svd": (lambda x: torch.linalg.svd(x, full_matrices=False),
                   [torch.randn(3, 4, generator=_g)], (0,)),
}


# masked_scatter's composite calls masked_scatter_, which functionalization
# turns back into masked_scatter: an unbounded recursion (stack overflow)
# until the inner call went to the eager fallback.
RECURSIVE_COMPOSITES = {"masked_scatter", "masked_select"}


@pytest.mark.parametrize("name", sorted(COMPOSITE_CASES))
def test_composite_taking_views(name):
    if name in RECURSIVE_COMPOSITES:
        result = run_isolated(f"""
            import sys
            sys.path.insert(0, {repr(__import__("os").path.dirname(__file__))})
            sys.path.insert(0, {repr(__import__("os").path.dirname(__import__("os").path.dirname(__file__)))})
            from test_sweep_regressions import COMPOSITE_CASES, _eager_vs_lazy
            fn, inputs, grad = COMPOSITE_CASES[{name!r}]
            eager, lazy = _eager_vs_lazy(fn, inputs, grad)
            emit([[as_list(t) for t in eager], [as_list(t) for t in lazy]])
        """)
        eager = [torch.tensor(t) for t in result[0]]
        lazy = [torch.tensor(t) for t in result[1]]
    else:
        fn, inputs, grad = COMPOSITE_CASES[name]
        eager, lazy = _eager_vs_lazy(fn, inputs, grad)
    assert_close(eager, lazy, rtol=1e-4, atol=1e-5)


def test_diag_embed_stays_native():
    x = torch.randn(2, 3)
    ltc_mlir.reset_metrics()
    eager, lazy = _eager_vs_lazy(torch.diag_embed, [x], (0,))
    assert_close(eager, lazy, rtol=0, atol=0)
    m = ltc_mlir.metrics()
    assert m["fallback_ops"] == {} and m["fallback_graph_count"] == 0, m["fallback_reasons"]


# --- native_batch_norm in evaluation: empty save_mean / save_invstd ----------

def test_native_batch_norm_eval_outputs():
    g = torch.Generator().manual_seed(0)
    x, w, b = torch.randn(3, 2, 4, generator=g), torch.randn(2, generator=g), torch.randn(2, generator=g)
    rm, rv = torch.randn(2, generator=g), torch.rand(2, generator=g) + 0.5
    fn = lambda x, w, b, rm, rv: torch.native_batch_norm(x, w, b, rm, rv, False, 0.1, 1e-5)
    ltc_mlir.reset_metrics()
    eager, lazy = _eager_vs_lazy(fn, [x, w, b, rm, rv], (0, 1, 2))
    assert [tuple(t.shape) for t in lazy[1:3]] == [(0,), (0,)]
    assert_close(eager, lazy, rtol=1e-5, atol=1e-6)
    m = ltc_mlir.metrics()
    assert m["fallback_ops"] == {} and m["fallback_graph_count"] == 0, m["fallback_reasons"]


# --- rrelu: the noise rrelu_with_noise writes (unannotated in the schema) ----

@pytest.mark.parametrize("inplace", [False, True])
def test_rrelu_training_backward_reads_the_noise(inplace):
    # Native since rrelu_kernel.cpp (slopes from the lazy generator, so not
    # eager's values): the gradient must be the very slope each negative
    # element was scaled by (the noise written in the same graph), 1 elsewhere.
    x = torch.randn(4, 5, generator=torch.Generator().manual_seed(0))
    xd = x.clone().to("lazy").requires_grad_()
    out = torch.nn.functional.rrelu(xd * 1.0, 0.1, 0.3, training=True, inplace=inplace)
    grad, = torch.autograd.grad(out.sum(), [xd])
    torch._lazy.mark_step()
    out, slope = out.detach().cpu(), grad.cpu()
    negative = x <= 0
    assert torch.all(slope[~negative] == 1) and torch.equal(out[~negative], x[~negative])
    assert torch.all((slope[negative] >= 0.1) & (slope[negative] <= 0.3))
    assert_close([out[negative]], [x[negative] * slope[negative]], rtol=0, atol=0)


# --- index_select of a 0-dim self (LTC: "Empty output_sizes") ----------------

@pytest.mark.parametrize("index", [torch.tensor([0]), torch.tensor(0)])
def test_index_select_zero_dim_self(index):
    x = torch.tensor(3.5)
    ltc_mlir.reset_metrics()
    eager, lazy = _eager_vs_lazy(lambda s, i: torch.index_select(s, 0, i), [x, index], (0,))
    assert lazy[0].shape == () and lazy[1].shape == ()
    assert_close(eager, lazy, rtol=0, atol=0)


@pytest.mark.parametrize("op", ["index_add", "index_copy"])
def test_index_ops_zero_dim_backward(op):
    g = torch.Generator().manual_seed(0)
    x, src = torch.randn((), generator=g), torch.randn((), generator=g)
    fn = {"index_add": lambda s, i, t: torch.index_add(s, 0, i, t, alpha=2),
          "index_copy": lambda s, i, t: torch.index_copy(s, 0, i, t)}[op]
    eager, lazy = _eager_vs_lazy(fn, [x, torch.tensor([0]), src], (0, 2))
    assert_close(eager, lazy, rtol=1e-6, atol=1e-6)


def test_index_select_zero_dim_self_errors():
    x = torch.tensor(3.5).to("lazy")
    with pytest.raises(IndexError, match="can have only 1 value"):
        torch.index_select(x, 0, torch.tensor([0, 0]).to("lazy"))
    with pytest.raises(IndexError, match="Dimension out of range"):
        torch.index_select(x, 1, torch.tensor([0]).to("lazy"))
    y = torch.index_select(x, 0, torch.tensor([1]).to("lazy"))  # out of range, known at run time
    with pytest.raises(IndexError, match="index_select"):  # eager's type
        y.cpu()


# --- resize_ within the storage (growing again reads the storage) ------------

def _resize_chain(x):
    x.resize_(2, 2)
    x.add_(1)
    x.resize_(6)  # grows within the storage: eager reads it again
    x.mul_(2)
    return x.resize_(3, 2)


def _resize_view(x):
    v = x[1]
    v.resize_(2)  # a contiguous view, shrunk: storage[4:6]
    v.add_(10)
    return v, x


RESIZE_CASES = {
    "same_numel": (lambda x: x.resize_(25, 5), (5, 5, 5)),
    "same_numel_transposed_shape": (lambda x: x.resize_(5, 25), (5, 5, 5)),
    "smaller": (lambda x: x.resize_(3, 4), (5, 5, 5)),
    "same_shape": (lambda x: x.resize_(5, 5, 5), (5, 5, 5)),
    "chain": (_resize_chain, (2, 4)),
    "view": (_resize_view, (2, 4)),
    "zero": (lambda x: x.resize_(0, 3), (2, 4)),
}


@pytest.mark.parametrize("name", sorted(RESIZE_CASES))
def test_resize_within_storage(name):
    fn, shape = RESIZE_CASES[name]
    x = torch.arange(float(torch.Size(shape).numel())).reshape(shape)
    eager = fn(x.clone())
    lazy = fn(x.clone().to("lazy"))
    torch._lazy.mark_step()
    eager = list(eager) if isinstance(eager, tuple) else [eager]
    lazy = list(lazy) if isinstance(lazy, tuple) else [lazy]
    assert_close([t.clone() for t in eager], [t.cpu() for t in lazy], rtol=0, atol=0)


@pytest.mark.parametrize("grow", [lambda t: t.resize_(4, 4),
                                  lambda t: t.resize_as_(torch.empty(4, 4).to(t.device))],
                         ids=["resize_", "resize_as_"])
def test_resize_larger_keeps_values_and_compiles(grow):
    x = torch.arange(6.).reshape(2, 3)
    ltc_mlir.reset_metrics()
    lazy = grow(x.clone().to("lazy")).mul_(2)
    torch._lazy.mark_step()
    assert lazy.shape == (4, 4)
    # eager leaves the new elements uninitialised: only the old ones compare
    # (ours are zeros)
    assert torch.equal(lazy.cpu().reshape(-1)[:6], x.reshape(-1) * 2)
    assert torch.equal(lazy.cpu().reshape(-1)[6:], torch.zeros(10))
    assert_all_native()


@pytest.mark.parametrize("shapes", [((5, 5, 5), (25, 5)), ((), (1, 1, 1)), ((3,), (2,))])
def test_resize_as_within_storage_compiles(shapes):
    # torch's functionalization runs resize_as_ below itself, where resize_
    # has no Lazy kernel: the eager fallback even for the same size.
    x, template = torch.randn(shapes[0]), torch.randn(shapes[1])
    torch._lazy.metrics.reset()
    ltc_mlir.reset_metrics()
    lazy = x.clone().to("lazy").resize_as_(template.to("lazy")).cpu()
    assert torch.equal(lazy, x.clone().resize_as_(template))
    assert eager_fallback_ops() == []
    m = ltc_mlir.metrics()
    assert m["fallback_ops"] == {} and m["native_execute_count"] == m["execute_count"] >= 1, m


def test_rprop_state_init_runs_natively():
    # Rprop's state init: grad.new().resize_as_(grad).fill_(lr), a growing resize.
    def run(device):
        torch.manual_seed(0)
        m = torch.nn.Linear(4, 3).to(device)
        opt = torch.optim.Rprop(m.parameters(), lr=0.01)
        for i in range(3):
            opt.zero_grad()
            m(torch.ones(2, 4).to(device) * (i + 1)).pow(2).sum().backward()
            opt.step()
            if device == "lazy":
                torch._lazy.mark_step()
        return [p.detach().cpu() for p in m.parameters()]
    eager = run("cpu")
    ltc_mlir.reset_metrics()
    assert_close(eager, run("lazy"), rtol=1e-6, atol=1e-7)
    assert_all_native()


def test_resize_unsupported_layouts_raise():
    x = torch.arange(8.).reshape(2, 4).to("lazy")
    with pytest.raises(RuntimeError, match="not in row-major order"):
        x.t().resize_(2, 2)
    with pytest.raises(RuntimeError, match="base's storage"):
        x[0].resize_(6)


# --- as_strided of an expanded gradient (C++ contiguous() skips lazy) --------

def _slice_positions(shape, size, stride, offset):
    mask = torch.zeros(shape).reshape(-1)
    mask.as_strided(size, stride, offset).fill_(1)
    return mask.reshape(shape).bool()


@pytest.mark.parametrize("loss", ["sum", "weighted"])
def test_as_strided_scatter_backward(loss):
    # torch's backward for self fills the scattered region from the
    # gradient and zeroes the rest (2.14), in eager too: the reverse of the
    # right answer. Ours is exact: the gradient with the region zeroed (its
    # values came from src); src's gradient is the region of the gradient.
    g = torch.Generator().manual_seed(0)
    x, src, cot = torch.randn(3, 3, generator=g), torch.randn(2, 2, generator=g), torch.randn(3, 3, generator=g)
    size, stride, offset = (2, 2), (1, 2), 1
    results = []
    for device in ("cpu", "lazy"):
        xd, sd = x.clone().to(device).requires_grad_(), src.clone().to(device).requires_grad_()
        out = torch.as_strided_scatter(xd, sd, size, stride, offset)
        total = out.sum() if loss == "sum" else (out * cot.to(device)).sum()
        gx, gs = torch.autograd.grad(total, [xd, sd])
        if device == "lazy":
            torch._lazy.mark_step()
        results.append([out.detach().cpu(), gx.cpu(), gs.cpu()])
    (eo, _, egs), (lo, lgx, lgs) = results
    region = _slice_positions((3, 3), size, stride, offset)
    upstream = torch.ones(3, 3) if loss == "sum" else cot
    expected_gx = upstream.clone()
    expected_gx[region] = 0
    assert_close([eo, expected_gx, egs], [lo, lgx, lgs], rtol=1e-6, atol=1e-6)


def test_as_strided_backward_of_sum():
    x = torch.randn(3, 3, generator=torch.Generator().manual_seed(0))
    eager, lazy = _eager_vs_lazy(lambda t: t.as_strided((2, 2), (1, 2), 1).sum(), [x], (0,))
    assert_close(eager, lazy, rtol=1e-6, atol=1e-6)
