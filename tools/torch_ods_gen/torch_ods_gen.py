#!/usr/bin/env python3
"""Writes the torch dialect's ATen op definitions (ODS) from torch's registry.

Run with the interpreter that has torch 2.14 (the output depends on it):

    .venv/bin/python tools/torch_ods_gen/torch_ods_gen.py          # rewrite
    .venv/bin/python tools/torch_ods_gen/torch_ods_gen.py --check  # diff only

Every schema of `torch._C._jit_get_all_schemas()` in the `aten` namespace
becomes one op, unless a rule below skips it (the skip counts are printed):

- mutating schemas (an argument or a result annotated `(a!)`: `add_`, the
  `out=` variants, `resize_`): LTC graphs are functional, a mutated operand
  has no meaning on value tensors;
- schemas without any Tensor argument or result (TorchScript's own int, str,
  list and dict builtins that live in `aten`): never in a lazy graph;
- schemas without results (side effects only, e.g. `_assert_async`);
- named-tensor overloads (overload names with `names`/`Dimname`): LTC has no
  named tensors;
- schemas with a type the dialect cannot hold (complex, Dict, Storage,
  QScheme, type variables `t`, TorchBind classes, tuples).

Naming: `aten::<name>.<overload>` is `torch.aten.<name>.<overload>`, C++
class `Aten<Name><Overload>Op` with each `_`-separated part capitalized and
the underscores dropped (`_log_softmax` -> AtenLogSoftmaxOp,
`sum.dim_IntList` -> AtenSumDimIntListOp). When several schemas camel-case
to one class, the one without a leading underscore keeps it and the others
keep their leading underscores (`_convolution` -> Aten_ConvolutionOp); the
collisions are listed in EXPECTED_CLASS_COLLISIONS so a new torch that adds
or removes one fails here instead of silently renaming an op.

Operands are named as the schema's arguments; results as the schema's
returns; unnamed ones are `result` (one) or `result<i>` (several); a name that
is a C++ keyword or an ODS/Operation member gets a trailing `_`, a result
named like an operand the suffix `_result`. Ops tagged
`nondeterministic_seeded` (dropout, rand, bernoulli) are not `Pure`, so CSE
never merges two random draws.

Per-op extras (verifiers, folders, elementwise broadcasting, summaries)
come from op_table.py; ops without an entry get a verifier-free definition.
"""

import argparse
import difflib
import glob
import os
import re
import sys
import textwrap
import zlib
from collections import Counter, defaultdict

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from op_table import OPS, OpSpec  # noqa: E402

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
OUTPUT_DIR = os.path.join(ROOT, "mlir_lowering", "include", "ltc_mlir",
                          "Dialect", "Torch", "IR")
# The ops without an op_table.py entry are split over this many files, each
# compiled in its own translation unit (mlir_lowering/CMakeLists.txt builds
# one per GeneratedTorchOpsShard<i>.td it finds).
NUM_SHARDS = 8

# Schema type -> (constraint, constraint when optional). ScalarType, Layout
# and MemoryFormat are ints in TorchScript (and in LTC's graphs).
SCALAR_TYPES = {
    "Tensor": ("Torch_VTensor", "Torch_OptionalVTensor"),
    "int": ("Torch_Int", "Torch_OptionalInt"),
    "SymInt": ("Torch_Int", "Torch_OptionalInt"),
    "ScalarType": ("Torch_Int", "Torch_OptionalInt"),
    "Layout": ("Torch_Int", "Torch_OptionalInt"),
    "MemoryFormat": ("Torch_Int", "Torch_OptionalInt"),
    "float": ("Torch_Float", "Torch_OptionalFloat"),
    "bool": ("Torch_Bool", "Torch_OptionalBool"),
    "str": ("Torch_Str", "Torch_OptionalStr"),
    "Scalar": ("Torch_Scalar", "Torch_OptionalScalar"),
    "Device": ("Torch_Device", "Torch_OptionalDevice"),
    "Generator": ("Torch_Generator", "Torch_OptionalGenerator"),
}
LIST_TYPES = ("Torch_List", "Torch_OptionalList")

