"""ltc_mlir: a PyTorch LazyTensorCore backend compiling graphs through MLIR.

    import torch, ltc_mlir
    ltc_mlir.init()
    model = model.to("lazy")
    ...  # forward, backward, optimizer step
    torch._lazy.mark_step()     # the step's graph is compiled (once) and run natively
    print(ltc_mlir.metrics_report())
"""
import atexit as _atexit
import functools as _functools
import os as _os
import sys as _sys
import warnings as _warnings

import torch as _torch  # loads libtorch before our extension needs it
import torch._lazy  # noqa: F401  (makes torch._lazy.mark_step available)

from . import _C
from . import _module_fixes
from . import _sync_batch_norm
from . import _transformer_fixes
from . import _tensor_fixes
from . import distributed  # noqa: F401
from . import dynamo_backend  # noqa: F401  (torch.compile(..., backend="ltc_mlir"))
from . import export  # noqa: F401  (callable: ltc_mlir.export(model, inputs, path, ...))
from .export import ExportError  # noqa: F401

__all__ = ["init", "metrics", "reset_metrics", "metrics_report", "set_dump_dir", "get_dump_dir",
           "set_reproducer_dir", "get_reproducer_dir", "set_disabled_ops", "get_disabled_ops",
           "set_cache_dir", "get_cache_dir", "set_cache_max_bytes", "set_debug",
           "set_shape_variant_limit", "get_shape_variant_limit", "set_batch_generic",
           "set_pipelined", "get_pipelined", "export", "ExportError", "distributed"]

_directories_checked = False


def init():
    """Registers the ltc_mlir backend for the `lazy` device. Idempotent.

    Raises ValueError for a malformed LTC_MLIR_NUM_THREADS; warns (once) when
    LTC_MLIR_DUMP_DIR or LTC_MLIR_REPRODUCER_DIR cannot be written."""
    _C._check_environment()
    _C._init()
    _C._debug_enabled()  # reads LTC_MLIR_DEBUG: source lines are recorded from now on
    _tensor_fixes.install()
    _module_fixes.install()
    _sync_batch_norm.install()
    _transformer_fixes.install()
    if _torch.Tensor.contiguous is not _contiguous:
        _torch.Tensor.contiguous = _contiguous
    _raise_graph_errors_at_mark_step()
    _raise_graph_errors_at_wait_device_ops()
    # torch.compile finds the backend through its entry point; a torch._dynamo
    # imported before may have looked already.
    if "torch._dynamo" in _sys.modules:
        dynamo_backend.register()
    pipeline = _os.environ.get("LTC_MLIR_PIPELINE")
    if pipeline not in (None, "", "0", "1"):
        raise ValueError(f"LTC_MLIR_PIPELINE={pipeline!r}: use 1 to run each step's graph while "
                         "the next step traces (see ltc_mlir.set_pipelined), 0 or unset not to")
    if pipeline == "1":
        set_pipelined(True)
    global _directories_checked
    if not _directories_checked:
        _directories_checked = True
        _warn_if_unwritable("LTC_MLIR_DUMP_DIR", _C._get_dump_dir(), "set_dump_dir")
        _warn_if_unwritable("LTC_MLIR_REPRODUCER_DIR", _C._get_reproducer_dir(),
                            "set_reproducer_dir")


def _writable_dir_error(path):
    """None if `path` is (or can be made) a writable directory, else why not."""
    try:
        _os.makedirs(path, exist_ok=True)
    except OSError as e:
        return e.strerror or str(e)
    if not _os.access(path, _os.W_OK | _os.X_OK):
        return "permission denied"
    return None


def _warn_if_unwritable(variable, path, setter):
    if not path or variable not in _os.environ:
        return
    why = _writable_dir_error(path)
    if why:
        _warnings.warn(f"ltc_mlir: {variable}={path!r} cannot be written ({why}): its files "
                       f"will not be written. Point {variable} (or ltc_mlir.{setter}()) at a "
                       f"writable directory, or unset it.", RuntimeWarning, stacklevel=3)


