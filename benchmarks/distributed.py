"""Data-parallel training over torch.distributed (gloo on 127.0.0.1): eager
PyTorch + stock DDP against ltc_mlir (the gradient all-reduce inside the
compiled step), at several world sizes, and a cost-model table.

For each world size N in --ranks and each mode, N processes (this file with
--worker; MASTER_ADDR=127.0.0.1, a free MASTER_PORT, RANK, WORLD_SIZE;
--threads compute threads per rank, 1 by default: LTC_MLIR_NUM_THREADS,
OMP_NUM_THREADS and torch.set_num_threads) train the workload with a fixed
per-rank batch:

  eager_ddp                  eager CPU + DistributedDataParallel
  ltc_mlir_ddp               model.to("lazy") + DistributedDataParallel,
                             mark_step + wait_device_ops each step
  ltc_mlir_reduce_gradients  model.to("lazy"), no wrapper:
                             ltc_mlir.distributed.optimizer_step(opt)
  ltc_mlir_ddp_bucket_view   (only when named in --modes) ltc_mlir_ddp with
                             DDP(model, gradient_as_bucket_view=True)

Per mode and N: the median ms per step of rank 0's timed steps (each step
timed to completion in the loop: no barrier per step), samples/s over all
ranks, the share of the step spent in communication, and the all-reduce bus
bandwidth of a separate measurement in the same processes after training:
dist.all_reduce of a CPU float32 tensor of the model's gradient size,
busbw = 2(N-1)/N * S / t (median of --bw-reps). Communication share:
ltc_mlir modes: collective_wait_ms (time the graph thread was blocked
waiting for collectives) / total time of the timed steps; eager_ddp: the
standalone all-reduce's time / the median step (what the step's
communication costs when nothing hides it: DDP overlaps it with backward,
so this is an upper bound of its exposed share). Every launch has a timeout
(--timeout): its processes are killed when it expires and the result says
so; a rank that fails makes the others be killed after a grace period.

--model-table prints only the cost model's prediction (no processes):
ring all-reduce time 2(N-1)/N * S/B + 2(N-1) * latency for ResNet-50 and
BERT-base gradients on 10 GbE and 25 GbE, and the predicted scaling
efficiency compute / (compute + exposed communication). A normal run prints
it after the measurements too.

    PYTHONPATH=build/python_packages .venv/bin/python benchmarks/distributed.py \\
        --workload mlp --ranks 1,2 --steps 10 --warmup 3 --out /tmp/dist.json
    .venv/bin/python benchmarks/distributed.py --model-table
"""
import argparse
import datetime
import json
import os
import platform
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import traceback

MODES = ("eager_ddp", "ltc_mlir_ddp", "ltc_mlir_reduce_gradients")
# Measured only when named in --modes.
EXTRA_MODES = ("ltc_mlir_ddp_bucket_view",)
WORKLOADS = {
    "mlp": "MLP 784-512-512-10, batch 32 per rank, SGD momentum 0.9",
    "resnet18": "torchvision ResNet-18 (10 classes), batch 8 per rank, 32x32, SGD momentum 0.9 "
                "+ weight decay",
    "gpt2ish": "transformers GPT2LMHeadModel(GPT2Config(n_embd=256, n_layer=2, n_head=4, "
               "vocab_size=8192, n_positions=128)), random weights, batch 2 x 64 tokens per "
               "rank, LM loss, AdamW",
}
BATCH = {"mlp": 32, "resnet18": 8, "gpt2ish": 2}
MARKER = "DIST_RESULT "
_HERE = os.path.abspath(__file__)

# ---------------------------------------------------------------- cost model

