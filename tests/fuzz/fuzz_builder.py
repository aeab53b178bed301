"""Builds one random program (inputs + a chain of ops) while running it on
eager CPU, so that every step is known to be valid and its real values can
steer the choices: a comparison, a sign or a relu gradient is only generated
where no element sits within rounding distance of the threshold (otherwise
an ulp of legitimate difference would flip a bool), layer_norm only over
rows that are not nearly constant, and nothing overflows.

The program is rendered as Python source (Program.source): make_inputs(),
GRAD_INPUTS, TOLERANCES, GRAD_TOLERANCE, fn(). The same text is what the
worker runs and what a failure prints as its reproducer.
"""
import math

import torch
import torch.nn.functional as F
from hypothesis import assume
from hypothesis import strategies as st

from fuzz_known import KNOWN_BUGS

EPS = {torch.float32: 2.0 ** -23, torch.float64: 2.0 ** -52,
       torch.float16: 2.0 ** -10, torch.bfloat16: 2.0 ** -7}
FLOATS = (torch.float32, torch.float64)
HALFS = (torch.float16, torch.bfloat16)
DTYPE_SRC = {torch.float32: "torch.float32", torch.float64: "torch.float64",
             torch.int64: "torch.int64", torch.bool: "torch.bool",
             torch.float16: "torch.float16", torch.bfloat16: "torch.bfloat16"}
# Tolerance per op on a value's path, in units of its dtype's epsilon.
TOL_ULPS = 32
MAX_ABS = 1e4


class Config:
    def __init__(self, max_ops=6, max_numel=2048, zero_size=True, known=False):
        self.max_ops = max_ops
        self.max_numel = max_numel
        self.zero_size = zero_size
        self.known = known

    def allows(self, bug):
        """Whether to generate the construct of `bug`: always once it is no
        longer in KNOWN_BUGS (fixed), else only with LTC_MLIR_FUZZ_KNOWN=1."""
        return bug not in KNOWN_BUGS or self.known


class Val:
    """One tensor of the program. `t` is its eager value; `exact` means
    the lazy value must be bitwise equal (inputs, data movement, integer and
    bool results); `eps`/`depth`/`scale` give its tolerance; `fresh` means
    it owns a contiguous storage of its own (as_strided is defined on it)."""

    def __init__(self, name, t, exact, eps, depth, scale, fresh, view_of=None):
        self.name, self.t, self.exact = name, t, exact
        self.eps, self.depth, self.scale, self.fresh = eps, depth, scale, fresh
        self.view_of = view_of
        self.mutated = False  # written in place (or a view of such a tensor)

    @property
    def shape(self):
        return tuple(self.t.shape)

    @property
    def dtype(self):
        return self.t.dtype

    @property
    def rank(self):
        return self.t.dim()

    @property
    def numel(self):
        return self.t.numel()

    @property
    def is_float(self):
        return self.t.dtype in FLOATS

    def tolerance(self):
        rtol = TOL_ULPS * self.eps * (self.depth + 1)
        return rtol, rtol * max(1.0, self.scale)


def amax(t):
    """max |t| (1 for a non-empty bool tensor, 0 for an empty one)."""
    if t.numel() == 0:
        return 0.0
    if t.dtype == torch.bool:
        return 1.0
    return float(t.detach().abs().max())


