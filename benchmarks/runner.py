"""Runs one workload or kernel in one mode in its own process (LTC holds one
backend per process) and returns its timings.

The parent calls `run_isolated(...)`; the child (this file with --child)
sets the threads, initializes the backend, builds the workload, times the
first step (trace + compile + run) and then `steps` steps after `warmup`
more, each step synchronized (mark_step + wait_device_ops on the lazy
device), and prints one line `BENCH_RESULT {json}`. The "inductor" mode is
eager CPU tensors with the step compiled by torch.compile (workloads.py;
kernels: the call compiled); its first step is the compile. "compiled" is
the same with torch.compile(backend="ltc_mlir"): Dynamo's graphs compiled
by ltc_mlir and replayed without tracing. "ts" is torch's
TorchScript lazy backend with benchmarks/ts_backend_fixes.py. The "pipelined" mode
is ltc_mlir with ltc_mlir.set_pipelined(True): a step's graph runs while
the next one traces, so its samples are blocks of PIPELINED_BLOCK steps
with mark_step only, then one wait, divided by the block's steps. A Python exception, an
abort or a timeout of the child becomes a result with "error" set.
"""
import json
import os
import resource
import signal
import statistics
import subprocess
import sys
import time
import traceback

MODES = ("eager", "inductor", "compiled", "ts", "ltc_mlir", "pipelined")
LTC_MLIR_MODES = ("ltc_mlir", "pipelined", "compiled")  # with ltc_mlir's metrics
TORCH_COMPILE_BACKENDS = {"inductor": "inductor", "compiled": "ltc_mlir"}
PIPELINED_BLOCK = 10
MARKER = "BENCH_RESULT "
_HERE = os.path.dirname(os.path.abspath(__file__))


def _init_mode(mode):
    import torch
    import torch._lazy
    if mode in ("eager", "inductor"):
        return "cpu"
    if mode == "ts":
        import torch._lazy.ts_backend
        import ts_backend_fixes
        torch._lazy.ts_backend.init()
        ts_backend_fixes.install()
        return "lazy"
    if mode in LTC_MLIR_MODES:
        import ltc_mlir
        ltc_mlir.init()
        ltc_mlir.set_pipelined(mode == "pipelined")
        return "cpu" if mode == "compiled" else "lazy"
    raise ValueError(f"unknown mode {mode!r} (one of {', '.join(MODES)})")


def _build(kind, name, device, backend):
    if kind == "workload":
        from workloads import WORKLOADS
        return WORKLOADS[name][0](device, backend=backend)
    from kernels import KERNELS
    import torch
    step = KERNELS[name][0](device)
    return torch.compile(step, backend=backend) if backend else step


def _peak_rss_mb():
    # Linux reports ru_maxrss in KiB.
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


def _ltc_mlir_metrics():
    import ltc_mlir
    m = ltc_mlir.metrics()
    keys = ("compile_count", "compile_time_ms", "cache_hits", "execute_count",
            "native_execute_count", "fallback_graph_count", "fallback_execute_count",
            "disk_cache_hits", "replay_graphs", "replay_calls", "replay_time_ms",
            "replay_eager_graphs")
    out = {k: m[k] for k in keys if k in m}
    out["fallback_ops"] = dict(m.get("fallback_ops", {}))
    out["fallback_reasons"] = list(m.get("fallback_reasons", []))[:5]
    out["openmp_runtime"] = ltc_mlir._C._openmp_runtime()  # LTC_MLIR_OPENMP
    return out


def _dynamo_metrics():
    """torch.compile's counters: graphs compiled (forward, backward and
    optimizer graphs count one each), frames compiled, graph breaks, and
    hits of Inductor's FX graph cache and AOTAutograd's cache (both in
    TORCHINDUCTOR_CACHE_DIR)."""
    from torch._dynamo.utils import counters
    return {"graphs": counters["stats"].get("unique_graphs", 0),
            "frames_compiled": counters["frames"].get("ok", 0),
            "graph_breaks": sum(counters["graph_break"].values()),
            "fxgraph_cache_hits": counters["inductor"].get("fxgraph_cache_hit", 0),
            "fxgraph_cache_misses": counters["inductor"].get("fxgraph_cache_miss", 0),
            "cache_hits": counters["inductor"].get("fxgraph_cache_hit", 0)
            + counters["aot_autograd"].get("autograd_cache_hit", 0)}


