"""The ops the chain generator draws from: the ops ltc_mlir lowers natively
today (tests/e2e, mlir_lowering/lib/Conversion/TorchToLinalg), each as
`op_<name>(b, a)`: emit one step on operand `a` through the Builder `b`.

OPS lists (tag, accepts(b, a), emitter). NOT_NATIVE names the tags whose
forward or backward runs outside native code for a known, documented
reason (no lazy kernel: the per-op eager fallback); a program without them
must run fully native.
"""
import math

import torch
from hypothesis import assume
from hypothesis import strategies as st

from fuzz_builder import FLOATS, HALFS, DTYPE_SRC

# Ops that run outside native code for a known, documented reason (no lazy
# kernel: LTC's per-op eager fallback; or an op the compiler does not
# lower: the whole graph falls back). tag -> (fallback ops allowed in the
# forward, in the backward); GRAPH allows a whole-graph fallback. A program
# whose fallbacks are not all allowed by its tags fails. Empty: every op
# the fuzzer draws runs natively, forward and backward.
GRAPH = "whole graph"
NOT_NATIVE = {}

SCALARS_F = ["2.0", "0.5", "-1.5", "3.0", "0.25"]
SCALARS_I = ["2", "-3", "1"]


def is_float(v):
    return v.dtype in FLOATS


def is_numeric(v):
    return v.dtype in FLOATS or v.dtype == torch.int64


def is_float_or_half(v):
    return v.dtype in FLOATS or v.dtype in HALFS


def numel(shape):
    return math.prod(shape)


# ---- operands ---------------------------------------------------------------

def derived_shape(b, shape):
    """A shape that broadcasts to `shape`: leading dims dropped, some set to 1."""
    k = b.int_in(0, len(shape))
    s = list(shape[k:])
    for i in range(len(s)):
        if b.int_in(0, 3) == 3:
            s[i] = 1
    return tuple(s)


def partner(b, a, dtypes):
    """A second operand broadcasting with a: a new input (shape derived from
    a's) or an earlier value."""
    cands = []
    for v in reversed(b.vals + b.inputs):
        if v is a or v.dtype not in dtypes:
            continue
        try:
            s = torch.broadcast_shapes(v.shape, a.shape)
        except RuntimeError:
            continue
        if numel(s) <= b.cfg.max_numel:
            cands.append(v)
    i = b.int_in(0, len(cands))
    if i > 0:
        return cands[i - 1]
    dtype = b.pick([a.dtype] + [d for d in dtypes if d != a.dtype])
    return b.new_input(derived_shape(b, a.shape), dtype)


def a_dim(b, a, allow_negative=True):
    d = b.int_in(0, a.rank - 1)
    if allow_negative and b.flag():
        d -= a.rank
    return d


def scalar(b, a):
    if a.dtype == torch.int64:
        return b.pick(SCALARS_I + SCALARS_F)
    return b.pick(SCALARS_F + SCALARS_I)


# ---- elementwise ------------------------------------------------------------

UNARY = {  # tag: (template, thresholds where it jumps (value or gradient), exact)
    "neg": ("-{a}", None, True),
    "relu": ("torch.relu({a})", [0.0], True),
    "tanh": ("torch.tanh({a})", None, False),
    "sigmoid": ("torch.sigmoid({a})", None, False),
    "exp": ("torch.exp({a})", None, False),
    "log": ("torch.log({a}.abs() + 0.5)", [0.0], False),
    "sqrt": ("torch.sqrt({a}.abs() + 0.25)", [0.0], False),
    "rsqrt": ("torch.rsqrt({a}.abs() + 0.25)", [0.0], False),
    "abs": ("{a}.abs()", [0.0], True),
    "gelu": ("F.gelu({a})", None, False),
    "gelu_tanh": ("F.gelu({a}, approximate='tanh')", None, False),
    "cos": ("torch.cos({a})", None, False),
    "pow_2": ("{a} ** 2", None, False),
    "pow_3": ("{a} ** 3.0", None, False),
    "pow_half": ("({a}.abs() + 0.5) ** 0.5", [0.0], False),
    "pow_neg": ("({a}.abs() + 0.5) ** -1.5", [0.0], False),
}


