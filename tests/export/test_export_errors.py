"""Bad input to ltc_mlir.export gets an ExportError saying what and how to fix
it, and leaves nothing half-written in the output directory. (The C API's
error codes are tested by the ctest export_c_api.)"""
import os
import subprocess
import sys

import pytest
import torch

import ltc_mlir
from ltc_mlir import ExportError

from export_testing import snapshot, assert_unchanged


class Erf(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.linear = torch.nn.Linear(4, 4)

    def forward(self, x):
        return torch.erf(self.linear(x))


def test_an_op_that_cannot_compile_is_named(tmp_path, disabled_ops):
    disabled_ops("aten::erf")
    model = Erf()
    before = snapshot(model)
    with pytest.raises(ExportError, match=r"aten::erf.*Replace them with supported ops"):
        ltc_mlir.export(model, (torch.randn(2, 4),), tmp_path / "out", name="m")
    assert os.listdir(tmp_path / "out") == [], "nothing may be left half-written"
    assert_unchanged(before, model)


def test_an_op_without_a_lazy_kernel_is_named(tmp_path):
    """FFTs run outside compiled code (complex tensors have no lowering)."""
    with pytest.raises(ExportError, match=r"runs ops outside compiled code \(aten::_fft_r2c\)"):
        ltc_mlir.export(lambda x: torch.fft.rfft(x).abs(), (torch.randn(8),), tmp_path, name="f")
    assert os.listdir(tmp_path) == []


@pytest.mark.parametrize("op", ["nonzero", "unique", "item"])
def test_data_dependent_values_are_refused_not_baked_in(op, tmp_path):
    fns = {"nonzero": lambda x: torch.nonzero(x > 0).float().sum() + x,
           "unique": lambda x: torch.unique(x).sum() + x,
           "item": lambda x: x * float(x.sum().item())}
    with pytest.raises(ExportError, match="would be fixed in the exported program"):
        ltc_mlir.export(fns[op], (torch.randn(8),), tmp_path, name="f")
    assert os.listdir(tmp_path) == []


def test_a_path_that_cannot_be_written(tmp_path):
    blocker = tmp_path / "a_file"
    blocker.write_text("not a directory")
    with pytest.raises(ExportError, match="cannot write to .*a_file/out.*writable directory"):
        ltc_mlir.export(torch.nn.Linear(2, 2), (torch.randn(1, 2),), blocker / "out", name="m")


def test_earlier_files_survive_a_failed_export(tmp_path):
    """A failed export replaces nothing: the previous export stays whole."""
    model = torch.nn.Linear(3, 2)
    ltc_mlir.export(model, (torch.randn(1, 3),), tmp_path, name="m")
    first = {f: (tmp_path / f).read_bytes() for f in os.listdir(tmp_path)}
    with pytest.raises(ExportError):
        ltc_mlir.export(lambda x: torch.nonzero(x).float() + 1, (torch.randn(3),), tmp_path,
                        name="m")
    assert {f: (tmp_path / f).read_bytes() for f in os.listdir(tmp_path)} == first


@pytest.mark.parametrize("bad", ["name", "input", "optimizer_without_module", "adam"])
def test_bad_arguments(bad, tmp_path):
    model = torch.nn.Linear(3, 2)
    x = torch.randn(1, 3)
    with pytest.raises(ExportError) as e:
        if bad == "name":
            ltc_mlir.export(model, (x,), tmp_path, name="my-model")
        elif bad == "input":
            ltc_mlir.export(model, (x, 3), tmp_path)
        elif bad == "optimizer_without_module":
            ltc_mlir.export(lambda t: t * 2, (x,), tmp_path,
                            optimizer=torch.optim.SGD(model.parameters(), lr=0.1))
        else:
            ltc_mlir.export(model, (x,), tmp_path, optimizer=torch.optim.Adam(model.parameters()),
                            loss_fn=lambda out: out.sum())
    message = str(e.value)
    assert {"name": "C identifier", "input": "only tensors",
            "optimizer_without_module": "nn.Module",
            "adam": "torch.optim.SGD"}[bad] in message
    assert [f for f in os.listdir(tmp_path) if not f.startswith(".")] == []


def test_command_line(tmp_path):
    """python -m ltc_mlir.export factory --input ... --out ... writes the files."""
    factory = tmp_path / "my_models.py"
    factory.write_text("import torch\n"
                       "def make():\n"
                       "    torch.manual_seed(0)\n"
                       "    return torch.nn.Sequential(torch.nn.Linear(4, 3), torch.nn.ReLU())\n")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(tmp_path)] + sys.path))
    p = subprocess.run([sys.executable, "-m", "ltc_mlir.export", "my_models:make",
                        "--input", "2x4", "--out", str(tmp_path / "out"), "--name", "tiny"],
                       capture_output=True, text=True, timeout=300, env=env)
    assert p.returncode == 0, p.stderr
    for suffix in (".mlir", ".weights.mlir", ".safetensors", ".json", ".h", "_abi.c"):
        assert (tmp_path / "out" / f"tiny{suffix}").exists()
    p = subprocess.run([sys.executable, "-m", "ltc_mlir.export", "my_models:make",
                        "--input", "2x4", "--out", str(tmp_path / "x"), "--name", "bad-name"],
                       capture_output=True, text=True, timeout=300, env=env)
    assert p.returncode == 1 and "C identifier" in p.stderr


@pytest.mark.parametrize("path", ["aot", "upstream"])
def test_runtime_checks_become_error_codes(path, tmp_path):
    """An out-of-range token id at run time: the C call returns
    ..._ERR_RUNTIME_CHECK with eager's message, in both the AOT library
    (runtime call) and the portable module (the check global)."""
    from export_testing import build_driver, build_upstream, write_inputs
    from test_export_inference import gpt2_decoder
    model = gpt2_decoder()
    ids = torch.randint(0, 96, (1, 8))
    manifest = ltc_mlir.export(model, (ids,), tmp_path, name="g", aot=(path == "aot"),
                               portable=(path == "upstream"))
    if path == "upstream":
        assert manifest["runtime_functions"] == []
        assert any(g["kind"] == "runtime_check" for g in manifest["globals"])
        driver = build_driver(tmp_path, "g", build_upstream(tmp_path, "g"), str(tmp_path / "d"))
        weights = "-"
    else:
        assert manifest["runtime_functions"] == ["ltc_mlir_rt_check_failed"]
        driver, weights = str(tmp_path / "g_driver"), str(tmp_path / "g.safetensors")
    io = str(tmp_path / "io")
    write_inputs(io, manifest, "forward", {"inputs": [ids]})
    ok = subprocess.run([driver, weights, "forward", "1", io], capture_output=True, text=True,
                        timeout=300)
    assert ok.returncode == 0, ok.stderr
    write_inputs(io, manifest, "forward", {"inputs": [torch.full((1, 8), 500)]})
    bad = subprocess.run([driver, weights, "forward", "1", io], capture_output=True, text=True,
                         timeout=300)
    assert bad.returncode == 1 and "forward: " in bad.stderr and "index" in bad.stderr.lower(), \
        bad.stderr
