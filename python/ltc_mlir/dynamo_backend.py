"""torch.compile(model, backend="ltc_mlir"): Dynamo's graphs, compiled once
through the lazy device and then replayed without tracing.

    model = torch.compile(model, backend="ltc_mlir")
    step = torch.compile(optimizer.step, backend="ltc_mlir")

Dynamo captures what it can and leaves the rest to Python (graph breaks).
AOTAutograd turns each captured graph into forward, backward (training) or
inference FX graphs of ATen ops. Each of these is a `_ReplayedGraph`: on
its first call with a given argument signature it runs once on lazy tensors
made from the arguments, so the lazy kernels, lowering, partial graphs and
compile caches of `mark_step` are reused (the same graph traced through
`model.to("lazy")` gets the same executable). The compiled graph is kept
with the mapping from FX arguments to its parameters; every later call binds
the host tensors and runs it (ltc_backend/replay_graph.h).

Guards are Dynamo's: a changed shape, dtype or Python value recompiles in
Dynamo. A graph Dynamo made dynamic (`dynamic=True`, `mark_dynamic`, or
after a shape changed) takes sizes as arguments; it is compiled once per
distinct signature of sizes, reusing the disk cache. A graph that cannot be
traced on the lazy device (e.g. data-dependent Python control flow inside an
op) runs eagerly, with a warning, and counts in metrics()["replay_eager_graphs"].

With LTC_MLIR_DEBUG=1 (or ltc_mlir.set_debug(True)) Dynamo's recompiles
are logged and every graph this backend builds says why on stderr.
"""
import sys
import warnings

import torch
import torch.fx
from torch.utils._python_dispatch import _disable_current_modes

from . import _C

_LAZY = torch.device("lazy")


def _signature(args):
    """What a compiled graph is specialized on: tensors' dtype and sizes,
    the values of size and scalar arguments."""
    sig = []
    for a in args:
        if isinstance(a, torch.Tensor):
            sig.append((a.dtype, tuple(a.shape)))
        elif isinstance(a, (int, float, bool, torch.SymInt, torch.SymFloat, torch.SymBool)):
            sig.append((type(a).__name__, a if isinstance(a, (int, float, bool)) else int(a)))
        else:
            sig.append((type(a).__name__, None))
    return tuple(sig)


def _to_lazy_device(value):
    if isinstance(value, torch.device) and value.type == "cpu":
        return _LAZY
    if isinstance(value, (list, tuple)):
        return type(value)(_to_lazy_device(v) for v in value)
    return value


def _prims_fma(a, b, c):
    return a * b + c


def _attention_scores(query, key, is_causal, attn_mask, scale):
    scale = query.shape[-1] ** -0.5 if scale is None else scale
    scores = torch.matmul(query, key.transpose(-2, -1)) * scale
    if is_causal:
        causal = torch.ones(scores.shape[-2], scores.shape[-1], dtype=torch.bool,
                            device=scores.device).tril()
        scores = scores.masked_fill(~causal, float("-inf"))
    if attn_mask is not None:
        scores = (scores.masked_fill(~attn_mask, float("-inf")) if attn_mask.dtype == torch.bool
                  else scores + attn_mask)
    return scores, scale


def _flash_attention(query, key, value, dropout_p=0.0, is_causal=False, *, attn_mask=None,
                     scale=None):
    """The CPU flash attention scaled_dot_product_attention becomes when
    Dynamo traces it: (output, logsumexp) as math ops, which compile."""
    if dropout_p > 0:  # its dropout mask cannot be reproduced: keep the ATen op
        return torch.ops.aten._scaled_dot_product_flash_attention_for_cpu.default(
            query, key, value, dropout_p, is_causal, attn_mask=attn_mask, scale=scale)
    scores, _ = _attention_scores(query, key, is_causal, attn_mask, scale)
    logsumexp = torch.logsumexp(scores, dim=-1)
    probs = torch.exp(scores - logsumexp.unsqueeze(-1))
    return torch.matmul(probs, value), logsumexp


