"""nn.Module fixes for the lazy device.

Shared (tied) parameters: `Module._apply` (behind `.to`, `.cuda`, `.half`...)
keeps a shared parameter shared only when it can swap the tensor inside the
existing Parameter (`param.data = new`, torch 2.14's default), which needs
the old and new tensor types to be compatible
(torch._has_compatible_shallow_copy_type). A CPU tensor and a lazy one are
not, so each module got its own new Parameter: on torch 2.14 too,
`model.to("lazy")` untied nanoGPT's `wte.weight is lm_head.weight`, each
copy learned from half the gradient and training diverged from eager
silently. (torch.__future__.set_swap_module_params_on_conversion(True)
would keep them tied, but it is off by default.) Here the outermost
`_apply` re-ties whatever was one Parameter (or buffer) before it ran.
Buffers are replaced one by one by torch (`_buffers[key] = fn(buf)`), so a
shared buffer is re-tied too, by every conversion, CPU ones included.
"""
import torch

_installed = False
_original_apply = torch.nn.Module._apply
_depth = 0


def _slots(module):
    """(owner, dict name, key, tensor) of every parameter and buffer."""
    for owner in module.modules():
        for kind in ("_parameters", "_buffers"):
            for key, tensor in getattr(owner, kind).items():
                if tensor is not None:
                    yield owner, kind, key, tensor


def _apply_keeping_shared_tensors(self, fn, *args, **kwargs):
    global _depth
    if _depth:
        return _original_apply(self, fn, *args, **kwargs)
    before = [(owner, kind, key, id(tensor)) for owner, kind, key, tensor in _slots(self)]
    _depth += 1
    try:
        result = _original_apply(self, fn, *args, **kwargs)
    finally:
        _depth -= 1
    first_new = {}
    for owner, kind, key, old_id in before:
        slots = getattr(owner, kind)
        new = slots.get(key)
        if new is None:
            continue
        kept = first_new.setdefault(old_id, new)
        if kept is not new:
            slots[key] = kept
    return result


def install():
    global _installed
    if _installed:
        return
    torch.nn.Module._apply = _apply_keeping_shared_tensors
    _installed = True