CXX_KEYWORDS = {
    "alignas", "alignof", "and", "and_eq", "asm", "auto", "bitand", "bitor",
    "bool", "break", "case", "catch", "char", "class", "compl", "const",
    "constexpr", "const_cast", "continue", "decltype", "default", "delete",
    "do", "double", "dynamic_cast", "else", "enum", "explicit", "export",
    "extern", "false", "float", "for", "friend", "goto", "if", "inline", "int",
    "long", "mutable", "namespace", "new", "noexcept", "not", "not_eq",
    "nullptr", "operator", "or", "or_eq", "private", "protected", "public",
    "register", "reinterpret_cast", "return", "short", "signed", "sizeof",
    "static", "static_assert", "static_cast", "struct", "switch", "template",
    "this", "thread_local", "throw", "true", "try", "typedef", "typeid",
    "typename", "union", "unsigned", "using", "virtual", "void", "volatile",
    "wchar_t", "while", "xor", "xor_eq",
}
# Names whose ODS getter would hide a member of mlir::Op/Operation, or that
# ODS uses for the parameters of the builders it generates.
ODS_RESERVED = {
    "type", "operation", "operands", "results", "loc", "context", "attributes",
    "properties", "odsBuilder", "odsState", "resultTypes", "attrs", "state",
    "builder", "name", "region", "regions", "successors", "body",
}

# Class names several schemas map to in torch 2.14, with the schema keeping
# the plain name first. See the module docstring for the rule.
EXPECTED_CLASS_COLLISIONS = {
    "AtenAdaptiveAvgPool2dOp": ["adaptive_avg_pool2d", "_adaptive_avg_pool2d"],
    "AtenAdaptiveAvgPool3dOp": ["adaptive_avg_pool3d", "_adaptive_avg_pool3d"],
    "AtenAminmaxOp": ["aminmax", "_aminmax"],
    "AtenCoalesceOp": ["coalesce", "_coalesce"],
    "AtenConjOp": ["conj", "_conj"],
    "AtenConjPhysicalOp": ["conj_physical", "_conj_physical"],
    "AtenConvolutionOp": ["convolution", "_convolution"],
    "AtenCtcLossTensorOp": ["ctc_loss.Tensor", "_ctc_loss.Tensor"],
    "AtenEmbeddingBagOp": ["embedding_bag", "_embedding_bag"],
    "AtenIndicesCopyOp": ["indices_copy", "_indices_copy"],
    "AtenIndicesOp": ["indices", "_indices"],
    "AtenLinalgDetOp": ["linalg_det", "_linalg_det"],
    "AtenLinalgEighOp": ["linalg_eigh", "_linalg_eigh"],
    "AtenLinalgEigvalsOp": ["linalg_eigvals", "_linalg_eigvals"],
    "AtenLinalgSlogdetOp": ["linalg_slogdet", "_linalg_slogdet"],
    "AtenLinalgSolveExOp": ["linalg_solve_ex", "_linalg_solve_ex"],
    "AtenLinalgSvdOp": ["linalg_svd", "_linalg_svd"],
    "AtenLogcumsumexpOp": ["logcumsumexp", "_logcumsumexp"],
    "AtenPinMemoryOp": ["pin_memory", "_pin_memory"],
    "AtenStackOp": ["stack", "_stack"],
    "AtenToDenseOp": ["to_dense", "_to_dense"],
    "AtenToSparseOp": ["to_sparse", "_to_sparse"],
    "AtenToSparseSparseDimOp": ["to_sparse.sparse_dim", "_to_sparse.sparse_dim"],
    "AtenToSparseBscOp": ["to_sparse_bsc", "_to_sparse_bsc"],
    "AtenToSparseBsrOp": ["to_sparse_bsr", "_to_sparse_bsr"],
    "AtenToSparseCscOp": ["to_sparse_csc", "_to_sparse_csc"],
    "AtenToSparseCsrOp": ["to_sparse_csr", "_to_sparse_csr"],
    "AtenValuesCopyOp": ["values_copy", "_values_copy"],
    "AtenValuesOp": ["values", "_values"],
}


class SkippedSchema(Exception):
    """Raised with the reason a schema gets no op."""


# ---------------------------------------------------------------------------
# Schema text
# ---------------------------------------------------------------------------

def split_top_level(text, sep=","):
    """Splits at `sep` outside (), [] and string literals."""
    parts, depth, quote, escaped, start = [], 0, None, False, 0
    for i, c in enumerate(text):
        if quote:
            if escaped:
                escaped = False
            elif c == "\\":
                escaped = True
            elif c == quote:
                quote = None
        elif c in "\"'":
            quote = c
        elif c in "([":
            depth += 1
        elif c in ")]":
            depth -= 1
        elif c == sep and depth == 0:
            parts.append(text[start:i].strip())
            start = i + 1
    if text[start:].strip():
        parts.append(text[start:].strip())
    return parts


def matching_paren(text, open_index):
    depth = 0
    for i in range(open_index, len(text)):
        depth += {"(": 1, ")": -1}.get(text[i], 0)
        if depth == 0:
            return i
    raise ValueError("unbalanced parentheses: " + text)


