"""nn.TransformerEncoder in inference with a key padding mask, on the lazy
device, returns what eager CPU returns.

In eval mode without gradients, torch 1.13's TransformerEncoder.forward
packs the batch into a nested tensor (its "sparsity fast path") when the
device is CPU or CUDA, and unpacks it at the end with
`to_padded_tensor(0.)`: the padded positions of the result are 0, and the
result is only as long as the longest sequence. A lazy tensor is neither
CPU nor CUDA, so it took the regular path: the padded positions held
computed values, and a Transformer's decoder attending to that memory
without a memory mask gave other numbers than eager (0.38 off). Here, when
eager would have taken the nested path (the same conditions but the
device's), the regular path's result gets the same zeros and length. The
values at the real positions are the same in both paths.
"""
import torch

_original_forward = torch.nn.TransformerEncoder.forward
_installed = False


def _would_nest(encoder, src, mask, src_key_padding_mask):
    """Whether eager (on the CPU) would run `encoder` through nested tensors:
    the conditions of TransformerEncoder.forward in torch 1.13 without the
    device check. Reads whether the mask is left-aligned (one sync, as
    eager's check)."""
    layer = encoder.layers[0]
    if (not isinstance(layer, torch.nn.TransformerEncoderLayer) or layer.norm_first
            or layer.training or not layer.self_attn.batch_first
            or not layer.self_attn._qkv_same_embed_dim or not layer.activation_relu_or_gelu
            or layer.norm1.eps != layer.norm2.eps or src.dim() != 3
            or not encoder.enable_nested_tensor or src_key_padding_mask is None
            or src.is_nested or mask is not None or layer.self_attn.num_heads % 2 == 1
            or torch.is_autocast_enabled()):
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


def _encoder_forward(self, src, mask=None, src_key_padding_mask=None):
    if src.device.type != "lazy":
        return _original_forward(self, src, mask, src_key_padding_mask)
    nest = _would_nest(self, src, mask, src_key_padding_mask)
    # Lazy takes the regular path whatever the mask: skip torch's
    # left-alignment check, which has no lazy kernel (an eager fallback op).
    had_attr, check = hasattr(self, "mask_check"), getattr(self, "mask_check", True)
    self.mask_check = False
    try:
        output = _original_forward(self, src, mask, src_key_padding_mask)
    finally:
        if had_attr:
            self.mask_check = check
        else:
            del self.mask_check
    if not nest:
        return output
    keep = src_key_padding_mask.logical_not()
    longest = int(keep.sum(1).max())
    output = output.masked_fill(keep.logical_not().unsqueeze(-1), 0.0)
    return output[:, :longest]


def install():
    global _installed
    if _installed:
        return
    torch.nn.TransformerEncoder.forward = _encoder_forward
    _installed = True
