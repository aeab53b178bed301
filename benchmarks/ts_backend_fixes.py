"""Makes torch 2.x's TorchScript lazy backend (the suite's "ts" mode) run the
workloads: lowerings for the ops whose eager fallback breaks a step or
makes it recompute the whole graph.

torch 2.14's TS backend has no lowering for the multi-output view copies
that functionalization emits for `split`, `chunk` and `unbind`
(aten::split_copy.Tensor, split_with_sizes_copy, unbind_copy.int). They take
the eager CPU fallback, whose outputs stay CPU tensors behind the lazy
wrappers: the next op on them (nanoGPT's attention after
`c_attn(x).split(...)`) fails with "Input tensor is not a lazy tensor:
torch.FloatTensor". `install()` registers Lazy kernels that build each
output with slice_copy / select_copy, which the TS backend lowers; the
graph then stays lazy.

torch 2.14's AdamW updates exp_avg with lerp_ (AdamW is Adam's code),
which the TS backend does not lower either: each parameter's lerp
syncs its gradient alone, and since the other gradients are still pending,
every sync runs the forward and backward again (GPT-2 with 2 layers: 29
parameters, 46 s per step instead of about 2). `install()` also registers
lerp.Scalar as self + weight * (end - self), in lazy ops.

Likewise torch 2.x's math attention (sdpa on a lazy device: GPT-2's
attention) calls _safe_softmax (softmax, 0 for rows that are all -inf),
whose composite runs isneginf, all and where on the CPU fallback: two syncs
per layer, each running the graph up to that layer. `install()` registers
it as softmax masked_fill'ed with 0 where a row has no finite element
(count of x != -inf == 0).

Nothing here touches ltc_mlir's backend (it runs in another process).
fallback_ops() lists the ops that still take the CPU fallback.
"""
import torch

_LIBRARY = None


def _slices(t, sizes, dim):
    dim = dim % t.dim()
    out, start = [], 0
    for size in sizes:
        out.append(torch.ops.aten.slice_copy.Tensor(t, dim, start, start + size))
        start += size
    return out


def _split_copy(t, split_size, dim=0):
    n, split_size = t.shape[dim], int(split_size)
    sizes = [min(split_size, n - i) for i in range(0, n, split_size)] if n else [0]
    return _slices(t, sizes, dim)


def _split_with_sizes_copy(t, split_sizes, dim=0):
    return _slices(t, [int(s) for s in split_sizes], dim)


def _unbind_copy(t, dim=0):
    dim = dim % t.dim()
    return [torch.ops.aten.select_copy.int(t, dim, i) for i in range(t.shape[dim])]


def _lerp_scalar(t, end, weight):
    return torch.ops.aten.add.Tensor(t, torch.ops.aten.sub.Tensor(end, t), alpha=weight)


def _safe_softmax(t, dim, dtype=None):
    if dtype is not None:
        t = torch.ops.aten._to_copy.default(t, dtype=dtype)
    softmax = torch.ops.aten._softmax.default(t, dim, False)
    finite = torch.ops.aten.sum.dim_IntList(
        torch.ops.aten.ne.Scalar(t, float("-inf")), [dim], True)
    return torch.ops.aten.masked_fill.Scalar(
        softmax, torch.ops.aten.eq.Scalar(finite, 0), 0.0)


def install():
    """Registers the Lazy kernels (once per process); call after
    torch._lazy.ts_backend.init()."""
    global _LIBRARY
    if _LIBRARY is not None:
        return
    lib = torch.library.Library("aten", "IMPL")
    lib.impl("split_copy.Tensor", _split_copy, "Lazy")
    lib.impl("split_with_sizes_copy", _split_with_sizes_copy, "Lazy")
    lib.impl("unbind_copy.int", _unbind_copy, "Lazy")
    lib.impl("lerp.Scalar", _lerp_scalar, "Lazy")
    lib.impl("_safe_softmax", _safe_softmax, "Lazy")
    _LIBRARY = lib


def fallback_ops():
    """{op: count} of the ops that ran on the CPU fallback in this process
    (torch._lazy's counters named aten::...)."""
    import torch._lazy.metrics as metrics
    return {name: metrics.counter_value(name) for name in metrics.counter_names()
            if name.startswith("aten::")}