MODEL_PARAMS = {"ResNet-50": 25.6e6, "BERT-base": 110e6}
# Training FLOPs per step per host, for the compute estimate (fp32):
# ResNet-50: 4.1 GMAC = 8.2 GFLOP forward per 224x224 image, training ~3x
# forward, batch 32 per host. BERT-base: 6 * parameters * tokens (the
# 6ND rule, all 110M parameters, attention's seq^2 term ignored at 128
# tokens), batch 32 x 128 tokens per host.
MODEL_STEP_FLOP = {"ResNet-50": 3 * 8.2e9 * 32, "BERT-base": 6 * 110e6 * 32 * 128}
MODEL_BATCH = {"ResNet-50": "batch 32 x 224x224 per host",
               "BERT-base": "batch 32 x 128 tokens per host"}
NETWORKS = {"10 GbE": 1.1e9, "25 GbE": 2.8e9}   # effective bytes/s
LATENCY_S = 50e-6
HOSTS = (2, 4, 8, 16)
BACKWARD_SHARE = 2.0 / 3.0
HOST_LABELS = {0.1: "a 2-core host like the benchmark machine (2 AMD EPYC cores, FMA peak "
                    "~232 GFLOP/s, ~40 % sustained in training)",
               1.0: "a CPU server (32-64 AVX-512 cores sustaining ~1 TFLOP/s fp32 in training)",
               10.0: "an accelerator-class host sustaining 10 TFLOP/s fp32"}


def ring_allreduce_s(n, size_bytes, bandwidth, latency=LATENCY_S):
    return 2 * (n - 1) / n * size_bytes / bandwidth + 2 * (n - 1) * latency


def efficiency(compute_s, comm_s, overlap):
    exposed = max(0.0, comm_s - BACKWARD_SHARE * compute_s) if overlap else comm_s
    return compute_s / (compute_s + exposed)


def model_table(host_tflops, compute_ms=None):
    """The prediction as a dict; compute_ms ({model: ms}) replaces the
    FLOP-based compute estimate by one given host."""
    hosts = []
    if compute_ms:
        hosts.append({"label": "given compute times (--compute-ms)",
                      "compute_ms": dict(compute_ms)})
    else:
        for tf in host_tflops:
            hosts.append({"label": f"{tf:g} TFLOP/s sustained: "
                                   + HOST_LABELS.get(tf, "an assumed host"),
                          "tflops": tf,
                          "compute_ms": {m: MODEL_STEP_FLOP[m] / (tf * 1e12) * 1e3
                                         for m in MODEL_PARAMS}})
    comm = []
    for model, params in MODEL_PARAMS.items():
        size = params * 4
        for net, bw in NETWORKS.items():
            for n in HOSTS:
                comm.append({"model": model, "network": net, "hosts": n, "gradient_bytes": size,
                             "allreduce_ms": ring_allreduce_s(n, size, bw) * 1e3})
    for h in hosts:
        h["efficiency"] = []
        for c in comm:
            compute_s = h["compute_ms"][c["model"]] / 1e3
            h["efficiency"].append({
                "model": c["model"], "network": c["network"], "hosts": c["hosts"],
                "no_overlap": efficiency(compute_s, c["allreduce_ms"] / 1e3, False),
                "full_overlap": efficiency(compute_s, c["allreduce_ms"] / 1e3, True)})
    return {
        "assumptions": {
            "formula": "ring all-reduce t = 2(N-1)/N * S/B + 2(N-1) * latency",
            "gradients": "fp32: ResNet-50 25.6M parameters (102.4 MB), BERT-base 110M (440 MB), "
                         "one all-reduce of all gradients per step",
            "effective_bandwidth_bytes_per_s": NETWORKS,
            "latency_s": LATENCY_S,
            "compute": "per step per host, estimated from FLOPs / sustained rate: ResNet-50 "
                       "3 x 8.2 GFLOP x 32 images = 787 GFLOP (batch 32, 224x224); BERT-base "
                       "6 x 110M x 4096 tokens = 2.70 TFLOP (batch 32 x 128 tokens); these "
                       "are assumptions, not measurements (--compute-ms gives measured ones)",
            "efficiency": "compute / (compute + exposed); no overlap: exposed = comm; full "
                          "overlap: exposed = max(0, comm - backward share x compute), backward "
                          f"share = {BACKWARD_SHARE:.3f}",
        },
        "allreduce": comm, "hosts": hosts}


