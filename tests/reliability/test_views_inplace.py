"""In-place writes and views on the lazy device vs eager CPU.

Regression tests for the reproducers of "wrong values from in-place writes
and views":
1. An in-place write into part of a tensor (x[0].add_(1), x[0] = v,
   select_scatter, slice_scatter, ...) must keep the rest of the tensor.
   LTC records it as *_scatter of the graph input; MLIR 22's bufferization
   took the rank-reduced vector write of the row for a full overwrite and
   left out the copy of the input into the result
   (see mlir_lowering/lib/Pipelines/SplitPartialTransferWrites.cpp).

Every case compares values and shapes with eager CPU (explicit tolerances),
runs each graph twice with different data (the second run reuses output
buffers, which would hide a missing copy behind stale values), and asserts
that the graphs ran as native code when the ops are lowered.
"""
import pytest
import torch

import ltc_mlir

from isolated import run_isolated
from lazy_testing import assert_all_native

RTOL, ATOL = 1e-6, 1e-6


def _run(fn, base):
    """fn on an eager copy of `base` and on a lazy copy (one mark_step);
    returns (eager, lazy) as CPU tensors."""
    eager = fn(base.clone())
    lazy = fn(base.clone().to("lazy"))
    torch._lazy.mark_step()
    return eager, lazy.cpu()


def _check(fn, shape, native=True, steps=2):
    ltc_mlir.reset_metrics()
    numel = 1
    for s in shape:
        numel *= s
    for step in range(steps):
        # arange is unambiguous (a wrong row shows up as wrong numbers);
        # the offset changes the data from one step to the next.
        base = torch.arange(float(numel)).view(*shape) + 1000.0 * step
        eager, lazy = _run(fn, base)
        assert lazy.shape == eager.shape, f"step {step}: shape {tuple(lazy.shape)} != eager {tuple(eager.shape)}"
        torch.testing.assert_close(lazy, eager, rtol=RTOL, atol=ATOL,
                                   msg=lambda m: f"step {step}: {m}")
    if native:
        m = assert_all_native()
        assert m["native_execute_count"] >= steps, m


def _like(x, values):
    return values.to(x.device)


# --- 1. writes into part of a tensor ------------------------------------------

def add_row(x):
    x[0].add_(1)
    return x


def set_row(x):
    x[0] = _like(x, -3.0 * torch.ones(x.shape[1:]))
    return x


def zero_row(x):
    x[0].zero_()
    return x


def zero_last_row(x):
    x[-1].zero_()
    return x


def fill_row(x):
    x[0].fill_(7.0)
    return x


def copy_last_into_first(x):
    x[0].copy_(x[-1])
    return x


def select_scatter(x):
    return torch.select_scatter(x, x[-1] * 2.0, 0, 0)


def select_scatter_last_dim(x):
    return torch.select_scatter(x, x.select(-1, 0) * 2.0, -1, 0)


def slice_scatter(x):
    return torch.slice_scatter(x, x[:1] * 2.0, 0, 0, 1, 1)


def add_tail(x):
    x[1:].add_(1)
    return x


def mul_every_other(x):
    x[::2].mul_(3)
    return x


def add_column(x):
    x[..., 1].add_(1)
    return x


def zero_first_column(x):
    x[..., :1].zero_()
    return x


def narrow_add(x):
    x.narrow(0, 0, 1).add_(1)
    return x


def flat_view_add(x):
    x.view(-1)[1:3].add_(10)
    return x


WRITES = [add_row, set_row, zero_row, zero_last_row, fill_row, copy_last_into_first,
          select_scatter, select_scatter_last_dim, slice_scatter, add_tail,
          mul_every_other, add_column, zero_first_column, narrow_add, flat_view_add]
# The shapes of the report (3x4, 2x8, 64x64 failed; 10x4, 4x3 passed) and
# 1-d, 3-d and 4-d ones.
SHAPES = [(3, 4), (2, 8), (10, 4), (4, 3), (3, 64), (64, 64), (1, 16), (16,),
          (3,), (2, 3, 4), (2, 8, 8), (2, 2, 3, 4), (2, 3, 8, 16)]


@pytest.mark.parametrize("shape", SHAPES, ids=lambda s: "x".join(map(str, s)))
@pytest.mark.parametrize("fn", WRITES, ids=lambda f: f.__name__)
def test_partial_write_keeps_the_rest(fn, shape):
    _check(fn, shape)


