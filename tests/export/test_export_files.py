"""The weight files of an export, read by independent readers: the
`safetensors` package, stock mlir-opt-22, and ltc_mlir's zero-copy loader."""
import json
import struct
import subprocess

import torch
from safetensors.torch import load_file

import ltc_mlir
from ltc_mlir import _C


def exported_cnn(tmp_path, name="cnn"):
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Conv2d(3, 4, 3), torch.nn.BatchNorm2d(4),
                                torch.nn.Flatten(), torch.nn.Linear(4 * 6 * 6, 3)).eval()
    manifest = ltc_mlir.export(model, (torch.randn(2, 3, 8, 8),), tmp_path, name=name)
    return model, manifest


def test_safetensors_holds_the_state_under_the_global_names(tmp_path):
    model, manifest = exported_cnn(tmp_path)
    tensors = load_file(str(tmp_path / "cnn.safetensors"))
    state = model.state_dict()
    globals_ = {g["name"]: g for g in manifest["globals"]}
    assert set(tensors) == set(globals_)
    for name, g in globals_.items():
        assert torch.equal(tensors[name], state[g["torch_name"]]), name
        assert list(tensors[name].shape) == g["shape"]
    # Data starts 64-byte aligned; tensors of a multiple of 64 bytes stay so,
    # the others are aligned to their element size.
    raw = open(tmp_path / "cnn.safetensors", "rb").read()
    (n,) = struct.unpack("<Q", raw[:8])
    header = json.loads(raw[8:8 + n])
    assert (8 + n) % 64 == 0
    for key, info in header.items():
        if key == "__metadata__":
            continue
        begin, end = info["data_offsets"]
        element = tensors[key].element_size()
        assert begin % (64 if (end - begin) % 64 == 0 else element) == 0, (key, begin)


def test_weights_mlir_joins_the_module_for_mlir_opt(tmp_path):
    _, manifest = exported_cnn(tmp_path)
    joined = (tmp_path / "cnn.mlir").read_text() + (tmp_path / "cnn.weights.mlir").read_text()
    out = subprocess.run(["/usr/lib/llvm-22/bin/mlir-opt", "-"], input=joined,
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    # mlir-opt prints the blobs back: the same keys, the same bytes.
    for g in manifest["globals"]:
        assert f"{g['name']}: \"0x40000000" in out.stdout


def test_loader_attaches_every_blob_without_copying(tmp_path):
    _, manifest = exported_cnn(tmp_path)
    text = (tmp_path / "cnn.mlir").read_text()
    stats = _C._load_exported(text, str(tmp_path / "cnn.safetensors"))
    assert stats["error"] == ""
    assert stats["resources"] == len(manifest["globals"])
    assert stats["resource_bytes"] == sum(g["nbytes"] for g in manifest["globals"])
    assert stats["mapped_bytes"] == (tmp_path / "cnn.safetensors").stat().st_size


def test_loader_refuses_blobs_of_the_wrong_size(tmp_path):
    exported_cnn(tmp_path / "a")
    torch.manual_seed(0)
    other = torch.nn.Sequential(torch.nn.Conv2d(3, 5, 3), torch.nn.BatchNorm2d(5),
                                torch.nn.Flatten(), torch.nn.Linear(5 * 6 * 6, 3)).eval()
    ltc_mlir.export(other, (torch.randn(2, 3, 8, 8),), tmp_path / "b", name="cnn")
    stats = _C._load_exported((tmp_path / "a" / "cnn.mlir").read_text(),
                              str(tmp_path / "b" / "cnn.safetensors"))
    assert "bytes, the module's" in stats["error"]
    stats = _C._load_exported((tmp_path / "a" / "cnn.mlir").read_text(),
                              str(tmp_path / "missing.safetensors"))
    assert "cannot open weights file" in stats["error"]