def _fmt_ms(ms):
    return f"{ms:.0f}" if ms >= 100 else f"{ms:.1f}"


def render_model_table(table):
    a = table["assumptions"]
    bandwidths = a["effective_bandwidth_bytes_per_s"]
    lines = ["## Cost model: predicted data-parallel scaling (arithmetic, not measured)", "",
             "Assumptions:", "",
             f"- {a['formula']}, latency {a['latency_s'] * 1e6:.0f} us per ring step",
             "- effective bandwidth: " + ", ".join(f"{k} {v / 1e9:.1f} GB/s"
                                                   for k, v in bandwidths.items()),
             f"- gradients {a['gradients']}",
             f"- compute {a['compute']}",
             f"- efficiency = {a['efficiency']}", "",
             "Ring all-reduce time per step (ms):", "",
             "| model | network | " + " | ".join(f"N={n}" for n in HOSTS) + " |",
             "|---|---|" + "---|" * len(HOSTS)]
    for model in MODEL_PARAMS:
        for net in NETWORKS:
            cells = [_fmt_ms(c["allreduce_ms"]) for c in table["allreduce"]
                     if c["model"] == model and c["network"] == net]
            lines.append(f"| {model} ({MODEL_PARAMS[model] / 1e6:g}M, fp32) | {net} | "
                         + " | ".join(cells) + " |")
    for h in table["hosts"]:
        lines += ["", f"Predicted scaling efficiency, no overlap / full overlap; host: "
                      f"{h['label']}; compute per step: "
                  + ", ".join(f"{m} {_fmt_ms(ms)} ms ({MODEL_BATCH[m]})"
                              for m, ms in h["compute_ms"].items()) + ":", "",
                  "| model | network | " + " | ".join(f"N={n}" for n in HOSTS) + " |",
                  "|---|---|" + "---|" * len(HOSTS)]
        for model in MODEL_PARAMS:
            for net in NETWORKS:
                cells = [f"{e['no_overlap'] * 100:.0f} % / {e['full_overlap'] * 100:.0f} %"
                         for e in h["efficiency"] if e["model"] == model and e["network"] == net]
                lines.append(f"| {model} | {net} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


# ---------------------------------------------------------------- worker

def _build(workload, device):
    """(model, optimizer, batch_fn) for one rank; batch_fn(rank) gives the
    rank's fixed batch (CPU tensors) and loss_fn(model, batch)."""
    import torch
    import torch.nn.functional as F
    torch.manual_seed(0)
    if workload == "mlp":
        model = torch.nn.Sequential(torch.nn.Linear(784, 512), torch.nn.ReLU(),
                                    torch.nn.Linear(512, 512), torch.nn.ReLU(),
                                    torch.nn.Linear(512, 10)).to(device)
        opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)

        def batch(g):
            return torch.randn(BATCH["mlp"], 784, generator=g), torch.randint(
                0, 10, (BATCH["mlp"],), generator=g)

        def loss_fn(m, x, y):
            return F.cross_entropy(m(x), y)
    elif workload == "resnet18":
        import torchvision
        model = torchvision.models.resnet18(num_classes=10).to(device)
        opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9, weight_decay=1e-4)

        def batch(g):
            return torch.randn(BATCH["resnet18"], 3, 32, 32, generator=g), torch.randint(
                0, 10, (BATCH["resnet18"],), generator=g)

        def loss_fn(m, x, y):
            return F.cross_entropy(m(x), y)
    elif workload == "gpt2ish":
        from transformers import GPT2Config, GPT2LMHeadModel
        from transformers.utils import logging as hf_logging
        hf_logging.set_verbosity_error()
        config = GPT2Config(n_embd=256, n_layer=2, n_head=4, vocab_size=8192, n_positions=128)
        model = GPT2LMHeadModel(config).to(device)
        opt = torch.optim.AdamW(model.parameters(), lr=1e-4, weight_decay=0.1)

        def batch(g):
            return (torch.randint(0, config.vocab_size, (BATCH["gpt2ish"], 64), generator=g),)

        def loss_fn(m, ids):
            return m(input_ids=ids, labels=ids).loss
    else:
        raise ValueError(f"unknown workload {workload!r}")
    return model, opt, batch, loss_fn


