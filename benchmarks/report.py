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
    # First steps that compiled vs. those that loaded their graphs from a
    # persistent compile cache (ltc_mlir's or Inductor's; a process after the
    # first of the suite).
    cold = [r["first_step_ms"] for r in ok if not loaded_from_cache(r)]
    warm = [r["first_step_ms"] for r in ok if loaded_from_cache(r)]
    out.update({
        "first_step_ms": statistics.median(cold) if cold else None,
        "first_step_cached_ms": statistics.median(warm) if warm else None,
        "peak_rss_mb": max(r["peak_rss_mb"] for r in ok),
        "cpu_util": statistics.median(r["cpu_util"] for r in ok),
    })
    for metrics in ("ltc_mlir", "inductor", "dynamo", "ts"):  # the last round's counters
        if metrics in ok[-1]:
            out[metrics] = ok[-1][metrics]
    return out


def loaded_from_cache(result):
    """Whether a process's first step loaded compiled graphs from a disk
    cache instead of compiling them."""
    return bool(result.get("ltc_mlir", {}).get("disk_cache_hits")
                or result.get("inductor", {}).get("cache_hits"))


REFERENCES = ("eager", "inductor")


def add_ratios(by_mode):
    """Adds ratio_vs_eager and ratio_vs_inductor (median ms / the reference
    mode's median ms) to every mode."""
    for ref in REFERENCES:
        base = by_mode.get(ref, {}).get("median_ms")
        for agg in by_mode.values():
            if base and agg.get("median_ms") is not None:
                agg[f"ratio_vs_{ref}"] = agg["median_ms"] / base


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
    m = agg.get("inductor") or agg.get("dynamo")
    if m:
        notes.append(f"{m['graphs']} graph(s)"
                     + (f" ({m['graphs_first_step']} in 1st step)"
                        if m.get("graphs_first_step") not in (None, m["graphs"]) else "")
                     + f", {m['graph_breaks']} graph break(s)")
        if m.get("compiles_while_timed"):
            notes.append(f"{m['compiles_while_timed']} recompile(s) during timed steps")
    m = agg.get("ts")
    if m:
        ops = ", ".join(f"{k.replace('aten::', '')} x{v}"
                        for k, v in sorted(m.get("fallback_ops", {}).items()))
        notes.append(f"CPU fallback: {ops}" if ops else "no CPU fallback")
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
             f"{'vs induct':>9} {'1st step ms':>11} {'RSS MB':>7} {'cpu':>4}  note"]
    for name, by_threads in results.items():
        for threads, by_mode in by_threads.items():
            for mode, agg in by_mode.items():
                lines.append(
                    f"{name:<15} {threads:>3} {mode:<9} {_fmt(agg.get('median_ms'), '9.2f')} "
                    f"{_ratio(agg.get('ratio_vs_eager'))} {_ratio(agg.get('ratio_vs_inductor'))} "
                    f"{_first(agg, 11)} "
                    f"{_fmt(agg.get('peak_rss_mb'), '7.0f')} {_fmt(agg.get('cpu_util'), '4.1f')}  "
                    f"{_note(agg)}")
    return "\n".join(lines)


def _speedup(agg, ref):
    """Reference time / mode time (kernels: higher GFLOP/s is better)."""
    ratio = agg.get(f"ratio_vs_{ref}")
    return 1 / ratio if ratio else None


