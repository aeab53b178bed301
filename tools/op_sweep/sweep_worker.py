"""Op sweep worker: runs PyTorch's own OpInfo samples on the lazy device.

One request per line on stdin ({"op": name, "variant": variant_test_name,
"dtype": "float32", "mode": "forward"|"backward"}), one JSON answer per line
on the original stdout (fd 1 is pointed at stderr so that prints from C++
or torch cannot corrupt the answers). An abort kills only this process; the
parent (op_sweep.py) records it and starts a new worker.

Answer: {"status": "native" | "fallback" | "wrong" | "error" | "no_samples"
         | "eager_failed", "message": str, "fallback_ops": {...}}
"""
import copy
import json
import os
import sys
import traceback
import types
import unittest

answers = os.fdopen(os.dup(1), "w")
os.dup2(2, 1)
sys.stdout = sys.stderr

# torch.testing._internal imports expecttest (not packaged by Debian) only for
# its TestCase base class and ACCEPT flag; OpInfos need neither.
if "expecttest" not in sys.modules:
    _stub = types.ModuleType("expecttest")
    _stub.TestCase = unittest.TestCase
    _stub.ACCEPT = False
    sys.modules["expecttest"] = _stub

import torch  # noqa: E402
import ltc_mlir  # noqa: E402
import torch._lazy.metrics  # noqa: E402
from torch.testing._internal.common_methods_invocations import op_db  # noqa: E402

ltc_mlir.init()

MAX_SAMPLES = int(os.environ.get("LTC_MLIR_SWEEP_SAMPLES", "3"))
# Ops whose values are random or uninitialised: only nativeness is checked.
NONDETERMINISTIC = ("rand", "normal", "bernoulli", "dropout", "multinomial", "uniform",
                    "empty", "new_empty", "exponential", "geometric", "cauchy",
                    "log_normal", "poisson",
                    # draws its pooling offsets with torch.rand on the input's
                    # device: the lazy device's generator is not the CPU's
                    # (explicit _random_samples: tests/e2e/test_random_ops.py)
                    "fractional_max_pool")

# Cases where eager CPU itself is wrong, so only nativeness is checked here;
# the e2e test named checks our values against the exact answer.
EAGER_WRONG = {
    ("as_strided_scatter", "backward"):
        "torch's as_strided_scatter_backward gives self the gradient only at the "
        "scattered locations, the reverse of the right answer "
        "(tests/e2e/test_as_strided_scatter_grad.py checks ours)",
}

_OPS = {(o.name, o.variant_test_name): o for o in op_db}


def _map(obj, fn):
    if isinstance(obj, torch.Tensor):
        return fn(obj)
    if isinstance(obj, (list, tuple)):
        mapped = [_map(x, fn) for x in obj]
        return type(obj)(mapped) if isinstance(obj, list) else tuple(mapped)
    if isinstance(obj, dict):
        return {k: _map(v, fn) for k, v in obj.items()}
    return obj


def _tensors(obj):
    out = []
    _map(obj, lambda t: out.append(t) or t)
    return out


def _to_device(sample, device, grad):
    def move(t):
        m = t.detach().clone().to(device)
        if grad and t.requires_grad:
            m.requires_grad_(True)
        return m
    return (_map(sample.input, move), _map(list(sample.args), move),
            _map(dict(sample.kwargs), move))


def _run(op, sample, device, backward):
    inp, args, kwargs = _to_device(sample, device, backward)
    out = op(inp, *args, **kwargs)
    outs = [t for t in _tensors(out)]
    if backward:
        leaves = [t for t in _tensors((inp, args, kwargs)) if t.requires_grad]
        diff = [t for t in outs if t.requires_grad and t.dtype.is_floating_point]
        if not diff or not leaves:
            return None
        # A fixed random cotangent per output (drawn on the CPU, so both
        # devices use the same one; in f32 and converted, so that the f64
        # reference of _closer_to_reference uses the same values too).
        gen = torch.Generator().manual_seed(1)
        loss = sum((t * torch.randn(t.shape, generator=gen).to(t.device, t.dtype)).sum()
                   for t in diff)
        grads = torch.autograd.grad(loss, leaves, allow_unused=True)
        outs = [o.detach() for o in outs] + [g for g in grads if g is not None]
    if device == "lazy":
        torch._lazy.mark_step()
    return [o.detach().cpu() for o in outs]


