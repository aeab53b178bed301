"""What new input shapes cost (issue "cheap new shapes"): an MLP
784-512-512-10 SGD training loop over 32 new batch sizes (33..64) after two
warm-up steps at batch 64, in eager PyTorch and in ltc_mlir with every
shape compiled (LTC_MLIR_SHAPE_VARIANTS=0) and with the default deferral of
new shapes (shape_variants.h), each in its own process, no disk cache.

Reports the loop's wall time, its ratio to eager's, the compiles it paid and
what one first compile of the step costs, and the goal's ratio: time the 32
new sizes cost over three first compiles.

Not a test. Usage: PYTHONPATH=build/python_packages python3 benchmarks/new_shapes.py
"""
import json
import os
import subprocess
import sys

CHILD = r"""
import json, os, time, torch
lazy = os.environ["MODE"] != "eager"
if lazy:
    import ltc_mlir
    ltc_mlir.init()
dev = "lazy" if lazy else "cpu"
torch.manual_seed(0)
model = torch.nn.Sequential(torch.nn.Linear(784, 512), torch.nn.ReLU(), torch.nn.Linear(512, 512),
                            torch.nn.ReLU(), torch.nn.Linear(512, 10)).to(dev)
opt = torch.optim.SGD(model.parameters(), lr=0.01)
def step(b):
    x = torch.randn(b, 784).to(dev); y = torch.randint(0, 10, (b,)).to(dev)
    opt.zero_grad()
    torch.nn.functional.cross_entropy(model(x), y).backward()
    opt.step()
    if lazy:
        torch._lazy.mark_step(); torch._lazy.wait_device_ops()
for _ in range(3):
    step(64)
if lazy:
    warm = ltc_mlir.metrics()
t0 = time.perf_counter()
for b in range(33, 65):
    step(b)
out = {"loop_s": time.perf_counter() - t0}
if lazy:
    m = ltc_mlir.metrics()
    out["compiles"] = m["compile_count"] - warm["compile_count"]
    out["deferred"] = m["deferred_graphs"]
    # The steady-state graph's first compile (step 2; step 1's graph differs).
    out["first_compile_ms"] = warm["compile_time_ms"] / max(warm["compile_count"], 1)
print("@@" + json.dumps(out))
"""


def run(mode, env):
    full = dict(os.environ, MODE=mode, LTC_MLIR_CACHE_DIR="", **env)
    proc = subprocess.run([sys.executable, "-c", CHILD], capture_output=True, text=True, env=full)
    if proc.returncode != 0:
        raise SystemExit(f"{mode} failed:\n{proc.stderr[-3000:]}")
    return json.loads(proc.stdout.rsplit("@@", 1)[1])


def main():
    eager = run("eager", {})
    rows = [("eager", eager)]
    for name, variants in (("ltc_mlir, every shape compiled", "0"), ("ltc_mlir, default", "2")):
        rows.append((name, run("lazy", {"LTC_MLIR_SHAPE_VARIANTS": variants})))
    print(f"{'mode':34s} {'32 new sizes':>12s} {'vs eager':>9s} {'compiles':>9s} "
          f"{'1st compile':>12s} {'/ 3 compiles':>13s}")
    for name, r in rows:
        ratio = r["loop_s"] / eager["loop_s"]
        extra = ""
        if "compiles" in r:
            goal = r["loop_s"] * 1e3 / (3 * r["first_compile_ms"])
            extra = f"{r['compiles']:9d} {r['first_compile_ms']:10.0f}ms {goal:13.2f}"
        print(f"{name:34s} {r['loop_s']:11.2f}s {ratio:9.1f} {extra}")


if __name__ == "__main__":
    main()
