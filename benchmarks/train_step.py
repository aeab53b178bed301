"""MLP training step (Linear 784->512, ReLU, Linear 512->10, cross-entropy,
SGD): ms/step of eager PyTorch, torch's own TorchScript lazy backend and
ltc_mlir, measured in one run (each lazy backend in its own subprocess, since
LTC holds one backend per process), with ratios against eager.

Not a test. Usage: PYTHONPATH=build/python_packages .venv/bin/python
benchmarks/train_step.py [--steps N] [--batch B] [--threads T]. The full suite
(every workload, rounds, threads, kernels) is benchmarks/suite.py (scripts/bench.sh).
"""
import argparse
import json
import os
import subprocess
import sys
import time

import torch


def build(batch):
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(784, 512), torch.nn.ReLU(),
                                torch.nn.Linear(512, 10))
    g = torch.Generator().manual_seed(1)
    x = torch.randn(batch, 784, generator=g)
    y = torch.randint(0, 10, (batch,), generator=g)
    return model, x, y


def run(mode, steps, warmup, batch, set_to_none):
    import torch._lazy
    if mode == "ltc_mlir":
        import ltc_mlir
        ltc_mlir.init()
    elif mode == "ts_lazy":
        import torch._lazy.ts_backend
        torch._lazy.ts_backend.init()
    device = "cpu" if mode == "eager" else "lazy"
    model, x, y = build(batch)
    model = model.to(device)
    x, y = x.to(device), y.to(device)
    opt = torch.optim.SGD(model.parameters(), lr=0.01)

    def step():
        opt.zero_grad(set_to_none=set_to_none)
        loss = torch.nn.functional.cross_entropy(model(x), y)
        loss.backward()
        opt.step()
        if device == "lazy":
            torch._lazy.mark_step()
        return loss

    first_start = time.perf_counter()
    step()
    if device == "lazy":
        torch._lazy.wait_device_ops()
    first_ms = (time.perf_counter() - first_start) * 1e3
    for _ in range(warmup):
        step()
    if device == "lazy":
        torch._lazy.wait_device_ops()
    start = time.perf_counter()
    for _ in range(steps):
        loss = step()
    loss.to("cpu")
    if device == "lazy":
        torch._lazy.wait_device_ops()
    ms = (time.perf_counter() - start) * 1e3 / steps
    out = {"mode": mode, "ms_per_step": ms, "first_step_ms": first_ms}
    if mode == "ltc_mlir":
        m = ltc_mlir.metrics()
        out.update({k: m[k] for k in ("compile_count", "compile_time_ms", "cache_hits",
                                      "fallback_graph_count")})
        out["fallback_ops"] = m["fallback_ops"]
    return out


def main():
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--steps", type=int, default=50)
    p.add_argument("--warmup", type=int, default=5)
    p.add_argument("--batch", type=int, default=64)
    p.add_argument("--threads", type=int, default=None,
                   help="torch.set_num_threads for every mode (ltc_mlir follows it)")
    p.add_argument("--set-to-none", action="store_true",
                   help="opt.zero_grad(set_to_none=True), torch 2.x's default; without it "
                        "the gradients are zeroed in place (set_to_none=False)")
    p.add_argument("--child", default=None, help=argparse.SUPPRESS)
    args = p.parse_args()
    if args.threads:
        torch.set_num_threads(args.threads)
    if args.child:
        print(json.dumps(run(args.child, args.steps, args.warmup, args.batch, args.set_to_none)))
        return

    results = {}
    for mode in ("eager", "ts_lazy", "ltc_mlir"):
        cmd = [sys.executable, __file__, "--child", mode, "--steps", str(args.steps),
               "--warmup", str(args.warmup), "--batch", str(args.batch)]
        if args.threads:
            cmd += ["--threads", str(args.threads)]
        if args.set_to_none:
            cmd += ["--set-to-none"]
        proc = subprocess.run(cmd, capture_output=True, text=True, env=os.environ)
        if proc.returncode != 0:
            print(f"{mode}: failed\n{proc.stderr[-2000:]}")
            continue
        results[mode] = json.loads(proc.stdout.strip().splitlines()[-1])

    eager = results.get("eager", {}).get("ms_per_step")
    print(f"MLP train step, batch {args.batch}, {torch.get_num_threads()} torch thread(s), "
          f"{args.steps} timed steps, zero_grad(set_to_none={args.set_to_none})")
    print(f"{'backend':<10} {'ms/step':>9} {'vs eager':>9} {'1st step ms':>12}")
    for mode, r in results.items():
        ratio = r["ms_per_step"] / eager if eager else float("nan")
        print(f"{mode:<10} {r['ms_per_step']:>9.2f} {ratio:>8.2f}x {r['first_step_ms']:>12.1f}")
    if "ltc_mlir" in results:
        r = results["ltc_mlir"]
        print(f"ltc_mlir: {r['compile_count']} graph(s) compiled in {r['compile_time_ms']:.0f} ms, "
              f"{r['cache_hits']} cache hits, fallback graphs {r['fallback_graph_count']}, "
              f"fallback ops {r['fallback_ops'] or 'none'}")


if __name__ == "__main__":
    main()
