"""The benchmark suite: every workload (benchmarks/workloads.py) in eager
PyTorch, torch.compile (inductor), torch's TorchScript lazy backend (ts) and
ltc_mlir, and the kernel microbenchmarks (benchmarks/kernels.py) in eager,
inductor and ltc_mlir, at each thread count, each run in its own process, in
interleaved rounds (eager, inductor, ts, ltc_mlir, eager, inductor, ...).

Reports the median ms/step of all timed steps of all rounds, mode/eager and
mode/inductor, the first-step (trace + compile) time and the peak RSS of
each process; for kernels GFLOP/s and the percentage of the machine's f32
FMA peak. Writes
results.json (raw samples and medians), table.txt and ratio.png to
--out-dir. Not a test.

Usage: scripts/bench.sh [options]   (or PYTHONPATH=build/python_packages
.venv/bin/python benchmarks/suite.py [options])
"""
import argparse
import datetime
import json
import os
import platform
import shutil
import sys
import tempfile
import time

_HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, _HERE)

import kernels  # noqa: E402
import peak as machine  # noqa: E402
import report  # noqa: E402
import runner  # noqa: E402
from workloads import WORKLOADS  # noqa: E402


def _list(value, known, what):
    if value in ("all", ""):
        return list(known)
    if value == "none":
        return []
    items = [v.strip() for v in value.split(",") if v.strip()]
    unknown = [v for v in items if v not in known]
    if unknown:
        raise SystemExit(f"unknown {what}: {', '.join(unknown)} (known: {', '.join(known)})")
    return items


def parse_args(argv=None):
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--workloads", default="all",
                   help=f"comma list, 'all' or 'none' (known: {', '.join(WORKLOADS)})")
    p.add_argument("--kernels", default="all",
                   help=f"comma list, 'all' or 'none' (known: {', '.join(kernels.KERNELS)})")
    p.add_argument("--modes", default=",".join(runner.MODES),
                   help="modes of the workloads (eager; inductor: torch.compile of the model "
                        "and of the optimizer step; ts: TorchScript lazy backend; ltc_mlir; "
                        "pipelined: ltc_mlir with set_pipelined, run at 2 threads and more)")
    p.add_argument("--kernel-modes", default="eager,inductor,ltc_mlir",
                   help="modes of the kernels")
    p.add_argument("--threads", default="1,2",
                   help="thread counts (torch.set_num_threads and LTC_MLIR_NUM_THREADS)")
    p.add_argument("--rounds", type=int, default=3, help="interleaved rounds (processes) per mode")
    p.add_argument("--steps", type=int, default=20, help="timed steps per round (workloads)")
    p.add_argument("--warmup", type=int, default=3,
                   help="untimed steps after the first (ltc: the optimizer's second step "
                        "compiles another graph)")
    p.add_argument("--kernel-steps", type=int, default=None,
                   help="timed calls per round (kernels); default: --steps")
    p.add_argument("--timeout", type=float, default=900, help="seconds per process")
    p.add_argument("--fma-units", type=int, default=2,
                   help="FMA units per core for the nominal peak (not in /proc/cpuinfo); "
                        "the peak used is measured (benchmarks/peak.py)")
    p.add_argument("--cache", choices=("suite", "off", "user"), default="suite",
                   help="ltc_mlir's persistent compile cache: 'suite' (default) a fresh "
                        "directory for this run, so only the first process of each workload "
                        "compiles; 'off' every process compiles; 'user' the usual "
                        "LTC_MLIR_CACHE_DIR / ~/.cache/ltc_mlir")
    p.add_argument("--inductor-cache", choices=("process", "suite", "user"), default="process",
                   help="TORCHINDUCTOR_CACHE_DIR (Inductor's FX graph cache and AOTAutograd's "
                        "cache): 'process' (default) a fresh directory for every inductor "
                        "process, so every first step is a full compile; 'suite' one directory "
                        "for this run (later processes load the compiled graphs); 'user' the "
                        "environment's TORCHINDUCTOR_CACHE_DIR or torch's default")
    p.add_argument("--out-dir", default=os.path.join(os.path.dirname(_HERE), "build", "bench"))
    p.add_argument("--from-json", metavar="RESULTS_JSON",
                   help="run nothing: print the tables and plot of an earlier results.json "
                        "(written to --out-dir)")
    args = p.parse_args(argv)
    args.workload_list = _list(args.workloads, WORKLOADS, "workloads")
    args.kernel_list = _list(args.kernels, kernels.KERNELS, "kernels")
    args.mode_list = _list(args.modes, runner.MODES, "modes")
    args.kernel_mode_list = _list(args.kernel_modes, runner.MODES, "modes")
    try:
        args.thread_list = [int(t) for t in args.threads.split(",") if t.strip()]
    except ValueError:
        raise SystemExit(f"--threads: comma list of integers, got {args.threads!r}")
    if not args.thread_list or min(args.thread_list) < 1:
        raise SystemExit("--threads: positive integers")
    if args.rounds < 1 or args.steps < 1 or args.warmup < 0:
        raise SystemExit("--rounds and --steps must be >= 1, --warmup >= 0")
    if args.kernel_steps is None:
        args.kernel_steps = args.steps
    return args


