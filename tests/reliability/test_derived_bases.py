"""A mark_step does not return the base of a view it returns
(ltc_backend/derived_bases.h). Functionalization keeps a view's base alive:
autograd's Linear weight gradient is t(mm(...)), its bias gradient
view(sum(..., keepdim)), and both the base and the view were outputs of
the training step's graph, the transposed copy materialized instead of
folded into the GEMM. The base now gets the inverse view of the view's
data after the sync; these tests check that the graph returns each value
once, that every value still matches eager, and that a base read, mutated
or kept alive afterwards behaves as in eager."""
import copy
import glob
import re

import torch
import torch.nn.functional as F

import ltc_mlir


def _returned_values(dump_dir):
    """Number of results of each compiled graph's function, by graph."""
    counts = {}
    for path in glob.glob(str(dump_dir / "*.torch.mlir")):
        text = open(path).read()
        ret = re.search(r'"func.return"\(([^)]*)\)', text)
        counts[path] = len([v for v in ret.group(1).split(",") if v.strip()]) if ret else 0
    return counts


def _mlp():
    torch.manual_seed(0)
    return torch.nn.Sequential(torch.nn.Linear(12, 16), torch.nn.ReLU(),
                               torch.nn.Linear(16, 16), torch.nn.ReLU(),
                               torch.nn.Linear(16, 3))


def test_training_step_returns_each_gradient_once(tmp_path):
    eager = _mlp()
    lazy = copy.deepcopy(eager).to("lazy")
    opts = [torch.optim.SGD(m.parameters(), lr=0.1) for m in (eager, lazy)]
    g = torch.Generator().manual_seed(1)
    x, y = torch.randn(8, 12, generator=g), torch.randint(0, 3, (8,), generator=g)
    ltc_mlir.set_dump_dir(str(tmp_path))
    try:
        for _ in range(3):
            for model, opt, dev in ((eager, opts[0], "cpu"), (lazy, opts[1], "lazy")):
                opt.zero_grad(set_to_none=True)
                F.cross_entropy(model(x.to(dev)), y.to(dev)).backward()
                opt.step()
            torch._lazy.mark_step()
    finally:
        ltc_mlir.set_dump_dir(None)
    m = ltc_mlir.metrics()
    assert m["native_execute_count"] == m["execute_count"] == 3
    # Each graph returns the 6 gradients and the 6 updated parameters, not
    # also the 6 bases of the gradients (18 before).
    counts = _returned_values(tmp_path)
    assert counts and all(n == 12 for n in counts.values()), counts
    for a, b in zip(lazy.parameters(), eager.parameters()):
        torch.testing.assert_close(a.detach().cpu(), b.detach(), atol=1e-5, rtol=1e-5)
        torch.testing.assert_close(a.grad.cpu(), b.grad, atol=1e-5, rtol=1e-5)


def test_accumulated_gradients_match_eager():
    # No zero_grad: each backward adds into the view of the last step's
    # base, which was derived from the view's data.
    eager = _mlp()
    lazy = copy.deepcopy(eager).to("lazy")
    g = torch.Generator().manual_seed(2)
    for _ in range(3):
        x = torch.randn(8, 12, generator=g)
        for model, dev in ((eager, "cpu"), (lazy, "lazy")):
            model(x.to(dev)).square().sum().backward()
        torch._lazy.mark_step()
    for a, b in zip(lazy.parameters(), eager.parameters()):
        torch.testing.assert_close(a.grad.cpu(), b.grad, atol=1e-4, rtol=1e-5)


def test_base_kept_read_and_mutated_after_the_step(tmp_path):
    g = torch.Generator().manual_seed(3)
    a, w = torch.randn(5, 4, generator=g), torch.randn(4, 6, generator=g)
    results = {}
    for dev in ("cpu", "lazy"):
        base = a.to(dev) @ w.to(dev)
        view = base.t()
        reshaped = (base * 2).sum(0, keepdim=True).view(6)
        if dev == "lazy":
            ltc_mlir.set_dump_dir(str(tmp_path))
            torch._lazy.mark_step()
            ltc_mlir.set_dump_dir(None)
            first = _returned_values(tmp_path)
            executed = ltc_mlir.metrics()["execute_count"]
            # A second mark_step with the derived base still alive runs
            # nothing: the base's value stays a view of device data.
            torch._lazy.mark_step()
            assert ltc_mlir.metrics()["execute_count"] == executed
        # (clone: .cpu() of a CPU tensor is the tensor, which add_ changes)
        results[dev] = [t.cpu().clone() for t in (base, view, reshaped)]
        base.add_(1)  # through functionalization: the view sees it
        if dev == "lazy":
            torch._lazy.mark_step()
        results[dev] += [t.cpu().clone() for t in (base, view)]
    # The first graph returned the two views (t and the reshape), not the
    # base the transpose was derived from (3 before).
    assert list(first.values()) == [2], first
    for got, want in zip(results["lazy"], results["cpu"]):
        torch.testing.assert_close(got, want, atol=1e-5, rtol=1e-5)
