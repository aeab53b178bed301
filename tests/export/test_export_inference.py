"""Exported inference modules match eager PyTorch when run by stock MLIR
(`cat model.mlir model.weights.mlir | mlir-opt-22` with upstream passes,
mlir-translate-22, llc, linked with the generated C ABI and driver: no
ltc_mlir compiler) and through the AOT library (ltc_mlir's pipeline, the
weights loaded from the safetensors file at run time). The generated driver
runs them in a process without Python."""
import os
import re

import pytest
import torch
import torchvision

from export_testing import (build_driver, build_upstream, entry, export, read_outputs,
                            run_driver, snapshot, assert_unchanged, write_inputs)

UPSTREAM_DIALECTS = {"builtin", "func", "linalg", "tensor", "arith", "math", "scf", "ml_program",
                     "bufferization", "affine_map", "module"}


def mlp():
    torch.manual_seed(0)
    return torch.nn.Sequential(torch.nn.Linear(12, 32), torch.nn.GELU(), torch.nn.Linear(32, 5))


def resnet18():
    torch.manual_seed(0)
    return torchvision.models.resnet18(num_classes=10).eval()


def gpt2_decoder():
    from transformers import GPT2Config, GPT2LMHeadModel
    torch.manual_seed(0)
    config = GPT2Config(vocab_size=96, n_positions=32, n_embd=64, n_layer=2, n_head=4,
                        use_cache=False, bos_token_id=0, eos_token_id=0)
    return GPT2LMHeadModel(config).eval()


CASES = {
    "mlp": (mlp, lambda: (torch.randn(4, 12),), 1e-5),
    "resnet18": (resnet18, lambda: (torch.randn(1, 3, 32, 32),), 2e-4),
    "gpt2": (gpt2_decoder, lambda: (torch.randint(0, 96, (2, 16)),), 2e-4),
}


def ops_of(text):
    """Dialects of the ops in a module's text ('linalg' of 'linalg.matmul')."""
    return {m.group(1) for m in re.finditer(r"^\s*(?:%[\w:#, ]+ = )?([a-z_]+)\.[a-z_]+",
                                            text, re.M)}


@pytest.mark.parametrize("case", sorted(CASES))
@pytest.mark.parametrize("path", ["upstream", "aot"])
def test_exported_module_matches_eager(case, path, tmp_path):
    make, make_inputs, tol = CASES[case]
    model = make()
    inputs = make_inputs()
    before = snapshot(model)
    with torch.no_grad():
        expected = model(*inputs)
    manifest = export(model, inputs, tmp_path, name=case, portable=(path == "upstream"),
                      aot=(path == "aot"))
    assert_unchanged(before, model)

    text = open(tmp_path / f"{case}.mlir").read()
    assert "dense_resource<" in text and "dialect_resources" not in text, \
        "the module must name its weights, not carry them"
    # Runtime calls (oneDNN convolutions) pass memrefs.
    allowed = UPSTREAM_DIALECTS | ({"memref"} if path == "aot" else set())
    assert ops_of(text) <= allowed, ops_of(text) - allowed
    assert "global_load_const" not in text
    weights = open(tmp_path / f"{case}.weights.mlir").read()
    for g in manifest["globals"]:
        assert f"@{g['name']}(dense_resource<{g['name']}>" in text
        assert f'{g["name"]}: "0x40000000' in weights  # 64-byte alignment
        # Inference writes no state; portable modules record failed checks.
        assert g["mutable"] == (g["kind"] == "runtime_check"), g
    if path == "upstream":
        assert manifest["runtime_functions"] == []
    elif case == "resnet18":
        assert "ltc_mlir_rt_conv2d_forward_f32" in manifest["runtime_functions"]
    params = dict(model.named_parameters())
    assert {g["torch_name"] for g in manifest["globals"] if g["kind"] == "parameter"} == \
        set(params), "every parameter is a global"

    if path == "upstream":
        library = build_upstream(tmp_path, case)
        driver = build_driver(tmp_path, case, library, str(tmp_path / "upstream_driver"))
        weights = "-"
    else:
        driver, weights = str(tmp_path / f"{case}_driver"), str(tmp_path / f"{case}.safetensors")
    io = str(tmp_path / "io")
    write_inputs(io, manifest, "forward", {"inputs": inputs})
    run_driver(driver, weights, "forward", 1, io)
    outputs = read_outputs(io, manifest, "forward")
    reference = expected.logits if case == "gpt2" else expected
    (got,) = outputs.values()
    torch.testing.assert_close(got, reference, atol=tol, rtol=tol)


def test_forward_entry_is_named_after_its_output(tmp_path):
    model = gpt2_decoder()
    manifest = export(model, (torch.randint(0, 96, (1, 8)),), tmp_path, name="g", portable=True)
    assert [o["name"] for o in entry(manifest, "forward")["outputs"]] == ["logits"]
    assert entry(manifest, "forward")["inputs"][0]["dtype"] == "int64"
    assert os.path.exists(tmp_path / "g.h")