class Progress:
    def __init__(self, total):
        self.total, self.done, self.start = total, 0, time.perf_counter()

    def report(self, label, result, flops=None):
        self.done += 1
        elapsed = time.perf_counter() - self.start
        if "error" in result:
            what = f"FAILED ({result['error']})"
        else:
            cached = report.loaded_from_cache(result)
            what = (f"{result['median_ms']:.2f} ms/step, first {result['first_step_ms']:.0f} ms"
                    + (" (graphs from the compile cache)" if cached else ""))
            if flops:
                what += f", {flops / (result['median_ms'] * 1e-3) / 1e9:.1f} GFLOP/s"
            what += f", RSS {result['peak_rss_mb']:.0f} MB"
        print(f"[{self.done}/{self.total} {elapsed:6.0f} s] {label}: {what}", flush=True)


def run_items(kind, names, modes, args, steps, progress):
    """{name: {threads: {mode: aggregate}}}, rounds interleaved over modes.
    A mode that failed is not run again in later rounds (same item and
    thread count)."""
    results = {}
    for name in names:
        results[name] = {}
        flops = kernels.KERNELS[name][1] if kind == "kernel" else None
        for threads in args.thread_list:
            rounds = {mode: [] for mode in modes}
            for r in range(args.rounds):
                for mode in modes:
                    label = f"{name} {mode} {threads} thr, round {r + 1}/{args.rounds}"
                    if mode == "pipelined" and threads < 2:
                        # The trace and the graph would keep 2 cores busy.
                        progress.done += 1
                        continue
                    if any("error" in x for x in rounds[mode]):
                        progress.done += 1
                        print(f"[{progress.done}/{progress.total}] {label}: skipped "
                              f"(failed before)", flush=True)
                        continue
                    inductor_cache = _inductor_cache_dir(args) if mode == "inductor" else None
                    result = runner.run_isolated(kind, name, mode, threads, steps, args.warmup,
                                                 timeout=args.timeout,
                                                 cache_dir=args.cache_dir,
                                                 inductor_cache_dir=inductor_cache)
                    if args.inductor_cache == "process" and inductor_cache:
                        shutil.rmtree(inductor_cache, ignore_errors=True)
                    rounds[mode].append(result)
                    progress.report(label, result, flops)
            by_mode = {mode: report.aggregate(rs) for mode, rs in rounds.items() if rs}
            report.add_ratios(by_mode)
            results[name][str(threads)] = by_mode
    return results


def _inductor_cache_dir(args):
    """TORCHINDUCTOR_CACHE_DIR of the next inductor process: None keeps the
    user's; 'process' a new directory (removed after the process)."""
    if args.inductor_cache == "user":
        return None
    if args.inductor_cache == "suite":
        return os.path.join(args.run_dir, "inductor_cache")
    return tempfile.mkdtemp(prefix="inductor_cache_", dir=args.run_dir)


def _meta(args, peak, start_load):
    import torch
    return {"date": datetime.datetime.now().isoformat(timespec="seconds"),
            "host": platform.node(), "python": sys.version.split()[0],
            "torch": torch.__version__, "cpu_count": os.cpu_count(),
            "load_average_start": start_load, "load_average_end": os.getloadavg(),
            "args": {k: v for k, v in vars(args).items()
                     if not k.endswith("_list") and k not in ("cache_dir", "run_dir")},
            "machine_peak": peak}