def declared_types(schema):
    """The declared type text of each argument and return, in order.

    The Python binding reports ScalarType, Layout and MemoryFormat as `int`;
    the printed schema keeps them."""
    text = str(schema)
    open_paren = text.index("(")
    close_paren = matching_paren(text, open_paren)
    args = [a for a in split_top_level(text[open_paren + 1:close_paren]) if a != "*"]
    if "..." in args:
        raise SkippedSchema("varargs")
    returns = text[close_paren + 1:].strip()
    assert returns.startswith("->"), text
    returns = returns[2:].strip()
    if returns.startswith("(") and matching_paren(returns, 0) == len(returns) - 1:
        rets = split_top_level(returns[1:-1])
    else:
        rets = [returns]

    def type_of(decl):  # "int[2] stride=[1, 1]" -> "int[2]"
        return split_top_level(split_top_level(decl, "=")[0], " ")[0]

    arg_types = [type_of(a) for a in args]
    ret_types = [type_of(r) for r in rets]
    assert len(arg_types) == len(schema.arguments), text
    assert len(ret_types) == len(schema.returns), text
    return arg_types, ret_types


def constraint(type_text):
    """The ODS type constraint of a declared schema type."""
    m = re.match(r"[A-Za-z_][\w.]*", type_text)
    if not m:
        raise SkippedSchema("type " + type_text)
    base, rest = m.group(0), type_text[m.end():]
    if rest.startswith("("):  # alias annotation, e.g. Tensor(a)
        rest = rest[rest.index(")") + 1:]
    suffixes = re.findall(r"\[\d*\]|\?", rest)
    if "".join(suffixes) != rest or base not in SCALAR_TYPES:
        raise SkippedSchema("type " + type_text)
    optional = bool(suffixes) and suffixes[-1] == "?"
    if any(s.startswith("[") for s in suffixes):
        return LIST_TYPES[optional]
    return SCALAR_TYPES[base][optional]


# ---------------------------------------------------------------------------
# Names
# ---------------------------------------------------------------------------

def camel(name):
    return "".join(part[:1].upper() + part[1:] for part in name.split("_"))


def op_key(schema):
    """`name.overload` (or `name`) without the namespace."""
    name = schema.name.split("::", 1)[1]
    return name + ("." + schema.overload_name if schema.overload_name else "")


def plain_class_name(schema):
    name = schema.name.split("::", 1)[1]
    return "Aten" + camel(name) + camel(schema.overload_name) + "Op"


def assign_class_names(schemas):
    """op key -> C++ class name, resolving collisions (module docstring)."""
    groups = defaultdict(list)
    for s in schemas:
        groups[plain_class_name(s)].append(s)
    names, collisions = {}, {}
    for cls, members in groups.items():
        if len(members) == 1:
            names[op_key(members[0])] = cls
            continue
        # The schema without leading underscores first, then by name.
        members.sort(key=lambda s: (op_key(s).startswith("_"), op_key(s)))
        collisions[cls] = [op_key(s) for s in members]
        names[op_key(members[0])] = cls
        for s in members[1:]:
            name = s.name.split("::", 1)[1]
            underscores = name[:len(name) - len(name.lstrip("_"))]
            if not underscores:
                raise SystemExit("no rule for the class name collision %s: %s"
                                 % (cls, collisions[cls]))
            names[op_key(s)] = "Aten" + underscores + cls[len("Aten"):]
    if collisions != EXPECTED_CLASS_COLLISIONS:
        raise SystemExit(
            "class name collisions changed; check and update "
            "EXPECTED_CLASS_COLLISIONS:\n  now: %r" % collisions)
    if len(set(names.values())) != len(names):
        dup = [n for n, c in Counter(names.values()).items() if c > 1]
        raise SystemExit("unresolved class name collisions: %r" % dup)
    return names


def value_name(name):
    if name in CXX_KEYWORDS or name in ODS_RESERVED:
        return name + "_"
    return name


# ---------------------------------------------------------------------------
# Ops
# ---------------------------------------------------------------------------