def test_reported_reproducer_row_0_add():
    x = torch.arange(4096.).view(64, 64).to("lazy")
    x[0].add_(1)
    torch._lazy.mark_step()
    torch.testing.assert_close(x.cpu()[1, :4], torch.tensor([64., 65., 66., 67.]),
                               rtol=0, atol=0)
    torch.testing.assert_close(x.cpu()[0, :4], torch.tensor([1., 2., 3., 4.]), rtol=0, atol=0)
    assert_all_native()


def test_partial_write_in_a_loop():
    """The same graph many times: every step must start from the previous
    step's values (the buffers of one step are the inputs of the next)."""
    x_eager = torch.arange(12.).view(3, 4)
    x_lazy = x_eager.clone().to("lazy")
    for step in range(4):
        for x in (x_eager, x_lazy):
            x[step % 3].add_(1.5)
            x[:, step % 4].mul_(2)
        torch._lazy.mark_step()
        torch.testing.assert_close(x_lazy.cpu(), x_eager, rtol=RTOL, atol=ATOL)
    assert_all_native()


def test_index_put_row_keeps_the_rest():
    """x[idx] = v goes through index_put_ (no Lazy kernel in torch's LTC;
    ours keeps it in the graph, lazy_kernels/indexing_kernels.cpp)."""
    def fn(x):
        x[_like(x, torch.tensor([0]))] = 5.0
        return x
    _check(fn, (3, 4))


# --- 2. as_strided over views and channels-last tensors -------------------------
# Eager's as_strided addresses storage: for a view, its base's storage in
# eager's layout. LTC records as_strided_copy of a fresh row-major copy of
# the view (the TS backend is right only by accident of eager strides in its
# graph). Fixed by our AutogradLazy as_strided kernel (ltc_backend/
# view_kernels.cpp, eager_layout.cpp).

CL, CL3D = torch.channels_last, torch.channels_last_3d


def _arange(*shape):
    n = 1
    for s in shape:
        n *= s
    return lambda: torch.arange(float(n)).view(*shape)


# name: (base on CPU, view, size, stride, storage offset)
AS_STRIDED = {
    "t": (_arange(3, 4), lambda x: x.t(), (3, 2), (1, 4), 1),
    "numpy_T": (_arange(3, 4), lambda x: x.T, (3, 2), (1, 4), 1),
    "t_default_offset": (_arange(3, 4), lambda x: x.t(), (2, 2), (1, 4), None),
    "permute": (_arange(2, 3, 4), lambda x: x.permute(2, 0, 1), (2, 3), (2, 5), 2),
    "movedim": (_arange(2, 3, 4), lambda x: x.movedim(0, 2), (3, 3), (4, 1), 3),
    "transpose_3d": (_arange(2, 3, 4), lambda x: x.transpose(0, 2), (4, 2), (1, 12), 0),
    "t_then_select": (_arange(3, 4), lambda x: x.t()[1], (2,), (4,), None),
    "slice_offset": (_arange(4, 6), lambda x: x[1:], (2, 3), (1, 2), 1),
    "slice_default_offset": (_arange(4, 6), lambda x: x[1:], (2, 3), (1, 2), None),
    "select_column": (_arange(4, 6), lambda x: x[:, 2], (2, 2), (1, 6), None),
    "diagonal": (_arange(4, 4), lambda x: x.diagonal(), (3,), (5,), None),
    "t_unsqueeze": (_arange(3, 4), lambda x: x.t().unsqueeze(0), (2, 3), (3, 1), 0),
    "t_step_slice": (_arange(3, 4), lambda x: x.t()[::2], (2, 2), (1, 4), None),
    "expand": (_arange(3, 4), lambda x: x[:1].expand(3, 4), (2, 3), (1, 2), 0),
    "not_a_view": (_arange(3, 4), lambda x: x, (2, 3), (1, 2), 1),
    "not_a_view_overlapping": (_arange(3, 4), lambda x: x, (2, 3, 4), (0, 4, 1), None),
    "channels_last_on_lazy": (_arange(1, 2, 3, 4), lambda x: x.to(memory_format=CL), (2, 3), (1, 2), 1),
    "channels_last_clone": (_arange(2, 2, 3, 4), lambda x: x.clone(memory_format=CL), (2, 3), (1, 2), 5),
    "channels_last_then_permute": (_arange(2, 2, 3, 4),
                                   lambda x: x.to(memory_format=CL).permute(0, 2, 3, 1), (3, 2), (2, 1), None),
    "channels_last_3d": (_arange(1, 2, 2, 3, 4), lambda x: x.to(memory_format=CL3D), (3, 2), (2, 1), 1),
    "channels_last_from_cpu": (lambda: _arange(1, 2, 3, 4)().to(memory_format=CL), lambda x: x, (2, 3), (1, 2), 1),
    "channels_last_from_cpu_transposed": (lambda: _arange(2, 2, 3, 4)().to(memory_format=CL),
                                          lambda x: x.transpose(1, 3), (2, 3), (1, 2), None),
    "transposed_from_cpu": (lambda: _arange(3, 4)().t(), lambda x: x, (3, 2), (1, 4), 1),
    "transposed_from_cpu_sliced": (lambda: _arange(3, 4)().t(), lambda x: x[1:], (3, 2), (1, 4), None),
    # Python's Tensor.contiguous decides before dispatching (from
    # is_contiguous, true for every format on lazy tensors); ltc_mlir.init()
    # redirects it to the dispatcher for lazy tensors.
    "channels_last_contiguous": (_arange(2, 2, 3, 4), lambda x: x.contiguous(memory_format=CL),
                                 (2, 3), (1, 2), 5),
}