def child_main(spec):
    import torch
    torch.set_num_threads(spec["threads"])
    device = _init_mode(spec["mode"])
    lazy = device == "lazy"
    step = _build(spec["kind"], spec["name"], device,
                  backend=TORCH_COMPILE_BACKENDS.get(spec["mode"]))

    def timed(block=1):
        start = time.perf_counter()
        for _ in range(block):
            out = step()
            if lazy:
                torch._lazy.mark_step()
            del out
        if lazy:
            torch._lazy.wait_device_ops()
        return (time.perf_counter() - start) * 1e3 / block

    block = PIPELINED_BLOCK if spec["mode"] == "pipelined" else 1
    first_ms = timed()
    if spec["mode"] in TORCH_COMPILE_BACKENDS:
        first_graphs = _dynamo_metrics()["graphs"]
    for _ in range(spec["warmup"]):
        timed(block)
    if spec["mode"] in LTC_MLIR_MODES:
        import ltc_mlir
        warm = ltc_mlir.metrics()["compile_count"]
    if spec["mode"] in TORCH_COMPILE_BACKENDS:
        warm_graphs = _dynamo_metrics()["graphs"]
    cpu_start, wall_start = time.process_time(), time.perf_counter()
    samples = [timed(block) for _ in range(spec["steps"])]
    # CPU time / wall time of the timed steps: the cores the process kept
    # busy (all its threads), a check that the thread count held.
    cpu_util = (time.process_time() - cpu_start) / (time.perf_counter() - wall_start)
    result = {"first_step_ms": first_ms, "samples_ms": samples,
              "median_ms": statistics.median(samples), "peak_rss_mb": _peak_rss_mb(),
              "torch_threads": torch.get_num_threads(), "cpu_util": cpu_util}
    if spec["mode"] in LTC_MLIR_MODES:
        result["ltc_mlir"] = _ltc_mlir_metrics()
        # Compiles during the timed steps mean the steps did not reach a
        # steady state (more warmup needed, or a graph that changes each step).
        result["ltc_mlir"]["compiles_while_timed"] = \
            result["ltc_mlir"]["compile_count"] - warm
    if spec["mode"] in TORCH_COMPILE_BACKENDS:
        dynamo = _dynamo_metrics()
        dynamo["graphs_first_step"] = first_graphs
        # Recompiles (new graphs) during the timed steps.
        dynamo["compiles_while_timed"] = dynamo["graphs"] - warm_graphs
        if spec["mode"] == "inductor":
            result["inductor"] = dynamo
        else:
            result["dynamo"] = dynamo
    if spec["mode"] == "ts":
        import ts_backend_fixes
        result["ts"] = {"fallback_ops": ts_backend_fixes.fallback_ops()}
    return result


def _child_env(threads, cache_dir, inductor_cache_dir):
    env = dict(os.environ)
    # gpt2 is built from its config: nothing to download, never try.
    env["HF_HUB_OFFLINE"] = "1"
    env["TRANSFORMERS_OFFLINE"] = "1"
    if inductor_cache_dir is not None:
        # Inductor's and AOTAutograd's caches: a fresh directory makes the
        # first step a full compile.
        env["TORCHINDUCTOR_CACHE_DIR"] = inductor_cache_dir
    t = str(threads)
    env["LTC_MLIR_NUM_THREADS"] = t
    # Eager's BLAS may run its own thread pool (OpenBLAS pthreads): pin it too.
    env["OMP_NUM_THREADS"] = t
    env["OPENBLAS_NUM_THREADS"] = t
    env["MKL_NUM_THREADS"] = t
    if cache_dir is not None:
        # ltc_mlir's persistent compile cache: "" disables it (every first
        # step compiles), a path uses that directory.
        env["LTC_MLIR_CACHE_DIR"] = cache_dir
    return env


def _tail(text, lines=6, chars=600):
    kept = [line for line in text.strip().splitlines() if line.strip()][-lines:]
    return "\n".join(kept)[-chars:]


def run_isolated(kind, name, mode, threads, steps, warmup, timeout=900, cache_dir="",
                 inductor_cache_dir=None):
    """Runs one (kind, name, mode, threads) in a child process; returns the
    child's result dict, or {"error": reason} when it failed. cache_dir:
    ltc_mlir's compile cache directory, "" for none, None for the user's.
    inductor_cache_dir: TORCHINDUCTOR_CACHE_DIR, None for the user's."""
    spec = {"kind": kind, "name": name, "mode": mode, "threads": threads, "steps": steps,
            "warmup": warmup}
    cmd = [sys.executable, os.path.join(_HERE, "runner.py"), "--child", json.dumps(spec)]
    start = time.perf_counter()
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout,
                              env=_child_env(threads, cache_dir, inductor_cache_dir),
                              cwd=_HERE)
    except subprocess.TimeoutExpired as e:
        err = e.stderr.decode(errors="replace") if isinstance(e.stderr, bytes) else (e.stderr or "")
        return {"error": f"timeout after {timeout} s", "stderr_tail": _tail(err)}
    wall = time.perf_counter() - start
    for line in reversed(proc.stdout.splitlines()):
        if line.startswith(MARKER):
            result = json.loads(line[len(MARKER):])
            result["wall_s"] = wall
            return result
    if proc.returncode < 0:
        try:
            why = f"killed by {signal.Signals(-proc.returncode).name}"
        except ValueError:
            why = f"killed by signal {-proc.returncode}"
    else:
        why = f"exit code {proc.returncode}"
    return {"error": f"{why}: {_first_error_line(proc.stderr)}",
            "stderr_tail": _tail(proc.stderr), "wall_s": wall}


def _first_error_line(stderr):
    """The most telling line of a failed child's stderr: the exception line,
    or the last line mentioning an error/abort, or the last line."""
    lines = [line.strip() for line in stderr.splitlines() if line.strip()]
    for line in reversed(lines):
        if line.startswith(("RuntimeError", "ValueError", "TypeError", "NotImplementedError",
                            "AssertionError", "Exception", "terminate called", "what()")):
            return line[:300]
    for line in reversed(lines):
        if any(w in line.lower() for w in ("error", "abort", "fatal", "check failed")):
            return line[:300]
    return lines[-1][:300] if lines else "no output"


def _main():
    spec = json.loads(sys.argv[sys.argv.index("--child") + 1])
    sys.path.insert(0, _HERE)
    try:
        result = child_main(spec)
    except Exception as e:  # reported, not raised: the suite goes on
        result = {"error": f"{type(e).__name__}: {str(e).strip().splitlines()[0][:300] if str(e).strip() else ''}",
                  "stderr_tail": _tail(traceback.format_exc())}
    sys.stdout.flush()
    print(MARKER + json.dumps(result), flush=True)
    # Skip interpreter teardown (LTC's threads and static destructors): the
    # result is out, and a crash at exit must not turn it into a failure.
    os._exit(0)


if __name__ == "__main__":
    _main()