def kernel_table(results, peak_description):
    lines = [f"{'kernel':<15} {'thr':>3} {'mode':<9} {'ms':>8} {'GFLOP/s':>8} "
             f"{'% peak':>7} {'vs eager':>9} {'vs induct':>9} {'1st ms':>8} {'cpu':>4}  note"]
    for name, by_threads in results.items():
        for threads, by_mode in by_threads.items():
            for mode, agg in by_mode.items():
                lines.append(
                    f"{name:<15} {threads:>3} {mode:<9} {_fmt(agg.get('median_ms'), '8.3f')} "
                    f"{_fmt(agg.get('gflops'), '8.1f')} {_fmt(agg.get('pct_peak'), '6.1f')}% "
                    f"{_ratio(_speedup(agg, 'eager'))} {_ratio(_speedup(agg, 'inductor'))} "
                    f"{_first(agg, 8)} {_fmt(agg.get('cpu_util'), '4.1f')}  "
                    f"{_note(agg)}")
    lines.append(f"(cpu = CPU time / wall time of the timed calls, the cores kept busy. "
                 f"vs eager / vs induct = speedup, the reference's time / mode time: above 1 "
                 f"is faster. {peak_description}; x threads for the % column)")
    return "\n".join(lines)


COMPARED = ("ltc_mlir", "pipelined", "compiled", "inductor", "ts")  # each against eager and inductor
# The issue's "ltc_mlir": the faster of its front ends (mark_step, pipelined
# mark_step, torch.compile(backend="ltc_mlir")).
LTC_MLIR_FRONT_ENDS = ("ltc_mlir", "pipelined", "compiled")


def _ratio_text(agg, ref):
    r = agg.get(f"ratio_vs_{ref}")
    return f"{r:.2f}x {ref}" if r else f"{ref} -"


def _seconds(agg):
    if agg.get("failed") and agg.get("median_ms") is None:
        return "failed"
    if agg.get("first_step_ms") is not None:
        return f"{agg['first_step_ms'] / 1e3:.2f}"
    if agg.get("first_step_cached_ms") is not None:
        return f"{agg['first_step_cached_ms'] / 1e3:.2f}*"
    return "-"


def ratio_summary(results):
    """Per workload and thread count: ltc_mlir (and pipelined, inductor, ts)
    as a ratio to eager and to inductor, then every mode's first step in
    seconds (* = loaded from the compile cache)."""
    lines = []
    for name, by_threads in results.items():
        for threads, by_mode in by_threads.items():
            parts = []
            for mode in COMPARED:
                agg = by_mode.get(mode)
                if agg is None:
                    continue
                if agg.get("median_ms") is None:
                    parts.append(f"{mode} failed")
                    continue
                refs = [ref for ref in REFERENCES if ref != mode and ref in by_mode]
                parts.append(f"{mode} " + (", ".join(_ratio_text(agg, ref) for ref in refs)
                                           or "-"))
            best = min((m for m in LTC_MLIR_FRONT_ENDS if by_mode.get(m, {}).get("median_ms")),
                       key=lambda m: by_mode[m]["median_ms"], default=None)
            if best:
                refs = [ref for ref in REFERENCES if ref in by_mode]
                parts.append(f"best ltc_mlir ({best}) "
                             + ", ".join(_ratio_text(by_mode[best], ref) for ref in refs))
            lines.append(f"  {name:<15} {threads} thr: " + "; ".join(parts))
            lines.append(f"  {'':<15}        1st step s: " + ", ".join(
                f"{mode} {_seconds(agg)}" for mode, agg in by_mode.items()))
    return "\n".join(lines)


def write_json(path, data):
    with open(path, "w") as f:
        json.dump(data, f, indent=1)


MODE_COLORS = {"eager": "tab:gray", "inductor": "tab:purple", "ts": "tab:blue",
               "ltc_mlir": "tab:orange", "pipelined": "tab:green", "compiled": "tab:red"}


