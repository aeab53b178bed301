"""Aggregation, tables, JSON and the ratio plot of the benchmark suite."""
import json
import statistics


def aggregate(rounds):
    """Combines the per-round results of one (item, threads, mode): all step
    samples, their median, the per-round medians, the median first-step
    time, the largest peak RSS; "failed" holds the first error, if any."""
    ok = [r for r in rounds if "error" not in r]
    errors = [r for r in rounds if "error" in r]
    out = {"rounds": rounds, "failed": errors[0]["error"] if errors else None}
    if not ok:
        return out
    samples = [s for r in ok for s in r["samples_ms"]]
    out.update({
        "samples_ms": samples,
        "median_ms": statistics.median(samples),
        "round_medians_ms": [r["median_ms"] for r in ok],
    })
    # First steps that compiled vs. those that loaded ltc_mlir's graphs from
    # the persistent compile cache (a process after the first of the suite).
    cold = [r["first_step_ms"] for r in ok if not r.get("ltc_mlir", {}).get("disk_cache_hits")]
    warm = [r["first_step_ms"] for r in ok if r.get("ltc_mlir", {}).get("disk_cache_hits")]
    out.update({
        "first_step_ms": statistics.median(cold) if cold else None,
        "first_step_cached_ms": statistics.median(warm) if warm else None,
        "peak_rss_mb": max(r["peak_rss_mb"] for r in ok),
        "cpu_util": statistics.median(r["cpu_util"] for r in ok),
    })
    if "ltc_mlir" in ok[-1]:
        out["ltc_mlir"] = ok[-1]["ltc_mlir"]
    return out


def add_ratios(by_mode):
    """Adds ratio_vs_eager (median ms / eager's median ms) to every mode."""
    eager = by_mode.get("eager", {}).get("median_ms")
    for mode, agg in by_mode.items():
        if eager and agg.get("median_ms") is not None:
            agg["ratio_vs_eager"] = agg["median_ms"] / eager


def add_gflops(by_mode, flops, peak_gflops):
    for agg in by_mode.values():
        if agg.get("median_ms"):
            agg["gflops"] = flops / (agg["median_ms"] * 1e-3) / 1e9
            if peak_gflops:
                agg["pct_peak"] = 100.0 * agg["gflops"] / peak_gflops


def _note(agg):
    if agg.get("failed"):
        return "FAILED: " + agg["failed"]
    notes = []
    m = agg.get("ltc_mlir")
    if m:
        if m.get("fallback_graph_count") or m.get("fallback_ops"):
            ops = ", ".join(f"{k} x{v}" for k, v in sorted(m["fallback_ops"].items()))
            notes.append(f"fallback graphs {m.get('fallback_graph_count', 0)}"
                         + (f", ops: {ops}" if ops else ""))
        else:
            notes.append("all native")
        if m.get("compiles_while_timed"):
            notes.append(f"{m['compiles_while_timed']} compile(s) during timed steps")
    if agg.get("failed") is None and len(agg.get("rounds", [])) > len(agg.get("round_medians_ms", [])):
        notes.append("some rounds failed")
    return "; ".join(notes)


def _fmt(v, spec):
    """v formatted by spec; "-" as wide as spec's width when v is None."""
    if v is not None:
        return format(v, spec)
    width = spec.split(".")[0]
    return format("-", f">{width}") if width.isdigit() else "-"


def _ratio(v, width=9):
    return format(f"{v:.2f}x" if v else "-", f">{width}")


def _first(agg, width):
    """The first step that compiled; else the cached one, marked with *."""
    if agg.get("first_step_ms") is not None:
        return format(agg["first_step_ms"], f"{width}.0f")
    if agg.get("first_step_cached_ms") is not None:
        return format(agg["first_step_cached_ms"], f"{width - 1}.0f") + "*"
    return format("-", f">{width}")


def workload_table(results):
    lines = [f"{'workload':<15} {'thr':>3} {'mode':<9} {'ms/step':>9} {'vs eager':>9} "
             f"{'1st step ms':>11} {'RSS MB':>7} {'cpu':>4}  note"]
    for name, by_threads in results.items():
        for threads, by_mode in by_threads.items():
            for mode, agg in by_mode.items():
                ratio = agg.get("ratio_vs_eager")
                lines.append(
                    f"{name:<15} {threads:>3} {mode:<9} {_fmt(agg.get('median_ms'), '9.2f')} "
                    f"{_ratio(ratio)} "
                    f"{_first(agg, 11)} "
                    f"{_fmt(agg.get('peak_rss_mb'), '7.0f')} {_fmt(agg.get('cpu_util'), '4.1f')}  "
                    f"{_note(agg)}")
    return "\n".join(lines)