def _replace_lazy_function(name, make):
    """torch._lazy.<name> becomes make(original) (once)."""
    original = getattr(_torch._lazy, name)
    if getattr(original, "_ltc_mlir_wrapper", False):
        return
    wrapper = _functools.wraps(original)(make(original))
    wrapper._ltc_mlir_wrapper = True
    setattr(_torch._lazy, name, wrapper)


def _raise_graph_errors_at_mark_step():
    # An error raised by a graph (a runtime check, the TorchScript fallback)
    # is kept by the backend until the end of the sync that ran it: a host
    # read (.item(), .cpu()) raises it, and so does torch._lazy.mark_step,
    # through this wrapper, once its graph and step closures have run
    # (torch 2.14's mark_step alone leaves it pending). The wrapper also
    # turns the backend's warnings while compiling into Python warnings
    # (torch's _mark_step binding installs no warning handler) and, with
    # wait=True, waits for a pipelined graph (set_pipelined).
    def make(original):
        def mark_step(device: str = "", wait=False):
            try:
                _C._call_with_python_warnings(lambda: original(device, wait=wait))
                if wait:
                    _C._drain_pipeline()  # the step's graph has run on return
            finally:
                _C._raise_pending_error()
        return mark_step
    _replace_lazy_function("mark_step", make)


def _raise_graph_errors_at_wait_device_ops():
    # wait_device_ops also waits for graphs running on the pipeline thread
    # (set_pipelined), and raises the error of one that failed: torch
    # 2.14's alone returns before they have run, and raises nothing.
    def make(original):
        def wait_device_ops(devices=None):
            try:
                original(devices) if devices is not None else original()
            finally:
                _C._drain_pipeline()
                _C._raise_pending_error()
        return wait_device_ops
    _replace_lazy_function("wait_device_ops", make)


def set_pipelined(enabled=True):
    """Pipelined execution: torch._lazy.mark_step() returns once the step's
    graph is queued, and the graph runs on a pipeline thread while Python
    traces the next step (default: off, the graph runs inside mark_step).
    Also LTC_MLIR_PIPELINE=1.

    With 2 cores the trace of a step (5-15 ms in real models) then overlaps
    the previous step's graph. Each graph runs pipelined with all threads,
    pipelined with one fewer, or with mark_step waiting for it, whichever
    gave the shortest step in the graph's first runs.
    Reading a value (.item(), .cpu()) waits for the graph computing it, and
    torch._lazy.wait_device_ops() for all of them. An error of a pipelined
    graph is raised once, by the first mark_step, value read or
    wait_device_ops after the graph failed (possibly the mark_step that
    queued it);
    the values that graph was to compute raise an error naming it when used,
    and (unlike the default mode) tensors the failed step updated in place
    do not get their old values back. Graphs that do not run natively run
    on the calling thread, after the pipeline. Turning it off waits for the
    pipeline to drain."""
    _C._set_pipelined(bool(enabled))


def get_pipelined():
    """Whether pipelined execution is on (see set_pipelined())."""
    return _C._get_pipelined()


# Graphs still running at exit would write into freed memory.
_atexit.register(_C._drain_pipeline)


_tensor_contiguous = _torch.Tensor.contiguous


def _contiguous(self, memory_format=_torch.contiguous_format):
    # Tensor.contiguous (at::TensorBase::contiguous) returns self when
    # is_contiguous() says so, without dispatching, and a lazy tensor says
    # so for every view (torch 2.14: x.t().is_contiguous() is True):
    # `x.t().contiguous()` stayed a view of x, and writing into it changed
    # x. For lazy tensors the dispatcher decides instead, from the strides
    # eager would have (ltc_backend/view_kernels.cpp).
    if not self.is_cpu and self.device.type == "lazy":
        return _torch.ops.aten.contiguous(self, memory_format=memory_format)
    return _tensor_contiguous(self, memory_format=memory_format)