# Reduced-precision results are compared at their own resolution: our code
# accumulates in f32 where eager may round each step, so the last bits differ.
TOLERANCES = {torch.bfloat16: (1.6e-2, 1e-2), torch.float16: (1e-3, 1e-3)}


def _random_sample(op_name, sample):
    """A sample whose values are random: attention with dropout, RReLU in
    training (tests/e2e/test_random_ops.py checks their distributions)."""
    if "rrelu" in op_name and sample.kwargs.get("training", False):
        return True
    # F.multi_head_attention_forward takes dropout_p positionally (after
    # key, value, embed_dim, num_heads, the projections, bias_k/v and
    # add_zero_attn) and trains by default.
    if op_name == "nn.functional.multi_head_attention_forward" and len(sample.args) > 9:
        return sample.kwargs.get("training", True) and sample.args[9] > 0.0
    return sample.kwargs.get("dropout_p", 0.0) > 0.0


def _compare(op_name, eager, lazy, values=True):
    if len(eager) != len(lazy):
        return f"{len(lazy)} outputs, eager has {len(eager)}"
    for i, (e, l) in enumerate(zip(eager, lazy)):
        if e.dtype != l.dtype:
            return f"output {i}: dtype {l.dtype}, eager {e.dtype}"
        if e.shape != l.shape:
            return f"output {i}: shape {tuple(l.shape)}, eager {tuple(e.shape)}"
        if not values or any(k in op_name for k in NONDETERMINISTIC):
            continue
        try:
            rtol, atol = TOLERANCES.get(e.dtype, (1e-4, 1e-5))
            torch.testing.assert_close(l, e, rtol=rtol, atol=atol, equal_nan=True)
        except AssertionError as err:
            return f"output {i}: " + str(err).splitlines()[0:4].__str__()
    return None


def _closer_to_reference(op, sample, backward, eager, lazy):
    """Whether the lazy results are at least as close as eager's to the op
    computed in f64 from the same inputs. Eager CPU rounds f16/bf16
    intermediates where our code keeps f32 (matmul accumulation, norms), and
    in f32 a value that cancels to ~0 keeps eager's rounding residue (layer
    norm of one element): a lazy value off from eager's but nearer the
    exact one (or within a few times eager's error) is not a wrong value. (f64 results are their own reference.)"""
    def up(t):
        if not t.is_floating_point():
            return t
        return t.detach().double().requires_grad_(t.requires_grad)
    try:
        s64 = copy.copy(sample)
        s64.input, s64.args, s64.kwargs = (_map(sample.input, up), _map(list(sample.args), up),
                                           _map(dict(sample.kwargs), up))
        torch.manual_seed(0)
        ref = _run(op, s64, "cpu", backward)
    except Exception:
        return False
    if ref is None or len(ref) != len(eager):
        return False
    for e, l, r in zip(eager, lazy, ref):
        if not e.is_floating_point():
            if not torch.equal(e, l):
                return False
            continue
        err_e = (e.double() - r).abs().nan_to_num(0).max().item() if e.numel() else 0.0
        err_l = (l.double() - r).abs().nan_to_num(0).max().item() if l.numel() else 0.0
        # Long f32 sums in another order (conv_transpose3d's gradients: an
        # error of 9.4e-5 where eager's is 7.9e-5, among values of 160) are
        # as accurate as eager's: allowed are a few times eager's own error
        # or a few roundings of the largest value, not more.
        scale = r.abs().nan_to_num(0).max().item() if r.numel() else 0.0
        allowed = 4 * max(err_e, torch.finfo(e.dtype).eps * scale)
        if torch.isnan(l).ne(torch.isnan(r)).any() or err_l > allowed:
            return False
    return True


