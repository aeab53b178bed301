"""A small transformer-style block trained with SGD on the lazy device:
embedding -> layer_norm -> Linear -> gelu -> Linear -> cross_entropy. Every
step (forward, backward with embedding_dense_backward and
native_layer_norm_backward, SGD update) is one native graph; after the first
step the graph comes from the compile cache, and the parameters track eager
PyTorch."""
import copy

import pytest
import torch
import torch.nn.functional as F

import ltc_mlir

VOCAB, DIM, HIDDEN = 50, 32, 64


class Block(torch.nn.Module):
    def __init__(self, approximate):
        super().__init__()
        self.embed = torch.nn.Embedding(VOCAB, DIM, padding_idx=0)
        self.norm = torch.nn.LayerNorm(DIM)
        self.up = torch.nn.Linear(DIM, HIDDEN)
        self.down = torch.nn.Linear(HIDDEN, VOCAB)
        self.approximate = approximate

    def forward(self, tokens):
        h = self.norm(self.embed(tokens))
        h = F.gelu(self.up(h), approximate=self.approximate)
        return self.down(h)


def batches(steps, batch=8, seq=12):
    g = torch.Generator().manual_seed(7)
    out = []
    for _ in range(steps):
        tokens = torch.randint(0, VOCAB, (batch, seq), generator=g)
        tokens[:, -1] = 0  # the padding row gets no gradient
        out.append((tokens, torch.roll(tokens, -1, dims=1).reshape(-1)))
    return out


def train(model, device, data):
    opt = torch.optim.SGD(model.parameters(), lr=0.5)
    losses = []
    for tokens, targets in data:
        opt.zero_grad()
        logits = model(tokens.to(device))
        loss = F.cross_entropy(logits.reshape(-1, VOCAB), targets.to(device))
        loss.backward()
        opt.step()
        if device == "lazy":
            torch._lazy.mark_step()
        losses.append(loss.detach().to("cpu"))
    return torch.stack(losses)


@pytest.mark.parametrize("approximate", ["none", "tanh"])
def test_mini_transformer_block_sgd_matches_eager(approximate):
    torch.manual_seed(0)
    eager = Block(approximate)
    lazy = copy.deepcopy(eager).to("lazy")
    data = batches(6)
    padding_row = eager.embed.weight[0].detach().clone()
    ltc_mlir.reset_metrics()
    lazy_losses = train(lazy, "lazy", data)
    eager_losses = train(eager, "cpu", data)

    # rtol 1e-5 as for the MLP; atol 1e-6 covers parameters that SGD drives
    # close to zero (the relative error of a value near 0 is meaningless).
    torch.testing.assert_close(lazy_losses, eager_losses, rtol=1e-5, atol=1e-6)
    for (name, p), q in zip(lazy.named_parameters(), eager.parameters()):
        torch.testing.assert_close(p.detach().cpu(), q.detach(), rtol=1e-5, atol=1e-6,
                                   msg=lambda m: f"parameter {name}: {m}")
    m = ltc_mlir.metrics()
    assert m["fallback_ops"] == {}, m["fallback_reasons"]
    assert m["fallback_graph_count"] == 0, m["fallback_reasons"]
    assert 1 <= m["compile_count"] <= 3, m
    assert m["cache_hits"] >= 3, m
    assert m["native_execute_count"] >= 6, m
    assert lazy_losses[-1] < lazy_losses[0]
    # padding_idx: the embedding row 0 gets no gradient, so SGD never moves it.
    assert torch.equal(lazy.embed.weight.detach().cpu()[0], padding_row)