def _as_strided_both(make, view, size, stride, offset, grad):
    results = []
    for device in ("cpu", "lazy"):
        x = make().to(device)
        if grad:
            x.requires_grad_()
        y = torch.as_strided(view(x), size, stride, offset)
        outs = [y]
        if grad:
            cot = torch.arange(1.0, y.numel() + 1.0).view(y.shape).to(device)
            (y * cot).sum().backward()
            outs.append(x.grad)
        if device == "lazy":
            torch._lazy.mark_step()
        results.append([o.detach().cpu() for o in outs])
    return results


def _as_strided_params():
    for name, case in AS_STRIDED.items():
        if hasattr(case, "marks"):  # a pytest.param
            yield pytest.param(case.values[0], id=name, marks=case.marks)
        else:
            yield pytest.param(case, id=name)


@pytest.mark.parametrize("case", list(_as_strided_params()))
def test_as_strided_forward(case):
    (eager,), (lazy,) = _as_strided_both(*case, grad=False)
    assert lazy.shape == eager.shape
    torch.testing.assert_close(lazy, eager, rtol=0, atol=0)
    assert_all_native()


@pytest.mark.parametrize("case", list(_as_strided_params()))
def test_as_strided_backward(case):
    eager, lazy = _as_strided_both(*case, grad=True)
    for what, e, l in zip(("result", "x.grad"), eager, lazy):
        assert l.shape == e.shape, f"{what}: shape {tuple(l.shape)} != eager {tuple(e.shape)}"
        torch.testing.assert_close(l, e, rtol=RTOL, atol=ATOL, msg=lambda m: f"{what}: {m}")
    assert_all_native()


def test_reported_reproducer_as_strided_of_t():
    x = torch.arange(12.).view(3, 4)
    lazy = torch.as_strided(x.to("lazy").t(), (3, 2), (1, 4), 1).cpu()
    torch.testing.assert_close(lazy, torch.as_strided(x.t(), (3, 2), (1, 4), 1), rtol=0, atol=0)
    torch.testing.assert_close(lazy, torch.tensor([[1., 5.], [2., 6.], [3., 7.]]), rtol=0, atol=0)


def test_as_strided_out_of_the_view_but_inside_the_base():
    """Eager checks bounds against the base's storage: reading past the
    view's own elements is fine, past the base is an error, like eager."""
    x = torch.arange(24.).view(4, 6)
    lazy = torch.as_strided(x.to("lazy")[:, 2], (2, 2), (1, 6), None).cpu()
    torch.testing.assert_close(lazy, torch.as_strided(x[:, 2], (2, 2), (1, 6)), rtol=0, atol=0)
    result = run_isolated("""
        x = torch.arange(24.).view(4, 6)
        messages = []
        for device in ("cpu", "lazy"):
            try:
                torch.as_strided(x.to(device)[:, 2], (2, 2), (1, 6), 20).cpu()
                messages.append(None)
            except RuntimeError as e:
                messages.append(str(e))
        emit(messages)
    """)
    for device, message in zip(("cpu", "lazy"), result):
        assert message is not None and "out of bounds for storage" in message, device


