"""The machine's f32 FMA peak that the kernel microbenchmarks are compared
with (benchmarks/suite.py).

Two figures:
- nominal, from /proc/cpuinfo: FLOP/cycle per FMA unit of the widest ISA
  the CPU reports (avx512f: 16 lanes x 2 = 32, avx2+fma: 8 x 2 = 16, else
  SSE 4 x 2 = 8) x FMA units x clock. The clock is lscpu's maximum when it
  has one; in a VM it usually has not, and /proc/cpuinfo's "cpu MHz" is the
  base clock, below the turbo clock the cores run at. The number of FMA
  units is not in cpuinfo either.
- measured: an FMA loop of that ISA (fma_peak.c, compiled here with the C
  compiler) run on one core for a fraction of a second. It runs at the real
  clock and FMA width, so it is the peak used for "% of peak" whenever a C
  compiler is there; the nominal one otherwise.
"""
import ctypes
import os
import re
import subprocess
import tempfile

_HERE = os.path.dirname(os.path.abspath(__file__))


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


def measure_fma_gflops(seconds=0.5):
    """(GFLOP/s of one core's FMA loop, ISA name) or (None, reason)."""
    compiler = os.environ.get("CC", "cc")
    with tempfile.TemporaryDirectory(prefix="ltc_mlir_fma_peak_") as tmp:
        lib = os.path.join(tmp, "fma_peak.so")
        try:
            subprocess.run([compiler, "-O2", "-shared", "-fPIC",
                            os.path.join(_HERE, "fma_peak.c"), "-o", lib],
                           check=True, capture_output=True, timeout=60)
        except (OSError, subprocess.SubprocessError) as e:
            return None, f"could not compile fma_peak.c with {compiler}: {e}"
        probe = ctypes.CDLL(lib).ltc_fma_peak_gflops
        probe.restype = ctypes.c_double
        probe.argtypes = [ctypes.c_double, ctypes.POINTER(ctypes.c_int)]
        lanes = ctypes.c_int()
        gflops = probe(seconds, ctypes.byref(lanes))
    if not lanes.value:
        return None, "no AVX2+FMA or AVX-512F"
    return gflops, "avx512f" if lanes.value == 16 else "avx2+fma"


def machine_peak(fma_units=2, measure=True):
    """The nominal peak (see above; `fma_units` per core: 2 on recent Intel
    server cores and AMD Zen) and, with `measure`, the measured one.
    peak_gflops_per_core is the measured figure when there is one."""
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
        mhz, source = max(float(v) for v in mhz_m), "/proc/cpuinfo 'cpu MHz'"
    else:
        mhz, source = None, "unknown"
    nominal = per_unit * fma_units * mhz / 1e3 if mhz else None
    peak = {"model": model_m.group(1).strip() if model_m else "unknown", "isa": isa,
            "flop_per_cycle_per_fma_unit": per_unit, "fma_units": fma_units, "mhz": mhz,
            "clock_source": source, "nominal_gflops_per_core": nominal,
            "logical_cpus": len(mhz_m) or None}
    measured, what = measure_fma_gflops() if measure else (None, "not measured")
    peak["measured_gflops_per_core"] = measured
    peak["measured_isa"] = what if measured else None
    if measured:
        peak["peak_gflops_per_core"] = measured
        # The clock at which the nominal FLOP/cycle gives the measured rate.
        peak["effective_mhz"] = measured * 1e3 / (per_unit * fma_units)
        peak["peak_source"] = f"measured {what} FMA loop on one core"
    else:
        peak["peak_gflops_per_core"] = nominal
        peak["peak_source"] = f"nominal ({what})"
    return peak


def describe(peak):
    """One line saying what the peak is and where it comes from."""
    def fmt(v, spec):
        return format(v, spec) if v is not None else "-"
    nominal = (f"nominal {fmt(peak.get('nominal_gflops_per_core'), '.1f')} = {peak['isa']} "
               f"{peak['flop_per_cycle_per_fma_unit']} FLOP/cycle/FMA unit x "
               f"{peak['fma_units']} FMA units x {fmt(peak.get('mhz'), '.0f')} MHz from "
               f"{peak['clock_source']}")
    text = (f"Peak {fmt(peak.get('peak_gflops_per_core'), '.1f')} GFLOP/s per core, "
            f"{peak.get('peak_source', 'nominal')}")
    if peak.get("effective_mhz"):
        text += f" (as if {peak['effective_mhz']:.0f} MHz)"
    return f"{text}; {nominal}"


def peak_for_threads(peak, threads):
    """Peak GFLOP/s for `threads` threads (one core each; no more cores than
    the machine has)."""
    if not peak.get("peak_gflops_per_core"):
        return None
    cores = min(threads, peak.get("logical_cpus") or threads)
    return peak["peak_gflops_per_core"] * cores
