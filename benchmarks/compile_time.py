"""What a cold compile costs (issue "compile time"): the first training
steps of each workload in benchmarks/workloads.py, in a fresh process with
an empty disk cache, then the same steps in a second process that finds
every graph in the disk cache.

Per workload it reports the graphs compiled, the compile time per graph
(wall and the process's CPU time while compiling), the stages (emit, parse,
torch_to_linalg, linalg_to_llvm, llvm_codegen) and the disk-cache load time
per graph. `--threads 1,2` repeats the cold run with LTC_MLIR_COMPILE_THREADS
set (the LLVM stage runs one part per thread). Goals: an MLP step <= 150 ms,
a ResNet-18 step <= 5 s, a disk hit <= 20 ms.

Not a test. Usage:
  PYTHONPATH=build/python_packages python3 benchmarks/compile_time.py \\
      [--workloads mlp,resnet18] [--threads 1,2] [--json out.json]
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))

CHILD = r"""
import json, os, resource, sys, time
sys.path.insert(0, os.environ["BENCH_DIR"])
import torch, ltc_mlir
ltc_mlir.init()
import workloads
step = workloads.WORKLOADS[os.environ["WORKLOAD"]][0]("lazy")
def cpu():
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime
out = {"steps": []}
for _ in range(int(os.environ["STEPS"])):
    t0, c0 = time.perf_counter(), cpu()
    loss = step()
    torch._lazy.mark_step(); torch._lazy.wait_device_ops()
    out["steps"].append({"wall_s": time.perf_counter() - t0, "cpu_s": cpu() - c0})
m = ltc_mlir.metrics()
out.update({k: m[k] for k in ("compile_count", "compile_time_ms", "compile_stage_ms",
                              "disk_cache_hits", "disk_cache_misses", "fallback_graph_count")})
print("@@" + json.dumps(out))
"""


def run(workload, cache_dir, steps, threads=None):
    env = dict(os.environ, BENCH_DIR=HERE, WORKLOAD=workload, STEPS=str(steps),
               LTC_MLIR_CACHE_DIR=cache_dir)
    if threads:
        env["LTC_MLIR_COMPILE_THREADS"] = str(threads)
    proc = subprocess.run([sys.executable, "-c", CHILD], capture_output=True, text=True, env=env)
    if proc.returncode != 0:
        raise SystemExit(f"{workload} failed:\n{proc.stderr[-3000:]}")
    return json.loads(proc.stdout.rsplit("@@", 1)[1])


def per_graph(result):
    return result["compile_time_ms"] / max(result["compile_count"], 1)


def disk_load_ms(result):
    return result["compile_stage_ms"].get("object_load", 0.0) / max(result["disk_cache_hits"], 1)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--workloads", default="mlp,small_cnn,nanogpt,resnet18")
    parser.add_argument("--threads", default="", help="comma-separated LTC_MLIR_COMPILE_THREADS values")
    parser.add_argument("--steps", type=int, default=2)
    parser.add_argument("--json", default="")
    args = parser.parse_args()
    threads = [int(t) for t in args.threads.split(",") if t] or [None]
    report = {"cpu": os.cpu_count(), "workloads": {}}
    for name in args.workloads.split(","):
        entry = report["workloads"][name] = {}
        for t in threads:
            with tempfile.TemporaryDirectory() as cache:
                print(f"{name}: cold compile (threads={t or 'default'}) ...", flush=True)
                cold = run(name, cache, args.steps, t)
                print(f"{name}: disk-cache hit ...", flush=True)
                warm = run(name, cache, args.steps, t)
            graphs = cold["compile_count"]
            stages = {k: round(v / max(graphs, 1), 1) for k, v in cold["compile_stage_ms"].items()}
            entry[str(t or "default")] = {
                "graphs": graphs,
                "compile_ms_per_graph": round(per_graph(cold), 1),
                "compile_cpu_s": round(sum(s["cpu_s"] for s in cold["steps"]), 2),
                "stages_ms_per_graph": stages,
                "first_steps_wall_s": [round(s["wall_s"], 3) for s in cold["steps"]],
                "disk_hits": warm["disk_cache_hits"],
                "disk_load_ms_per_graph": round(disk_load_ms(warm), 2),
                "compiles_with_warm_cache": warm["compile_count"],
                "fallback_graphs": cold["fallback_graph_count"],
            }
    print()
    print(f"{'workload':<12} {'threads':>7} {'graphs':>6} {'ms/graph':>9} {'cpu s':>7} "
          f"{'disk hit ms':>11}  stages (ms per graph)")
    for name, entry in report["workloads"].items():
        for t, r in entry.items():
            stages = ", ".join(f"{k} {v:.0f}" for k, v in r["stages_ms_per_graph"].items())
            print(f"{name:<12} {t:>7} {r['graphs']:>6} {r['compile_ms_per_graph']:>9.0f} "
                  f"{r['compile_cpu_s']:>7.1f} {r['disk_load_ms_per_graph']:>11.1f}  {stages}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(report, f, indent=1)


if __name__ == "__main__":
    main()
