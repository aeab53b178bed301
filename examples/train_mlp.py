"""Main job: train a small MLP on the `lazy` device through ltc_mlir.

Forward, backward and the SGD update of each step are one lazy graph; it is
compiled once (torch dialect -> linalg -> LLVM -> machine code) and served
from the compile cache afterwards. The loss is compared with eager PyTorch.
"""
import argparse
import collections
import copy
import os
import re

import torch
import ltc_mlir


def batches(steps, batch, seed=0):
    """Synthetic but learnable: the label is the argmax of a fixed projection."""
    g = torch.Generator().manual_seed(seed)
    proj = torch.randn(784, 10, generator=g)
    for _ in range(steps):
        x = torch.randn(batch, 784, generator=g)
        yield x, (x @ proj).argmax(1)


def summarize_module(path):
    """One line per stage: which ops the compiled graph is made of."""
    text = open(path).read()
    ops = collections.Counter(re.findall(r"(?<![!\w.])((?:torch\.aten|linalg|llvm|omp)\.[\w.]+)", text))
    top = ", ".join(f"{n}x {op}" for op, n in ops.most_common(6))
    parallel = sum(n for op, n in ops.items() if op.startswith("omp.parallel"))
    extra = f"; {parallel} OpenMP parallel regions" if parallel else ""
    return f"{sum(ops.values())} ops: {top}{extra}"


def train(model, device, steps, batch, lr):
    opt = torch.optim.SGD(model.parameters(), lr=lr)
    losses = []
    for x, y in batches(steps, batch):
        opt.zero_grad()
        loss = torch.nn.functional.cross_entropy(model(x.to(device)), y.to(device))
        loss.backward()
        opt.step()
        if device == "lazy":
            torch._lazy.mark_step()
        losses.append(loss.item())
    return losses


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--steps", type=int, default=20)
    parser.add_argument("--batch", type=int, default=64)
    parser.add_argument("--lr", type=float, default=0.1)
    args = parser.parse_args()

    ltc_mlir.init()
    torch.manual_seed(0)
    eager = torch.nn.Sequential(torch.nn.Linear(784, 512), torch.nn.ReLU(),
                                torch.nn.Linear(512, 10))
    lazy = copy.deepcopy(eager).to("lazy")

    ltc_mlir.reset_metrics()
    lazy_losses = train(lazy, "lazy", args.steps, args.batch, args.lr)
    eager_losses = train(eager, "cpu", args.steps, args.batch, args.lr)

    print(f"{'step':>4}  {'ltc_mlir loss':>14}  {'eager loss':>12}")
    for i, (a, b) in enumerate(zip(lazy_losses, eager_losses)):
        print(f"{i:>4}  {a:>14.6f}  {b:>12.6f}")
    max_diff = max(
        (p.cpu() - q).abs().max().item() for p, q in zip(lazy.parameters(), eager.parameters()))
    print(f"max |param(ltc_mlir) - param(eager)| after {args.steps} steps: {max_diff:.3e}")
    print()
    print(ltc_mlir.metrics_report())
    dump_dir = ltc_mlir.get_dump_dir()
    graphs = ltc_mlir.metrics()["compiled_graphs"]
    if dump_dir and graphs:
        # The steady-state step graph is the last one compiled.
        step = graphs[-1]
        print(f"what was compiled for the training step ({step}), dumped in {dump_dir}:")
        for stage in ("torch", "linalg", "llvm"):
            path = os.path.join(dump_dir, f"{step}.{stage}.mlir")
            if os.path.exists(path):
                print(f"  {stage:>6}: {os.path.basename(path)}: {summarize_module(path)}")
        print(f"replay: build/bin/ltc-mlir-opt --ltc-torch-to-llvm {dump_dir}/{step}.torch.mlir")


if __name__ == "__main__":
    main()
