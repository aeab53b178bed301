"""native_dropout / native_dropout_backward compiled natively.

The native mask cannot be eager's (eager consumes a Mersenne twister
serially; the compiled code hashes a per-run seed with the element index),
so these tests check that it is a correct dropout instead: the fraction
kept is within 5 sigma of 1 - p, kept values are x / (1 - p) (computed as
ATen does, x * (1 / (1 - p))), dropped ones 0, the mask is returned and the
backward uses it, every run (step) draws a new mask, torch.manual_seed
makes runs reproducible, and p = 0, p = 1 and train=False behave as eager.
"""
import math

import pytest
import torch
import torch.nn as nn
import torch.nn.functional as F

import ltc_mlir
from lazy_testing import assert_all_native

N = 100_000


def lazy_dropout(x_cpu, p, train=True, grad_seed=0):
    """Runs native_dropout (+ backward of sum(out * cot)) in one graph;
    returns out, mask, grad as CPU tensors and the cotangent."""
    x = x_cpu.detach().to("lazy").requires_grad_()
    out, mask = torch.native_dropout(x * 1.0, p, train)
    cot = torch.randn(x_cpu.shape, generator=torch.Generator().manual_seed(grad_seed))
    (out * cot.to("lazy")).sum().backward()
    torch._lazy.mark_step()
    return out.cpu(), mask.cpu(), x.grad.cpu(), cot


def check_sigma(kept, n, p):
    q = 1 - p
    sigma = math.sqrt(n * p * q)
    assert abs(kept - n * q) <= 5 * sigma, (kept, n * q, sigma)


@pytest.mark.parametrize("p", [0.1, 0.2, 0.5, 0.9])
def test_dropout_statistics_values_and_backward(p):
    x = torch.randn(N) * 3 + 0.5
    out, mask, grad, cot = lazy_dropout(x, p)
    assert mask.dtype == torch.bool and mask.shape == x.shape
    check_sigma(int(mask.sum()), N, p)
    scale = 1.0 / (1.0 - p)
    expected = torch.where(mask, x * scale, torch.zeros(()))
    torch.testing.assert_close(out, expected, rtol=1e-6, atol=0)
    torch.testing.assert_close(out[mask], x[mask] / (1 - p), rtol=1e-6, atol=0)
    assert (out[~mask] == 0).all()
    # Backward: grad = cot * mask * scale, the forward's mask.
    torch.testing.assert_close(grad, torch.where(mask, cot * scale, torch.zeros(())),
                               rtol=1e-6, atol=0)
    assert_all_native()


def test_mask_has_no_visible_structure():
    # Halves, even/odd positions, rows of a 2-D tensor: each kept at 1 - p.
    p = 0.3
    x = torch.ones(200, 500)
    _, mask, _, _ = lazy_dropout(x, p)
    flat = mask.reshape(-1)
    for part in (flat[: N // 2], flat[N // 2:], flat[0::2], flat[1::2], mask[:, 0], mask[:, -1]):
        check_sigma(int(part.sum()), part.numel(), p)
    # Neighbours independent: P(both kept) ~ (1 - p)^2.
    both = int((flat[1:] & flat[:-1]).sum())
    n, q2 = flat.numel() - 1, (1 - p) ** 2
    assert abs(both - n * q2) <= 5 * math.sqrt(n * q2 * (1 - q2))
    assert_all_native()


def test_successive_steps_draw_new_masks_from_one_compiled_graph():
    x = torch.randn(4096)
    masks = [lazy_dropout(x, 0.5)[1] for _ in range(3)]
    m = ltc_mlir.metrics()
    assert m["cache_hits"] >= 2, m  # the same graph, run again
    for a, b in ((0, 1), (1, 2), (0, 2)):
        agree = (masks[a] == masks[b]).float().mean().item()
        assert 0.45 < agree < 0.55, agree  # independent masks agree ~50%
    assert_all_native()


def test_manual_seed_makes_masks_reproducible():
    x = torch.randn(1000)
    torch.manual_seed(11)
    a = lazy_dropout(x, 0.4)[1]
    torch.manual_seed(11)
    b = lazy_dropout(x, 0.4)[1]
    assert torch.equal(a, b)
    assert_all_native()


def test_two_dropouts_in_one_graph_are_independent():
    x = torch.ones(20000).to("lazy")
    _, m1 = torch.native_dropout(x, 0.5, True)
    _, m2 = torch.native_dropout(x, 0.5, True)
    torch._lazy.mark_step()
    agree = (m1.cpu() == m2.cpu()).float().mean().item()
    assert 0.47 < agree < 0.53, agree
    assert_all_native()


@pytest.mark.parametrize("p", [0.0, 1.0])
def test_edge_probabilities_match_eager(p):
    x = torch.randn(7, 9)
    x[0, 0] = float("inf")
    out, mask, grad, cot = lazy_dropout(x, p)
    e_out, e_mask = torch.native_dropout(x, p, True)  # deterministic for p in {0, 1}
    assert mask.dtype == e_mask.dtype
    assert torch.equal(mask, e_mask)
    torch.testing.assert_close(out, e_out, rtol=0, atol=0, equal_nan=True)
    scale = 0.0 if p == 1.0 else 1.0
    torch.testing.assert_close(grad, cot * e_mask * scale, rtol=0, atol=0)
    assert_all_native()


@pytest.mark.parametrize("train", [False, None])
def test_train_flag(train):
    x = torch.randn(3, 50)
    out, mask, _, _ = lazy_dropout(x, 0.5, train)
    if train is False:
        e_out, e_mask = torch.native_dropout(x, 0.5, False)
        assert torch.equal(out, e_out) and torch.equal(mask, e_mask)
    else:  # None means training
        assert 0 < int(mask.sum()) < mask.numel()
    assert_all_native()


def test_nn_dropout_in_a_training_step():
    # As in MobileNetV2's classifier: Dropout(0.2) then Linear.
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(64, 256), nn.ReLU(), nn.Dropout(0.2), nn.Linear(256, 10)).to("lazy")
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    x = torch.randn(32, 64).to("lazy")
    y = torch.randint(0, 10, (32,)).to("lazy")
    for _ in range(3):
        opt.zero_grad()
        F.cross_entropy(model(x), y).backward()
        opt.step()
        torch._lazy.mark_step()
    assert all(torch.isfinite(p.cpu()).all() for p in model.parameters())
    model.eval()  # eval: identity, no native_dropout in the graph
    out = model(x).cpu()
    torch._lazy.mark_step()
    assert torch.isfinite(out).all()
    m = assert_all_native()
    assert m["cache_hits"] >= 1, m


def test_float64():
    x = torch.randn(N, dtype=torch.float64)
    out, mask, grad, cot = lazy_dropout(x.float(), 0.25)  # f32 graph
    x = x.to("lazy")
    o64, m64 = torch.native_dropout(x * 1.0, 0.25, True)
    torch._lazy.mark_step()
    o64, m64 = o64.cpu(), m64.cpu()
    check_sigma(int(m64.sum()), N, 0.25)
    torch.testing.assert_close(o64, torch.where(m64, x.cpu() * (1 / 0.75), torch.zeros((), dtype=torch.float64)),
                               rtol=1e-15, atol=0)
    assert_all_native()
