"""Real models through torch.compile(backend="ltc_mlir"): forward and
backward against eager PyTorch (eval mode, so that dropout does not draw
different masks), and what ran natively."""
import copy

import pytest
import torch

import ltc_mlir

TOL = dict(rtol=1e-4, atol=1e-5)


def _gpt2():
    import transformers
    torch.manual_seed(0)
    cfg = transformers.GPT2Config(n_layer=2, n_embd=64, n_head=4, vocab_size=300,
                                  n_positions=32, bos_token_id=0, eos_token_id=0)
    return transformers.GPT2LMHeadModel(cfg).eval(), \
        lambda m, ids: m(input_ids=ids, labels=ids).loss, \
        (torch.randint(0, 300, (2, 16), generator=torch.Generator().manual_seed(1)),)


def _mobilenet():
    import torchvision
    torch.manual_seed(0)
    return torchvision.models.mobilenet_v2(num_classes=10).eval(), \
        lambda m, x: m(x).square().mean(), \
        (torch.randn(2, 3, 32, 32, generator=torch.Generator().manual_seed(1)),)


@pytest.mark.parametrize("build", [_gpt2, _mobilenet], ids=["gpt2", "mobilenet_v2"])
def test_forward_and_backward_match_eager(build):
    """GPT-2's first forward runs under AOTAutograd's custom-op analysis
    mode; traced under it, its position ids' view failed on the lazy device
    and the whole forward ran eagerly. The build now leaves the caller's
    dispatch modes."""
    model, loss_fn, inputs = build()
    ref = copy.deepcopy(model)
    loss = loss_fn(torch.compile(model, backend="ltc_mlir"), *inputs)
    loss.backward()
    ref_loss = loss_fn(ref, *inputs)
    ref_loss.backward()
    torch.testing.assert_close(loss, ref_loss, **TOL)
    for (name, p), r in zip(model.named_parameters(), ref.parameters()):
        torch.testing.assert_close(p.grad, r.grad, rtol=1e-3, atol=1e-5, msg=name)
    m = ltc_mlir.metrics()
    assert m["replay_eager_graphs"] == 0, m["fallback_reasons"]
    assert m["replay_graphs"] >= 2
    # GPT-2's attention is the CPU flash-attention op in Dynamo's graphs
    # (and its backward): replaced by math ops, it compiles too.
    assert m["fallback_ops"] == {}, m["fallback_ops"]
    assert m["fallback_graph_count"] == 0, m["fallback_reasons"]


@pytest.mark.parametrize("variant", ["plain", "causal", "bool_mask", "float_mask", "scale"])
def test_attention_forward_and_backward_match_eager(variant):
    """scaled_dot_product_attention traced by Dynamo on the CPU is the flash
    kernel and its backward; ours are math ops from the saved logsumexp."""
    g = torch.Generator().manual_seed(2)
    q, k, v = (torch.randn(2, 3, 5, 8, generator=g) for _ in range(3))
    kwargs = {"plain": {}, "causal": {"is_causal": True}, "scale": {"scale": 0.3},
              "bool_mask": {"attn_mask": torch.rand(5, 5, generator=g) > 0.3},
              "float_mask": {"attn_mask": torch.randn(5, 5, generator=g)}}[variant]
    if variant == "bool_mask":
        kwargs["attn_mask"].fill_diagonal_(True)  # no fully masked row

    def attention(q, k, v):
        return torch.nn.functional.scaled_dot_product_attention(q, k, v, **kwargs)

    def run(fn):
        inputs = [t.clone().requires_grad_() for t in (q, k, v)]
        out = fn(*inputs)
        (out * torch.linspace(-1, 1, out.shape[-1])).sum().backward()
        return [out] + [t.grad for t in inputs]

    got = run(torch.compile(attention, backend="ltc_mlir"))
    expected = run(attention)
    for name, a, b in zip(("out", "grad_q", "grad_k", "grad_v"), got, expected):
        torch.testing.assert_close(a, b, rtol=1e-4, atol=1e-5, msg=name)
    m = ltc_mlir.metrics()
    assert m["fallback_ops"] == {} and m["replay_eager_graphs"] == 0, m["fallback_ops"]
