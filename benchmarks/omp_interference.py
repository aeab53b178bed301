"""Does running our OpenMP (libomp) code slow down eager PyTorch ops (libgomp)
that follow it? libomp workers spin after a parallel region unless told not
to (KMP_BLOCKTIME); the runtime sets blocktime 0. This prints the time of an
eager op right after a compiled graph, relative to the same op without it.

Not a test. Usage: PYTHONPATH=build/python_packages .venv/bin/python benchmarks/omp_interference.py
"""
import time

import torch
import ltc_mlir


def eager_op_ms(a, b, reps=20):
    start = time.perf_counter()
    for _ in range(reps):
        torch.mm(a, b)
    return (time.perf_counter() - start) * 1e3 / reps


def main():
    ltc_mlir.init()
    torch.set_num_threads(2)  # both runtimes use both cores
    a, b = torch.randn(256, 256), torch.randn(256, 256)
    x = torch.randn(512, 512).to("lazy")
    w = torch.randn(512, 512).to("lazy")

    def graph():
        y = torch.mm(x, w).relu().sum(0)
        torch._lazy.mark_step()
        return y

    graph()  # compile
    eager_op_ms(a, b)
    base = min(eager_op_ms(a, b) for _ in range(5))
    after = []
    for _ in range(5):
        graph()
        after.append(eager_op_ms(a, b, reps=1))
    after_ms = min(after)
    print(f"eager 256x256 mm: {base:.3f} ms alone, {after_ms:.3f} ms right after a compiled "
          f"graph ({after_ms / base:.2f}x); KMP_BLOCKTIME handled by ltc_mlir's runtime")


if __name__ == "__main__":
    main()