def _bars(ax, names, series, thread_counts, from_one):
    """Grouped bars: one group per workload, one bar per (mode, threads) of
    series [(mode, threads, [(value or None, failed, label suffix) per
    workload])]; the
    second thread count hatched. from_one: bars grow from 1 (ratios: up is
    slower, down is faster), else from the axis' bottom."""
    width = 0.8 / len(series)
    floor = 1 if from_one else min((c[0] for _, _, cells in series for c in cells if c[0]),
                                   default=1)
    for i, (mode, threads, cells) in enumerate(series):
        xs = [j + (i - (len(series) - 1) / 2) * width for j in range(len(names))]
        hatch = None if threads == thread_counts[0] else "//"
        values = [c[0] if c[0] else float("nan") for c in cells]
        ax.bar(xs, [v - 1 for v in values] if from_one else values, width,
               bottom=1 if from_one else None, label=f"{mode}, {threads} thr",
               color=MODE_COLORS.get(mode), hatch=hatch, edgecolor="white")
        for x, (v, failed, suffix) in zip(xs, cells):
            if v or failed:
                down = bool(v) and from_one and v < 1
                y = v or floor
                text = ("failed" if not v else f"{v:.2f}" if from_one
                        else f"{v:.3g}") + suffix
                ax.annotate(text, (x, y), ha="center", va="top" if down else "bottom",
                            fontsize=6, rotation=90, xytext=(0, -2 if down else 2),
                            textcoords="offset points")
    if from_one:
        ax.axhline(1.0, color="black", linewidth=0.8)
    ax.set_yscale("log")
    ax.margins(y=0.15)
    ax.set_xticks(range(len(names)))
    ax.set_xticklabels(names, rotation=15)
    ax.legend(fontsize=6, ncol=2)


def _series(results, names, thread_counts, modes, value, suffix=lambda cell: ""):
    """[(mode, threads, [(value(cell), failed, suffix(cell)) per workload])]
    of the modes that ran at each thread count."""
    out = []
    for threads in thread_counts:
        for mode in modes:
            cells = [results[n].get(threads, {}).get(mode) for n in names]
            if any(c is not None for c in cells):
                out.append((mode, threads, [(value(c or {}), bool((c or {}).get("failed")),
                                             suffix(c or {})) for c in cells]))
    return out


def _first_step_s(cell):
    """The first step that compiled, else the one that loaded from the cache."""
    ms = cell.get("first_step_ms") or cell.get("first_step_cached_ms")
    return ms / 1e3 if ms else None


def plot_ratios(results, path):
    """Three panels per workload and thread count (log scale): every mode /
    eager; ltc_mlir (and pipelined) / inductor; every mode's first step in
    seconds. Returns a message saying what was written or why not."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return ("plot skipped: matplotlib is not installed (Debian: apt-get install "
                "python3-matplotlib, or scripts/install_deps.sh)")
    names = list(results)
    thread_counts = sorted({t for by_t in results.values() for t in by_t}, key=int)
    panels = [
        ("median ms/step / eager (lower is faster)", True,
         _series(results, names, thread_counts,
                 ("inductor", "ts") + LTC_MLIR_FRONT_ENDS,
                 lambda c: c.get("ratio_vs_eager"))),
        ("median ms/step / inductor (lower is faster)", True,
         _series(results, names, thread_counts, LTC_MLIR_FRONT_ENDS,
                 lambda c: c.get("ratio_vs_inductor"))),
        ("first step (trace + compile + run), s; * = from the compile cache", False,
         _series(results, names, thread_counts, tuple(MODE_COLORS), _first_step_s,
                 lambda c: "*" if c.get("first_step_ms") is None
                 and c.get("first_step_cached_ms") is not None else "")),
    ]
    panels = [p for p in panels if any(c[0] or (p[1] and c[1])
                                       for _, _, cells in p[2] for c in cells)]
    if not panels:
        return "plot skipped: nothing to plot"
    fig, axes = plt.subplots(len(panels), 1, squeeze=False,
                             figsize=(max(7, 1.9 * len(names)), 3.6 * len(panels)))
    for ax, (label, from_one, series) in zip(axes[:, 0], panels):
        _bars(ax, names, series, thread_counts, from_one)
        ax.set_ylabel(label, fontsize=8)
    axes[0, 0].set_title("ltc_mlir vs eager PyTorch, torch.compile (inductor) and the "
                         "TorchScript lazy backend (ts), CPU", fontsize=9)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return f"plot: {path}"