def _allreduce_bandwidth(numel, reps):
    """Median seconds of dist.all_reduce of a CPU float32 tensor of `numel`
    elements (a barrier before each, so that the ranks start together)."""
    import torch
    import torch.distributed as dist
    t = torch.ones(numel, dtype=torch.float32)
    for _ in range(2):
        dist.all_reduce(t)
    times = []
    for _ in range(reps):
        dist.barrier()
        start = time.perf_counter()
        dist.all_reduce(t)
        times.append(time.perf_counter() - start)
    return statistics.median(times), times


def worker(args):
    import torch
    import torch.distributed as dist
    torch.set_num_threads(args.threads)
    lazy = args.mode != "eager_ddp"
    if lazy:
        import ltc_mlir
        ltc_mlir.init()
    device = "lazy" if lazy else "cpu"
    dist.init_process_group("gloo", timeout=datetime.timedelta(seconds=args.pg_timeout))
    rank, world = dist.get_rank(), dist.get_world_size()

    model, opt, make_batch, loss_fn = _build(args.workload, device)
    params = list(model.parameters())
    grad_numel = sum(p.numel() for p in params if p.requires_grad)
    forward = model
    if args.mode != "ltc_mlir_reduce_gradients":
        from torch.nn.parallel import DistributedDataParallel as DDP
        forward = DDP(model, gradient_as_bucket_view=args.mode == "ltc_mlir_ddp_bucket_view")
    g = torch.Generator().manual_seed(1000 + rank)
    inputs = tuple(t.to(device) for t in make_batch(g))

    def step():
        opt.zero_grad(set_to_none=True)
        loss = loss_fn(forward, *inputs)
        loss.backward()
        if args.mode == "ltc_mlir_reduce_gradients":
            ltc_mlir.distributed.optimizer_step(opt, bucket_mb=args.bucket_mb)
        else:
            opt.step()
        if lazy:
            torch._lazy.mark_step()
            torch._lazy.wait_device_ops()
        return loss

    start = time.perf_counter()
    step()
    first_ms = (time.perf_counter() - start) * 1e3
    for _ in range(args.warmup):
        step()
    dist.barrier()   # the timed loop starts together on every rank
    if lazy:
        before = ltc_mlir.metrics()   # the compiles of the first steps
        ltc_mlir.reset_metrics()
    samples = []
    cpu0, wall0 = time.process_time(), time.perf_counter()
    for _ in range(args.steps):
        t0 = time.perf_counter()
        loss = step()
        samples.append((time.perf_counter() - t0) * 1e3)
    cpu_util = (time.process_time() - cpu0) / (time.perf_counter() - wall0)
    result = {"rank": rank, "world": world, "mode": args.mode, "workload": args.workload,
              "first_step_ms": first_ms, "samples_ms": samples,
              "median_ms": statistics.median(samples), "total_ms": sum(samples),
              "cpu_util": cpu_util, "torch_threads": torch.get_num_threads(),
              "gradient_numel": grad_numel, "batch_per_rank": BATCH[args.workload]}
    if lazy:
        m = ltc_mlir.metrics()
        result["ltc_mlir"] = {
            "collective_calls": dict(m.get("collective_calls", {})),
            "collective_bytes": m.get("collective_bytes", 0),
            "collective_wait_ms": m.get("collective_wait_ms", 0.0),
            "execute_count": m.get("execute_count"),
            "native_execute_count": m.get("native_execute_count"),
            "fallback_ops": dict(m.get("fallback_ops", {})),
            "fallback_reasons": list(before.get("fallback_reasons", []))[:5]
            + list(m.get("fallback_reasons", []))[:5],
            "compiles_while_timed": m.get("compile_count", 0),
            "compiles_before_timed": before["compile_count"],
            "compile_time_ms_before_timed": before.get("compile_time_ms"),
            "execute_time_ms": m.get("execute_time_ms")}
    result["last_loss"] = float(loss.detach().cpu())
    # Parameters must agree across ranks: a checksum per rank, gathered on the CPU.
    with torch.no_grad():
        mine = torch.stack([p.detach().cpu().double().sum() for p in params]
                           + [sum(p.detach().cpu().double().abs().sum() for p in params)])
    gathered = [torch.zeros_like(mine) for _ in range(world)]
    dist.all_gather(gathered, mine)
    result["params_equal_across_ranks"] = all(torch.equal(gathered[0], x) for x in gathered)
    medians = [None] * world
    dist.all_gather_object(medians, result["median_ms"])
    result["rank_median_ms"] = medians
    bw_s, bw_times = _allreduce_bandwidth(grad_numel, args.bw_reps)
    size = grad_numel * 4
    result["allreduce"] = {"bytes": size, "median_s": bw_s, "times_s": bw_times,
                           "algbw_gbps": size / bw_s / 1e9,
                           "busbw_gbps": 2 * (world - 1) / world * size / bw_s / 1e9
                           if world > 1 else None}
    return result


