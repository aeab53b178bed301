"""What new input shapes cost (issue "Faster than torch.compile": 32 new
batch sizes of an MLP, total compile time below one first compile): an MLP
784-512-512-10 SGD training loop over 32 new batch sizes (33..64) after
three warm-up steps at batch 64, then 20 steps at batch 48 (a size the loop
saw), each mode in its own process, no disk cache:
  eager;
  ltc_mlir compiling every shape (LTC_MLIR_SHAPE_VARIANTS=0,
  LTC_MLIR_BATCH_GENERIC=0);
  ltc_mlir deferring new shapes until they recur (shape_variants.h, the
  default before code for every batch size);
  ltc_mlir default: code for every batch size (batch_families.h).

Reports the loop's wall time and its ratio to eager's, the compiles and the
compile time the loop paid, the first compile of the step, the goal's
ratio (loop compile time / first compile), and ms/step at batch 48 after
the loop (generic code against the static code of the every-shape mode).

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
    out["loop_compile_ms"] = m["compile_time_ms"] - warm["compile_time_ms"]
    out["deferred"] = m["deferred_graphs"]
    out["generic_hits"] = m["batch_generic_hits"]
    # The steady-state graph's first compile (step 2; step 1's graph differs).
    out["first_compile_ms"] = warm["compile_time_ms"] / max(warm["compile_count"], 1)
for _ in range(3):
    step(48)
t0 = time.perf_counter()
for _ in range(20):
    step(48)
out["b48_ms"] = (time.perf_counter() - t0) / 20 * 1e3
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
    for name, variants, generic in (("ltc_mlir, every shape compiled", "0", "0"),
                                    ("ltc_mlir, deferred new shapes", "2", "0"),
                                    ("ltc_mlir, default (every batch)", "2", "1")):
        rows.append((name, run("lazy", {"LTC_MLIR_SHAPE_VARIANTS": variants,
                                        "LTC_MLIR_BATCH_GENERIC": generic})))
    print(f"{'mode':34s} {'32 new sizes':>12s} {'vs eager':>9s} {'compiles':>9s} "
          f"{'compiling':>10s} {'1st compile':>12s} {'goal ratio':>11s} {'b48 ms/step':>12s}")
    for name, r in rows:
        ratio = r["loop_s"] / eager["loop_s"]
        extra = " " * 45
        if "compiles" in r:
            goal = r["loop_compile_ms"] / r["first_compile_ms"]
            extra = (f"{r['compiles']:9d} {r['loop_compile_ms']:8.0f}ms "
                     f"{r['first_compile_ms']:10.0f}ms {goal:11.2f}")
        print(f"{name:34s} {r['loop_s']:11.2f}s {ratio:9.1f} {extra} {r['b48_ms']:12.2f}")


if __name__ == "__main__":
    main()
