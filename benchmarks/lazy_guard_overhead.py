"""What the device check in front of every Lazy kernel costs
(ltc_backend/lazy_kernels/device_guard.cpp): trace time of an MLP training
step and of a single lazy add (forward, backward, SGD; everything before mark_step) with the check and
without it (LTC_MLIR_DEVICE_GUARD=0, each in its own process), and the
difference per lazy op.

Not a test. Usage: PYTHONPATH=build/python_packages python3 benchmarks/lazy_guard_overhead.py
"""
import json
import os
import subprocess
import sys
import time

import torch

CHILD = r"""
import json, time, torch, ltc_mlir
import torch._lazy.metrics as M
ltc_mlir.init()
torch.manual_seed(0)
model = torch.nn.Sequential(torch.nn.Linear(784, 512), torch.nn.ReLU(),
                            torch.nn.Linear(512, 10)).to("lazy")
x = torch.randn(64, 784).to("lazy"); y = torch.randint(0, 10, (64,)).to("lazy")
opt = torch.optim.SGD(model.parameters(), lr=0.01)
def trace():
    opt.zero_grad(set_to_none=True)
    torch.nn.functional.cross_entropy(model(x), y).backward()
    opt.step()
for _ in range(5):
    trace(); torch._lazy.mark_step()
torch._lazy.wait_device_ops()
def lazy_calls():
    return sum(M.counter_value(n) or 0 for n in M.counter_names() if n.startswith("lazy::"))
before = lazy_calls(); trace(); ops = lazy_calls() - before; torch._lazy.mark_step()
times = []
for _ in range(STEPS):
    t0 = time.perf_counter(); trace(); times.append(time.perf_counter() - t0)
    torch._lazy.mark_step(); torch._lazy.wait_device_ops()
torch._lazy.wait_device_ops()
a = torch.randn(16).to("lazy"); b = torch.randn(16).to("lazy")
add_us = []
for _ in range(20):
    t0 = time.perf_counter()
    for _ in range(500):
        a + b
    add_us.append((time.perf_counter() - t0) / 500 * 1e6)
torch._lazy.mark_step()
print(json.dumps({"trace_ms": 1e3 * min(times), "lazy_ops": ops, "add_us": min(add_us)}))
"""


def measure(guard, steps):
    env = dict(os.environ, LTC_MLIR_DEVICE_GUARD="1" if guard else "0")
    out = subprocess.run([sys.executable, "-c", CHILD.replace("STEPS", str(steps))],
                         capture_output=True, text=True, env=env, check=True).stdout
    return json.loads(out.strip().splitlines()[-1])


def main():
    steps = int(sys.argv[1]) if len(sys.argv) > 1 else 200
    runs = {False: [], True: []}
    for _ in range(4):  # alternate, so that load from other processes hits both
        for g in (False, True):
            runs[g].append(measure(g, steps))
    best = {g: min(r["trace_ms"] for r in rs) for g, rs in runs.items()}
    add = {g: min(r["add_us"] for r in rs) for g, rs in runs.items()}
    ops = runs[True][0]["lazy_ops"]
    print(f"MLP step trace (fastest of {steps} steps x 4 processes; {ops} codegen'd lazy "
          f"kernel calls per step)")
    print(f"  without device check: {best[False]:.3f} ms")
    print(f"  with device check:    {best[True]:.3f} ms ({best[True] - best[False]:+.3f} ms)")
    print(f"lazy a + b, one op: {add[False]:.2f} us without, {add[True]:.2f} us with "
          f"({add[True] - add[False]:+.2f} us)")


if __name__ == "__main__":
    main()