def worker_main(args):
    try:
        result = worker(args)
    except BaseException as e:  # noqa: BLE001 - reported to the parent, never a hang
        traceback.print_exc()
        sys.stdout.flush()
        sys.stderr.flush()
        print(MARKER + json.dumps({"error": f"{type(e).__name__}: {str(e).strip()[:400]}"}),
              flush=True)
        os._exit(1)
    import torch.distributed as dist
    if result["rank"] == 0:
        print(MARKER + json.dumps(result), flush=True)
    try:
        dist.barrier()
    finally:
        sys.stdout.flush()
        sys.stderr.flush()
        # Skip the interpreter's teardown (gloo's and LTC's threads, static
        # destructors): the result is out.
        os._exit(0)


# ---------------------------------------------------------------- launcher

def _free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _tail(text, lines=8, chars=1200):
    kept = [line for line in text.strip().splitlines() if line.strip()][-lines:]
    return "\n".join(kept)[-chars:]


def launch(args, mode, world, cache_dir):
    """Runs `world` ranks of `mode`; returns rank 0's result or {"error": ...}."""
    port = str(_free_port())
    env = dict(os.environ, MASTER_ADDR="127.0.0.1", MASTER_PORT=port, WORLD_SIZE=str(world),
               HF_HUB_OFFLINE="1", TRANSFORMERS_OFFLINE="1")
    t = str(args.threads)
    for var in ("LTC_MLIR_NUM_THREADS", "OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS",
                "MKL_NUM_THREADS"):
        env[var] = t
    if cache_dir is not None:
        env["LTC_MLIR_CACHE_DIR"] = cache_dir
    cmd = [sys.executable, _HERE, "--worker", "--mode", mode, "--workload", args.workload,
           "--steps", str(args.steps), "--warmup", str(args.warmup), "--threads", t,
           "--bucket-mb", str(args.bucket_mb), "--bw-reps", str(args.bw_reps),
           "--pg-timeout", str(args.pg_timeout or args.timeout)]
    logs, procs = [], []
    start = time.monotonic()
    for rank in range(world):
        out = tempfile.TemporaryFile(mode="w+")
        err = tempfile.TemporaryFile(mode="w+")
        logs.append((out, err))
        procs.append(subprocess.Popen(cmd, env=dict(env, RANK=str(rank), LOCAL_RANK=str(rank)),
                                      stdout=out, stderr=err, text=True))
    deadline = start + args.timeout
    timed_out, failed_at = False, None
    while any(p.poll() is None for p in procs):
        now = time.monotonic()
        if failed_at is None and any(p.returncode not in (None, 0) for p in procs):
            failed_at = now   # a rank failed: the others get a grace period
        if now > deadline or (failed_at is not None and now > failed_at + args.grace):
            timed_out = now > deadline
            for p in procs:
                if p.poll() is None:
                    p.kill()
            for p in procs:
                p.wait()
            break
        time.sleep(0.2)
    wall = time.monotonic() - start
    texts = []
    for out, err in logs:
        out.seek(0)
        err.seek(0)
        texts.append((out.read(), err.read()))
        out.close()
        err.close()
    result = None
    for line in reversed(texts[0][0].splitlines()):
        if line.startswith(MARKER):
            result = json.loads(line[len(MARKER):])
            break
    codes = [p.returncode for p in procs]
    ok = result is not None and "error" not in result
    if ok and not timed_out and all(c == 0 for c in codes):
        result["wall_s"] = wall
        return result
    why = []
    if timed_out:
        why.append(f"timeout after {args.timeout} s (all ranks killed)")
    elif failed_at is not None and any(c is not None and c < 0 for c in codes):
        why.append(f"killed {args.grace} s after a rank failed")
    why.append("exit codes " + ", ".join(f"rank {r}: {c}" for r, c in enumerate(codes)))
    if result and "error" in result:
        why.append(f"rank 0: {result['error']}")
    tails = {r: _tail(e) for r, (_, e) in enumerate(texts) if codes[r] != 0 and e.strip()}
    return {"error": "; ".join(why), "stderr_tail": tails, "wall_s": wall}


