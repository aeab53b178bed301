"""Bugs the differential fuzzer (tests/fuzz) found, each as a fixed case
compared with eager CPU; each runs in its own process."""
import os
import sys

import pytest

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from isolated import run_isolated  # noqa: E402

DTYPES = ["torch.float32", "torch.int64", "torch.bool", "torch.float64", "torch.float16"]


@pytest.mark.parametrize("op", ["stack", "cat"])
@pytest.mark.parametrize("first", DTYPES)
@pytest.mark.parametrize("second", ["torch.float32", "torch.int64", "torch.bool"])
def test_stack_and_cat_promote_mixed_dtypes(op, first, second):
    # torch's lazy stack takes the first operand's dtype (int64 + float32 is
    # truncated to int64); eager promotes.
    r = run_isolated(f"""
        g = torch.Generator().manual_seed(0)
        def make(dtype):
            return (torch.randn(2, 3, generator=g) * 3).to(dtype)
        a, b = make({first}), make({second})
        eager = torch.{op}([a, b])
        lazy = torch.{op}([a.to("lazy"), b.to("lazy")])
        torch._lazy.mark_step()
        lazy = lazy.cpu()
        emit({{"dtype": str(lazy.dtype), "eager_dtype": str(eager.dtype),
               "equal": bool(torch.equal(lazy, eager)),
               "reasons": ltc_mlir.metrics()["fallback_reasons"]}})
    """)
    assert r["dtype"] == r["eager_dtype"], r
    assert r["equal"], r


@pytest.mark.parametrize("fn", ["torch.sgn", "torch.sign", "torch.round", "torch.floor"])
def test_backward_of_ops_with_zero_gradient(fn):
    # Their gradient is an _efficientzerotensor: the CPU ZeroTensor of the
    # eager fallback made backward raise, also with a relu after it.
    r = run_isolated(f"""
        x = torch.randn(4, 5)
        def run(device):
            t = x.to(device).requires_grad_()
            y = torch.relu({fn}(t) * 2.0 + t)
            y.sum().backward()
            return t.grad.cpu()
        lazy = run("lazy")
        torch._lazy.mark_step()
        eager = run("cpu")
        emit({{"max_diff": (lazy - eager).abs().max().item()}})
    """)
    assert r["max_diff"] == 0.0, r


def test_backward_through_zero_size_tensors():
    # The graph returned one tensor.empty twice (a result and another op's
    # init): MLIR's buffer-results-to-out-params segfaulted.
    r = run_isolated("""
        x = torch.randn(0, 3)
        w = torch.randn(3, 4)
        def run(device):
            a = x.to(device).requires_grad_()
            b = w.to(device).requires_grad_()
            y = (torch.relu(a @ b) * 2.0).sum() + b.sum()
            y.backward()
            return a.grad.cpu(), b.grad.cpu(), y.detach().cpu()
        lazy = run("lazy")
        torch._lazy.mark_step()
        eager = run("cpu")
        m = ltc_mlir.metrics()
        emit({"shapes": [list(t.shape) for t in lazy],
              "eager_shapes": [list(t.shape) for t in eager],
              "max_diff": max((l - e).abs().max().item() if l.numel() else 0.0
                              for l, e in zip(lazy, eager)),
              "reasons": m["fallback_reasons"]})
    """)
    assert r["shapes"] == r["eager_shapes"], r
    assert r["max_diff"] <= 1e-6, r
    assert not any("crashed" in reason for reason in r["reasons"]), r



def test_results_merged_by_vectorization_compile_natively():
    # x * 2 and its sum over a 0-d tensor vectorize to two identical
    # transfer_writes that CSE merges: one value returned twice, on which
    # MLIR's buffer-results-to-out-params segfaulted (the compile crash was
    # caught, the graph ran through the fallback). The boundaries are now
    # prepared again right before bufferization.
    r = run_isolated("""
        def fn(x0):
            v0 = x0 * 2
            v1 = v0.sum()
            return [torch.sgn(v1 * 2 * 2 * 2), v1, v0]
        x = torch.tensor(-3)
        eager = fn(x)
        ltc_mlir.reset_metrics()
        lazy = [t.cpu() for t in fn(x.to("lazy"))]
        m = ltc_mlir.metrics()
        emit({"equal": all(torch.equal(a, b) for a, b in zip(eager, lazy)),
              "fallback": m["fallback_ops"], "native": m["native_execute_count"]})
    """)
    assert r["equal"] and r["fallback"] == {} and r["native"] >= 1, r


@pytest.mark.parametrize("dtype", ["torch.int64", "torch.float32"])
def test_broadcast_of_a_zero_dim_reduction_is_not_accumulated(dtype):
    # A sum over a 0-dim tensor reads its init (out + in); fused into a
    # consumer that broadcasts it, the fused loop wrote the sum at every
    # iteration and read it back: x.sum().expand(2) / y gave [v, 2v]
    # (FuseElementwise.cpp moves such inits to the inputs first).
    r = run_isolated(f"""
        x = torch.tensor(4, dtype={dtype})
        f = lambda x: [x.sum().expand(3) / (x.abs() + 1), x.amax().expand(2, 2) * x,
                       x.prod().expand(3) - x.sum()]
        eager = f(x)
        lazy = f(x.to("lazy"))
        torch._lazy.mark_step()
        m = ltc_mlir.metrics()
        emit({{"lazy": [as_list(t) for t in lazy], "eager": [as_list(t) for t in eager],
               "native": m["native_execute_count"], "fallback": m["fallback_ops"]}})
    """)
    assert r["lazy"] == r["eager"], r
    assert r["native"] == 1 and r["fallback"] == {}, r
