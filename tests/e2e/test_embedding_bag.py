"""nn.EmbeddingBag / F.embedding_bag in sum and mean mode on the lazy device
vs eager CPU, forward and backward (weight and per_sample_weights), and a
training step (ltc_backend/lazy_kernels/embedding_bag_kernel.cpp): every
graph native, nothing through the eager fallback."""
import pytest
import torch
import torch.nn.functional as F
import torch._lazy.metrics as lazy_metrics

import ltc_mlir
from lazy_testing import assert_all_native, eager_fallback_ops


@pytest.fixture(autouse=True)
def _init():
    ltc_mlir.init()
    ltc_mlir.reset_metrics()
    lazy_metrics.reset()


def gen(seed):
    return torch.Generator().manual_seed(seed)


W = torch.randn(12, 5, generator=gen(0))
IDX = torch.tensor([1, 2, 4, 5, 4, 3, 2, 9, 0, 11, 7])
OFFSETS = torch.tensor([0, 3, 3, 8])  # an empty bag in the middle

CASES = {
    "sum": dict(mode="sum"),
    "mean": dict(mode="mean"),
    "mean_padding": dict(mode="mean", padding_idx=4),
    "sum_padding_negative": dict(mode="sum", padding_idx=-1),
    "sum_per_sample_weights": dict(mode="sum", per_sample_weights=True),
    "sum_include_last_offset": dict(mode="sum", include_last_offset=True),
    "mean_2d_input": dict(mode="mean", two_d=True),
}


def run(device, mode, padding_idx=None, per_sample_weights=False, include_last_offset=False,
        two_d=False):
    w = W.clone().to(device).requires_grad_()
    psw = None
    if per_sample_weights:
        psw = torch.rand(IDX.numel(), generator=gen(1)).to(device).requires_grad_()
    if two_d:
        out = F.embedding_bag(IDX[:10].view(2, 5).to(device), w, mode=mode, padding_idx=padding_idx)
    else:
        offsets = OFFSETS if not include_last_offset else torch.tensor([0, 3, 3, 8, 11])
        out = F.embedding_bag(IDX.to(device), w, offsets.to(device), mode=mode,
                              per_sample_weights=psw, include_last_offset=include_last_offset,
                              padding_idx=padding_idx)
    cot = torch.randn(out.shape, generator=gen(2)).to(device)
    (out * cot).sum().backward()
    if device == "lazy":
        torch._lazy.mark_step()
    results = [out.detach().cpu(), w.grad.cpu()]
    if psw is not None:
        results.append(psw.grad.cpu())
    return results


@pytest.mark.parametrize("name", sorted(CASES))
def test_embedding_bag_matches_eager(name):
    eager = run("cpu", **CASES[name])
    lazy = run("lazy", **CASES[name])
    for e, l in zip(eager, lazy):
        torch.testing.assert_close(l, e, rtol=1e-6, atol=1e-6)
    assert eager_fallback_ops() == []
    assert_all_native()


def test_embedding_bag_module_training_matches_eager():
    torch.manual_seed(0)
    bag = torch.nn.EmbeddingBag(50, 8, mode="mean")
    head = torch.nn.Linear(8, 2)
    idx = torch.randint(0, 50, (40,), generator=gen(3))
    offsets = torch.tensor([0, 7, 15, 22, 30])
    target = torch.tensor([0, 1, 1, 0, 1])
    params = []
    for device in ("cpu", "lazy"):
        b = torch.nn.EmbeddingBag(50, 8, mode="mean")
        b.load_state_dict(bag.state_dict())
        h = torch.nn.Linear(8, 2)
        h.load_state_dict(head.state_dict())
        b.to(device), h.to(device)
        opt = torch.optim.Adam(list(b.parameters()) + list(h.parameters()), lr=0.05)
        for _ in range(3):
            opt.zero_grad()
            loss = F.cross_entropy(h(b(idx.to(device), offsets.to(device))), target.to(device))
            loss.backward()
            opt.step()
            if device == "lazy":
                torch._lazy.mark_step()
        params.append([p.detach().cpu() for p in list(b.parameters()) + list(h.parameters())])
    for e, l in zip(*params):
        torch.testing.assert_close(l, e, rtol=1e-5, atol=1e-6)
    assert eager_fallback_ops() == []
    assert_all_native()


def test_max_mode_keeps_eagers_values():
    # Max mode keeps the composite (and runs through the eager fallback).
    out_e = F.embedding_bag(IDX, W, OFFSETS, mode="max")
    out_l = F.embedding_bag(IDX.to("lazy"), W.to("lazy"), OFFSETS.to("lazy"), mode="max")
    torch.testing.assert_close(out_l.cpu(), out_e, rtol=0, atol=0)