# ---------------------------------------------------------------- report

def _note(r):
    notes = []
    if "error" in r:
        return "FAILED: " + r["error"]
    lm = r.get("ltc_mlir")
    if lm:
        calls = ", ".join(f"{k} {v / max(1, r['steps']):g}" for k, v in
                          sorted(lm["collective_calls"].items()))
        if calls:
            notes.append(f"per step: {calls}, "
                         f"{lm['collective_bytes'] / max(1, r['steps']) / 1e6:.2f} MB")
        if lm["compiles_while_timed"]:
            notes.append(f"{lm['compiles_while_timed']} compiles while timed")
        if lm["fallback_ops"]:
            notes.append("fallback: " + ", ".join(sorted(lm["fallback_ops"])))
        if lm["execute_count"] is not None and lm["native_execute_count"] != lm["execute_count"]:
            notes.append(f"native {lm['native_execute_count']}/{lm['execute_count']} executions")
    if not r.get("params_equal_across_ranks", True):
        notes.append("PARAMETERS DIFFER ACROSS RANKS")
    if r.get("cpu_util") is not None:
        notes.append(f"rank 0 cpu {r['cpu_util']:.2f}")
    return "; ".join(notes)


def render_results(results, args):
    lines = [f"## Measured: {args.workload} ({WORKLOADS[args.workload]}), {args.threads} "
             f"compute thread(s) per rank, {args.steps} timed steps after {args.warmup} "
             f"warmup", "",
             "ms/step: median of rank 0's timed steps (each step timed to completion, no "
             "barrier per step); samples/s: N x per-rank batch / median. comm share: ltc_mlir "
             "modes: collective_wait_ms / total time of the timed steps (time the graph thread "
             "was blocked on collectives); eager_ddp: time of a standalone all-reduce of the "
             "gradient size / median step (not hidden by backward: an upper bound of DDP's "
             "exposed share). bus GB/s: separate dist.all_reduce of a CPU float32 tensor of "
             "the gradient size, 2(N-1)/N * S / t (median), after training in the same "
             "processes. x eager: ms/step / eager_ddp's at the same N.", "",
             "| N | mode | ms/step | samples/s | comm share | bus GB/s (S MB) | x eager | "
             "1st step s | notes |", "|---|---|---|---|---|---|---|---|---|"]
    for r in results:
        n, mode = r["world"], r["mode"]
        if "error" in r:
            lines.append(f"| {n} | {mode} | - | - | - | - | - | - | {_note(r)} |")
            continue
        eager = next((e for e in results if e["world"] == n and e["mode"] == "eager_ddp"
                      and "error" not in e), None)
        ratio = f"{r['median_ms'] / eager['median_ms']:.2f}" if eager else "-"
        ar = r["allreduce"]
        bw = f"{ar['busbw_gbps']:.2f} ({ar['bytes'] / 1e6:.1f})" if ar["busbw_gbps"] else \
            f"n/a, N=1 ({ar['bytes'] / 1e6:.1f})"
        share = r.get("comm_share")
        share = f"{share * 100:.1f} %" if share is not None else "-"
        lines.append(f"| {n} | {mode} | {r['median_ms']:.2f} | {r['samples_per_s']:.1f} | "
                     f"{share} | {bw} | {ratio} | {r['first_step_ms'] / 1e3:.2f} | "
                     f"{_note(r)} |")
    return "\n".join(lines)


