"""The hypothesis strategy: a random chain of ops (fuzz_ops.OPS) on random
inputs, rendered as a Program (fuzz_builder.py)."""
from hypothesis import strategies as st

from fuzz_builder import Builder
from fuzz_ops import GRAPH, NOT_NATIVE, OPS


@st.composite
def programs(draw, cfg):
    b = Builder(draw, cfg)
    b.new_input()
    for _ in range(draw(st.integers(1, cfg.max_ops))):
        # Operands: the newest values first (a chain), then the inputs.
        pool = b.vals[::-1] + b.inputs[::-1]
        applicable = [(tag, fn, [v for v in pool if accepts(b, v)])
                      for tag, accepts, fn in OPS]
        applicable = [(tag, fn, vs) for tag, fn, vs in applicable if vs]
        tag, fn, operands = draw(st.sampled_from(applicable))
        fn(b, operands[draw(st.integers(0, len(operands) - 1))])
    return b.program()


def allowed_fallbacks(program):
    """The fallback ops fuzz_ops.NOT_NATIVE allows for the program's ops
    (GRAPH among them: a whole-graph fallback is allowed too)."""
    allowed = set()
    for tag in program.tags:
        fwd, bwd = NOT_NATIVE.get(tag, (set(), set()))
        allowed |= fwd | (bwd if program.backward else set())
    return allowed


def unexpected_fallbacks(program, metrics):
    """What ran outside native code without a reason in NOT_NATIVE."""
    allowed = allowed_fallbacks(program)
    if GRAPH in allowed:
        return None
    if metrics["fallback_graph_count"]:
        return f"{metrics['fallback_graph_count']} graph(s) fell back: " \
               f"{metrics['fallback_reasons']}"
    extra = sorted(set(metrics["fallback_ops"]) - allowed)
    return f"ops ran outside native code: {extra}" if extra else None