def main(argv=None):
    args = parse_args(argv)
    if args.from_json:
        with open(args.from_json) as f:
            data = json.load(f)
        os.makedirs(args.out_dir, exist_ok=True)
        return render(data, args.out_dir)
    # The run's temporary directory: ltc_mlir's compile cache (--cache suite)
    # and Inductor's caches (--inductor-cache process/suite), removed at the end.
    args.run_dir = tempfile.mkdtemp(prefix="ltc_mlir_bench_")
    if args.cache == "suite":
        args.cache_dir = os.path.join(args.run_dir, "ltc_mlir_cache")
        os.makedirs(args.cache_dir)
    else:
        args.cache_dir = "" if args.cache == "off" else None
    try:
        return _run(args)
    finally:
        shutil.rmtree(args.run_dir, ignore_errors=True)


def _run(args):
    os.makedirs(args.out_dir, exist_ok=True)
    start_load = os.getloadavg()
    peak = machine.machine_peak(args.fma_units, measure=bool(args.kernel_list))
    print(machine.describe(peak), flush=True)
    cpus = os.cpu_count() or 1
    if max(args.thread_list) > cpus:
        print(f"warning: {max(args.thread_list)} threads on {cpus} CPUs", flush=True)
    if start_load[0] > 0.5 * cpus:
        print(f"note: load average {start_load[0]:.1f} on {cpus} CPUs: the machine is busy, "
              f"timings will be noisy", flush=True)
    total = args.rounds * len(args.thread_list) * (
        len(args.workload_list) * len(args.mode_list)
        + len(args.kernel_list) * len(args.kernel_mode_list))
    print(f"benchmark suite: {len(args.workload_list)} workload(s) x {len(args.mode_list)} "
          f"mode(s), {len(args.kernel_list)} kernel(s) x {len(args.kernel_mode_list)} mode(s), "
          f"threads {args.thread_list}, {args.rounds} round(s), {args.steps} steps "
          f"(+{args.warmup} warmup) -> {total} processes", flush=True)
    progress = Progress(total)
    workload_results = run_items("workload", args.workload_list, args.mode_list, args,
                                 args.steps, progress)
    kernel_results = run_items("kernel", args.kernel_list, args.kernel_mode_list, args,
                               args.kernel_steps, progress)
    for name, by_threads in kernel_results.items():
        for threads, by_mode in by_threads.items():
            report.add_gflops(by_mode, kernels.KERNELS[name][1],
                              machine.peak_for_threads(peak, int(threads)))

    data = {"meta": _meta(args, peak, start_load),
            "workloads": {n: {"description": WORKLOADS[n][1], "threads": r}
                          for n, r in workload_results.items()},
            "kernels": {n: {"description": kernels.KERNELS[n][2], "flops": kernels.KERNELS[n][1],
                            "threads": r} for n, r in kernel_results.items()}}
    report.write_json(os.path.join(args.out_dir, "results.json"), data)
    render(data, args.out_dir)
    print(f"results: {os.path.join(args.out_dir, 'results.json')}")


def render(data, out_dir):
    """Prints the tables of a results dict and writes table.txt and ratio.png
    to out_dir."""
    workload_results = {n: w["threads"] for n, w in data["workloads"].items()}
    kernel_results = {n: k["threads"] for n, k in data["kernels"].items()}
    meta = data["meta"]
    text = []
    if workload_results:
        text += ["Workloads (median of all timed steps; vs eager = mode / eager, vs inductor "
                 "= mode / inductor (torch.compile), below 1 is faster; 1st step: trace + "
                 "compile + run, * = graphs loaded from the compile cache; cpu = CPU time / "
                 "wall time, the cores kept busy):",
                 report.workload_table(workload_results), "",
                 "ltc_mlir against eager and inductor (mode / reference, below 1 is faster), "
                 "and the first steps (compile):",
                 report.ratio_summary(workload_results), ""]
        text += [f"  {n}: {w['description']}" for n, w in data["workloads"].items()] + [""]
    if kernel_results:
        text += ["Kernels:", report.kernel_table(kernel_results, machine.describe(meta["machine_peak"])), ""]
        text += [f"  {n}: {k['description']}" for n, k in data["kernels"].items()] + [""]
    text.append(f"load average at start {meta['load_average_start'][0]:.1f}, at end "
                f"{meta['load_average_end'][0]:.1f} ({meta['cpu_count']} CPUs); "
                f"torch {meta['torch']}; {meta['date']}")
    table = "\n".join(text)
    print("\n" + table)
    with open(os.path.join(out_dir, "table.txt"), "w") as f:
        f.write(table + "\n")
    if workload_results:
        print(report.plot_ratios(workload_results, os.path.join(out_dir, "ratio.png")))


if __name__ == "__main__":
    main()
