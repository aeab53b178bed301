"""Transformer inference with key padding masks against eager CPU
(python/ltc_mlir/_transformer_fixes.py): in eval mode without gradients,
eager's TransformerEncoder packs the batch into nested tensors, which zeros
the padded positions before the final norm (torch 2.14 keeps src's
length); the lazy device computes the regular path and gives the same
result. Cases where
eager keeps the regular path (mask not left-aligned, odd head count,
training, gradients enabled, an attention mask too) stay as computed."""
import pytest
import torch

import ltc_mlir
from lazy_testing import assert_all_native

PAD = {
    "tail": [[False] * 7, [False] * 5 + [True] * 2, [False] * 3 + [True] * 4],
    "all_padded_tail": [[False] * 5 + [True] * 2, [False] * 4 + [True] * 3, [False] * 2 + [True] * 5],
    "not_left_aligned": [[False] * 7, [True] + [False] * 6, [False] * 3 + [True] * 4],
    "none_padded": [[False] * 7] * 3,
}


def encoder_outputs(device, pad, heads=4, train=False, grad=False, float_mask=False,
                    with_attn_mask=False):
    torch.manual_seed(0)
    layer = torch.nn.TransformerEncoderLayer(16, heads, 32, dropout=0.0, batch_first=True)
    encoder = torch.nn.TransformerEncoder(layer, 2).to(device).train(train)
    x = torch.randn(3, 7, 16, generator=torch.Generator().manual_seed(1)).to(device)
    mask = torch.tensor(PAD[pad])
    if float_mask:
        mask = torch.zeros(mask.shape).masked_fill(mask, float("-inf"))
    attn = torch.zeros(7, 7).to(device) if with_attn_mask else None
    with torch.set_grad_enabled(grad):
        out = encoder(x, mask=attn, src_key_padding_mask=mask.to(device))
    return out.detach().cpu()


@pytest.mark.parametrize("pad", sorted(PAD))
@pytest.mark.parametrize("variant", ["eval", "float_mask", "odd_heads", "train", "grad",
                                     "with_attn_mask"])
def test_encoder_matches_eager(pad, variant):
    kwargs = {"eval": {}, "float_mask": {"float_mask": True}, "odd_heads": {"heads": 1},
              "train": {"train": True}, "grad": {"grad": True},
              "with_attn_mask": {"with_attn_mask": True}}[variant]
    eager = encoder_outputs("cpu", pad, **kwargs)
    ltc_mlir.reset_metrics()
    lazy = encoder_outputs("lazy", pad, **kwargs)
    assert lazy.shape == eager.shape
    torch.testing.assert_close(lazy, eager, rtol=1e-5, atol=1e-5)
    assert_all_native()


def test_padded_positions_zeroed_like_eager():
    # The nested path's visible effects on torch 2.14, which the lazy result
    # reproduces: 0 at the padded positions, src's length.
    eager = encoder_outputs("cpu", "all_padded_tail")
    lazy = encoder_outputs("lazy", "all_padded_tail")
    assert lazy.shape == eager.shape == (3, 7, 16)
    for row, kept in enumerate((5, 4, 2)):
        assert torch.count_nonzero(eager[row, kept:]) == 0
        assert torch.count_nonzero(lazy[row, kept:]) == 0
        assert torch.count_nonzero(lazy[row, :kept]) == kept * 16


def test_encoder_with_final_norm_matches_eager():
    # Eager's final norm runs after the nested tensor is padded with zeros:
    # its padded positions are the norm's bias.
    outs = []
    for device in ("cpu", "lazy"):
        torch.manual_seed(0)
        layer = torch.nn.TransformerEncoderLayer(16, 4, 32, dropout=0.0, batch_first=True)
        norm = torch.nn.LayerNorm(16)
        torch.nn.init.normal_(norm.bias)
        encoder = torch.nn.TransformerEncoder(layer, 2, norm=norm).to(device).eval()
        x = torch.randn(3, 7, 16, generator=torch.Generator().manual_seed(1)).to(device)
        ltc_mlir.reset_metrics()
        with torch.no_grad():
            out = encoder(x, src_key_padding_mask=torch.tensor(PAD["tail"]).to(device))
        outs.append(out.cpu())
    torch.testing.assert_close(outs[1], outs[0], rtol=1e-5, atol=1e-5)
    assert_all_native()


def test_transformer_decoder_over_padded_memory_matches_eager():
    # The decoder attends to every memory position (no memory mask): eager's
    # zeros in the padded memory positions change its output.
    outs = []
    for device in ("cpu", "lazy"):
        torch.manual_seed(0)
        model = torch.nn.Transformer(16, 4, 1, 1, 32, dropout=0.0, batch_first=True).to(device).eval()
        g = torch.Generator().manual_seed(1)
        src, tgt = torch.randn(3, 7, 16, generator=g).to(device), torch.randn(3, 5, 16, generator=g).to(device)
        causal = torch.nn.Transformer.generate_square_subsequent_mask(5).to(device)
        with torch.no_grad():
            out = model(src, tgt, tgt_mask=causal,
                        src_key_padding_mask=torch.tensor(PAD["tail"]).to(device))
        outs.append(out.cpu())
    torch.testing.assert_close(outs[1], outs[0], rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("value", ["scalar", "tensor"])
def test_masked_fill_broadcasts_self_like_eager(value):
    # torch's lazy masked_fill keeps self's shape: MultiheadAttention's
    # merge of a [1, L, S] attention mask with a [B*heads, 1, S] padding mask
    # was mis-shaped (a partitioned graph then failed on the shapes).
    g = torch.Generator().manual_seed(2)
    x = torch.randn(1, 7, 7, generator=g)
    mask = torch.rand(12, 1, 7, generator=g) > 0.5
    fill = -1.5 if value == "scalar" else torch.tensor(-1.5)
    eager = x.masked_fill(mask, fill)
    ltc_mlir.reset_metrics()
    lazy_fill = fill if value == "scalar" else fill.to("lazy")
    lazy = x.to("lazy").masked_fill(mask.to("lazy"), lazy_fill).cpu()
    assert lazy.shape == eager.shape == (12, 7, 7)
    assert torch.equal(lazy, eager)
    assert_all_native()


def test_attention_with_both_masks_in_eval_matches_eager():
    outs = []
    for device in ("cpu", "lazy"):
        torch.manual_seed(0)
        mha = torch.nn.MultiheadAttention(16, 4, batch_first=True).to(device).eval()
        x = torch.randn(3, 7, 16, generator=torch.Generator().manual_seed(1)).to(device)
        with torch.no_grad():
            out, weights = mha(x, x, x, attn_mask=torch.zeros(7, 7).to(device),
                               key_padding_mask=torch.tensor(PAD["tail"]).to(device))
        outs.append((out.cpu(), weights.cpu()))
    for e, l in zip(*outs):
        torch.testing.assert_close(l, e, rtol=1e-5, atol=1e-5)
