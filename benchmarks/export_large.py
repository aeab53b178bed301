"""Exports a model with about 1 GB of f32 weights and loads it back.

    PYTHONPATH=build/python_packages .venv/bin/python benchmarks/export_large.py [--layers 16]

Each phase runs in its own process, so that its peak resident memory
(ru_maxrss) is its own:
  export  builds the model (16 x Linear(4096, 4096): 1.07 GB), exports it;
          reports the time and the peak RSS beside the model's size;
  load    parses <name>.mlir and attaches every blob from <name>.safetensors
          zero-copy (mlir_lowering's loader: one mmap, no copy; pages are
          read in only when something reads the weights).
Prints one JSON object and a Markdown table. Not a test: it only reports."""
import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time


def peak_rss_mb():
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def rss_mb():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20


def phase_export(directory, layers, width):
    import torch
    import ltc_mlir
    ltc_mlir.init()
    torch.manual_seed(0)
    base = rss_mb()
    model = torch.nn.Sequential(*[torch.nn.Linear(width, width, bias=False)
                                  for _ in range(layers)]).eval()
    model_mb = sum(p.numel() * p.element_size() for p in model.parameters()) / 2**20
    with_model = rss_mb()
    start = time.perf_counter()
    ltc_mlir.export(model, (torch.randn(1, width),), directory, name="large")
    seconds = time.perf_counter() - start
    return {"model_mb": model_mb, "rss_before_model_mb": base, "rss_with_model_mb": with_model,
            "export_s": seconds, "peak_rss_mb": peak_rss_mb()}


def phase_load(directory):
    import ltc_mlir
    from ltc_mlir import _C
    base = rss_mb()
    text = open(os.path.join(directory, "large.mlir")).read()
    start = time.perf_counter()
    stats = _C._load_exported(text, os.path.join(directory, "large.safetensors"))
    seconds = time.perf_counter() - start
    if stats["error"]:
        raise SystemExit(stats["error"])
    return {"load_s": seconds, "rss_before_mb": base, "peak_rss_mb": peak_rss_mb(),
            "resources": stats["resources"], "resource_mb": stats["resource_bytes"] / 2**20,
            "mapped_mb": stats["mapped_bytes"] / 2**20}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--layers", type=int, default=16)
    parser.add_argument("--width", type=int, default=4096)
    parser.add_argument("--dir", default=None, help="where to export (default: a temp dir)")
    parser.add_argument("--phase", choices=["export", "load"], help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.phase == "export":
        print(json.dumps(phase_export(args.dir, args.layers, args.width)))
        return
    if args.phase == "load":
        print(json.dumps(phase_load(args.dir)))
        return
    with tempfile.TemporaryDirectory(dir=args.dir) as directory:
        results = {}
        for phase in ("export", "load"):
            out = subprocess.run([sys.executable, __file__, "--phase", phase, "--dir", directory,
                                  "--layers", str(args.layers), "--width", str(args.width)],
                                 capture_output=True, text=True, check=True)
            results[phase] = json.loads(out.stdout.strip().splitlines()[-1])
        results["files_mb"] = {f: os.path.getsize(os.path.join(directory, f)) / 2**20
                               for f in sorted(os.listdir(directory))}
    print(json.dumps(results, indent=1))
    e, l = results["export"], results["load"]
    print("\n| what | figure |\n|---|---|")
    print(f"| weights | {e['model_mb']:.0f} MB ({args.layers} x Linear({args.width}, {args.width})) |")
    print(f"| export time | {e['export_s']:.1f} s |")
    print(f"| export peak RSS | {e['peak_rss_mb']:.0f} MB (model built: "
          f"{e['rss_with_model_mb']:.0f} MB) |")
    for name, mb in results["files_mb"].items():
        print(f"| {name} | {mb:.1f} MB |")
    print(f"| load (parse + attach {l['resources']} blobs) | {l['load_s']:.2f} s, peak RSS "
          f"{l['peak_rss_mb']:.0f} MB, {l['mapped_mb']:.0f} MB mapped |")


if __name__ == "__main__":
    main()