def op_unary(b, a):
    tag = b.pick(list(UNARY))
    template, jumps, exact = UNARY[tag]
    if jumps is not None and b.backward:
        assume(b.clear_of(a, jumps))
    return b.emit(tag, template.format(a=a.name), [a], exact=exact)


def op_sgn(b, a):
    assume(b.clear_of(a, [0.0]))
    if b.backward and a.dtype in FLOATS:
        assume(b.cfg.allows("sgn_backward"))
    return b.emit("sgn", f"torch.sgn({a.name})", [a], exact=True)


def op_clamp(b, a):
    lo, hi = b.pick([("-0.5", "0.5"), ("-1.0", None), (None, "0.25"), ("0.5", "-0.5")])
    if b.backward:
        assume(b.clear_of(a, [float(x) for x in (lo, hi) if x is not None]))
    args = ", ".join(f"{k}={x}" for k, x in (("min", lo), ("max", hi)) if x is not None)
    return b.emit("clamp", f"{a.name}.clamp({args})", [a], exact=True)


def op_scalar_arith(b, a):
    s = scalar(b, a)
    form = b.pick(["{a} * {s}", "{a} + {s}", "{a} - {s}", "{s} - {a}", "{a} / {s}",
                   "torch.add({a}, {s}, alpha=2)"])
    return b.emit("scalar_arith", form.format(a=a.name, s=s), [a])


def op_binary(b, a):
    p = partner(b, a, FLOATS + (torch.int64, torch.bool))
    form = b.pick(["{a} + {p}", "{a} * {p}", "{a} - {p}", "torch.add({a}, {p}, alpha=2)",
                   "torch.sub({a}, {p}, alpha=0.5)"])
    return b.emit("binary", form.format(a=a.name, p=p.name), [a, p])


def op_div(b, a):
    p = partner(b, a, FLOATS + (torch.int64,))
    if p.dtype not in FLOATS:
        assume(b.cfg.allows("int_abs"))
    den = f"({p.name}.abs() + 0.5)" if p.dtype in FLOATS else f"({p.name}.abs() + 1)"
    return b.emit("div", f"{a.name} / {den}", [a, p])


def op_max_min(b, a):
    p = partner(b, a, FLOATS)
    if b.backward:
        assume(b.clear_of(a, [0.0], p))
    tag = b.pick(["maximum", "minimum"])
    return b.emit(tag, f"torch.{tag}({a.name}, {p.name})", [a, p], exact=True)


def op_pow_tensor(b, a):
    p = partner(b, a, FLOATS)
    return b.emit("pow_tensor", f"({a.name}.abs() + 0.5) ** torch.tanh({p.name})", [a, p])


def op_addcmul(b, a):
    p = partner(b, a, (a.dtype,))
    q = partner(b, a, (a.dtype,))
    if b.flag():
        return b.emit("addcmul", f"torch.addcmul({a.name}, {p.name}, {q.name}, value=0.5)",
                      [a, p, q])
    return b.emit("addcdiv",
                  f"torch.addcdiv({a.name}, {p.name}, {q.name}.abs() + 0.5, value=-2.0)",
                  [a, p, q])


def op_compare(b, a):
    cmp = b.pick([">", "<", ">=", "<=", "==", "!="])
    if b.flag():
        s = scalar(b, a)
        assume(b.clear_of(a, [float(s)]))
        return b.emit("compare", f"{a.name} {cmp} {s}", [a], exact=True)
    p = partner(b, a, FLOATS + (torch.int64,))
    assume(b.clear_of(a, [0.0], p))
    return b.emit("compare", f"{a.name} {cmp} {p.name}", [a, p], exact=True)


def op_where(b, a):
    masks = [v for v in reversed(b.vals + b.inputs) if v.dtype == torch.bool]
    masks = [m for m in masks if _broadcasts(m.shape, a.shape, b.cfg.max_numel)]
    i = b.int_in(0, len(masks))
    m = masks[i - 1] if i else b.new_input(derived_shape(b, a.shape), torch.bool)
    p = partner(b, a, (a.dtype,))
    return b.emit("where", f"torch.where({m.name}, {a.name}, {p.name})", [a, m, p], exact=True)


def op_mask(b, a):
    """A float tensor times a comparison of itself (the relu-like mask idiom)."""
    s = b.pick(SCALARS_F)
    assume(b.clear_of(a, [float(s)]))
    return b.emit("compare", f"{a.name} * ({a.name} > {s})", [a], exact=True)


