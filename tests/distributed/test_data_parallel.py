"""Data-parallel training on lazy tensors: N ranks, each on its shard of the
batch, end with the parameters of one eager process training on the whole
batch (DDP, reduce_gradients, optimizer_step), and each step is one native
graph with one all-reduce per gradient bucket."""
import pytest
import torch

import ltc_mlir.distributed as ltc_dist
from dist_testing import check_all_ok, run_ranks
import workers

STEPS, BATCH = 4, 16


def whole_batch_reference():
    torch.manual_seed(0)
    model = workers.mlp()
    opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    X, Y = workers.data(STEPS, BATCH, 8, 4)
    for step in range(STEPS):
        loss = torch.nn.functional.mse_loss(model(X[step]), Y[step])
        opt.zero_grad()
        loss.backward()
        opt.step()
    return [p.detach().reshape(-1).tolist() for p in model.parameters()]


def bucket_count(bucket_mb):
    torch.manual_seed(0)
    model = workers.mlp()
    for p in model.parameters():
        p.grad = torch.zeros_like(p)
    return len(ltc_dist._buckets(list(model.parameters()), int(bucket_mb * 2**20)))


@pytest.mark.parametrize("mode,world,bucket_mb,pipelined", [
    ("ddp", 2, 25, False), ("ddp_bucket_view", 2, 25, False),
    ("reduce_gradients", 2, 0.002, False), ("optimizer_step", 2, 25, False),
    ("reduce_gradients", 4, 0.002, False),
    # Graphs with collectives run on the caller's thread, after the pipeline.
    ("ddp", 2, 25, True), ("reduce_gradients", 2, 0.002, True)])
def test_ranks_match_one_process_on_the_whole_batch(tmp_path, mode, world, bucket_mb, pipelined):
    results = check_all_ok(run_ranks("train_mlp", world, tmp_path,
                                     args=(mode, STEPS, bucket_mb, BATCH),
                                     env={"LTC_MLIR_PIPELINE": "1" if pipelined else "0"}))
    want = whole_batch_reference()
    for rank, r in enumerate(results):
        for got, ref in zip(r["params"], want):
            assert got == pytest.approx(ref, abs=2e-5), (rank, mode)
        m = r["metrics"]
        # The last step: one graph, all native, one all-reduce per bucket
        # (DDP: one bucket for this small model).
        assert m["execute_count"] == 1 and m["native_execute_count"] == 1, m
        assert m["fallback_ops"] == {}, m
        buckets = 1 if mode.startswith("ddp") else bucket_count(bucket_mb)
        assert m["collective_calls"] == {"all_reduce": buckets}, m
    assert bucket_count(0.002) > 1  # the small buckets are several


def test_batch_norm_ddp_matches_eager_ddp(tmp_path):
    """BatchNorm statistics stay per rank, as in eager DDP, whose buffers DDP
    broadcasts from rank 0 at every forward."""
    results = check_all_ok(run_ranks("train_cnn_bn", 2, tmp_path, args=(3, 8)))
    for rank, r in enumerate(results):
        for got, ref in zip(r["lazy"], r["cpu"]):
            assert got == pytest.approx(ref, abs=1e-4), rank
        m = r["metrics"]
        assert m["execute_count"] == 1 and m["native_execute_count"] == 1, m
        assert m["fallback_ops"] == {}, m
        assert m["collective_calls"].get("all_reduce") == 1, m


@pytest.mark.parametrize("world", [1, 2])
def test_sync_batch_norm_matches_one_process_on_the_whole_batch(tmp_path, world):
    """torch's SyncBatchNorm refuses lazy tensors; ours (ltc_mlir/_sync_batch_norm.py)
    all-reduces the statistics inside the graph, forward and backward (with
    one rank: plain batch norm)."""
    steps, batch = 3, 8
    results = check_all_ok(run_ranks("train_sync_bn", world, tmp_path, args=(steps, batch)))
    X, Y = workers.cnn_data(steps, batch)
    torch.manual_seed(0)
    want, _ = workers.train_cnn(workers.cnn(), X, Y, "cpu")
    for rank, r in enumerate(results):
        for got, ref in zip(r["state"], want):
            assert got == pytest.approx(ref, abs=1e-4), rank
        m = r["metrics"]
        assert m["execute_count"] == 1 and m["native_execute_count"] == 1, m
        assert m["fallback_ops"] == {}, m
        # Two statistics all-reduces per SyncBatchNorm forward and two in its
        # backward (2 layers), the gradient bucket, DDP's buffer broadcast.
        assert m["collective_calls"]["all_reduce"] == (9 if world == 2 else 1), m
