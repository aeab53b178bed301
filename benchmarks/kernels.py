"""Kernel microbenchmarks of the suite (benchmarks/suite.py) and the machine's
peak f32 FMA throughput they are compared with.

Each kernel is one op on fixed-size inputs: on the lazy device it is a
one-op graph (compiled once, then cached), eagerly it is ATen's kernel. The
runner times it like a workload step; GFLOP/s = FLOPs / median time.
"""
import re
import subprocess

import torch
import torch.nn.functional as F


def _randn(*shape, device):
    return torch.randn(*shape, generator=torch.Generator().manual_seed(0)).to(device)


def _matmul(n):
    def build(device):
        a, b = _randn(n, n, device=device), _randn(n, n, device=device)
        return lambda: a @ b
    return build, 2.0 * n ** 3, f"matmul {n}x{n}x{n}"


def _bmm(batch, n):
    def build(device):
        a, b = _randn(batch, n, n, device=device), _randn(batch, n, n, device=device)
        return lambda: torch.bmm(a, b)
    return build, 2.0 * batch * n ** 3, f"bmm {batch}x({n}x{n}x{n})"


CONV = dict(batch=8, cin=64, cout=64, size=32, k=3)


def _conv_flops():
    c = CONV
    return 2.0 * c["batch"] * c["cout"] * c["size"] ** 2 * c["cin"] * c["k"] ** 2


def _conv_inputs(device, grad):
    c = CONV
    x = _randn(c["batch"], c["cin"], c["size"], c["size"], device=device)
    w = _randn(c["cout"], c["cin"], c["k"], c["k"], device=device) * 0.05
    if grad:
        x.requires_grad_()
        w.requires_grad_()
    return x, w


def _conv_fwd(device):
    x, w = _conv_inputs(device, grad=False)
    return lambda: F.conv2d(x, w, padding=CONV["k"] // 2)


def _conv_fwd_bwd(device):
    x, w = _conv_inputs(device, grad=True)
    g = _randn(CONV["batch"], CONV["cout"], CONV["size"], CONV["size"], device=device)

    def step():
        y = F.conv2d(x, w, padding=CONV["k"] // 2)
        return torch.autograd.grad(y, (x, w), g)
    return step


_CONV_DESC = "{batch}x{cin}x{size}x{size} * {cout}x{cin}x{k}x{k}, pad 1".format(**CONV)

# name -> (builder, FLOPs per call, description)
KERNELS = {
    "matmul512": _matmul(512),
    "matmul1024": _matmul(1024),
    "bmm16x256": _bmm(16, 256),
    "conv2d_fwd": (_conv_fwd, _conv_flops(), f"conv2d forward {_CONV_DESC}"),
    # Backward = grad input + grad weight, each as many FLOPs as the forward.
    "conv2d_fwd_bwd": (_conv_fwd_bwd, 3 * _conv_flops(), f"conv2d forward+backward {_CONV_DESC}"),
}


def _cpuinfo():
    try:
        with open("/proc/cpuinfo") as f:
            return f.read()
    except OSError:
        return ""


def _lscpu_max_mhz():
    try:
        out = subprocess.run(["lscpu"], capture_output=True, text=True, timeout=10).stdout
    except (OSError, subprocess.SubprocessError):
        return None
    m = re.search(r"^CPU max MHz:\s*([\d.]+)", out, re.M)
    return float(m.group(1)) if m else None


def machine_peak(fma_units=2):
    """The f32 FMA peak from /proc/cpuinfo: FLOP/cycle per FMA unit (avx512f:
    16 lanes x 2 = 32, avx2+fma: 8 x 2 = 16, else SSE 4 x 2 = 8 without FMA
    counted as mul+add) x `fma_units` x clock. The number of FMA units is not
    in cpuinfo: 2 is right for recent Intel server cores and AMD Zen; Zen 4
    runs 512-bit FMAs as two 256-bit halves, so its real AVX-512 peak is
    half the figure (use --fma-units 1 there)."""
    info = _cpuinfo()
    flags_m = re.search(r"^flags\s*:\s*(.*)$", info, re.M)
    flags = set(flags_m.group(1).split()) if flags_m else set()
    if "avx512f" in flags:
        isa, per_unit = "avx512f", 32
    elif "avx2" in flags and "fma" in flags:
        isa, per_unit = "avx2+fma", 16
    else:
        isa, per_unit = "sse", 8
    model_m = re.search(r"^model name\s*:\s*(.*)$", info, re.M)
    mhz_m = re.findall(r"^cpu MHz\s*:\s*([\d.]+)", info, re.M)
    max_mhz = _lscpu_max_mhz()
    if max_mhz:
        mhz, source = max_mhz, "lscpu 'CPU max MHz'"
    elif mhz_m:
        mhz, source = max(float(v) for v in mhz_m), "/proc/cpuinfo 'cpu MHz' (current clock)"
    else:
        mhz, source = None, "unknown"
    per_core = per_unit * fma_units * mhz / 1e3 if mhz else None
    return {"model": model_m.group(1).strip() if model_m else "unknown", "isa": isa,
            "flop_per_cycle_per_fma_unit": per_unit, "fma_units": fma_units, "mhz": mhz,
            "clock_source": source, "peak_gflops_per_core": per_core,
            "logical_cpus": len(mhz_m) or None}


def peak_for_threads(peak, threads):
    """Peak GFLOP/s for `threads` threads (one core each; no more cores than
    the machine has)."""
    if not peak.get("peak_gflops_per_core"):
        return None
    cores = min(threads, peak.get("logical_cpus") or threads)
    return peak["peak_gflops_per_core"] * cores
