"""Main job: train a small MLP on the `lazy` device through ltc_mlir.

Forward, backward and the SGD update of each step are one lazy graph; it is
compiled once (torch dialect -> linalg -> LLVM -> machine code) and served
from the compile cache afterwards. The loss is compared with eager PyTorch.
"""
import argparse
import copy
import os

import torch
import ltc_mlir


def batches(steps, batch, seed=0):
    g = torch.Generator().manual_seed(seed)
    for _ in range(steps):
        x = torch.randn(batch, 784, generator=g)
        y = torch.randint(0, 10, (batch,), generator=g)
        yield x, y


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
    if dump_dir:
        files = sorted(f for f in os.listdir(dump_dir) if f.endswith(".mlir"))
        print(f"compiled modules dumped in {dump_dir}:")
        for f in files:
            print("  ", f)
        print("replay one with: build/bin/ltc-mlir-opt --ltc-torch-to-llvm <dump>.torch.mlir")


if __name__ == "__main__":
    main()
