"""Data-parallel training on the `lazy` device with stock DistributedDataParallel.

Each rank trains its own batch; DDP's gradient all-reduce (gloo) is recorded
in the lazy graph, so forward, backward, the all-reduce and the optimizer
update of a step are one compiled graph, and the communication runs while
the compiled code computes. See docs/distributed.md.

    torchrun --nproc_per_node 2 examples/train_ddp.py --model resnet18
    python examples/train_ddp.py --spawn 2 --model gpt2 --steps 5
"""
import argparse
import os
import socket

import torch
import torch.distributed as dist
import torch.multiprocessing as mp
import torch.nn.functional as F
from torch.nn.parallel import DistributedDataParallel as DDP

import ltc_mlir


def build(name):
    """The model, its optimizer, and make_batch(generator) -> (inputs, loss_fn)."""
    torch.manual_seed(0)  # every rank starts from the same weights (DDP broadcasts rank 0's too)
    if name == "resnet18":
        import torchvision
        model = torchvision.models.resnet18(num_classes=10)

        def opt_factory(params):
            return torch.optim.SGD(params, lr=0.01, momentum=0.9, weight_decay=1e-4)

        def make_batch(g, batch=8):  # 32x32 random images, 10 classes
            x = torch.randn(batch, 3, 32, 32, generator=g)
            y = torch.randint(0, 10, (batch,), generator=g)
            return (x, y), lambda m, x, y: F.cross_entropy(m(x), y)
    else:
        os.environ.setdefault("HF_HUB_OFFLINE", "1")  # built from a config: nothing downloaded
        from transformers import GPT2Config, GPT2LMHeadModel
        from transformers.utils import logging
        logging.set_verbosity_error()  # no notes about the config's special tokens
        config = GPT2Config(n_embd=256, n_layer=2, n_head=4, vocab_size=8192, n_positions=128)
        model = GPT2LMHeadModel(config)

        def opt_factory(params):
            return torch.optim.AdamW(params, lr=1e-4)

        def make_batch(g, batch=2, tokens=64):  # language modelling on random tokens
            ids = torch.randint(0, config.vocab_size, (batch, tokens), generator=g)
            return (ids,), lambda m, ids: m(input_ids=ids, labels=ids).loss
    return model, opt_factory, make_batch


def train(local_rank, args):
    # Compute threads per rank: this host's cores shared out between its ranks
    # (the compiled graphs follow torch's count unless LTC_MLIR_NUM_THREADS is set).
    per_rank = max(1, (os.cpu_count() or 1) // int(os.environ["LOCAL_WORLD_SIZE"]))
    torch.set_num_threads(int(os.environ.get("LTC_MLIR_NUM_THREADS", per_rank)))
    if args.spawn:  # torchrun sets these itself
        os.environ.update(RANK=str(local_rank), LOCAL_RANK=str(local_rank))
    ltc_mlir.init()
    dist.init_process_group("gloo")  # env://: MASTER_ADDR, MASTER_PORT, RANK, WORLD_SIZE
    rank, world = dist.get_rank(), dist.get_world_size()

    model, opt_factory, make_batch = build(args.model)
    # Stock DDP: its bucket all-reduces become nodes of the step's graph.
    model = DDP(model.to("lazy"))
    opt = opt_factory(model.parameters())
    g = torch.Generator().manual_seed(1000 + rank)  # each rank its own data
    for step in range(args.steps):
        inputs, loss_fn = make_batch(g)
        opt.zero_grad(set_to_none=True)
        loss = loss_fn(model, *(t.to("lazy") for t in inputs))
        loss.backward()  # DDP records the gradient buckets' all-reduces here
        opt.step()
        torch._lazy.mark_step()  # compile (first steps) and run the step's graph
        if rank == 0:
            print(f"step {step:3d}  loss {loss.item():.4f}", flush=True)
    torch._lazy.wait_device_ops()

    # Every rank must end with the same parameters: gather a checksum of each.
    with torch.no_grad():
        mine = torch.stack([p.detach().cpu().double().sum() for p in model.parameters()])
    sums = [torch.zeros_like(mine) for _ in range(world)]
    dist.all_gather(sums, mine)  # CPU tensors: an ordinary gloo all_gather
    equal = all(torch.equal(sums[0], s) for s in sums)
    if rank == 0:
        print()
        print(ltc_mlir.metrics_report())
        print(f"parameters after {args.steps} steps are {'equal' if equal else 'DIFFERENT'} "
              f"on all {world} ranks")
    dist.destroy_process_group()
    if not equal:
        raise SystemExit(1)


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--model", choices=("resnet18", "gpt2"), default="resnet18")
    parser.add_argument("--steps", type=int, default=10)
    parser.add_argument("--spawn", type=int, default=0, metavar="N",
                        help="start N ranks on this host (torch.multiprocessing.spawn) instead "
                             "of running as one rank of torchrun")
    args = parser.parse_args()
    if not args.spawn and "RANK" not in os.environ:
        args.spawn = 1  # neither torchrun nor --spawn: one rank
    if not args.spawn:
        os.environ.setdefault("LOCAL_WORLD_SIZE", os.environ.get("WORLD_SIZE", "1"))
        return train(int(os.environ.get("LOCAL_RANK", 0)), args)
    with socket.socket() as s:  # a free port for the rendezvous
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    os.environ.update(MASTER_ADDR="127.0.0.1", MASTER_PORT=str(port), WORLD_SIZE=str(args.spawn),
                      LOCAL_WORLD_SIZE=str(args.spawn))
    mp.spawn(train, args=(args,), nprocs=args.spawn)


if __name__ == "__main__":
    main()