class Op:
    def __init__(self, schema, spec, seeded):
        self.schema = schema
        self.key = op_key(schema)
        self.class_name = None  # set by assign_class_names
        self.spec = spec
        arg_types, ret_types = declared_types(schema)
        self.operands = [(constraint(t), value_name(a.name))
                         for t, a in zip(arg_types, schema.arguments)]
        result_names = list(spec.results) if spec.results else [
            r.name for r in schema.returns]
        if len(result_names) != len(schema.returns):
            raise SystemExit("op_table.py: %s has %d results, not %d" % (
                self.key, len(schema.returns), len(result_names)))
        if len(result_names) == 1:
            result_names = [result_names[0] or "result"]
        else:
            result_names = [n or "result%d" % i for i, n in enumerate(result_names)]
        operand_names = {n for _, n in self.operands}
        self.results = []
        for t, name in zip(ret_types, result_names):
            name = value_name(name)
            if name in operand_names:
                name += "_result"
            self.results.append((constraint(t), name))
        getters = [camel(n).lower() for _, n in self.operands + self.results]
        if len(set(getters)) != len(getters):
            raise SystemExit("%s: two operands/results share a getter name"
                             % self.key)
        self.traits = ([] if seeded else ["Pure"]) + list(spec.traits)

    def ods(self):
        spec = self.spec
        lines = ["// %s" % self.schema]
        traits = ", ".join(self.traits)
        lines.append('def Torch_%s : %s<"%s", [%s]> {' % (
            self.class_name, spec.base, self.key, traits))
        summary = spec.summary or "`aten::%s`" % self.key
        lines.append('  let summary = "%s";' % summary.replace('"', '\\"'))
        if spec.description:
            lines.append("  let description = [{")
            lines.extend(("    " + l).rstrip() for l in
                         spec.description.strip("\n").split("\n"))
            lines.append("  }];")
        lines.append(wrap("  let arguments = (ins ",
                          ["%s:$%s" % o for o in self.operands], ");"))
        lines.append(wrap("  let results = (outs ",
                          ["%s:$%s" % r for r in self.results], ");"))
        for flag, field in (("verifier", "hasVerifier"),
                            ("folder", "hasFolder"),
                            ("canonicalizer", "hasCanonicalizer")):
            if getattr(spec, flag):
                lines.append("  let %s = 1;" % field)
        lines.append("}")
        return "\n".join(lines)


def wrap(head, items, tail, width=80):
    """`head item, item, ...tail`, continued lines aligned after `head`."""
    lines, line = [], head
    for i, item in enumerate(items):
        piece = item + ("," if i + 1 < len(items) else "")
        if line != head and len(line) + 1 + len(piece) + len(tail) > width:
            lines.append(line.rstrip())
            line = " " * len(head)
        line += piece + " "
    return "\n".join(lines + [line.rstrip() + tail])


def is_mutating(schema):
    return any(v.alias_info is not None and v.alias_info.is_write
               for v in list(schema.arguments) + list(schema.returns))


def mentions_tensor(schema):
    return any("Tensor" in str(v.type)
               for v in list(schema.arguments) + list(schema.returns))


def is_seeded(schema):
    packet = getattr(torch.ops.aten, schema.name.split("::", 1)[1])
    overload = getattr(packet, schema.overload_name or "default")
    return torch.Tag.nondeterministic_seeded in overload.tags


def select(schemas, skipped):
    """The schemas that become ops; counts the others in `skipped`."""
    kept = []
    for s in schemas:
        if not s.name.startswith("aten::"):
            continue
        if is_mutating(s):
            skipped["mutating (inplace or out=)"] += 1
        elif not mentions_tensor(s):
            skipped["no Tensor argument or result"] += 1
        elif not s.returns:
            skipped["no results"] += 1
        elif re.search("names|dimname", s.overload_name, re.IGNORECASE):
            skipped["named-tensor overload"] += 1
        else:
            kept.append(s)
    return kept


def check_hand_written_ops():
    """ATen ops defined by hand would clash with the generated ones (two
    C++ classes, two registrations): they belong in op_table.py."""
    hand_written = os.path.join(OUTPUT_DIR, "TorchOps.td")
    defs = re.findall(r"^def (Torch_Aten\w+)", open(hand_written).read(), re.M)
    if defs:
        raise SystemExit(
            "%s defines ATen ops by hand: %s. Give each an entry in "
            "tools/torch_ods_gen/op_table.py (summary, verifier, results...) "
            "instead and rerun the generator." % (hand_written, ", ".join(defs)))


def build_ops():
    """(ops sorted by key, Counter of skip reasons)."""
    check_hand_written_ops()
    skipped = Counter()
    schemas = select(torch._C._jit_get_all_schemas(), skipped)
    ops = []
    for s in sorted(schemas, key=op_key):
        key = op_key(s)
        try:
            ops.append(Op(s, OPS.get(key, OpSpec()), is_seeded(s)))
        except SkippedSchema as e:
            skipped[str(e).split(" ", 1)[0]] += 1
    class_names = assign_class_names([op.schema for op in ops])
    for op in ops:
        op.class_name = class_names[op.key]
    unknown = set(OPS) - {op.key for op in ops}
    if unknown:
        raise SystemExit("op_table.py names ops that are not generated: %s"
                         % sorted(unknown))
    return ops, skipped


