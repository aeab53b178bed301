"""The rank side of tests/distributed: `python workers.py CASE OUT [ARGS...]`
with torch.distributed's usual environment (MASTER_ADDR, MASTER_PORT, RANK,
WORLD_SIZE). Each case writes what it measured as JSON to OUT; the tests
compare it with eager PyTorch."""
import json
import os
import sys
import time
import traceback
from datetime import timedelta

import torch
import torch.distributed as dist
import torch.distributed._functional_collectives as funcol

import ltc_mlir

LAZY = "lazy"


def setup(timeout_s=120):
    ltc_mlir.init()
    dist.init_process_group("gloo", timeout=timedelta(seconds=timeout_s))
    return dist.get_rank(), dist.get_world_size()


def step_metrics():
    m = ltc_mlir.metrics()
    return {k: m[k] for k in ("execute_count", "native_execute_count", "fallback_ops",
                              "collective_calls", "collective_bytes", "compile_count")}


def collective_calls(rank, world):
    """Every supported collective on lazy tensors, in one graph, beside the
    same calls on CPU tensors."""
    def run(device):
        x = (torch.arange(6, dtype=torch.float32) + 10 * rank).to(device)
        out = {}
        t = x.clone(); dist.all_reduce(t); out["sum"] = t
        t = x.clone(); dist.all_reduce(t, op=dist.ReduceOp.AVG); out["avg"] = t
        t = x.clone(); dist.all_reduce(t, op=dist.ReduceOp.MAX); out["max"] = t
        t = x.clone(); dist.all_reduce(t, op=dist.ReduceOp.PRODUCT); out["product"] = t
        t = x.clone() if rank == 1 else torch.zeros(6, device=device)
        dist.broadcast(t, src=1); out["broadcast"] = t
        parts = [torch.zeros(6, device=device) for _ in range(world)]
        dist.all_gather(parts, x); out["all_gather"] = torch.cat(parts)
        t = torch.zeros(6 * world, device=device)
        dist.all_gather_into_tensor(t, x); out["all_gather_into_tensor"] = t
        t = torch.zeros(2, device=device)
        dist.reduce_scatter_tensor(t, (torch.arange(2 * world, dtype=torch.float32)
                                       + rank).to(device)); out["reduce_scatter_tensor"] = t
        t = (torch.arange(4) + rank).to(device); dist.all_reduce(t); out["int64_sum"] = t
        base = x.clone().view(2, 3)
        dist.all_reduce(base[1]); out["view_base"] = base      # the base sees the view's result
        t = x.clone(); work = dist.all_reduce(t, async_op=True); work.wait()
        out["async"] = t
        out["funcol"] = funcol.wait_tensor(funcol.all_reduce(x.clone() * 2, "sum", dist.group.WORLD))
        out["funcol_gather"] = funcol.wait_tensor(
            funcol.all_gather_tensor(x.clone(), 0, dist.group.WORLD))
        return out

    ltc_mlir.reset_metrics()
    lazy = run(LAZY)
    torch._lazy.mark_step()
    metrics = step_metrics()
    lazy = {k: v.cpu().reshape(-1).tolist() for k, v in lazy.items()}
    cpu = {k: v.reshape(-1).tolist() for k, v in run("cpu").items()}
    errors = {}
    for name, call in {
        "all_to_all_single": lambda t: dist.all_to_all_single(torch.zeros_like(t), t),
        "reduce": lambda t: dist.reduce(t, dst=0),
    }.items():
        try:
            call(torch.ones(2 * world, device=LAZY))
            errors[name] = "no error"
        except NotImplementedError as e:
            errors[name] = str(e)
    return {"lazy": lazy, "cpu": cpu, "metrics": metrics, "errors": errors}


def groups(rank, world):
    """The same all-reduce over the world and over a second group of the
    same ranks: the group is part of the graph, so each gets its own
    compiled code, and each is reused when it recurs."""
    other = dist.new_group(list(range(world)))
    ltc_mlir.reset_metrics()
    values, compiles = [], []
    for group in (None, other, None, other):
        t = torch.full((3,), float(rank + 1), device=LAZY)
        dist.all_reduce(t, group=group)
        torch._lazy.mark_step()
        values.append(t.cpu().tolist())
        compiles.append(ltc_mlir.metrics()["compile_count"])
    return {"values": values, "compiles": compiles}