def _machine():
    model = platform.processor() or platform.machine()
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return {"cpu": model, "cores": os.cpu_count(), "python": platform.python_version()}


def parse_args(argv=None):
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--ranks", default="1,2", help="comma list of world sizes (default 1,2)")
    p.add_argument("--modes", default=",".join(MODES),
                   help=f"comma list of {', '.join(MODES + EXTRA_MODES)}")
    p.add_argument("--workload", default="mlp", choices=sorted(WORKLOADS))
    p.add_argument("--steps", type=int, default=20, help="timed steps per process")
    p.add_argument("--warmup", type=int, default=3, help="untimed steps after the first one")
    p.add_argument("--threads", type=int, default=1, help="compute threads per rank (default 1)")
    p.add_argument("--bucket-mb", type=float, default=25,
                   help="bucket size of ltc_mlir_reduce_gradients (MB)")
    p.add_argument("--bw-reps", type=int, default=10, help="timed all-reduces of the bandwidth "
                   "measurement")
    p.add_argument("--timeout", type=float, default=900,
                   help="seconds per launch (all ranks of one mode and N) before they are killed")
    p.add_argument("--pg-timeout", type=float, default=None,
                   help="the process group's timeout in seconds (default: --timeout)")
    p.add_argument("--grace", type=float, default=30,
                   help="seconds the other ranks get after one failed, before they are killed")
    p.add_argument("--cache", default="run", choices=("run", "off", "user"),
                   help="ltc_mlir's compile cache: a fresh directory for this run (removed at "
                        "the end; the first launch compiles, the others load), off, or the "
                        "user's LTC_MLIR_CACHE_DIR / default")
    p.add_argument("--out", default=None, help="write the results as JSON to this path")
    p.add_argument("--model-table", action="store_true",
                   help="print only the cost model's prediction (no processes)")
    p.add_argument("--host-tflops", default="0.1,1,10",
                   help="sustained fp32 TFLOP/s of the hosts of the model table (compute "
                        "estimate)")
    p.add_argument("--compute-ms", default=None,
                   help="instead of the FLOP estimate: measured compute per step, e.g. "
                        "'ResNet-50=790,BERT-base=2700'")
    # worker side
    p.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    p.add_argument("--mode", default=None, help=argparse.SUPPRESS)
    return p.parse_args(argv)