def shard_of(op):
    """Stable across torch versions and op_table edits: adding or removing
    an op changes one shard only."""
    return zlib.crc32(op.key.encode()) % NUM_SHARDS


def td_file(file_name, guard, purpose, ops):
    lines = [
        ("//===- %s - ATen ops of the torch dialect " % file_name).ljust(
            66, "-") + "*- tablegen -*-===//",
        "//",
        "// GENERATED by tools/torch_ods_gen/torch_ods_gen.py from the operator",
        "// registry of torch %s and tools/torch_ods_gen/op_table.py." % torch.__version__,
        "// DO NOT EDIT: change those and rerun the generator.",
        "//",
    ] + ["// " + l if l else "//" for l in purpose] + [
        "//",
        "//===----------------------------------------------------------------------===//",
        "#ifndef " + guard,
        "#define " + guard,
        "",
        'include "ltc_mlir/Dialect/Torch/IR/TorchOpBase.td"',
    ]
    for op in ops:
        lines += ["", op.ods()]
    lines += ["", "#endif // " + guard, ""]
    return "\n".join(lines)


def generate():
    """{path: text} of every generated file."""
    ops, skipped = build_ops()
    core = [op for op in ops if op.key in OPS]
    tail = [op for op in ops if op.key not in OPS]
    def summary(count):
        return textwrap.wrap(
            "%d ops here, %d ATen ops in all; schemas without an op: %s." % (
                count, len(ops), ", ".join("%d %s" % (n, why) for why, n in
                                           sorted(skipped.items()))), 76)

    files = {}
    purpose = [
        "The ops listed in op_table.py: the ones verifiers, folders and",
        "TorchToLinalg patterns use. TorchOps.td includes this file, so their C++",
        "classes are declared in TorchOps.h.",
    ] + [""] + summary(len(core))
    files[os.path.join(OUTPUT_DIR, "GeneratedTorchOps.td")] = td_file(
        "GeneratedTorchOps.td", "LTC_MLIR_TORCH_GENERATED_OPS", purpose, core)
    for i in range(NUM_SHARDS):
        name = "GeneratedTorchOpsShard%d.td" % i
        shard = [op for op in tail if shard_of(op) == i]
        purpose = [
            "Shard %d of %d of the ops not in op_table.py: they parse, print and" % (
                i, NUM_SHARDS),
            "verify (operand and result types), and reach TorchToLinalg as",
            "unsupported ops. Their C++ classes are private to the shard's",
            "translation unit (TorchOpShard.cpp.in), which keeps TorchOps.h small;",
            "adding an op to op_table.py moves it to GeneratedTorchOps.td.",
        ] + [""] + summary(len(shard))
        files[os.path.join(OUTPUT_DIR, name)] = td_file(
            name, "LTC_MLIR_TORCH_GENERATED_OPS_SHARD%d" % i, purpose, shard)
    return files, ops, skipped


def stale_files(files):
    """Generated files that differ from `files` or should not exist."""
    stale = {}
    for path, text in files.items():
        current = open(path).read() if os.path.exists(path) else ""
        if current != text:
            stale[path] = current
    for path in glob.glob(os.path.join(OUTPUT_DIR, "GeneratedTorchOps*.td")):
        if path not in files:
            stale[path] = open(path).read()
    return stale


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--check", action="store_true",
                        help="only compare with the checked-in files")
    args = parser.parse_args()
    files, ops, skipped = generate()
    stale = stale_files(files)
    if args.check:
        for path, current in sorted(stale.items()):
            sys.stdout.writelines(difflib.unified_diff(
                current.splitlines(True), files.get(path, "").splitlines(True),
                path, "regenerated", n=1))
        if stale:
            print("\nstale generated files: rerun %s %s" % (
                sys.executable, os.path.relpath(__file__, ROOT)))
            return 1
        print("the %d generated files are up to date (%d ops)" % (
            len(files), len(ops)))
        return 0
    for path in stale:
        if path in files:
            with open(path, "w") as f:
                f.write(files[path])
        else:
            os.remove(path)
    print("%d ops (%d in op_table.py), %d files rewritten; schemas without "
          "an op: %s" % (len(ops), len(OPS), len(stale), dict(skipped)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