def export_refused(rank, world, out_dir):
    """ltc_mlir.export of a function that all-reduces: a clear ExportError."""
    def fn(x):
        y = x * 2
        dist.all_reduce(y)
        return y + 1
    try:
        ltc_mlir.export(fn, (torch.ones(4),), out_dir)
        return {"raised": None}
    except ltc_mlir.ExportError as e:
        return {"raised": type(e).__name__, "message": str(e)}


def fallback_graph(rank, world):
    """A graph with a collective that does not compile natively (an op
    disabled) still communicates: the TorchScript fallback or the partial
    graph runs ltc_mlir::collective's CPU kernel."""
    ltc_mlir.set_disabled_ops(["aten::relu"])
    ltc_mlir.reset_metrics()
    x = torch.tensor([-1.0, 2.0, 3.0]) * (rank + 1)
    t = torch.relu(x.to(LAZY))
    dist.all_reduce(t)
    u = t * 2
    torch._lazy.mark_step()
    m = ltc_mlir.metrics()
    ltc_mlir.set_disabled_ops([])
    return {"value": u.cpu().tolist(), "fallback_ops": m["fallback_ops"],
            "native_execute_count": m["native_execute_count"]}


def functionalized_cpu(rank, world):
    """A c10d collective under torch.func.functionalize on CPU tensors (our
    Functionalize kernel's non-lazy path) keeps its result, as eager does."""
    def f(t):
        t = t * 1
        dist.all_reduce(t)
        return t + 0
    return {"value": torch.func.functionalize(f)(torch.full((3,), float(rank + 1))).tolist()}


def mlp():
    return torch.nn.Sequential(torch.nn.Linear(8, 32), torch.nn.ReLU(), torch.nn.Linear(32, 32),
                               torch.nn.ReLU(), torch.nn.Linear(32, 4))


def data(steps, batch, features, outputs):
    g = torch.Generator().manual_seed(1)
    return torch.randn(steps, batch, features, generator=g), torch.randn(steps, batch, outputs,
                                                                        generator=g)


def train_mlp(rank, world, mode, steps, bucket_mb, batch):
    """`steps` SGD steps on this rank's shard of a fixed global batch."""
    from torch.nn.parallel import DistributedDataParallel as DDP
    torch.manual_seed(0)
    model = mlp().to(LAZY)
    if mode == "ddp":
        model = DDP(model)
    elif mode == "ddp_bucket_view":
        model = DDP(model, gradient_as_bucket_view=True)
    opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    X, Y = data(steps, batch, 8, 4)
    shard = batch // world
    for step in range(steps):
        if step == steps - 1:
            ltc_mlir.reset_metrics()
        x = X[step, rank * shard:(rank + 1) * shard].to(LAZY)
        y = Y[step, rank * shard:(rank + 1) * shard].to(LAZY)
        loss = torch.nn.functional.mse_loss(model(x), y)
        opt.zero_grad()
        loss.backward()
        if mode == "reduce_gradients":
            ltc_mlir.distributed.reduce_gradients(opt, bucket_mb=bucket_mb)
            opt.step()
        elif mode == "optimizer_step":
            ltc_mlir.distributed.optimizer_step(opt, bucket_mb=bucket_mb)
        else:
            opt.step()
        torch._lazy.mark_step()
    metrics = step_metrics()
    module = model.module if hasattr(model, "module") else model
    return {"params": [p.detach().cpu().reshape(-1).tolist() for p in module.parameters()],
            "metrics": metrics}


def cnn():
    return torch.nn.Sequential(torch.nn.Conv2d(3, 8, 3, padding=1), torch.nn.BatchNorm2d(8),
                               torch.nn.ReLU(), torch.nn.Conv2d(8, 8, 3, padding=1),
                               torch.nn.BatchNorm2d(8), torch.nn.ReLU(),
                               torch.nn.AdaptiveAvgPool2d(1), torch.nn.Flatten(),
                               torch.nn.Linear(8, 5))


def train_cnn_bn(rank, world, steps, batch):
    """DDP on a CNN with BatchNorm (statistics per rank) on lazy tensors and
    the same DDP in eager CPU, in this process over the same group."""
    from torch.nn.parallel import DistributedDataParallel as DDP
    X, Y = cnn_data(steps, batch)
    shard = batch // world
    X, Y = X[:, rank * shard:(rank + 1) * shard], Y[:, rank * shard:(rank + 1) * shard]
    torch.manual_seed(0)
    lazy, metrics = train_cnn(DDP(cnn().to(LAZY)), X, Y, LAZY, steps - 1)
    torch.manual_seed(0)
    cpu, _ = train_cnn(DDP(cnn()), X, Y, "cpu")
    return {LAZY: lazy, "cpu": cpu, "metrics": metrics}