class Builder:
    def __init__(self, draw, cfg):
        self.draw, self.cfg = draw, cfg
        self.seed = draw(st.integers(0, 1000))
        self.backward = draw(st.booleans())
        self.ns = {"torch": torch, "F": F, "g": torch.Generator().manual_seed(self.seed)}
        self.input_lines, self.inputs, self.grad_inputs = [], [], []
        self.body, self.vals, self.tags, self.layouts = [], [], set(), set()

    # ---- drawing helpers -------------------------------------------------
    def pick(self, options):
        """One of `options`; shrinks towards the first."""
        return self.draw(st.sampled_from(list(options)))

    def flag(self):
        return self.draw(st.booleans())

    def int_in(self, lo, hi):
        return self.draw(st.integers(lo, hi))

    def dim_size(self):
        sizes = [3, 1, 4, 2, 5, 7, 8, 16, 17]
        if self.cfg.zero_size:
            sizes.append(0)
        return self.pick(sizes)

    def shape(self, rank=None):
        if rank is None:
            rank = self.pick([2, 1, 3, 0, 4])
        for _ in range(4):
            s = tuple(self.dim_size() for _ in range(rank))
            if math.prod(s) <= self.cfg.max_numel:
                return s
        return tuple(min(d, 2) for d in s)

    def input_dtype(self):
        return self.pick([torch.float32, torch.float32, torch.float64, torch.int64, torch.bool])

    # ---- inputs ------------------------------------------------------------
    def new_input(self, shape=None, dtype=None, layout=None, low=None, high=None):
        """A new input of fn: random values, and a layout (transposed,
        sliced, expanded, ...) that is moved to the lazy device as is."""
        shape = self.shape() if shape is None else tuple(shape)
        dtype = self.input_dtype() if dtype is None else dtype
        rank = len(shape)
        if layout is None:
            layouts = ["contiguous"]
            if rank >= 2:
                layouts.append("transposed")
            if rank >= 1:
                layouts += ["sliced", "offset"]
            if any(d > 1 for d in shape):
                layouts.append("expanded")
            if rank >= 3:
                layouts.append("permuted")
            layout = self.pick(layouts)
        self.layouts.add(layout)
        base, suffix = list(shape), ""
        if layout == "transposed":
            base[-1], base[-2] = base[-2], base[-1]
            suffix = ".transpose(-1, -2)"
        elif layout == "permuted":
            perm = self.draw(st.permutations(range(rank)))
            inv = [perm.index(i) for i in range(rank)]
            base = [shape[inv[i]] for i in range(rank)]
            suffix = f".permute({tuple(perm)})"
        elif layout == "sliced":
            d = self.int_in(0, rank - 1)
            base[d] = 2 * shape[d]
            suffix = "[" + ":, " * d + "::2]"
        elif layout == "offset":
            base[0] = shape[0] + 1
            suffix = "[1:]"
        elif layout == "expanded":
            d = self.pick([i for i, s in enumerate(shape) if s > 1])
            base[d] = 1
            suffix = f".expand({tuple(shape)})"
        base = tuple(base)
        if dtype in (torch.float32, torch.float64) + HALFS:
            expr = f"torch.randn({base}, generator=g, dtype={DTYPE_SRC[dtype]})"
            if dtype in HALFS:
                expr = f"torch.randn({base}, generator=g).to({DTYPE_SRC[dtype]})"
        elif dtype == torch.int64:
            lo = -4 if low is None else low
            hi = 5 if high is None else high
            expr = f"torch.randint({lo}, {hi}, {base}, generator=g)"
        else:
            expr = f"(torch.rand({base}, generator=g) > 0.5)"
        name = f"x{len(self.inputs)}"
        line = f"{name} = {expr}{suffix}"
        exec(line, self.ns)
        t = self.ns[name]
        assert tuple(t.shape) == shape, (line, t.shape)
        if self.backward and dtype in FLOATS:
            t = self.ns[name] = t.detach().requires_grad_(True)
            self.grad_inputs.append(len(self.inputs))
        self.input_lines.append(line)
        v = Val(name, t, exact=True, eps=EPS.get(dtype, 0.0), depth=0, scale=amax(t),
                fresh=False)
        self.inputs.append(v)
        return v

    # ---- emitting ops ------------------------------------------------------
    def emit(self, tag, expr, operands, exact=False, fresh=True, extra_depth=0.0,
             extra_scale=0.0, pre=(), view_of=None):
        """Appends the lines `pre` and `v<n> = expr` (expr None: `pre`
        defines v<n>), runs them, and returns the new Val. Rejects the example
        if eager raises or the result is unfit (too big, not finite)."""
        name = f"v{len(self.vals)}"
        lines = list(pre) + ([f"{name} = {expr}"] if expr is not None else [])
        try:
            for line in lines:
                exec(line, self.ns)
        except (RuntimeError, IndexError, ValueError, TypeError):
            assume(False)
        t = self.ns[name]
        assume(isinstance(t, torch.Tensor) and t.numel() <= self.cfg.max_numel)
        if t.is_floating_point() and t.numel():
            td = t.detach().float()
            assume(bool(torch.isfinite(td).all()) and float(td.abs().max()) <= MAX_ABS)
        eps = max([o.eps for o in operands] + [EPS.get(t.dtype, 0.0)])
        depth = max([o.depth for o in operands], default=0) + 1 + extra_depth
        scale = max([o.scale for o in operands] + [amax(t), extra_scale])
        exact = exact and all(o.exact for o in operands)
        if not t.is_floating_point():
            exact = True
        v = Val(name, t, exact, eps, depth, scale, fresh, view_of)
        self.body.extend(lines)
        self.vals.append(v)
        self.tags.add(tag)
        return v

    # ---- value-based guards ---------------------------------------------
    def clear_of(self, a, thresholds, b=None):
        """No element of a (or of a - b) lies within rounding distance of a
        threshold, unless it is exactly on it and both sides are exact."""
        x = a.t.detach()
        exact = a.exact and (b is None or b.exact)
        scale = max(a.scale, b.scale if b is not None else 0.0)
        if b is not None:
            x = x.double() - b.t.detach().double()
        x = x.double()
        margin = 1e-3 * max(1.0, scale)
        for thr in thresholds:
            d = (x - thr).abs()
            ok = (d >= margin) | ((d == 0) & exact)
            if not bool(ok.all()):
                return False
        return True

    # ---- rendering -------------------------------------------------------
    def outputs(self):
        """The last value, plus a few earlier ones. (The harness detaches
        every output: a view of a tensor written in place hits a known bug.)"""
        def ok(v):
            return not (v.mutated and not v.fresh) or self.cfg.allows("view_inplace_detach")
        assume(ok(self.vals[-1]))
        outs = [self.vals[-1]]
        for v in reversed(self.vals[:-1]):
            if self.draw(st.integers(0, 3)) == 3 and ok(v):
                outs.append(v)
        return outs

    def features(self):
        """Tags for what the program's tensors are like (besides its ops):
        they tell a long run's rounds one bug from another."""
        f = {"backward"} if self.grad_inputs else set()
        for v in self.inputs + self.vals:
            f.add("dtype_" + str(v.dtype).replace("torch.", ""))
            if 0 in v.shape:
                f.add("zero_size")
        f.update("layout_" + l for l in self.layouts)
        return f

    def program(self):
        features = self.features()
        if {"zero_size", "backward"} <= features:
            assume(self.cfg.allows("zero_size_backward"))
        outs = self.outputs()
        tols = [o.tolerance() for o in outs]
        grad_rtol = 2 * max([r for r, _ in tols] + [TOL_ULPS * EPS[torch.float32]])
        grad_atol = 2 * max([a for _, a in tols] + [grad_rtol])
        src = ["def make_inputs():",
               f"    g = torch.Generator().manual_seed({self.seed})"]
        src += ["    " + l for l in self.input_lines]
        src += [f"    return [{', '.join(v.name for v in self.inputs)}]", ""]
        src += [f"GRAD_INPUTS = {self.grad_inputs}",
                f"TOLERANCES = [{', '.join(f'({r:.3g}, {a:.3g})' for r, a in tols)}]",
                f"GRAD_TOLERANCE = ({grad_rtol:.3g}, {grad_atol:.3g})", ""]
        src += [f"def fn({', '.join(v.name for v in self.inputs)}):"]
        src += ["    " + l for l in self.body]
        src += [f"    return [{', '.join(o.name for o in outs)}]", ""]
        return Program("\n".join(src) + "\n", sorted(self.tags), bool(self.grad_inputs),
                       sorted(features))


class Program:
    def __init__(self, source, tags, backward, features=()):
        self.source, self.tags, self.backward = source, tags, backward
        self.features = list(features)

    def __repr__(self):  # the full program is in the reproducer printed below
        return f"Program(ops={self.tags}, backward={self.backward})"