def _broadcasts(s1, s2, cap):
    try:
        return numel(torch.broadcast_shapes(s1, s2)) <= cap
    except RuntimeError:
        return False


# ---- reductions -------------------------------------------------------------

def op_reduce(b, a):
    if a.dtype in HALFS:
        assume(b.cfg.allows("half_reduction"))
    kind = "sum" if not is_float_or_half(a) else b.pick(["sum", "mean"])
    if a.rank == 0 or b.int_in(0, 3) == 0:
        expr, dims = f"{a.name}.{kind}()", list(range(a.rank))
    else:
        dims = b.draw(st.lists(st.integers(0, a.rank - 1), min_size=1, max_size=a.rank,
                               unique=True))
        shown = [d - a.rank if b.flag() else d for d in dims]
        keep = b.flag()
        dim_src = str(shown[0]) if len(shown) == 1 else str(tuple(shown))
        expr = f"{a.name}.{kind}({dim_src}, keepdim={keep})"
    k = math.prod(a.shape[d] for d in dims) if dims else 1
    l1 = 0.0
    if a.numel and a.dtype != torch.bool:
        l1 = float(a.t.detach().double().abs().sum(dims).max()) if dims else float(a.t.abs().max())
    return b.emit(kind, expr, [a], extra_depth=math.sqrt(k) / 4, extra_scale=l1)


# ---- linear algebra ---------------------------------------------------------

def _contraction_scale(x, w):
    if x.numel() == 0 or w.numel() == 0:
        return 0.0
    return float(torch.matmul(x.detach().double().abs(), w.detach().double().abs()).max())


def op_mm(b, a):
    m, k = a.shape
    form = b.pick(["new", "self_t", "new_left"])
    if form == "self_t":
        return b.emit("mm", f"torch.mm({a.name}, {a.name}.t())", [a],
                      extra_depth=math.sqrt(k) / 4,
                      extra_scale=_contraction_scale(a.t, a.t.t()))
    if form == "new_left":
        x = b.new_input((b.dim_size(), m), a.dtype)
        return b.emit("mm", f"torch.mm({x.name}, {a.name})", [a, x],
                      extra_depth=math.sqrt(m) / 4, extra_scale=_contraction_scale(x.t, a.t))
    w = b.new_input((k, b.dim_size()), a.dtype)
    return b.emit("mm", f"torch.mm({a.name}, {w.name})", [a, w],
                  extra_depth=math.sqrt(k) / 4, extra_scale=_contraction_scale(a.t, w.t))


def op_addmm(b, a):
    m, k = a.shape
    n = b.dim_size()
    w = b.new_input((k, n), a.dtype)
    bias = b.new_input(b.pick([(n,), (m, n), (1, n)]), a.dtype)
    beta, alpha = b.pick([("1", "1"), ("0.5", "2.0")])
    return b.emit("addmm", f"torch.addmm({bias.name}, {a.name}, {w.name}, beta={beta}, "
                  f"alpha={alpha})", [a, w, bias], extra_depth=math.sqrt(k) / 4,
                  extra_scale=2 * _contraction_scale(a.t, w.t))


def op_bmm(b, a):
    bs, m, k = a.shape
    w = b.new_input((bs, k, b.dim_size()), a.dtype)
    return b.emit("bmm", f"torch.bmm({a.name}, {w.name})", [a, w],
                  extra_depth=math.sqrt(k) / 4, extra_scale=_contraction_scale(a.t, w.t))


def op_linear(b, a):
    k, n = a.shape[-1], b.dim_size()
    w = b.new_input((n, k), a.dtype)
    args, ops = [a.name, w.name], [a, w]
    # linear of a 1-D input adds the bias in place into a view (squeeze)
    if b.flag() and (a.rank != 1 or b.cfg.allows("view_inplace_detach")):
        bias = b.new_input((n,), a.dtype)
        args.append(bias.name)
        ops.append(bias)
    return b.emit("linear", f"F.linear({', '.join(args)})", ops,
                  extra_depth=math.sqrt(k) / 4, extra_scale=_contraction_scale(a.t, w.t.t()))