def _flash_attention_backward(grad_out, query, key, value, out, logsumexp, dropout_p,
                              is_causal, *, attn_mask=None, scale=None):
    """Its gradient from the saved logsumexp, as the flash kernel computes it:
    P = exp(S - lse), dV = P^T dO, dS = P * (dO V^T - rowsum(dO * O))."""
    if dropout_p > 0:
        return torch.ops.aten._scaled_dot_product_flash_attention_for_cpu_backward.default(
            grad_out, query, key, value, out, logsumexp, dropout_p, is_causal,
            attn_mask=attn_mask, scale=scale)
    scores, scale = _attention_scores(query, key, is_causal, attn_mask, scale)
    probs = torch.exp(scores - logsumexp.unsqueeze(-1))
    grad_value = torch.matmul(probs.transpose(-2, -1), grad_out)
    grad_probs = torch.matmul(grad_out, value.transpose(-2, -1))
    row = (grad_out * out).sum(dim=-1, keepdim=True)
    grad_scores = probs * (grad_probs - row)
    grad_query = torch.matmul(grad_scores, key) * scale
    grad_key = torch.matmul(grad_scores.transpose(-2, -1), query) * scale
    return grad_query, grad_key, grad_value


# Ops Dynamo's graphs may hold that the lazy device never records: Inductor's
# prims (the fused multiply-add of the Adam update) and the CPU-specific
# attention kernels. Their equivalents in ATen ops that compile.
_ATEN_EQUIVALENTS = {
    "prims.fma.default": _prims_fma,
    "aten._scaled_dot_product_flash_attention_for_cpu.default": _flash_attention,
    "aten._scaled_dot_product_flash_attention_for_cpu_backward.default":
        _flash_attention_backward,
}


class _LazyInterpreter(torch.fx.Interpreter):
    """Runs an FX graph of ATen ops on the lazy device: ops that create
    tensors on the CPU (`device=cpu`) create them there, tensor constants
    of the graph are moved there, and non-ATen ops become ATen ops."""

    def get_attr(self, target, args, kwargs):
        value = super().get_attr(target, args, kwargs)
        if isinstance(value, torch.Tensor) and value.device.type == "cpu":
            return value.to(_LAZY)
        return value

    def call_function(self, target, args, kwargs):
        args = _to_lazy_device(args)
        kwargs = {k: _to_lazy_device(v) for k, v in kwargs.items()}
        target = _ATEN_EQUIVALENTS.get(str(target), target)
        return super().call_function(target, args, kwargs)


class _Entry:
    """One argument signature of a graph: its replayed graph, or eager."""

    def __init__(self, replay=None, tensor_positions=(), outputs=()):
        self.replay = replay                    # _C._ReplayGraph or None (eager)
        self.tensor_positions = tensor_positions  # args that are tensors, in order
        # Per FX output: ("result", k) of the replayed graph, ("value", v).
        self.outputs = outputs


