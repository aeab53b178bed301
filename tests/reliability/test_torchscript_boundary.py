"""TorchScript stays behind ltc_backend/torchscript/boundary.h
(docs/architecture.md, "The TorchScript boundary"): only the sources in
ltc_backend/torchscript/ include TorchScript headers or name TorchScript
types, so that replacing TorchScript means reimplementing that one header."""
import pathlib
import re

ROOT = pathlib.Path(__file__).resolve().parents[2]
SOURCES = [p for d in ("ltc_backend", "python") for p in (ROOT / d).rglob("*")
           if p.suffix in (".h", ".cpp")]
INSIDE = ROOT / "ltc_backend" / "torchscript"
# MlirData derives from the TS backend's TSData, which its services and
# generated kernels create and cast to (boundary.h says why).
ALLOWED = {("ltc_backend/backend_data.h", "torch/csrc/lazy/ts_backend/ts_backend_impl.h")}

TS_INCLUDE = re.compile(r'#include\s*[<"](torch/csrc/jit/[^>"]+|torch/csrc/lazy/ts_backend/[^>"]+)[>"]')
TS_NAME = re.compile(r"\b(jit::Graph|jit::Node|jit::Value|jit::GraphExecutor|TsNode|"
                     r"TSLoweringContext|TSComputation|GetTSBackendImpl|"
                     r"RegisterTorchScript(?:Autograd)?LazyNativeFunctions)\b")


def _code(text):
    # Comments may name TorchScript; code may not.
    return "\n".join(line.split("//", 1)[0] for line in text.splitlines())


def test_the_boundary_header_names_no_torchscript_type():
    text = _code((INSIDE / "boundary.h").read_text())
    assert not TS_INCLUDE.search(text)
    assert not TS_NAME.search(text)


def test_only_the_torchscript_directory_uses_torchscript():
    assert len(SOURCES) > 100 and any(p.parent == INSIDE for p in SOURCES)
    offenders = []
    for path in SOURCES:
        if INSIDE in path.parents:
            continue
        rel = str(path.relative_to(ROOT))
        text = _code(path.read_text())
        for m in TS_INCLUDE.finditer(text):
            if (rel, m.group(1)) not in ALLOWED:
                offenders.append(f"{rel}: includes {m.group(1)}")
        for m in TS_NAME.finditer(text):
            offenders.append(f"{rel}: names {m.group(1)}")
    assert not offenders, "TorchScript outside ltc_backend/torchscript/:\n" + "\n".join(offenders)
