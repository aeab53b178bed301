"""An exported training step (forward, loss, backward, SGD with momentum) run
N=5 times by the generated C driver, in a process without Python: the
parameters, BatchNorm statistics and optimizer state it leaves in the
globals match eager's 5 steps. Through the AOT library (ltc_mlir's
compiler) and through stock MLIR tools."""
import os

import pytest
import torch
import torch.nn.functional as F

from export_testing import (assert_unchanged, build_driver, build_upstream, eager_state,
                            entry, export, read_outputs, read_state, run_driver, snapshot,
                            write_inputs)

STEPS = 5


def mlp():
    torch.manual_seed(0)
    return torch.nn.Sequential(torch.nn.Linear(6, 16), torch.nn.Tanh(), torch.nn.Linear(16, 3))


def cnn_bn():
    torch.manual_seed(0)
    return torch.nn.Sequential(
        torch.nn.Conv2d(3, 8, 3, padding=1), torch.nn.BatchNorm2d(8), torch.nn.ReLU(),
        torch.nn.Conv2d(8, 8, 3, stride=2, padding=1), torch.nn.BatchNorm2d(8), torch.nn.ReLU(),
        torch.nn.Flatten(), torch.nn.Linear(8 * 4 * 4, 4))


def setup(kind):
    model = mlp() if kind == "mlp" else cnn_bn()
    opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9, weight_decay=1e-3)
    torch.manual_seed(1)
    if kind == "mlp":
        x, y = torch.randn(5, 6), torch.randn(5, 3)
        loss_fn = F.mse_loss
    else:
        x, y = torch.randn(4, 3, 8, 8), torch.randint(0, 4, (4,))
        loss_fn = F.cross_entropy
    return model, opt, loss_fn, x, y


def eager_steps(model, opt, loss_fn, x, y):
    model.train()
    for _ in range(STEPS):
        opt.zero_grad()
        loss = loss_fn(model(x), y)
        loss.backward()
        opt.step()
    return loss.detach()


@pytest.mark.parametrize("kind,path", [("mlp", "aot"), ("cnn_bn", "aot"), ("mlp", "upstream"),
                                       ("cnn_bn", "upstream")])
def test_exported_training_step_matches_eager(kind, path, tmp_path):
    model, opt, loss_fn, x, y = setup(kind)
    before = snapshot(model, opt)
    manifest = export(model, (x,), tmp_path, optimizer=opt, loss_fn=loss_fn,
                      example_targets=(y,), name=kind, aot=(path == "aot"),
                      portable=(path == "upstream"))
    assert_unchanged(before, model, opt)
    assert [e["name"] for e in manifest["entries"]] == ["forward", "train_step"]
    step = entry(manifest, "train_step")
    kinds = {g["name"]: g["kind"] for g in manifest["globals"]}
    # Every parameter, its momentum buffer and (CNN) every BN statistic is
    # written by the step; forward writes nothing.
    assert entry(manifest, "forward")["stores"] == []
    expected_stores = {g["name"] for g in manifest["globals"]
                       if g["kind"] in ("parameter", "optimizer_state") or
                       (g["kind"] == "buffer")}
    assert set(step["stores"]) == expected_stores
    assert sum(k == "optimizer_state" for k in kinds.values()) == len(list(model.parameters()))
    if kind == "cnn_bn":
        assert sum(k == "buffer" for k in kinds.values()) == 6  # 2 x (mean, var, count)
    assert [i["name"] for i in step["inputs"]] == ["input_0", "target_0"]
    assert [o["name"] for o in step["outputs"]] == ["loss"]
    text = open(tmp_path / f"{kind}.mlir").read()
    for g in step["stores"]:
        assert f"ml_program.global public mutable @{g}(dense_resource<{g}>" in text
        assert f"ml_program.global_store @{g} = " in text

    if path == "aot":
        library = str(tmp_path / f"{kind}.so")
        driver = str(tmp_path / f"{kind}_driver")
        weights = str(tmp_path / f"{kind}.safetensors")
    else:
        library = build_upstream(tmp_path, kind)
        driver = build_driver(tmp_path, kind, library, str(tmp_path / "upstream_driver"))
        weights = "-"
    io = str(tmp_path / "io")
    write_inputs(io, manifest, "train_step", {"inputs": [x], "targets": [y]})
    state_path = str(tmp_path / "after.safetensors")
    run_driver(driver, weights, "train_step", STEPS, io, save=state_path)

    last_loss = eager_steps(model, opt, loss_fn, x, y)
    got = read_state(state_path)
    checks = {g["name"] for g in manifest["globals"] if g["kind"] == "runtime_check"}
    assert all(got.pop(name).item() == -1 for name in checks), "no runtime check failed"
    expected = eager_state(manifest, model, opt)
    assert set(got) == set(expected)
    for name, value in expected.items():
        torch.testing.assert_close(got[name], value, atol=2e-5, rtol=2e-5,
                                   msg=lambda m, n=name: f"{n}: {m}")
    torch.testing.assert_close(read_outputs(io, manifest, "train_step")["loss"], last_loss,
                               atol=2e-5, rtol=2e-5)


def test_exported_forward_reads_what_train_step_wrote(tmp_path):
    """forward (eval mode) after 5 steps in the same process uses the trained
    weights and BN statistics."""
    model, opt, loss_fn, x, y = setup("cnn_bn")
    manifest = export(model, (x,), tmp_path, optimizer=opt, loss_fn=loss_fn,
                      example_targets=(y,), name="cnn", aot=True)
    assert manifest["forward_mode"] == "train" and entry(manifest, "forward")["stores"] == []
    io = str(tmp_path / "io")
    write_inputs(io, manifest, "train_step", {"inputs": [x], "targets": [y]})
    state_path = str(tmp_path / "after.safetensors")
    run_driver(str(tmp_path / "cnn_driver"), str(tmp_path / "cnn.safetensors"), "train_step",
               STEPS, io, save=state_path)
    # A second run starts from the trained state and runs forward.
    run_driver(str(tmp_path / "cnn_driver"), state_path, "forward", 1, io)
    eager_steps(model, opt, loss_fn, x, y)
    model.eval()
    with torch.no_grad():
        expected = model(x)
    torch.testing.assert_close(read_outputs(io, manifest, "forward")["output"], expected,
                               atol=5e-5, rtol=5e-5)
    assert os.path.getsize(state_path) > 0


def test_saved_state_is_standard_safetensors(tmp_path):
    """<name>_save writes a file the safetensors package reads."""
    from safetensors.torch import load_file
    model, opt, loss_fn, x, y = setup("mlp")
    manifest = export(model, (x,), tmp_path, optimizer=opt, loss_fn=loss_fn,
                      example_targets=(y,), name="mlp", aot=True)
    io = str(tmp_path / "io")
    write_inputs(io, manifest, "train_step", {"inputs": [x], "targets": [y]})
    run_driver(str(tmp_path / "mlp_driver"), str(tmp_path / "mlp.safetensors"), "train_step", 1,
               io, save=str(tmp_path / "saved.safetensors"))
    saved = load_file(str(tmp_path / "saved.safetensors"))
    assert saved.keys() == read_state(str(tmp_path / "saved.safetensors")).keys()
    assert set(saved) == {g["name"] for g in manifest["globals"]}