def test_as_strided_view_then_inplace_writes_the_base():
    """as_strided of a view is a view of the base: writing into it changes
    the base, as in eager."""
    results = []
    for device in ("cpu", "lazy"):
        x = torch.arange(12.).view(3, 4).to(device)
        torch.as_strided(x.t(), (2, 2), (1, 4), 1).mul_(-1)
        results.append(x.cpu())
    torch.testing.assert_close(results[1], results[0], rtol=0, atol=0)
    assert_all_native()


def test_as_strided_after_an_inplace_write_through_a_view():
    """The base's storage includes what was written through another view."""
    results = []
    for device in ("cpu", "lazy"):
        x = torch.arange(12.).view(3, 4).to(device)
        x[:, 1].mul_(10)
        results.append(torch.as_strided(x.t(), (3, 2), (1, 4), 1).cpu())
    torch.testing.assert_close(results[1], results[0], rtol=0, atol=0)
    assert_all_native()


# --- 3. in-place ops on views, then detach / clone / .cpu() -------------------
# detach / clone / .cpu() of a mutated view must keep the view: after
# `v = x[:, 1]; v.mul_(2)`, `v.detach().cpu()` has shape [3] (torch 2.14's
# TS backend gets this right too; our AutogradLazy detach kernel,
# ltc_backend/view_kernels.cpp, guards it).

VIEWS = {
    "column": lambda x: x[:, 1],
    "row": lambda x: x[1],
    "t": lambda x: x.t(),
    "transpose": lambda x: x.transpose(0, 1),
    "diagonal": lambda x: x.diagonal(),
    "rows_every_other_col": lambda x: x[1:, ::2],
    "unsqueeze": lambda x: x.unsqueeze(0),
    "view": lambda x: x.view(12),
    "t_then_slice": lambda x: x.t()[1:3],
    "first_row_2d": lambda x: x[:1],
    "view_permute": lambda x: x.view(2, 3, 2).permute(2, 0, 1),
    "column_unsqueeze": lambda x: x[:, 2].unsqueeze(1),
}
INPLACE = {
    "mul_": lambda v: v.mul_(2),
    "add_": lambda v: v.add_(1),
    "zero_": lambda v: v.zero_(),
    "fill_": lambda v: v.fill_(3),
    "copy_": lambda v: v.copy_(torch.full(v.shape, 5.0).to(v.device)),
    "sub_": lambda v: v.sub_(0.5),
    "relu_": lambda v: v.relu_(),
}
READS = {
    "v.detach()": lambda x, v: v.detach(),
    "v.clone()": lambda x, v: v.clone(),
    "v": lambda x, v: v,
    "x": lambda x, v: x,
    "x.detach()": lambda x, v: x.detach(),
    "x.clone()": lambda x, v: x.clone(),
    "v.detach() * 2": lambda x, v: v.detach() * 2,
    # detach shares storage: an in-place op on it writes into x.
    "v.detach().add_(100) then x": lambda x, v: (v.detach().add_(100), x)[1],
    # .data takes the same shallow copy, outside the dispatcher
    # (autograd's VariableHooks::variable_data).
    "v.data": lambda x, v: v.data,
    "v.data.add_(100) then x": lambda x, v: (v.data.add_(100), x)[1],
    "torch.ops.aten.alias(v)": lambda x, v: torch.ops.aten.alias(v),
}


@pytest.mark.parametrize("inplace", list(INPLACE), ids=str)
@pytest.mark.parametrize("view", list(VIEWS), ids=str)
def test_inplace_on_view_then_read(view, inplace):
    base = torch.randn(3, 4, generator=torch.Generator().manual_seed(7))
    for read_name, read in READS.items():
        got = []
        for device in ("cpu", "lazy"):
            x = base.clone().to(device)
            v = VIEWS[view](x)
            INPLACE[inplace](v)
            out = read(x, v)
            got.append((out.cpu(), x.cpu(), v.cpu()))
        (e_out, e_x, e_v), (l_out, l_x, l_v) = got
        for what, e, l in (("result", e_out, l_out), ("x", e_x, l_x), ("v", e_v, l_v)):
            assert l.shape == e.shape, f"{read_name}: {what} shape {tuple(l.shape)} != eager {tuple(e.shape)}"
            torch.testing.assert_close(l, e, rtol=RTOL, atol=ATOL,
                                       msg=lambda m: f"{read_name}: {what}: {m}")


