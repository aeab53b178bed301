"""Kernel microbenchmarks of the suite (benchmarks/suite.py); the peak they
are compared with is benchmarks/peak.py's.

Each kernel is one op on fixed-size inputs: on the lazy device it is a
one-op graph (compiled once, then cached), eagerly it is ATen's kernel. The
runner times it like a workload step; GFLOP/s = FLOPs / median time.
"""
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
        # y is returned too: a lazy graph of the gradients alone would skip
        # the forward, which the backward does not read, and do 2/3 of the
        # FLOPs counted.
        return (y,) + torch.autograd.grad(y, (x, w), g)
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
