"""Python-side fixes for lazy tensors, installed by init(). Each one is
needed on torch 2.14 and guarded by a test that fails without it
(docs/torch_workarounds.md); the C++ side is in ltc_backend/lazy_kernels/.

- pickling and torch.save (Tensor._reduce_ex_internal): a lazy tensor has
  no storage, and torch's own storage-less path covers only xla, maia, mtia
  and the privateuse1 backend: torch 2.14 raised "Attempted to access the
  data pointer on an invalid python storage". A lazy tensor is saved as
  its values (bytes inside the pickle) and rebuilt on the same lazy device
  by _rebuild_lazy_tensor_from_bytes, which is registered with
  torch.serialization.add_safe_globals so that torch.load's default
  (weights_only=True since torch 2.6) accepts it. Not covered:
  torch.multiprocessing's queues and process arguments, whose own tensor
  reducer shares the storage ("_share_fd_: only available on CPU"): send
  x.cpu() instead.
- storage(), is_shared(), share_memory_(): on torch 2.14 storage() returns
  a TypedStorage over an invalid storage (its data_ptr() raises "invalid
  python storage", printing it raises about aten::set.source_Storage),
  is_shared() answers True and share_memory_() does nothing. A clear error
  instead. (is_shared/share_memory_ go through Tensor._typed_storage, not
  storage(), in torch 2.x: each is wrapped.)
- torch.is_autocast_enabled("lazy"): torch has no autocast for the lazy
  device and raises "unknown device type for autocast" (Hugging Face's
  Llama rotary embedding asks it with its input's device type). Autocast
  is never on for lazy tensors: False.

Tensor.new_tensor / Tensor.new need no fix: torch 2.14's legacy
constructors work on lazy tensors.
Every fix only changes behaviour for lazy tensors.
"""
import torch

_installed = False

_NO_STORAGE = ("Lazy tensors have no storage: their values live in the lazy graph and the "
               "backend's buffers. Copy to the host with .cpu() first.")


def _rebuild_lazy_tensor_from_bytes(data, dtype, shape, device, requires_grad):
    from . import init

    init()
    if data:
        host = torch.frombuffer(bytearray(data), dtype=torch.uint8).view(dtype).reshape(shape)
    else:
        host = torch.empty(shape, dtype=dtype)
    tensor = host.to(device)
    tensor.requires_grad = requires_grad
    return tensor


def _rebuild_lazy_tensor(data, dtype, device, requires_grad):
    """Lazy tensors pickled by earlier versions (their values as a numpy array)."""
    from . import init

    init()
    tensor = torch.from_numpy(data).to(dtype=dtype, device=device)
    tensor.requires_grad = requires_grad
    return tensor


def _install_reduce(cls):
    original = cls._reduce_ex_internal

    def _reduce_ex_internal(self, proto):
        if self.device.type != "lazy":
            return original(self, proto)
        torch.utils.hooks.warn_if_has_hooks(self)
        # The values go into the pickle itself, as bytes: a CPU tensor's
        # storage would be written after the pickle by torch.save's legacy
        # format, and filled only after the rebuild had copied it.
        host = self.detach().cpu().contiguous()
        # (None when empty: protocol 2 writes b"" as a call of `bytes`,
        # which weights_only loading refuses.)
        data = host.reshape(-1).view(torch.uint8).numpy().tobytes() if host.numel() else None
        return (_rebuild_lazy_tensor_from_bytes,
                (data, self.dtype, tuple(self.shape), str(self.device), self.requires_grad))

    cls._reduce_ex_internal = _reduce_ex_internal
    torch.serialization.add_safe_globals([_rebuild_lazy_tensor_from_bytes])


def _install_no_storage(cls, name):
    original = getattr(cls, name)

    def method(self, *args, **kwargs):
        if self.device.type == "lazy":
            raise RuntimeError(_NO_STORAGE)
        return original(self, *args, **kwargs)

    method.__name__ = name
    method.__doc__ = original.__doc__
    setattr(cls, name, method)


def _install_autocast_query():
    original = torch.is_autocast_enabled

    def is_autocast_enabled(*args, **kwargs):
        device_type = args[0] if args else kwargs.get("device_type")
        if device_type == "lazy":
            return False
        return original(*args, **kwargs)
    is_autocast_enabled.__doc__ = original.__doc__
    torch.is_autocast_enabled = is_autocast_enabled


def install():
    global _installed
    if _installed:
        return
    _install_autocast_query()
    _install_reduce(torch.Tensor)
    _install_no_storage(torch.Tensor, "storage")
    _install_no_storage(torch.Tensor, "is_shared")
    _install_no_storage(torch.Tensor, "share_memory_")
    _installed = True