def test_reported_reproducer_detach_after_mul_():
    xe = torch.randn(3, 4, generator=torch.Generator().manual_seed(0))
    x = xe.clone().to("lazy")
    v = x[:, 1]
    v.mul_(2)
    d = v.detach().cpu()
    assert d.shape == (3,)
    torch.testing.assert_close(d, xe[:, 1] * 2, rtol=RTOL, atol=ATOL)
    torch.testing.assert_close(x[:, 1].cpu(), xe[:, 1] * 2, rtol=RTOL, atol=ATOL)
    torch.testing.assert_close(x.cpu()[:, 0], xe[:, 0], rtol=0, atol=0)


def test_detach_after_mark_step_and_mutation_is_native():
    x = torch.randn(3, 4).to("lazy")
    v = x[:, 1]
    torch._lazy.mark_step()
    ltc_mlir.reset_metrics()
    v.mul_(2)
    d = v.detach()
    torch._lazy.mark_step()
    assert d.cpu().shape == (3,)
    assert_all_native()


def test_detach_shares_the_version_counter():
    """As in eager: an in-place op on the detached tensor is seen by autograd
    (the saved sigmoid output was modified)."""
    for device in ("cpu", "lazy"):
        a = torch.randn(3).to(device).requires_grad_()
        b = a.sigmoid()
        c = b.detach()
        assert not c.requires_grad and c.grad_fn is None
        c.zero_()
        with pytest.raises(RuntimeError, match="modified by an inplace operation"):
            b.sum().backward()


def test_detach_of_view_keeps_autograd_of_the_rest():
    """Gradients flow through the base while a detached view is read."""
    base = torch.randn(3, 4, generator=torch.Generator().manual_seed(3))
    grads = []
    for device in ("cpu", "lazy"):
        w = base.clone().to(device).requires_grad_()
        y = w * 3
        col = y[:, 1]
        col.mul_(2)
        frozen = col.detach()
        loss = (y * y).sum() + frozen.sum()
        loss.backward()
        grads.append((w.grad.cpu(), frozen.cpu()))
    torch.testing.assert_close(grads[1][0], grads[0][0], rtol=1e-5, atol=1e-5)
    torch.testing.assert_close(grads[1][1], grads[0][1], rtol=1e-5, atol=1e-5)


# x.diagonal() is diagonal_copy and an in-place op on it diagonal_scatter,
# both lowered natively (Conversion/TorchToLinalg/Diagonal.cpp).
DIAGONALS = [((4, 4), {}), ((3, 5), {"offset": 1}), ((3, 5), {"offset": -1}),
             ((5, 3), {"offset": 2}), ((3, 3), {"offset": 5}),
             ((2, 3, 4), {"dim1": 1, "dim2": 2}),
             ((2, 3, 4), {"dim1": 2, "dim2": 0, "offset": 1}),
             ((2, 3, 4), {"dim1": -1, "dim2": -3, "offset": -1}), ((2, 2, 3, 4), {})]


@pytest.mark.parametrize("mode", ["read", "mul_", "grad"])
@pytest.mark.parametrize("shape,kwargs", DIAGONALS,
                         ids=[f"{'x'.join(map(str, s))}-{k}" for s, k in DIAGONALS])
def test_diagonal_native(shape, kwargs, mode):
    base = torch.randn(*shape, generator=torch.Generator().manual_seed(1))
    results = []
    for device in ("cpu", "lazy"):
        x = base.clone().to(device)
        if mode == "read":
            out = x.diagonal(**kwargs) * 3
        elif mode == "mul_":
            x.diagonal(**kwargs).mul_(2)
            out = x
        else:
            x.requires_grad_()
            y = x.diagonal(**kwargs)
            (y * torch.arange(float(y.numel())).view(y.shape).to(device)).sum().backward()
            out = x.grad
        if device == "lazy":
            torch._lazy.mark_step()
        results.append(out.detach().cpu())
    assert results[1].shape == results[0].shape
    torch.testing.assert_close(results[1], results[0], rtol=RTOL, atol=ATOL)
    assert_all_native()


