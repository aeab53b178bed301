"""Python-side fixes for lazy tensors, installed by init() (written on torch
1.13; the autocast one is torch 2.x's).

torch.Tensor methods that fail on the lazy device for reasons unrelated to
the computation (the C++ side is in ltc_backend/lazy_kernels/):

- pickling, torch.save, multiprocessing: a lazy tensor has no storage, and
  torch only special-cases xla/ort/hpu. Like those, it is saved as its
  values (a numpy array) and rebuilt on the same lazy device.
- new_tensor / new: the legacy constructors take the device from the
  tensor's dispatch keys and fail on the Functionalize key ("DispatchKey
  Functionalize doesn't correspond to a device").
- storage() (and is_shared/share_memory_, which use it): a clear error
  instead of "python bindings to nullptr storage ... are currently unsafe".

- torch.is_autocast_enabled("lazy"): torch has no autocast for the lazy
  device and raised "unknown device type for autocast" (Hugging Face's
  Llama rotary embedding asks it with its input's device type). Autocast
  is never on for lazy tensors: False.
Every fix only changes behaviour for lazy tensors.
"""
import torch

_installed = False


def _rebuild_lazy_tensor(data, dtype, device, requires_grad):
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
        host = self.detach().cpu()
        if host.dtype == torch.bfloat16:  # numpy has no bfloat16
            host = host.float()
        return (_rebuild_lazy_tensor,
                (host.numpy(), self.dtype, str(self.device), self.requires_grad))

    cls._reduce_ex_internal = _reduce_ex_internal


def _install_constructors(cls):
    original_new_tensor = cls.new_tensor
    original_new = cls.new

    def new_tensor(self, data, dtype=None, device=None, requires_grad=False):
        if self.device.type != "lazy":
            return original_new_tensor(self, data, dtype=dtype, device=device,
                                       requires_grad=requires_grad)
        return torch.tensor(data, dtype=dtype or self.dtype, device=device or self.device,
                            requires_grad=requires_grad)

    def new(self, *args, **kwargs):
        if self.device.type != "lazy":
            return original_new(self, *args, **kwargs)
        # Built on the CPU with the same legacy rules, then moved.
        return original_new(torch.empty(0, dtype=self.dtype), *args, **kwargs).to(self.device)

    new_tensor.__doc__ = original_new_tensor.__doc__
    cls.new_tensor = new_tensor
    cls.new = new


def _install_storage(cls):
    original = cls.storage

    def storage(self):
        if self.device.type == "lazy":
            raise RuntimeError(
                "Lazy tensors have no storage: their values live in the lazy graph and the "
                "backend's buffers. Copy to the host with .cpu() first.")
        return original(self)

    storage.__doc__ = original.__doc__
    cls.storage = storage


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
    _install_constructors(torch.Tensor)
    _install_storage(torch.Tensor)
    _installed = True
