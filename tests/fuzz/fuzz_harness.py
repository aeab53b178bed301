"""The code that runs one generated program on eager CPU and on the lazy
device and compares the two.

It is kept as source text (HARNESS) so that the reproducer printed for a
failing example is exactly what the fuzz worker executed: the program
(make_inputs, fn, GRAD_INPUTS, TOLERANCES) followed by this harness and a
call to check().
"""

HARNESS = '''
class EagerFailed(Exception):
    """The program is invalid for eager PyTorch: not a backend bug."""


def _run(device):
    xs = [x.detach().to(device) for x in make_inputs()]
    for i in GRAD_INPUTS:
        xs[i].requires_grad_(True)
    outs = list(fn(*xs))
    grads = []
    if GRAD_INPUTS:
        g = torch.Generator().manual_seed(1)
        loss = None
        for o in outs:
            if o.requires_grad:
                cot = torch.randn(o.shape, generator=g).to(o.dtype).to(device)
                term = (o * cot).sum()
                loss = term if loss is None else loss + term
        if loss is not None:
            loss.backward()
        grads = [xs[i].grad for i in GRAD_INPUTS]
    if device == "lazy":
        torch._lazy.mark_step()
    return ([o.detach().cpu() for o in outs]
            + [None if t is None else t.detach().cpu() for t in grads])


def _compare(i, e, l, rtol, atol):
    what = f"output {i}" if i < len(TOLERANCES) else f"grad of x{GRAD_INPUTS[i - len(TOLERANCES)]}"
    if e is None or l is None:
        assert e is None and l is None, f"{what}: lazy {l!r} vs eager {e!r}"
        return
    assert l.dtype == e.dtype, f"{what}: dtype {l.dtype} != eager {e.dtype}"
    assert l.shape == e.shape, f"{what}: shape {tuple(l.shape)} != eager {tuple(e.shape)}"
    if e.is_floating_point():
        torch.testing.assert_close(l, e, rtol=rtol, atol=atol, equal_nan=True,
                                   msg=lambda m: f"{what}: {m}")
    else:
        assert torch.equal(l, e), f"{what}: lazy {l.tolist()} != eager {e.tolist()}"


def check():
    """Raises EagerFailed, or the lazy run's exception, or AssertionError on a
    mismatch. Returns ltc_mlir.metrics() of the lazy run."""
    try:
        eager = _run("cpu")
    except Exception as e:
        raise EagerFailed(f"{type(e).__name__}: {e}") from e
    ltc_mlir.reset_metrics()
    lazy = _run("lazy")
    metrics = ltc_mlir.metrics()
    assert len(lazy) == len(eager), f"{len(lazy)} results != eager {len(eager)}"
    for i, (e, l) in enumerate(zip(eager, lazy)):
        if i < len(TOLERANCES):
            rtol, atol = TOLERANCES[i]
        else:  # gradients: atol relative to their own magnitude too
            rtol, atol = GRAD_TOLERANCE
            if e is not None and e.numel():
                atol *= max(1.0, e.abs().max().item())
        _compare(i, e, l, rtol, atol)
    return metrics
'''

# Appended to the program in a printed reproducer.
REPRO_FOOTER = '''
m = check()
print("values match; native:", m["fallback_graph_count"] == 0 and not m["fallback_ops"],
      "fallback_ops:", m["fallback_ops"])
'''

PRELUDE = '''import torch
import torch.nn.functional as F
import ltc_mlir
ltc_mlir.init()
'''


def reproducer(program_source):
    """A standalone script: the program, the harness, a call to check()."""
    return PRELUDE + program_source + HARNESS + REPRO_FOOTER


def state_reproducer(history, source):
    """A standalone script for a failure that needs earlier programs in the
    same process: each program runs (and is checked) in turn, the last fails."""
    progs = ",\n".join("r'''" + p + "'''" for p in list(history) + [source])
    return (PRELUDE + "HARNESS = r'''" + HARNESS + "'''\n\nPROGRAMS = [\n" + progs + "]\n\n"
            "for i, program in enumerate(PROGRAMS):\n"
            "    ns = {\"torch\": torch, \"F\": F, \"ltc_mlir\": ltc_mlir}\n"
            "    exec(program + HARNESS, ns)\n"
            "    print(f\"program {i}:\", ns[\"check\"]()[\"fallback_ops\"])\n")