def test_inplace_on_views_is_native():
    """The reproducer's neighbours compile natively (no TorchScript
    fallback, no per-op CPU fallback)."""
    base = torch.randn(3, 4, generator=torch.Generator().manual_seed(5))
    for view in VIEWS.values():
        for inplace in INPLACE.values():
            ltc_mlir.reset_metrics()
            x = base.clone().to("lazy")
            v = view(x)
            inplace(v)
            d = v.detach()
            torch._lazy.mark_step()
            x.cpu(), d.cpu()
            assert_all_native()


# --- .data and set_data --------------------------------------------------------

def _data_program(device):
    out = []
    torch.manual_seed(0)
    w = torch.randn(3, 4).to(device).requires_grad_()
    for _ in range(3):  # SGD written the old way, through .data
        (w * w).sum().backward()
        w.data.add_(w.grad.data, alpha=-0.1)
        w.grad.data.zero_()
        if device == "lazy":
            torch._lazy.mark_step()
    out.append(w.detach())
    # .data does not share the version counter: no autograd error.
    a = torch.arange(3.).to(device).requires_grad_()
    b = a.sigmoid()
    b.data.zero_()
    b.sum().backward()
    out.append(a.grad)
    # p.data = q rebinds p (shape and dtype may change); views taken
    # before keep the old values, views taken after see p's new values.
    p = torch.zeros(2, 2).to(device)
    old_row = p[0]
    p.data = torch.full((2, 2), 5.0).to(device)
    p[1].add_(1)
    out += [p.clone(), old_row.clone()]
    r = torch.zeros(2, 2).to(device)
    r.data = torch.arange(3, dtype=torch.float64).to(device)
    out.append(r)
    q = torch.zeros(3).to(device).requires_grad_()
    q.data = torch.arange(3.).to(device)
    (q * q).sum().backward()
    out += [q.detach(), q.grad]
    return [t.detach().cpu() for t in out]


def test_data_and_set_data_match_eager():
    eager, lazy = _data_program("cpu"), _data_program("lazy")
    for i, (e, l) in enumerate(zip(eager, lazy)):
        assert l.dtype == e.dtype and l.shape == e.shape, f"output {i}: {l.dtype}{tuple(l.shape)}"
        torch.testing.assert_close(l, e, rtol=RTOL, atol=ATOL, msg=lambda m: f"output {i}: {m}")


def test_set_data_of_a_lazy_view_rebinds_only_the_view_as_in_eager():
    # Eager: `x[0].data = q` gives the view q's storage; x keeps its values
    # and later writes through the view no longer reach x.
    def program(device):
        x = torch.zeros(3, 4).to(device)
        v = x[0]
        v.data = torch.ones(4).to(device)
        v.add_(1)
        x[1].add_(2)
        return [x.cpu(), v.cpu()]
    for i, (e, l) in enumerate(zip(program("cpu"), program("lazy"))):
        torch.testing.assert_close(l, e, rtol=0, atol=0, msg=lambda m: f"output {i}: {m}")


# --- copies that lazy tensors took for views -------------------------------------
# Lazy tensors always look contiguous (torch 2.14), so contiguous(),
# reshape() and flatten() of a non-contiguous view returned a view of the
# base where eager copies: writing into the result changed the base.
# ltc_backend/view_kernels.cpp decides from eager's strides.

COPY_OR_VIEW = {
    # eager copies
    "t_contiguous": lambda x: x.t().contiguous(),
    "strided_slice_contiguous": lambda x: x[:, ::2].contiguous(),
    "t_reshape": lambda x: x.t().reshape(-1),
    "t_flatten": lambda x: x.t().flatten(),
    "permute_reshape": lambda x: x.view(2, 3, 2).permute(2, 0, 1).reshape(2, 6),
    "column_unsqueeze_reshape": lambda x: x[:, 1].unsqueeze(0).reshape(3),
    "t_channels_last": lambda x: x.view(1, 3, 2, 2).transpose(2, 3).contiguous(memory_format=CL),
    # eager views: writes reach x
    "row_contiguous": lambda x: x[0].contiguous(),
    "view": lambda x: x.view(4, 3),
    "row_reshape": lambda x: x[1].reshape(2, 2),
    "t_reshape_same_shape": lambda x: x.t().reshape(4, 3),
    "rows_flatten": lambda x: x[1:].flatten(),
}


