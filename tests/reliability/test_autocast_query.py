"""torch.is_autocast_enabled of the lazy device (python/ltc_mlir/_tensor_fixes.py)."""
import torch


def test_autocast_query_of_the_lazy_device_is_false():
    # torch 2.14 raised "unknown device type for autocast" (Hugging Face's
    # Llama asks it in its rotary embedding): _tensor_fixes answers False.
    assert torch.is_autocast_enabled("lazy") is False
    assert torch.is_autocast_enabled("cpu") is False
