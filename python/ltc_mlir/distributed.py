"""Data-parallel training on torch.distributed, inside the compiled step.

torch.distributed's collectives on lazy tensors are nodes of the lazy graph
(ltc_backend/collectives): `dist.all_reduce(t)` records the all-reduce,
and the communication happens when the step's graph runs, through the
process group the program set up (gloo on the CPU). So stock
`DistributedDataParallel(model)` on a lazy model, plain `dist.all_reduce`,
`broadcast`, `all_gather` and `reduce_scatter_tensor`, and the two helpers
below keep forward, backward, the gradient all-reduce and the update in one
compiled graph per step. See docs/distributed.md.

    dist.init_process_group("gloo")           # torchrun sets RANK, WORLD_SIZE, ...
    model = model.to("lazy")
    ...
    loss.backward()
    ltc_mlir.distributed.optimizer_step(optimizer)   # all-reduce + step
    torch._lazy.mark_step()
"""
import torch
import torch.distributed as dist

__all__ = ["reduce_gradients", "optimizer_step"]


def _buckets(params, bucket_bytes):
    """Parameters with gradients in reverse order (the last layers' gradients
    exist first in backward), cut into buckets of at most `bucket_bytes`
    (a larger tensor gets a bucket of its own) holding one dtype each."""
    buckets, current, size, dtype = [], [], 0, None
    for p in reversed(params):
        nbytes = p.grad.numel() * p.grad.element_size()
        if current and (p.grad.dtype != dtype or size + nbytes > bucket_bytes):
            buckets.append(current)
            current, size = [], 0
        current.append(p)
        size += nbytes
        dtype = p.grad.dtype
    if current:
        buckets.append(current)
    return buckets


def reduce_gradients(optimizer, bucket_mb=25, group=None):
    """Averages the gradients of `optimizer`'s parameters over the ranks of
    `group` (default: the whole world).

    Gradients are taken in reverse order, flattened into buckets of at most
    `bucket_mb` MB, each divided by the world size and all-reduced (SUM),
    as DistributedDataParallel does, then copied back. On lazy tensors all
    of it is recorded in the step's graph: each bucket's all-reduce starts
    as soon as its gradients are computed and is waited for just before the
    first update that reads it. Every rank must call this at the same point
    with the same parameters having gradients."""
    if not dist.is_available() or not dist.is_initialized():
        raise RuntimeError("ltc_mlir.distributed.reduce_gradients: torch.distributed is not "
                           "initialized; call torch.distributed.init_process_group('gloo') first")
    if not bucket_mb or bucket_mb <= 0:
        raise ValueError(f"ltc_mlir.distributed.reduce_gradients: bucket_mb={bucket_mb!r} must "
                         "be a positive number of megabytes")
    world = dist.get_world_size(group)
    params = [p for g in optimizer.param_groups for p in g["params"] if p.grad is not None]
    if world == 1 or not params:
        return
    for p in params:
        if p.grad.is_sparse:
            raise NotImplementedError("ltc_mlir.distributed.reduce_gradients: sparse gradients "
                                      "(e.g. nn.Embedding(sparse=True)) are not supported")
    for bucket in _buckets(params, int(bucket_mb * 2**20)):
        flat = torch.cat([p.grad.reshape(-1) for p in bucket]) if len(bucket) > 1 \
            else bucket[0].grad.reshape(-1).clone()
        flat.div_(world)
        dist.all_reduce(flat, group=group)
        offset = 0
        for p in bucket:
            n = p.grad.numel()
            p.grad.copy_(flat[offset:offset + n].view_as(p.grad))
            offset += n


def optimizer_step(optimizer, bucket_mb=25, group=None, **step_kwargs):
    """reduce_gradients(optimizer, bucket_mb, group), then optimizer.step(
    **step_kwargs); returns what step returns."""
    reduce_gradients(optimizer, bucket_mb=bucket_mb, group=group)
    return optimizer.step(**step_kwargs)