@pytest.mark.parametrize("make", list(COPY_OR_VIEW.values()), ids=list(COPY_OR_VIEW))
def test_copy_or_view_like_eager(make):
    results = []
    for device in ("cpu", "lazy"):
        x = torch.arange(12.).view(3, 4).to(device)
        y = make(x)
        y.add_(100)
        results.append((x.cpu(), y.cpu()))
    (ex, ey), (lx, ly) = results
    assert ly.shape == ey.shape
    torch.testing.assert_close(lx, ex, rtol=0, atol=0, msg=lambda m: f"base: {m}")
    torch.testing.assert_close(ly, ey, rtol=0, atol=0, msg=lambda m: f"result: {m}")
    assert_all_native()


def test_contiguous_keeps_its_fast_path_and_gradients():
    """Tensor.contiguous still returns the tensor itself when eager does,
    and gradients flow through the copies."""
    x = torch.randn(3, 4).to("lazy").requires_grad_()
    assert x.contiguous() is x
    results = []
    for device in ("cpu", "lazy"):
        w = torch.arange(12.).view(3, 4).to(device).requires_grad_()
        y = w.t().contiguous() * torch.arange(12.).view(4, 3).to(device)
        y.reshape(-1).sum().backward()
        results.append(w.grad.cpu())
    torch.testing.assert_close(results[1], results[0], rtol=0, atol=0)


@pytest.mark.xfail(strict=True, reason="eager's elementwise ops keep the permuted layout of "
                   "their input (x.t() * 1 is stored like x); eager_layout.cpp follows that "
                   "for inputs moved to lazy with their strides, but the IR cannot tell "
                   "x.t() * 1 from x.t().contiguous() * 1 (the same transpose node), so a "
                   "view operand counts as row-major")
def test_as_strided_of_an_elementwise_result_of_a_transposed_view():
    x = torch.arange(24.).view(6, 4)
    f = lambda t: torch.as_strided(t.t() * 1, (3, 2), (1, 4), 1)
    torch.testing.assert_close(f(x.to("lazy")).cpu(), f(x), rtol=0, atol=0)


@pytest.mark.parametrize("name", ["neg", "binary", "where"])
def test_as_strided_of_elementwise_results_follows_eagers_layout(name):
    # Found by the randomized test: as_strided(-x) of a transposed input.
    g = torch.Generator().manual_seed(260)
    x = torch.randn((2, 3, 4), generator=g).transpose(-1, -2)
    f = {"neg": lambda t: torch.as_strided(-t, (2,), (0,), 1),
         "binary": lambda t: torch.as_strided(t * 2 + t, (3, 2), (1, 3), 1),
         "where": lambda t: torch.as_strided(torch.where(t > 0, t, t * 3), (6,), (2,), 1)}[name]
    # (a misplaced element is off by O(1); exp and sin may round differently)
    torch.testing.assert_close(f(x.to("lazy")).cpu(), f(x), rtol=1e-6, atol=1e-6)


DETACHED_VIEW_CASES = {
    # (found by the differential fuzzer) detach() of a view has no autograd
    # view meta, so as_strided took the detached tensor for its own storage.
    "mutated_then_detached": lambda x: torch.as_strided(
        (lambda v: (v.mul_(2.0), v.detach())[1])(x.clone()[1:]), (1,), (0,), 0),
    "detached_offset_0": lambda x: torch.as_strided(x.clone()[1:].detach(), (2,), (1,), 0),
    "detached_default_offset": lambda x: torch.as_strided(x.clone()[1:].detach(), (2,), (1,)),
    "detached_twice": lambda x: torch.as_strided(x.clone()[1:].detach().detach(), (1,), (1,), 0) * 2,
    "detached_transpose": lambda x: torch.as_strided(x.clone().view(3, 1).t().detach(), (3,), (1,)),
}


@pytest.mark.parametrize("name", sorted(DETACHED_VIEW_CASES))
def test_as_strided_of_a_detached_view_addresses_the_base_storage(name):
    x = torch.tensor([1.0, 2.0, 3.0])
    f = DETACHED_VIEW_CASES[name]
    torch.testing.assert_close(f(x.to("lazy")).cpu(), f(x), rtol=0, atol=0)
