"""ltc_mlir: a PyTorch LazyTensorCore backend compiling graphs through MLIR.

    import torch, ltc_mlir
    ltc_mlir.init()
    model = model.to("lazy")
    ...  # forward, backward, optimizer step
    torch._lazy.mark_step()     # the step's graph is compiled (once) and run natively
    print(ltc_mlir.metrics_report())
"""
import os as _os

import torch as _torch  # loads libtorch before our extension needs it
import torch._lazy  # noqa: F401  (makes torch._lazy.mark_step available)

from . import _C

__all__ = ["init", "metrics", "reset_metrics", "metrics_report", "set_dump_dir", "get_dump_dir"]


def init():
    """Registers the ltc_mlir backend for the `lazy` device. Idempotent."""
    _C._init()
    if _torch.Tensor.contiguous is not _contiguous:
        _torch.Tensor.contiguous = _contiguous


_tensor_contiguous = _torch.Tensor.contiguous


def _contiguous(self, memory_format=_torch.contiguous_format):
    # Python's Tensor.contiguous returns self when is_contiguous() says so,
    # which lazy tensors always do (torch 1.13): `x.t().contiguous()` stayed
    # a view of x, and writing into it changed x. For lazy tensors the
    # dispatcher decides instead, from the strides eager would have
    # (ltc_backend/view_kernels.cpp).
    if not self.is_cpu and self.device.type == "lazy":
        return _torch.ops.aten.contiguous(self, memory_format=memory_format)
    return _tensor_contiguous(self, memory_format=memory_format)


def metrics():
    """Counters since the last reset_metrics(), as a dict:

    compile_count, cache_hits, execute_count, native_execute_count,
    compile_time_ms, execute_time_ms, fallback_graph_count,
    fallback_execute_count, fallback_ops (op name -> ops run outside native
    code, from graph fallback and from the eager per-op fallback),
    fallback_reasons (one line per fallback graph), compiled_graphs (names
    of the dumped modules).
    """
    return _C._metrics()


def reset_metrics():
    """Zeroes every counter of metrics()."""
    _C._reset_metrics()


def metrics_report():
    """metrics() as readable text."""
    return _C._metrics_report()


def set_dump_dir(path):
    """Write <graph>.torch.mlir / .linalg.mlir / .llvm.mlir for every graph
    compiled from now on into `path` (created if needed); None disables.
    Same as the LTC_MLIR_DUMP_DIR environment variable."""
    if path is None:
        _C._set_dump_dir("")
        return
    path = _os.fspath(path)
    _os.makedirs(path, exist_ok=True)
    _C._set_dump_dir(_os.path.abspath(path))


def get_dump_dir():
    """The current dump directory, or None."""
    return _C._get_dump_dir() or None
