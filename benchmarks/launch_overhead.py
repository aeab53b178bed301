"""Launch overhead of a cached graph: what a call costs outside the compiled
code, per front end, for a graph of OPS elementwise ops on tiny tensors
(the compiled code itself takes well under a microsecond).

  replay      ltc_mlir's compiled graph run directly (_C._ReplayGraph.run):
              binding host tensors, launch, unwrapping the results
  compiled    the same graph through torch.compile(backend="ltc_mlir"):
              adds Dynamo's guards and AOTAutograd's wrapper
  mark_step   the same ops traced on the lazy device + mark_step + reading
              the result (LTC's trace, IR hashing, graph walk)
  eager       the ops run by eager PyTorch
  inductor    torch.compile's default backend (its first call compiles)

Not a test. Usage: PYTHONPATH=build/python_packages .venv/bin/python
benchmarks/launch_overhead.py [--ops 200] [--calls 2000] [--no-inductor]
"""
import argparse
import statistics
import time

import torch

import ltc_mlir


def chain(x, y, ops):
    """`ops` elementwise ops (a mul, add or sin per step) over two inputs."""
    for i in range(ops // 3):
        x = x * 1.0001 + y
        x = torch.sin(x)
    return x


def per_call_us(fn, calls, repeats=5):
    """Median over `repeats` blocks of `calls` calls, in microseconds."""
    fn()
    samples = []
    for _ in range(repeats):
        start = time.perf_counter()
        for _ in range(calls):
            fn()
        samples.append((time.perf_counter() - start) * 1e6 / calls)
    return statistics.median(samples)


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--ops", type=int, default=200)
    p.add_argument("--calls", type=int, default=2000)
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--no-inductor", action="store_true")
    args = p.parse_args()
    torch.set_num_threads(args.threads)
    ltc_mlir.init()
    x, y = torch.randn(8), torch.randn(8)
    expected = chain(x, y, args.ops)
    results = {}

    lazy_x, lazy_y = ltc_mlir._C._make_replay_inputs([x, y])
    handles = ltc_mlir._C._replay_input_handles([lazy_x, lazy_y])
    graph = ltc_mlir._C._build_replay_graph([lazy_x, lazy_y], [chain(lazy_x, lazy_y, args.ops)],
                                            handles)
    torch.testing.assert_close(graph.run([x, y])[0], expected)
    results["replay"] = per_call_us(lambda: graph.run([x, y]), args.calls)

    compiled = torch.compile(lambda a, b: chain(a, b, args.ops), backend="ltc_mlir")
    torch.testing.assert_close(compiled(x, y), expected)
    results["compiled"] = per_call_us(lambda: compiled(x, y), args.calls)

    lx, ly = x.to("lazy"), y.to("lazy")

    def lazy_step():
        out = chain(lx, ly, args.ops)
        torch._lazy.mark_step()
        return out.cpu()
    torch.testing.assert_close(lazy_step(), expected)
    results["mark_step"] = per_call_us(lazy_step, max(args.calls // 10, 20))

    results["eager"] = per_call_us(lambda: chain(x, y, args.ops), max(args.calls // 10, 20))
    if not args.no_inductor:
        inductor = torch.compile(lambda a, b: chain(a, b, args.ops))
        start = time.perf_counter()
        torch.testing.assert_close(inductor(x, y), expected)
        print(f"(inductor's first call: {time.perf_counter() - start:.1f} s)")
        results["inductor"] = per_call_us(lambda: inductor(x, y), args.calls)

    m = ltc_mlir.metrics()
    print(f"graph of {args.ops} elementwise ops on 8 floats, {args.threads} thread(s); "
          f"per call, median of 5 blocks:")
    for name, us in results.items():
        ratios = "".join(f"  {us / results[ref]:6.2f}x {ref}" for ref in ("eager", "inductor")
                         if ref in results)
        print(f"  {name:<10} {us:9.1f} us{ratios}")
    print(f"(all natively compiled: {m['fallback_execute_count'] == 0}; "
          f"goal: binding + launch of a cached 200-op graph <= 50 us)")


if __name__ == "__main__":
    main()
