"""`torch.op(..., out=t)` with lazy tensors (ltc_backend/lazy_kernels/
out_argument_checks.cpp). torch functionalizes an out= call into the
functional op and a cast copy, so an out tensor of the wrong dtype silently
received a cast result where eager raises, and sum(out=long) summed in f32
where eager sums in the out tensor's dtype. Each case must give eager's
error (type and message) or eager's values and dtype."""
import pytest
import torch
import torch._lazy
import torch._lazy.metrics

import ltc_mlir


def _r(*shape):
    return torch.randn(*shape, generator=torch.Generator().manual_seed(0))


def _out(shape, dtype, d):
    return torch.empty(shape, dtype=dtype, device=d)


L, D, F32 = torch.long, torch.double, torch.float
CASES = {
    # eager raises
    "add_float_into_long": lambda d: torch.add(_r(3).to(d), _r(3).to(d), out=_out(3, L, d)),
    "exp_into_long": lambda d: torch.exp(_r(3).to(d), out=_out(3, L, d)),
    "true_div_of_ints_into_long": lambda d: torch.div(torch.ones(3, dtype=L).to(d), 2, out=_out(3, L, d)),
    "mm_into_long": lambda d: torch.mm(_r(3, 3).to(d), _r(3, 3).to(d), out=_out((3, 3), L, d)),
    "mm_into_double": lambda d: torch.mm(_r(3, 3).to(d), _r(3, 3).to(d), out=_out((3, 3), D, d)),
    "addmm_into_long": lambda d: torch.addmm(_r(3, 3).to(d), _r(3, 3).to(d), _r(3, 3).to(d), out=_out((3, 3), L, d)),
    "bmm_into_double": lambda d: torch.bmm(_r(2, 3, 3).to(d), _r(2, 3, 3).to(d), out=_out((2, 3, 3), D, d)),
    "matmul_into_long": lambda d: torch.matmul(_r(3, 3).to(d), _r(3).to(d), out=_out(3, L, d)),
    "cat_into_long": lambda d: torch.cat([_r(3).to(d)], out=_out(3, L, d)),
    "argmax_into_float": lambda d: torch.argmax(_r(3, 3).to(d), 0, out=_out(3, F32, d)),
    "max_dim_values_into_long": lambda d: torch.max(_r(3, 3).to(d), 0, out=(_out(3, L, d), _out(3, L, d)))[0],
    "sort_values_into_long": lambda d: torch.sort(_r(3).to(d), out=(_out(3, L, d), _out(3, L, d)))[0],
    "clamp_into_long": lambda d: torch.clamp(_r(3).to(d), 0, 1, out=_out(3, L, d)),
    "pow_into_long": lambda d: torch.pow(_r(3).to(d), 2, out=_out(3, L, d)),
    "mean_into_long": lambda d: torch.mean(_r(3, 3).to(d), 0, out=_out(3, L, d)),
    # eager computes
    "add_into_double": lambda d: torch.add(_r(3).to(d), _r(3).to(d), out=_out(3, D, d)),
    "add_ints_into_float": lambda d: torch.add(torch.ones(3, dtype=L).to(d), 2, out=_out(3, F32, d)),
    "eq_into_float": lambda d: torch.eq(_r(3).to(d), 0, out=_out(3, F32, d)),
    "sum_into_long_sums_in_long": lambda d: torch.sum(_r(3, 3).to(d) * 2, 0, out=_out(3, L, d)),
    "sum_into_double_sums_in_double": lambda d: torch.sum(_r(64, 3).to(d), 0, out=_out(3, D, d)),
    "cumsum_into_long": lambda d: torch.cumsum(_r(5).to(d) * 2, 0, out=_out(5, L, d)),
    "prod_into_double": lambda d: torch.prod(_r(3, 4).to(d), 1, out=_out(3, D, d)),
    "mean_into_double": lambda d: torch.mean(_r(64, 3).to(d), 0, out=_out(3, D, d)),
    "mul_resizes_out": lambda d: torch.mul(_r(3).to(d), 2, out=_out(5, F32, d)),
}


def _run(case, device):
    try:
        out = case(device)
        if device == "lazy":
            torch._lazy.mark_step()
        return ("value", out.cpu())
    except (RuntimeError, TypeError, IndexError) as e:
        return ("error", type(e).__name__ + ": " + str(e).splitlines()[0])


@pytest.mark.filterwarnings("ignore:An output with one or more elements was resized")
@pytest.mark.parametrize("name", sorted(CASES))
def test_out_argument_matches_eager(name):
    ltc_mlir.init()
    eager, lazy = _run(CASES[name], "cpu"), _run(CASES[name], "lazy")
    assert eager[0] == lazy[0], (eager, lazy)
    if eager[0] == "error":
        assert lazy[1] == eager[1]
    else:
        assert lazy[1].dtype == eager[1].dtype and lazy[1].shape == eager[1].shape
        # the same accumulation type: equal to the last bit for these sizes
        torch.testing.assert_close(lazy[1], eager[1], rtol=1e-12, atol=0)


def test_valid_out_calls_still_compile_natively():
    ltc_mlir.init()
    x, y = _r(8, 8), _r(8, 8)
    torch._lazy.metrics.reset()
    ltc_mlir.reset_metrics()
    lx, ly = x.to("lazy"), y.to("lazy")
    out = torch.empty(8, 8, device="lazy")
    torch.mm(lx, ly, out=out)
    total = torch.empty(8, dtype=torch.double, device="lazy")
    torch.sum(out, 0, out=total)
    torch._lazy.mark_step()
    torch.testing.assert_close(out.cpu(), x @ y, rtol=1e-5, atol=1e-5)
    torch.testing.assert_close(total.cpu(), torch.sum(x @ y, 0, dtype=torch.double), rtol=1e-6, atol=1e-6)
    m = ltc_mlir.metrics()
    assert m["fallback_ops"] == {} and m["native_execute_count"] == m["execute_count"] >= 1, m


@pytest.mark.filterwarnings("ignore:An output with one or more elements was resized")
@pytest.mark.parametrize("call", [
    lambda x, v, i: torch.max(x, 0, out=(v, i)),
    lambda x, v, i: torch.sort(x, 1, out=(v, i)),
    lambda x, v, i: torch.topk(x, 3, out=(v, i)),
    lambda x, v, i: torch.kthvalue(x, 2, 0, out=(v, i)),
])
def test_valid_multi_output_out_calls(call):
    # Guards the meta probe of out_argument_checks.cpp against a boxed call
    # of a kernel returning a tuple of out references that pushes copies of
    # freed tensors (scripts/test_sanitize.sh reported a heap-use-after-free
    # here); torch 2.14's boxing decays such tuples to values first.
    ltc_mlir.init()
    x = _r(5, 6)
    results = []
    for device in ("cpu", "lazy"):
        v = torch.empty(0, device=device)
        i = torch.empty(0, dtype=torch.long, device=device)
        call(x.to(device), v, i)
        torch._lazy.mark_step()
        results.append((v.cpu(), i.cpu()))
    for e, l in zip(results[0], results[1]):
        assert e.dtype == l.dtype and e.shape == l.shape
        torch.testing.assert_close(l, e, rtol=0, atol=0)