def metrics():
    """Counters since the last reset_metrics(), as a dict:

    compile_count, cache_hits, execute_count, native_execute_count,
    compile_time_ms, execute_time_ms, fallback_graph_count,
    fallback_execute_count, fallback_ops (op name -> ops run outside native
    code, from graph fallback and from the eager per-op fallback),
    native_ops (op name -> ops run inside native graphs, e.g. "aten::mm"),
    disk_cache_hits / disk_cache_misses (graphs loaded from / not found in
    the persistent compile cache; compile_count counts real compiles only),
    deferred_graphs / deferred_execute_count (new shapes of large graphs
    that compiled in set_shape_variant_limit() shapes already: not compiled
    until they recur, run through the fallback meanwhile; these runs count
    in execute_count only),
    code_reuse_hits (graphs new to LTC whose module text equals a live
    compiled graph's, e.g. a step whose inputs came in another order: they
    share its code without compiling),
    batch_generic_compiles / batch_generic_hits / batch_generic_refusals /
    batch_generic_refusal_reasons (one compile for every batch size: a graph
    seen at a second batch size compiles into code taking that size per
    call; later batch sizes run it without compiling (hits); a graph whose
    two shapes cannot share code compiles per shape, with the reason;
    LTC_MLIR_BATCH_GENERIC=0 turns this off),
    meta_shape_probes / meta_shape_cache_hits (output shapes of ops kept in
    the graph by shape probing, e.g. ReLU6's hardtanh: probes run on meta
    tensors, and lookups of an already probed op and argument signature),
    compile_stage_ms (stage -> ms: emit, parse, torch_to_linalg,
    linalg_to_llvm, llvm_codegen, object_load),
    compile_reasons / compile_explanations (in debug mode, see set_debug():
    why graphs compiled, counted by kind, and the messages),
    fallback_reasons (one line per fallback graph), compiled_graphs (names
    of the dumped modules), kernel_fallback_calls ("gemm" / "convolution"
    -> calls of the runtime's oneDNN kernels computed by plain loops,
    because oneDNN was missing or refused them: right but slow). Pipelined graphs (set_pipelined) count once
    they have run: this waits for them.
    """
    _C._drain_pipeline()
    return _C._metrics()


def reset_metrics():
    """Zeroes every counter of metrics()."""
    _C._reset_metrics()


def metrics_report():
    """metrics() as readable text."""
    _C._drain_pipeline()
    return _C._metrics_report()


def _set_dir(path, setter, what):
    if path is None:
        setter("")
        return
    path = _os.path.abspath(_os.fspath(path))
    why = _writable_dir_error(path)
    if why:
        raise PermissionError(f"ltc_mlir: cannot write {what} to {path!r} ({why}); "
                              f"choose a writable directory")
    setter(path)


def set_dump_dir(path):
    """Write <graph>.torch.mlir / .linalg.mlir / .llvm.mlir for every graph
    compiled from now on into `path` (created if needed); None disables.
    Same as the LTC_MLIR_DUMP_DIR environment variable. PermissionError if
    `path` cannot be written."""
    _set_dir(path, _C._set_dump_dir, "dumps")


def get_dump_dir():
    """The current dump directory, or None."""
    return _C._get_dump_dir() or None


def set_reproducer_dir(path):
    """Where a graph the compiler fails on (a compiler bug, not an
    unsupported op) leaves a reproducer, <graph>.failed-<pid>-<n>.torch.mlir
    (the module with the error as comments; replay it with
    `ltc-mlir-opt --ltc-torch-to-llvm`). Its path is in the graph's
    fallback reason; the newest 100 are kept. Default
    /tmp/ltc_mlir_reproducers, or LTC_MLIR_REPRODUCER_DIR; None disables.
    PermissionError if `path` cannot be written."""
    _set_dir(path, _C._set_reproducer_dir, "reproducers")


