"""A tanh MLP regressed with a hand-written MSE and torch.optim.Adam: the
optimizer's addcmul/addcdiv/sqrt land in the same compiled step graph."""
import copy

import torch

import ltc_mlir


def test_tanh_mlp_adam_matches_eager():
    torch.manual_seed(0)
    eager = torch.nn.Sequential(torch.nn.Linear(20, 32), torch.nn.Tanh(), torch.nn.Linear(32, 1))
    lazy = copy.deepcopy(eager).to("lazy")
    g = torch.Generator().manual_seed(3)
    w_true = torch.randn(20, 1, generator=g)
    x = torch.randn(16, 20, generator=g)
    batches = [(x, torch.sin(x @ w_true))] * 15  # one batch: the loss must fall

    ltc_mlir.reset_metrics()
    losses = {}
    for model, dev in ((lazy, "lazy"), (eager, "cpu")):
        opt = torch.optim.Adam(model.parameters(), lr=1e-2)
        losses[dev] = []
        for x, y in batches:
            opt.zero_grad()
            loss = ((model(x.to(dev)) - y.to(dev)) ** 2).mean()
            loss.backward()
            opt.step()
            if dev == "lazy":
                torch._lazy.mark_step()
            losses[dev].append(loss.detach().to("cpu"))

    torch.testing.assert_close(torch.stack(losses["lazy"]), torch.stack(losses["cpu"]),
                               rtol=1e-5, atol=1e-6)
    for p, q in zip(lazy.parameters(), eager.parameters()):
        torch.testing.assert_close(p.detach().cpu(), q.detach(), rtol=1e-5, atol=1e-6)
    m = ltc_mlir.metrics()
    assert m["fallback_ops"] == {}, m["fallback_reasons"]
    # One step graph, compiled once and then reused (reading the detached
    # loss or Adam's step counter needs no graph of its own).
    assert m["native_execute_count"] >= 15, m
    assert m["compile_count"] <= 4 and m["cache_hits"] >= 13, m
    assert losses["lazy"][-1] < losses["lazy"][0]