def cnn_data(steps, batch):
    g = torch.Generator().manual_seed(2)
    return torch.randn(steps, batch, 3, 8, 8, generator=g), torch.randint(0, 5, (steps, batch),
                                                                         generator=g)


def train_cnn(model, X, Y, device, lazy_metrics_step=None):
    """SGD steps of `model` on (X[step], Y[step]); returns parameters and
    buffers flattened, and the metrics of step `lazy_metrics_step`."""
    opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9, weight_decay=1e-4)
    metrics = None
    for step in range(len(X)):
        if step == lazy_metrics_step:
            ltc_mlir.reset_metrics()
        loss = torch.nn.functional.cross_entropy(model(X[step].to(device)), Y[step].to(device))
        opt.zero_grad()
        loss.backward()
        opt.step()
        if device == LAZY:
            torch._lazy.mark_step()
        if step == lazy_metrics_step:
            metrics = step_metrics()
    module = getattr(model, "module", model)
    state = [t.detach().cpu().reshape(-1).tolist()
             for t in list(module.parameters()) + list(module.buffers())]
    return state, metrics


def train_sync_bn(rank, world, steps, batch):
    """DDP + SyncBatchNorm on this rank's shard: statistics of the whole batch."""
    from torch.nn.parallel import DistributedDataParallel as DDP
    X, Y = cnn_data(steps, batch)
    shard = batch // world
    torch.manual_seed(0)
    model = DDP(torch.nn.SyncBatchNorm.convert_sync_batchnorm(cnn()).to(LAZY))
    state, metrics = train_cnn(model, X[:, rank * shard:(rank + 1) * shard],
                               Y[:, rank * shard:(rank + 1) * shard], LAZY, steps - 1)
    return {"state": state, "metrics": metrics}


def all_reduce_expecting_an_error():
    """All-reduces on the lazy device and syncs; what was raised, and when."""
    t = torch.ones(4, device=LAZY)
    dist.all_reduce(t)
    start = time.monotonic()
    try:
        torch._lazy.mark_step()
        t.cpu()
        return {"raised": None}
    except Exception as e:  # noqa: BLE001 - the test checks type and message
        return {"raised": type(e).__name__, "message": str(e),
                "seconds": time.monotonic() - start}


def skip_collective(rank, world):
    """Rank 0 all-reduces; rank 1 never does. Rank 0 must raise (the group's
    timeout is 5 s), not hang."""
    if rank == 1:
        time.sleep(25)
        os._exit(0)
    return all_reduce_expecting_an_error()


def killed_rank(rank, world):
    """Rank 1 dies before the collective; the others must raise."""
    if rank == 1:
        os._exit(3)
    return all_reduce_expecting_an_error()


def mismatch(rank, world):
    """Ranks record different collectives (SUM here, MAX there): with
    LTC_MLIR_DEBUG=1 every rank raises, naming the graph."""
    t = torch.ones(4, device=LAZY) * (rank + 1)
    dist.all_reduce(t, op=dist.ReduceOp.SUM if rank == 0 else dist.ReduceOp.MAX)
    try:
        torch._lazy.mark_step()
        return {"raised": None, "value": t.cpu().tolist()}
    except Exception as e:  # noqa: BLE001
        return {"raised": type(e).__name__, "message": str(e)}


CASES = {"collectives": collective_calls, "train_mlp": train_mlp, "train_cnn_bn": train_cnn_bn,
         "train_sync_bn": train_sync_bn, "groups": groups,
         "export_refused": export_refused, "fallback_graph": fallback_graph,
         "functionalized_cpu": functionalized_cpu,
         "skip_collective": skip_collective, "killed_rank": killed_rank, "mismatch": mismatch}


def main():
    case, out = sys.argv[1], sys.argv[2]
    args = [int(a) if a.lstrip("-").isdigit() else
            (float(a) if a.replace(".", "", 1).isdigit() else a) for a in sys.argv[3:]]
    timeout = 5 if case in ("skip_collective", "killed_rank") else 120
    rank, world = setup(timeout)
    try:
        result = CASES[case](rank, world, *args)
    except Exception:
        traceback.print_exc()
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(1)
    with open(out, "w") as f:
        json.dump(result, f)
    sys.stdout.flush()
    sys.stderr.flush()
    if case in ("skip_collective", "killed_rank", "mismatch"):
        os._exit(0)   # the group is broken: do not wait for the others in its destructor
    dist.barrier()
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