def kernel_table(results, peak_description):
    lines = [f"{'kernel':<15} {'thr':>3} {'mode':<9} {'ms':>8} {'GFLOP/s':>8} "
             f"{'% peak':>7} {'speedup':>9} {'1st ms':>8} {'cpu':>4}  note"]
    for name, by_threads in results.items():
        for threads, by_mode in by_threads.items():
            for mode, agg in by_mode.items():
                ratio = agg.get("ratio_vs_eager")
                speed = 1 / ratio if ratio else None  # kernels: higher GFLOP/s is better
                lines.append(
                    f"{name:<15} {threads:>3} {mode:<9} {_fmt(agg.get('median_ms'), '8.3f')} "
                    f"{_fmt(agg.get('gflops'), '8.1f')} {_fmt(agg.get('pct_peak'), '6.1f')}% "
                    f"{_ratio(speed)} "
                    f"{_first(agg, 8)} {_fmt(agg.get('cpu_util'), '4.1f')}  "
                    f"{_note(agg)}")
    lines.append(f"(cpu = CPU time / wall time of the timed calls, the cores kept busy. "
                 f"speedup = eager time / mode time: above 1 is faster. "
                 f"{peak_description}; x threads for the % column)")
    return "\n".join(lines)


def ratio_summary(results):
    """One line per workload and thread count: ltc_mlir/eager, pipelined/eager
    and ts/eager."""
    lines = []
    for name, by_threads in results.items():
        for threads, by_mode in by_threads.items():
            parts = []
            for mode in ("ltc_mlir", "pipelined", "ts"):
                agg = by_mode.get(mode)
                if agg is None:
                    continue
                r = agg.get("ratio_vs_eager")
                parts.append(f"{mode}/eager " + (f"{r:.2f}" if r else "failed" if agg.get("failed")
                                                 else "-"))
            lines.append(f"  {name:<15} {threads} thr: " + ", ".join(parts))
    return "\n".join(lines)


def write_json(path, data):
    with open(path, "w") as f:
        json.dump(data, f, indent=1)


def plot_ratios(results, path):
    """Bar chart of mode/eager per workload, per thread count (log scale).
    Returns a message saying what was written or why not."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return ("plot skipped: matplotlib is not installed (Debian: apt-get install "
                "python3-matplotlib, or scripts/install_deps.sh)")
    names = list(results)
    series = []  # (label, [(ratio or None, failed) per workload])
    thread_counts = sorted({t for by_t in results.values() for t in by_t}, key=int)
    for threads in thread_counts:
        for mode in ("ts", "ltc_mlir", "pipelined"):
            cells = [results[n].get(threads, {}).get(mode) for n in names]
            if any(c is not None for c in cells):
                series.append((f"{mode}/eager, {threads} thr",
                               [((c or {}).get("ratio_vs_eager"), bool((c or {}).get("failed")))
                                for c in cells]))
    if not series:
        return "plot skipped: no ratios (eager and another mode are both needed)"
    fig, ax = plt.subplots(figsize=(max(6, 1.6 * len(names)), 4.5))
    width = 0.8 / len(series)
    colors = {"ts": "tab:blue", "ltc_mlir": "tab:orange", "pipelined": "tab:green"}
    for i, (label, cells) in enumerate(series):
        mode, threads = label.split("/")[0], label.split(", ")[1]
        hatch = None if threads.startswith(thread_counts[0] + " ") else "//"
        xs = [j + (i - (len(series) - 1) / 2) * width for j in range(len(names))]
        # Bars grow from 1 (as fast as eager): up is slower, down is faster.
        ax.bar(xs, [v - 1 if v else float("nan") for v, _ in cells], width, bottom=1,
               label=label, color=colors.get(mode), hatch=hatch, edgecolor="white")
        for x, (v, failed) in zip(xs, cells):
            if v or failed:
                down = bool(v) and v < 1
                ax.annotate(f"{v:.2f}" if v else "failed", (x, v or 1), ha="center",
                            va="top" if down else "bottom", fontsize=7, rotation=90,
                            xytext=(0, -2 if down else 2), textcoords="offset points")
    ax.axhline(1.0, color="black", linewidth=0.8)
    ax.set_yscale("log")
    ax.margins(y=0.12)
    ax.set_xticks(range(len(names)))
    ax.set_xticklabels(names, rotation=20)
    ax.set_ylabel("median ms/step vs eager CPU (lower is faster)")
    ax.set_title("ltc_mlir and TorchScript lazy backend vs eager PyTorch")
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return f"plot: {path}"
