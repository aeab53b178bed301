"""Dumps: each compiled graph leaves torch, linalg and LLVM modules, and the
torch-dialect dump replays through ltc-mlir-opt with the same pipeline."""
import os
import subprocess

import torch

import ltc_mlir
from lazy_testing import LTC_MLIR_OPT


def test_dumps_written_and_replayable(tmp_path):
    ltc_mlir.set_dump_dir(tmp_path)
    try:
        # A shape no other test uses, so this graph is compiled (not cached) here.
        x = torch.randn(3, 17).to("lazy")
        w = torch.randn(17, 5).to("lazy")
        y = (torch.mm(x, w).relu() * 0.5).sum(1)
        torch._lazy.mark_step()
        y.cpu()
    finally:
        ltc_mlir.set_dump_dir(None)
    m = ltc_mlir.metrics()
    assert m["compile_count"] == 1, m
    name = m["compiled_graphs"][0]
    for stage in ("torch", "linalg", "llvm"):
        path = tmp_path / f"{name}.{stage}.mlir"
        assert path.exists(), sorted(os.listdir(tmp_path))
    torch_text = (tmp_path / f"{name}.torch.mlir").read_text()
    assert "torch.aten.mm" in torch_text and "!torch.vtensor<[3,17],f32>" in torch_text
    assert "linalg.matmul" in (tmp_path / f"{name}.linalg.mlir").read_text() or \
        "linalg.generic" in (tmp_path / f"{name}.linalg.mlir").read_text()
    assert "llvm.func" in (tmp_path / f"{name}.llvm.mlir").read_text()

    replay = subprocess.run([LTC_MLIR_OPT, "--ltc-torch-to-llvm", str(tmp_path / f"{name}.torch.mlir")],
                            capture_output=True, text=True)
    assert replay.returncode == 0, replay.stderr
    assert "llvm.func @forward" in replay.stdout