class _ReplayedGraph:
    """An AOTAutograd FX graph compiled through the lazy device."""

    _boxed_call = True  # AOTAutograd passes the arguments as one list

    def __init__(self, gm, role, static):
        self.gm = gm
        self.role = role  # "forward", "backward" or "inference"
        # Static: tensor arguments of fixed sizes only, so Dynamo's guards
        # admit one signature, and the per-call signature is skipped (the
        # replayed graph still checks every argument).
        self.static = static
        self.entries = {}

    def __call__(self, args):
        args = list(args)
        key = () if self.static else _signature(args)
        entry = self.entries.get(key)
        if entry is None:
            entry = self.entries[key] = self._build(args)
        if entry.replay is None:
            return self.gm(*args)
        results = entry.replay.run([args[i] for i in entry.tensor_positions])
        return [results[v] if kind == "result" else v for kind, v in entry.outputs]

    def _build(self, args):
        debug = _C._debug_enabled()
        if debug:
            why = "first signature" if not self.entries else f"new signature {_signature(args)}"
            sys.stderr.write(f"ltc_mlir torch.compile: building the {self.role} graph "
                             f"({len(self.gm.graph.nodes)} FX nodes): {why}\n")
            _C._record_compile_explanation("torch.compile " + ("first graph" if not self.entries
                                                               else "new signature"),
                                           f"{self.role} graph: {why}")
        tensor_positions = [i for i, a in enumerate(args) if isinstance(a, torch.Tensor)]
        try:
            lazy_inputs = _C._make_replay_inputs([args[i] for i in tensor_positions])
            handles = _C._replay_input_handles(lazy_inputs)
            call_args = list(args)
            for i, lazy in zip(tensor_positions, lazy_inputs):
                call_args[i] = lazy
            # No grad, and none of the caller's dispatch modes: AOTAutograd
            # runs a graph's first call under a mode that checks custom ops,
            # which our lazy views must not go through.
            with torch.no_grad(), _disable_current_modes():
                flat = _LazyInterpreter(self.gm).run(*call_args)
            if not isinstance(flat, (list, tuple)):
                flat = [flat]
            lazy_outputs, outputs = [], []
            for value in flat:
                if isinstance(value, torch.Tensor) and value.device.type == "lazy":
                    outputs.append(("result", len(lazy_outputs)))
                    lazy_outputs.append(value)
                elif isinstance(value, torch.Tensor):
                    raise RuntimeError(f"an output is on {value.device}, not on the lazy device")
                else:
                    outputs.append(("value", value))
            # Inputs the graph updated in place (an optimizer's parameters)
            # become more outputs, written back into the call's tensors.
            replay = _C._build_replay_graph(lazy_inputs, lazy_outputs, handles)
        except Exception as e:  # noqa: BLE001  (any failure: run the graph eagerly)
            reason = f"{type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}"
            warnings.warn(f"ltc_mlir torch.compile: the {self.role} graph runs eagerly on the "
                          f"CPU: it could not be traced on the lazy device ({reason})")
            _C._record_replay_eager_graph(f"{self.role} graph: {reason}")
            return _Entry()
        if replay is None:  # no tensor outputs, no input written: nothing to compile
            return _Entry()
        if debug:
            sys.stderr.write(f"ltc_mlir torch.compile: {self.role} graph -> {replay!r}\n")
        return _Entry(replay, tensor_positions, outputs)


def _is_static(example_inputs):
    return all(isinstance(a, torch.Tensor)
               and all(isinstance(d, int) for d in a.shape) for a in example_inputs)


def _compiler(role):
    def compile_graph(gm, example_inputs):
        graph = _ReplayedGraph(gm, role, _is_static(example_inputs))
        if role != "backward":
            return graph
        # The backward runs from the autograd engine, where Dynamo must not
        # trace it; AOTAutograd's own wrapper for this would drop the boxed
        # calling convention, so it is applied here.
        wrapped = torch._dynamo.disable(graph, reason="ltc_mlir replays the backward graph")
        wrapped._boxed_call = True
        return wrapped
    compile_graph._is_wrapped_bw_compiler = role == "backward"
    return compile_graph


def ltc_mlir_backend(gm, example_inputs, **kwargs):
    """The Dynamo backend: AOTAutograd with our forward, backward and
    inference compilers, without decompositions: the graphs keep the ATen
    ops the lazy device records, so they match mark_step's. (AOTAutograd's
    decomposition of the CPU flash attention would decompose its forward
    only: the backward, still the flash kernel, then read a logsumexp of
    another layout and gave wrong gradients. The interpreter replaces both
    instead, consistently: _ATEN_EQUIVALENTS.)"""
    from torch._dynamo.backends.common import aot_autograd
    from . import init
    init()
    if _C._debug_enabled():
        torch._logging.set_logs(recompiles=True)
    backend = aot_autograd(fw_compiler=_compiler("forward"), bw_compiler=_compiler("backward"),
                           inference_compiler=_compiler("inference"),
                           keep_inference_input_mutations=True)
    return backend(gm, example_inputs, **kwargs)


def register():
    """Makes backend="ltc_mlir" known to torch.compile (idempotent)."""
    from torch._dynamo.backends import registry
    if "ltc_mlir" not in registry._COMPILER_FNS:
        registry.register_backend(ltc_mlir_backend, name="ltc_mlir")
