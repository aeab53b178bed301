"""nn.TransformerEncoder in inference with a key padding mask, on the lazy
device, returns what eager CPU returns.

In eval mode without gradients, torch 2.14's TransformerEncoder.forward
packs the batch into a nested tensor (its "sparsity fast path") when the
device is CPU, CUDA, XPU or the privateuse1 backend, and unpacks it after
the layers with `to_padded_tensor(0., src.size())`, before the final norm:
the padded positions enter the norm as zeros. A lazy tensor takes the
regular path, where the padded positions hold computed values, and a
Transformer's decoder attending to that memory without a memory mask gave
other numbers than eager. Here, when eager would have taken the nested path
(the same conditions but the device's), the padded positions of the
layers' result are set to 0 before the final norm. The values at the real
positions are the same in both paths. (torch 2.14's nested path keeps
src's length, so no trimming is needed.)
"""
import torch
import torch.nn.functional as F

_original_forward = torch.nn.TransformerEncoder.forward
_installed = False


def _would_nest(encoder, src, mask, src_key_padding_mask):
    """Whether eager (on the CPU) would run `encoder` through nested tensors:
    the conditions of TransformerEncoder.forward in torch 2.14 without the
    device check (the layers' own conditions are in use_nested_tensor, set
    by __init__). Reads whether the mask is left-aligned (one sync, as
    eager's check)."""
    layer = encoder.layers[0]
    if (not torch.backends.mha.get_fastpath_enabled()
            or not getattr(encoder, "use_nested_tensor", False) or layer.training
            or src.dim() != 3 or src_key_padding_mask is None or src.is_nested
            or mask is not None or torch.is_autocast_enabled()):
        return False
    weights = (layer.self_attn.in_proj_weight, layer.self_attn.in_proj_bias,
               layer.self_attn.out_proj.weight, layer.self_attn.out_proj.bias,
               layer.norm1.weight, layer.norm1.bias, layer.norm2.weight, layer.norm2.bias,
               layer.linear1.weight, layer.linear1.bias, layer.linear2.weight, layer.linear2.bias)
    if torch.overrides.has_torch_function((src,) + weights):
        return False
    if torch.is_grad_enabled() and any(t.requires_grad for t in (src,) + weights):
        return False
    keep = src_key_padding_mask.logical_not()
    if tuple(keep.shape) != tuple(src.shape[:2]):
        return False
    if getattr(encoder, "mask_check", True):
        # Left-aligned: every row keeps a prefix (no kept position after a
        # padded one).
        gaps = torch.logical_and(keep[:, 1:], keep[:, :-1].logical_not())
        if bool(gaps.any()):
            return False
    return True


def _encoder_forward(self, src, mask=None, src_key_padding_mask=None, is_causal=None):
    if src.device.type != "lazy":
        return _original_forward(self, src, mask, src_key_padding_mask, is_causal)
    # As eager's forward: a bool mask becomes a float one (0 kept, -inf padded).
    padding = F._canonical_mask(
        mask=src_key_padding_mask, mask_name="src_key_padding_mask",
        other_type=F._none_or_dtype(mask), other_name="mask", target_type=src.dtype)
    nest = _would_nest(self, src, mask, padding)
    # Lazy takes the regular path whatever the mask: skip torch's
    # left-alignment check, which has no lazy kernel (an eager fallback op).
    # When eager nests, its final norm sees the zeros: it runs after them here.
    had_check, check = hasattr(self, "mask_check"), getattr(self, "mask_check", True)
    norm = self.norm if nest else None
    self.mask_check = False
    if norm is not None:
        self.norm = None
    try:
        output = _original_forward(self, src, mask, src_key_padding_mask, is_causal)
    finally:
        if had_check:
            self.mask_check = check
        else:
            del self.mask_check
        if norm is not None:
            self.norm = norm
    if not nest:
        return output
    # Eager's nested tensor leaves out the positions whose mask is nonzero.
    output = output.masked_fill((padding != 0).unsqueeze(-1), 0.0)
    return norm(output) if norm is not None else output


def install():
    global _installed
    if _installed:
        return
    torch.nn.TransformerEncoder.forward = _encoder_forward
    _installed = True