def op_matmul(b, a):
    k = a.shape[-1]
    w = b.new_input(b.pick([(k, b.dim_size()), (k,)]), a.dtype)
    tag = "dot" if a.rank == 1 and w.rank == 1 else "matmul"
    return b.emit(tag, f"{a.name} @ {w.name}", [a, w], extra_depth=math.sqrt(k) / 4,
                  extra_scale=_contraction_scale(a.t, w.t))


# ---- views and data movement ------------------------------------------------

def view(b, tag, a, expr):
    v = b.emit(tag, expr, [a], exact=True, fresh=False,
               view_of=a.view_of or (a.name if a.fresh else None))
    v.mutated = a.mutated  # a view of a tensor written in place
    return v


def op_transpose(b, a):
    if a.rank <= 2 and b.flag():
        return view(b, "transpose", a, f"{a.name}.t()")
    return view(b, "transpose", a, f"{a.name}.transpose({a_dim(b, a)}, {a_dim(b, a)})")


def op_permute(b, a):
    perm = b.draw(st.permutations(range(a.rank)))
    return view(b, "permute", a, f"{a.name}.permute({', '.join(map(str, perm))})")


def op_reshape(b, a):
    shape = list(a.shape)
    form = b.pick(["flatten", "merge", "split", "infer"])
    if form == "flatten" or a.rank < 2 and form == "merge":
        new = [-1]
    elif form == "merge":
        i = b.int_in(0, a.rank - 2)
        new = shape[:i] + [shape[i] * shape[i + 1]] + shape[i + 2:]
    elif form == "split":
        i = b.int_in(0, a.rank - 1) if a.rank else 0
        d = shape[i] if a.rank else 1
        f = b.pick([f for f in (2, 3, 1) if d % f == 0])
        new = shape[:i] + [f, d // f] + shape[i + 1:]
    else:
        new = shape[:]
        if new:
            new[b.int_in(0, len(new) - 1)] = -1
    method = "view" if a.t.is_contiguous() and b.flag() else "reshape"
    return view(b, "reshape", a, f"{a.name}.{method}({', '.join(map(str, new)) or '()'})")


def op_unsqueeze(b, a):
    d = b.int_in(-a.rank - 1, a.rank)
    return view(b, "unsqueeze", a, f"{a.name}.unsqueeze({d})")


def op_squeeze(b, a):
    if b.flag():
        return view(b, "squeeze", a, f"{a.name}.squeeze()")
    return view(b, "squeeze", a, f"{a.name}.squeeze({a_dim(b, a)})")


def op_slice(b, a):
    d = b.int_in(0, a.rank - 1)
    size = a.shape[d]
    start = b.pick([None, 1, -2, 0, 100, -100])
    stop = b.pick([None, -1, 3, 100])
    step = b.pick([None, 2, 3])
    part = ":".join("" if x is None else str(x) for x in (start, stop, step))
    del size
    return view(b, "slice", a, f"{a.name}[{':, ' * d}{part}]")


def op_select(b, a):
    d = b.int_in(0, a.rank - 1)
    size = a.shape[d]
    assume(size > 0)
    i = b.int_in(-size, size - 1)
    if d == 0 and b.flag():
        return view(b, "select", a, f"{a.name}[{i}]")
    return view(b, "select", a, f"{a.name}.select({d}, {i})")


def op_narrow(b, a):
    d = b.int_in(0, a.rank - 1)
    size = a.shape[d]
    start = b.int_in(0, size)
    length = b.int_in(0, size - start)
    return view(b, "narrow", a, f"{a.name}.narrow({d}, {start}, {length})")


def op_expand(b, a):
    new = [b.pick([3, 2, 4]) if s == 1 and b.flag() else -1 for s in a.shape]
    lead = [b.pick([2, 3])] if b.flag() else []
    shape = lead + new
    assume(shape and numel([abs(x) if x != -1 else s for x, s in
                            zip(shape, (1,) * len(lead) + a.shape)]) <= b.cfg.max_numel)
    return view(b, "expand", a, f"{a.name}.expand({', '.join(map(str, shape))})")


def op_as_strided(b, a):
    if not a.fresh:
        assume(a.view_of is not None and b.cfg.allows("as_strided_on_view"))
    if b.backward:
        assume(b.cfg.allows("as_strided_backward"))
    storage = a.t.storage().size()
    assume(storage > 0)
    rank = b.int_in(1, 3)
    size = [b.int_in(1, 4) for _ in range(rank)]
    stride = [b.int_in(0, 5) for _ in range(rank)]
    reach = sum((s - 1) * st_ for s, st_ in zip(size, stride))
    assume(reach < storage)
    offset = b.int_in(0, storage - 1 - reach)
    return view(b, "as_strided", a,
                f"torch.as_strided({a.name}, {tuple(size)}, {tuple(stride)}, {offset})")


def op_copy(b, a):
    form = b.pick(["clone", "contiguous", "detach"])
    if form == "clone":
        return b.emit("clone", f"{a.name}.clone()", [a], exact=True)
    if form == "contiguous":
        return b.emit("clone", f"{a.name}.contiguous()", [a], exact=True,
                      fresh=a.fresh or not a.t.is_contiguous())
    if a.mutated:
        assume(b.cfg.allows("view_inplace_detach"))
    return view(b, "detach", a, f"{a.name}.detach()")


def op_cat(b, a):
    stack = b.flag()
    d = b.int_in(0, a.rank) if stack else b.int_in(0, a.rank - 1)
    if b.flag():
        others = [a]
    else:
        shape = list(a.shape)
        if not stack:
            shape[d] = b.pick([1, 2, 3, 0] if b.cfg.zero_size else [1, 2, 3])
        dtype = b.pick([a.dtype, torch.float32, torch.float64, torch.int64, torch.bool])
        others = [b.new_input(tuple(shape), dtype)]
    if b.flag():
        others.append(a)
    if stack and any(v.dtype != a.dtype for v in others):
        assume(b.cfg.allows("stack_mixed_dtypes"))
    dtypes = {v.dtype for v in [a] + others}
    if torch.bool in dtypes and len(dtypes) > 1:
        assume(b.cfg.allows("cat_bool_with_other_dtypes"))
    args = ", ".join(v.name for v in [a] + others)
    fn = "stack" if stack else "cat"
    return b.emit(fn, f"torch.{fn}([{args}], {d})", [a] + others, exact=True)


def op_split(b, a):
    assume(b.cfg.allows("split_chunk_unbind"))
    d = b.int_in(0, a.rank - 1)
    assume(a.shape[d] > 0)
    form = b.pick(["chunk", "split", "unbind"])
    if form == "chunk":
        k = b.int_in(1, 3)
        n = len(torch.chunk(a.t, k, d))
        expr = f"torch.chunk({a.name}, {k}, {d})[{b.int_in(0, n - 1)}]"
    elif form == "split":
        s = b.int_in(1, a.shape[d])
        n = len(a.t.split(s, d))
        expr = f"{a.name}.split({s}, {d})[{b.int_in(0, n - 1)}]"
    else:
        expr = f"{a.name}.unbind({d})[{b.int_in(0, a.shape[d] - 1)}]"
    return b.emit("split_chunk_unbind", expr, [a], exact=True, fresh=False)


# ---- nn ---------------------------------------------------------------------

def op_softmax(b, a):
    fn = b.pick(["F.softmax", "F.log_softmax", "torch.log_softmax"])
    d = a_dim(b, a) if a.rank else 0
    tag = "log_softmax" if "log" in fn else "softmax"
    return b.emit(tag, f"{fn}({a.name}, dim={d})", [a], extra_depth=2)


def op_layer_norm(b, a):
    k = b.int_in(1, min(a.rank, 3))
    normalized = a.shape[-k:]
    n = numel(normalized)
    assume(n >= 2)
    if a.numel:
        rows = a.t.detach().double().reshape(-1, n)
        spread = float(rows.std(1, unbiased=False).min())
        assume(spread >= 0.05 * max(1.0, a.scale))
    args, ops = [a.name, str(tuple(normalized))], [a]
    if b.flag():
        w = b.new_input(normalized, a.dtype, layout="contiguous")
        bias = b.new_input(normalized, a.dtype, layout="contiguous") if b.flag() else None
        args += [w.name, bias.name if bias else "None"]
        ops += [w] + ([bias] if bias else [])
    return b.emit("layer_norm", f"F.layer_norm({', '.join(args)}, eps=1e-5)", ops,
                  extra_depth=4 + math.sqrt(n) / 4)


def op_embedding(b, a):
    vocab = a.shape[0]
    assume(vocab > 0)
    idx = b.new_input(b.pick([(4,), (2, 3), ()]), torch.int64, low=0, high=vocab)
    pad = f", padding_idx={b.int_in(0, vocab - 1)}" if b.flag() else ""
    return b.emit("embedding", f"F.embedding({idx.name}, {a.name}{pad})", [a, idx], exact=True)


def op_index_select(b, a):
    d = b.int_in(0, a.rank - 1)
    assume(a.shape[d] > 0)
    idx = b.new_input((b.int_in(1, 5),), torch.int64, low=0, high=a.shape[d])
    return b.emit("index_select", f"{a.name}.index_select({d}, {idx.name})", [a, idx],
                  exact=True)


def op_cross_entropy(b, a):
    n, c = a.shape
    assume(n > 0 and c > 0)
    t = b.new_input((n,), torch.int64, low=0, high=c)
    red = b.pick(["mean", "sum", "none"])
    return b.emit("cross_entropy", f"F.cross_entropy({a.name}, {t.name}, reduction='{red}')",
                  [a, t], extra_depth=2 + math.sqrt(c) / 4)


# ---- dtype conversions --------------------------------------------------------

def op_convert(b, a):
    if a.dtype in FLOATS:
        target = b.pick([torch.float64 if a.dtype == torch.float32 else torch.float32,
                         torch.int64, torch.bool, torch.float16, torch.bfloat16])
    elif a.dtype in HALFS:
        target = b.pick([torch.float32, torch.float64])
    else:
        target = b.pick([torch.float32, torch.float64, torch.int64, torch.bool])
    if a.dtype in FLOATS + HALFS and target == torch.int64:
        frac = (a.t.detach().double() - a.t.detach().double().trunc()).abs()
        assume(a.exact or bool(((frac >= 1e-3) & (frac <= 1 - 1e-3) | (frac == 0)).all()))
    if a.dtype in FLOATS + HALFS and target == torch.bool:
        assume(b.clear_of(a, [0.0]))
    form = b.pick([f".to({DTYPE_SRC[target]})", {torch.float32: ".float()",
                   torch.float64: ".double()", torch.int64: ".long()", torch.bool: ".bool()",
                   torch.float16: ".half()", torch.bfloat16: ".bfloat16()"}[target]])
    widening = target == torch.float64 or a.dtype in (torch.int64, torch.bool)
    # A conversion to a's own dtype returns a itself: no storage of its own
    # (as_strided on it addresses a's storage, which a copy to the lazy
    # device does not keep when a is a view).
    same = target == a.dtype
    return b.emit("convert", f"{a.name}{form}", [a], exact=widening,
                  fresh=a.fresh if same else True, view_of=a.view_of if same else None)


# ---- in-place writes through views --------------------------------------------

def op_inplace(b, a):
    """Clone, then write into a view of the clone; the result is the clone."""
    if b.backward and not a.fresh and a not in b.inputs:  # a is a view
        assume(b.cfg.allows("view_inplace_detach"))
    out = f"v{len(b.vals)}"
    lines, ops = [f"{out} = {a.name}.clone()"], [a]
    form = b.pick(["slice", "select", "whole", "transposed", "flat"])
    if form == "whole":
        lines.append(out + b.pick([".zero_()", ".fill_(1.5)", ".mul_(2.0)", ".add_(1)"]))
    elif form == "transposed":
        assume(a.rank >= 2)
        lines.append(f"{out}.transpose(0, {a.rank - 1}).add_({scalar(b, a)})")
    elif form == "flat":
        lines.append(f"{out}.view(-1)[1::2].mul_({scalar(b, a)})")
    else:
        assume(a.rank >= 1)
        d = b.int_in(0, a.rank - 1)
        size = a.shape[d]
        if form == "select":
            assume(size > 0)
            i = b.int_in(-size, size - 1)
            if i in (0, -size):
                assume(b.cfg.allows("select_write_row0"))
            idx = f"[{':, ' * d}{i}]"
        else:
            idx = f"[{':, ' * d}{b.pick(['1:', ':2', '::2', '-1:'])}]"
        view_shape = tuple(eval("_" + idx, {"_": a.t.detach()}).shape)
        what = b.pick(["mul_", "add_", "zero_", "fill_", "assign"])
        if what in ("mul_", "add_") and b.flag():
            p = b.new_input(derived_shape(b, view_shape), a.dtype)
            lines.append(f"{out}{idx}.{what}({p.name})")
            ops.append(p)
        elif what in ("mul_", "add_", "fill_"):
            lines.append(f"{out}{idx}.{what}({scalar(b, a)})")
        elif what == "zero_":
            lines.append(f"{out}{idx}.zero_()")
        else:
            lines.append(f"{out}{idx} = {scalar(b, a)}")
    v = b.emit("inplace", None, ops, pre=lines)
    v.mutated = True
    return v


def op_inplace_view_detach(b, a):
    """In-place op on a view, then the detached view (known bug)."""
    assume(b.cfg.allows("view_inplace_detach") and a.rank >= 1)
    out = f"v{len(b.vals)}"
    lines = [f"{out} = {a.name}.clone()[1:]", f"{out}.mul_(2.0)", f"{out} = {out}.detach()"]
    return b.emit("inplace_view_detach", None, [a], pre=lines)


# ---- the table --------------------------------------------------------------

def _rank(lo, hi=99, pred=is_float):
    return lambda b, a: pred(a) and lo <= a.rank <= hi


def _any(b, a):
    return True


OPS = [
    ("unary", lambda b, a: is_float(a), op_unary),
    ("scalar_arith", lambda b, a: is_numeric(a) or a.dtype in HALFS, op_scalar_arith),
    ("binary", lambda b, a: a.dtype != torch.bool, op_binary),
    ("div", lambda b, a: is_numeric(a), op_div),
    ("sgn", lambda b, a: is_numeric(a), op_sgn),
    ("clamp", lambda b, a: is_numeric(a), op_clamp),
    ("max_min", lambda b, a: is_float(a), op_max_min),
    ("pow_tensor", lambda b, a: is_float(a), op_pow_tensor),
    ("addcmul", lambda b, a: is_float(a), op_addcmul),
    ("compare", lambda b, a: is_numeric(a), op_compare),
    ("mask", lambda b, a: is_float(a), op_mask),
    ("where", lambda b, a: is_float(a), op_where),
    ("reduce", _any, op_reduce),
    ("mm", _rank(2, 2), op_mm),
    ("addmm", _rank(2, 2), op_addmm),
    ("bmm", _rank(3, 3), op_bmm),
    ("linear", _rank(1), op_linear),
    ("matmul", _rank(1, 3), op_matmul),
    ("transpose", lambda b, a: a.rank >= 1, op_transpose),
    ("permute", lambda b, a: a.rank >= 2, op_permute),
    ("reshape", _any, op_reshape),
    ("unsqueeze", _any, op_unsqueeze),
    ("squeeze", lambda b, a: a.rank >= 1, op_squeeze),
    ("slice", lambda b, a: a.rank >= 1, op_slice),
    ("select", lambda b, a: a.rank >= 1, op_select),
    ("narrow", lambda b, a: a.rank >= 1, op_narrow),
    ("expand", _any, op_expand),
    ("as_strided", lambda b, a: a.fresh or (a.view_of is not None and b.cfg.allows("as_strided_on_view")),
     op_as_strided),
    ("copy", _any, op_copy),
    ("cat", lambda b, a: a.rank >= 1, op_cat),
    ("softmax", _rank(0), op_softmax),
    ("layer_norm", _rank(1), op_layer_norm),
    ("embedding", _rank(2, 2), op_embedding),
    ("index_select", lambda b, a: a.rank >= 1 and a.dtype != torch.bool, op_index_select),
    ("cross_entropy", _rank(2, 2), op_cross_entropy),
    ("convert", lambda b, a: True, op_convert),
    ("inplace", lambda b, a: a.dtype != torch.bool, op_inplace),
    ("split_chunk_unbind", lambda b, a: b.cfg.allows("split_chunk_unbind") and a.rank >= 1, op_split),
    ("inplace_view_detach", lambda b, a: b.cfg.allows("view_inplace_detach") and a.rank >= 1
     and is_float(a),
     op_inplace_view_detach),
]