def get_reproducer_dir():
    """The current reproducer directory, or None."""
    return _C._get_reproducer_dir() or None


def set_disabled_ops(ops):
    """Treat `ops` (e.g. ["aten::mm", "relu"]; a bare name means aten::)
    as unsupported in graphs compiled from now on: they and their graph run
    through the fallback. For bisecting a suspected miscompile, or testing
    fallback paths. Graphs already compiled keep their code. Same as the
    comma-separated LTC_MLIR_DISABLE_OPS; None or [] enables every op."""
    if isinstance(ops, str):
        raise TypeError("set_disabled_ops takes a list of op names, e.g. ['aten::mm']")
    _C._set_disabled_ops(list(ops or []))


def get_disabled_ops():
    """The ops set_disabled_ops() / LTC_MLIR_DISABLE_OPS disabled, qualified."""
    return _C._get_disabled_ops()


def set_debug(enabled=True):
    """Debug mode (also LTC_MLIR_DEBUG=1): each graph that compiles says on
    stderr why, against the nearest graph compiled before it -- an input
    shape or dtype that changed, a new op, a changed constant -- with the
    Python line that traced the op. metrics()["compile_reasons"] counts the
    reasons, metrics()["compile_explanations"] keeps the messages, and
    metrics_report() lists the most frequent. Recording source lines costs a
    Python stack walk per traced op: ops traced before this call have none."""
    _C._set_debug(bool(enabled))


def set_shape_variant_limit(limit):
    """How many input shapes of one graph compile at first sight (default
    LTC_MLIR_SHAPE_VARIANTS, else 2). Every new shape is a new compile;
    beyond this many, a new shape of a large graph (32 ops or more, e.g. a
    training step) runs through the fallback the first time it appears and
    compiles when it recurs, so a loop over many batch sizes stays cheap
    and a shape that repeats (an epoch's last batch) is native from its
    second run. metrics()["deferred_graphs"] / ["deferred_execute_count"]
    count them. 0 compiles every shape at once."""
    if int(limit) < 0:
        raise ValueError(f"set_shape_variant_limit: the limit must be >= 0, got {limit}")
    _C._set_shape_variant_limit(int(limit))


def set_batch_generic(enabled):
    """One compile for every batch size (default LTC_MLIR_BATCH_GENERIC,
    else on). A graph that compiled at one batch size and comes back at
    another (same ops, sizes and constants that scale with the batch) is
    compiled once more into code that takes the batch size per call; every
    later batch size of that graph runs it without compiling. Graphs whose
    two shapes cannot share code (a size that is not a multiple of the
    batch, a lowering that depends on it) compile per shape as before.
    metrics()["batch_generic_*"] count what happened."""
    _C._set_batch_generic(bool(enabled))


def get_shape_variant_limit():
    """See set_shape_variant_limit()."""
    return _C._get_shape_variant_limit()


def set_cache_dir(path):
    """Keep compiled graphs in `path` (created when first written) and reuse
    them in later processes: a graph compiled once is loaded, not compiled.
    Default: LTC_MLIR_CACHE_DIR, else ~/.cache/ltc_mlir. None disables the
    persistent cache. Entries are keyed by SHA-256 of the graph's module, the
    compiler build, the target CPU and its features."""
    _C._set_cache_dir("" if path is None else _os.path.abspath(_os.fspath(path)))


def get_cache_dir():
    """The persistent compile cache directory, or None when disabled."""
    return _C._get_cache_dir() or None


def set_cache_max_bytes(limit):
    """Size limit of the persistent cache (default LTC_MLIR_CACHE_MAX_MB,
    else 2 GiB); beyond it the least recently used graphs are removed."""
    if int(limit) <= 0:
        raise ValueError(f"set_cache_max_bytes: the limit must be positive, got {limit}")
    _C._set_cache_max_bytes(int(limit))