def _eager_fallback_counts():
    # LTC counts each op run by the per-op eager fallback as "aten::<op>".
    lm = torch._lazy.metrics
    return {n: lm.counter_value(n) for n in lm.counter_names() if n.startswith("aten::")}


def _blockers(metrics, before):
    """The ops that kept this case from native code: those a graph could not
    lower, and those run by the per-op eager fallback (no Lazy kernel)."""
    found = set()
    for reason in metrics["fallback_reasons"]:
        if "unsupported " in reason:
            names = reason.split("unsupported ", 1)[1].split(" -- ", 1)[0]
            found.update(o.strip() for o in names.split(","))
        else:
            found.add("(graph failed: " + reason.split(": ", 1)[-1][:80] + ")")
    found.update(n for n, v in _eager_fallback_counts().items()
                 if v > before.get(n, 0) and n != "aten::_local_scalar_dense")  # .item()
    return sorted(found)


def run_case(request):
    op = _OPS[(request["op"], request["variant"])]
    dtype = getattr(torch, request["dtype"])
    backward = request["mode"] == "backward"
    try:
        samples = list(op.sample_inputs("cpu", dtype, requires_grad=backward))[:MAX_SAMPLES]
    except Exception as e:
        return {"status": "no_samples", "message": f"sample_inputs: {e}"}
    if not samples:
        return {"status": "no_samples", "message": "no samples"}
    ltc_mlir.reset_metrics()
    before = _eager_fallback_counts()
    ran = closer = 0
    for sample in samples:
        try:
            torch.manual_seed(0)
            eager = _run(op, sample, "cpu", backward)
        except Exception as e:
            continue  # eager rejects this sample: not our case
        if eager is None:
            continue
        try:
            torch.manual_seed(0)
            lazy = _run(op, sample, "lazy", backward)
        except Exception as e:
            tb = traceback.extract_tb(e.__traceback__)
            where = f" (at {tb[-1].name})" if tb else ""
            return {"status": "error", "message": f"{type(e).__name__}: {str(e)[:400]}{where}"}
        values = (op.name, request["mode"]) not in EAGER_WRONG and not _random_sample(op.name, sample)
        wrong = _compare(op.name, eager, lazy, values)
        if wrong and dtype.is_floating_point and dtype != torch.float64 and _closer_to_reference(op, sample, backward,
                                                                   eager, lazy):
            closer += 1
            wrong = None
        if wrong:
            return {"status": "wrong", "message": wrong[:600]}
        ran += 1
    if ran == 0:
        return {"status": "eager_failed", "message": "eager ran no sample"}
    m = ltc_mlir.metrics()
    fallback = dict(m["fallback_ops"])
    compiled = sorted(m["native_ops"])  # the aten ops that ran in native code
    if fallback or m["fallback_graph_count"]:
        return {"status": "fallback", "fallback_ops": fallback, "blockers": _blockers(m, before),
                "native_ops": compiled, "message": "; ".join(m["fallback_reasons"])[:600]}
    answer = {"status": "native", "native_executions": m["native_execute_count"],
              "native_ops": compiled}
    if closer:
        answer["closer_to_f64_than_eager"] = closer
    if (op.name, request["mode"]) in EAGER_WRONG:
        answer["eager_wrong"] = EAGER_WRONG[(op.name, request["mode"])]
    return answer


def main():
    answers.write(json.dumps({"status": "ready"}) + "\n")
    answers.flush()
    for line in sys.stdin:
        request = json.loads(line)
        try:
            answer = run_case(request)
        except Exception as e:
            answer = {"status": "error", "message": f"worker: {type(e).__name__}: {e}"[:600]}
        answers.write(json.dumps(answer) + "\n")
        answers.flush()


if __name__ == "__main__":
    main()