def main(argv=None):
    args = parse_args(argv)
    if args.worker:
        return worker_main(args)
    compute_ms = None
    if args.compute_ms:
        compute_ms = {}
        for item in args.compute_ms.split(","):
            name, _, ms = item.partition("=")
            if name.strip() not in MODEL_PARAMS:
                raise SystemExit(f"--compute-ms: unknown model {name!r} "
                                 f"(known: {', '.join(MODEL_PARAMS)})")
            compute_ms[name.strip()] = float(ms)
        missing = set(MODEL_PARAMS) - set(compute_ms)
        if missing:
            raise SystemExit(f"--compute-ms: give every model ({', '.join(sorted(missing))} "
                             "missing)")
    table = model_table([float(x) for x in args.host_tflops.split(",") if x.strip()],
                        compute_ms)
    out = {"machine": _machine(), "started": datetime.datetime.now().isoformat(timespec="seconds"),
           "args": {k: v for k, v in vars(args).items() if k not in ("worker", "mode")},
           "model_table": table}
    if args.model_table:
        print(render_model_table(table))
        if args.out:
            with open(args.out, "w") as f:
                json.dump(out, f, indent=1)
            print(f"\nwrote {args.out}")
        return 0

    ranks = [int(x) for x in args.ranks.split(",") if x.strip()]
    modes = [m.strip() for m in args.modes.split(",") if m.strip()]
    unknown = [m for m in modes if m not in MODES + EXTRA_MODES]
    if unknown or any(n < 1 for n in ranks):
        raise SystemExit(f"unknown modes {unknown} or bad --ranks {args.ranks!r}")
    cache_dir = {"run": None, "off": "", "user": None}[args.cache]
    tmp_cache = None
    if args.cache == "run":
        tmp_cache = cache_dir = tempfile.mkdtemp(prefix="ltc_mlir_dist_cache_")
    print(f"# {args.workload}: {WORKLOADS[args.workload]}; machine: {out['machine']['cpu']}, "
          f"{out['machine']['cores']} cores", flush=True)
    results = []
    try:
        for n in ranks:
            for mode in modes:
                print(f"... N={n} {mode}", end="", flush=True)
                r = launch(args, mode, n, cache_dir)
                r.update(world=n, mode=mode, steps=args.steps)
                if "error" not in r:
                    r["samples_per_s"] = n * r["batch_per_rank"] * 1e3 / r["median_ms"]
                    if "ltc_mlir" in r:
                        r["comm_share"] = r["ltc_mlir"]["collective_wait_ms"] / r["total_ms"]
                        r["comm_share_method"] = ("collective_wait_ms / total ms of the timed "
                                                  "steps (rank 0)")
                    elif n > 1:
                        r["comm_share"] = r["allreduce"]["median_s"] * 1e3 / r["median_ms"]
                        r["comm_share_method"] = ("standalone gloo all-reduce of the gradient "
                                                  "size / median step (rank 0)")
                    else:
                        r["comm_share"] = 0.0
                        r["comm_share_method"] = "N=1: no communication"
                    print(f": {r['median_ms']:.2f} ms/step ({r['wall_s']:.0f} s)", flush=True)
                else:
                    print(f": FAILED ({r['error']})", flush=True)
                    for rank, tail in r.get("stderr_tail", {}).items():
                        print(f"    rank {rank} stderr:\n" + "\n".join(
                            "      " + line for line in tail.splitlines()), flush=True)
                results.append(r)
    finally:
        if tmp_cache:
            shutil.rmtree(tmp_cache, ignore_errors=True)
    out["results"] = results
    if args.out:   # first: the tables below may go to a closed pipe
        with open(args.out, "w") as f:
            json.dump(out, f, indent=1)
    print()
    print(render_results(results, args))
    print()
    ratios = [f"N={r['world']} {r['mode']} {r['median_ms'] / e['median_ms']:.2f}"
              for r in results if r["mode"] != "eager_ddp" and "error" not in r
              for e in results if e["world"] == r["world"] and e["mode"] == "eager_ddp"
              and "error" not in e]
    print("ltc_mlir / eager ms per step: " + ("; ".join(ratios) or "n/a (a mode is missing)"))
    print()
    print(render_model_table(table))
    if args.out:
        print(f"\nwrote {args.out}")
    return 1 if any("error" in r for r in results) else 0


if __name__ == "__main__":
    sys.exit(main())
