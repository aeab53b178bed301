"""The torch dialect holds every op LTC can put in a graph.

Issue "Real models compile natively", item 1: the dialect comes from ATen's
registry, so an op without a lowering still parses and verifies and the
conversion names it, instead of the parser rejecting an unknown op.
"""
import os
import subprocess
import sys

import pytest
import torch
import torch.nn.functional as F

import ltc_mlir
from lazy_testing import LTC_MLIR_OPT, run_both

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "tools", "torch_ods_gen"))
from op_table import OPS  # noqa: E402

TENSOR = "!torch.vtensor<[2],f32>"


def torch_type(t):
    """A value type the schema type accepts (None for optionals)."""
    if isinstance(t, torch.OptionalType):
        return "!torch.none"
    if isinstance(t, torch.ListType):
        elem = t.getElementType()
        if isinstance(elem, (torch.TensorType, torch.OptionalType)):
            return "!torch.list<vtensor<[2],f32>>"
        return "!torch.list<int>"
    simple = {
        torch.TensorType: TENSOR, torch.IntType: "!torch.int",
        torch.FloatType: "!torch.float", torch.BoolType: "!torch.bool",
        torch.NumberType: "!torch.float", torch.StringType: "!torch.str",
        torch.DeviceObjType: "!torch.Device",
    }
    for cls, text in simple.items():
        if isinstance(t, cls):
            return text
    if str(t) == "SymInt":
        return "!torch.int"
    raise AssertionError("no torch-dialect value for schema type %s" % t)


def lazy_graph_schemas():
    """Non-mutating aten schemas with a Lazy kernel: the ops LTC records.
    (In-place ops are recorded as their functional variant.)"""
    ltc_mlir.init()
    has_kernel = torch._C._dispatch_has_kernel_for_dispatch_key
    found = []
    for s in torch._C._jit_get_all_schemas():
        if not s.name.startswith("aten::"):
            continue
        name = s.name + ("." + s.overload_name if s.overload_name else "")
        mutates = any(a.alias_info is not None and a.alias_info.is_write
                      for a in list(s.arguments) + list(s.returns))
        try:
            lazy = has_kernel(name, "Lazy")
        except RuntimeError:  # a TorchScript-only operator: no dispatcher entry
            lazy = False
        # Ops taking a Storage never become graph nodes: our Lazy kernel for
        # them raises (storage_ops.cpp: lazy tensors have no storage).
        takes_storage = any(str(a.type) == "Storage" for a in s.arguments)
        # Ops without results (_linalg_check_errors, whose Lazy kernel runs
        # it under functionalization) never become graph values either.
        if not mutates and lazy and not takes_storage and len(s.returns) > 0:
            found.append(s)
    return found


def test_every_lazy_kernel_op_parses_and_verifies(tmp_path):
    schemas = lazy_graph_schemas()
    assert len(schemas) > 150, len(schemas)  # 713 on torch 2.14 with our kernels
    funcs = []
    for i, s in enumerate(schemas):
        key = s.name[len("aten::"):] + ("." + s.overload_name if s.overload_name else "")
        if key in OPS:
            continue  # hand-written verifiers check shapes; lit tests cover them
        args = [torch_type(a.type) for a in s.arguments]
        results = [torch_type(r.type) for r in s.returns]
        params = ", ".join("%%a%d: %s" % (j, t) for j, t in enumerate(args))
        funcs.append(
            'func.func @f%d(%s) {\n  "torch.aten.%s"(%s) : (%s) -> (%s)\n  return\n}'
            % (i, params, key, ", ".join("%%a%d" % j for j in range(len(args))),
               ", ".join(args), ", ".join(results)))
    assert len(funcs) > 40, len(funcs)  # the others are in op_table.py
    path = tmp_path / "lazy_ops.mlir"
    path.write_text("\n".join(funcs) + "\n")
    # No --allow-unregistered-dialect: an op missing from the dialect fails.
    run = subprocess.run([LTC_MLIR_OPT, str(path)], capture_output=True, text=True)
    assert run.returncode == 0, run.stderr[:4000]
    assert run.stdout.count("torch.aten.") == len(funcs)


def test_op_without_lowering_is_named_and_the_graph_falls_back():
    # Complex tensors are in the graph (mul has a lazy kernel) and have no
    # lowering: the ops parse and verify, the compiler names what it does
    # not take and the graph runs in ATen.
    z = torch.randn(2, 3, dtype=torch.complex64, generator=torch.Generator().manual_seed(0))
    eager, lazy = run_both(lambda x: (x * 2).abs(), z)
    torch.testing.assert_close(lazy, eager, rtol=0, atol=0)
    m = ltc_mlir.metrics()
    assert m["fallback_graph_count"] == 1, m
    assert m["native_execute_count"] == 0, m
    (reason,) = m["fallback_reasons"]
    assert "unsupported aten::mul" in reason and "ComplexFloat" in reason, reason
    # A known limit, not a compiler bug: no reproducer file (the dump dir,
    # LTC_MLIR_DUMP_DIR, has the module when wanted).
    assert "[reproducer: " not in reason, reason
