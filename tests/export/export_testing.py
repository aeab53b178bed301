"""Helpers of the export tests: build an exported model with stock MLIR tools
or use its AOT library, run the generated C driver in a subprocess, and read
what it wrote."""
import os
import subprocess

import numpy as np
import torch

import ltc_mlir
from ltc_mlir import _export_aot
from ltc_mlir import _export_files

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
UPSTREAM_BUILD = os.path.join(ROOT, "tools", "export", "build_with_upstream_mlir.sh")

NUMPY_ELEMENT = {"f32": np.float32, "f64": np.float64, "i64": np.int64, "i32": np.int32,
                 "i8": np.int8, "i1": np.bool_}


def run(cmd, timeout=600, **kw):
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, **kw)
    assert p.returncode == 0, f"{cmd} failed ({p.returncode}):\n{p.stdout}\n{p.stderr}"
    return p


def entry(manifest, name):
    return next(e for e in manifest["entries"] if e["name"] == name)


def write_inputs(io_dir, manifest, entry_name, tensors):
    """The entry's inputs as the driver reads them: <io_dir>/<input name>.bin."""
    os.makedirs(io_dir, exist_ok=True)
    by_index = {f"input_{i}": t for i, t in enumerate(tensors.get("inputs", []))}
    by_index.update({f"target_{i}": t for i, t in enumerate(tensors.get("targets", []))})
    for spec in entry(manifest, entry_name)["inputs"]:
        by_index[spec["name"]].contiguous().numpy().tofile(os.path.join(io_dir,
                                                                         spec["name"] + ".bin"))


def read_outputs(io_dir, manifest, entry_name):
    out = {}
    for spec in entry(manifest, entry_name)["outputs"]:
        data = np.fromfile(os.path.join(io_dir, spec["name"] + ".bin"),
                           dtype=NUMPY_ELEMENT[spec["element_type"]])
        out[spec["name"]] = torch.from_numpy(data.reshape(spec["shape"]))
    return out


def build_upstream(directory, name, with_runtime=False):
    """<name>.upstream.so from mlir-opt-22 / mlir-translate-22 / llc only."""
    args = ["bash", UPSTREAM_BUILD, str(directory), name]
    if with_runtime:
        args.append(_export_aot.runtime_library_dir())
    run(args)
    return os.path.join(str(directory), f"{name}.upstream.so")


def build_driver(directory, name, library, program):
    run(["cc", "-O2", "-std=c11", "-o", program, os.path.join(str(directory), f"{name}_driver.c"),
         f"-I{directory}", library, f"-Wl,-rpath,{os.path.dirname(library)}"])
    return program


def run_driver(program, weights, entry_name, steps, io_dir, save=None):
    args = [program, weights, entry_name, str(steps), io_dir] + ([save] if save else [])
    return run(args)


def read_state(path):
    return _export_files.read_safetensors(path)


def eager_state(manifest, model, optimizer=None):
    """{global: eager value} for the manifest's state globals."""
    params, buffers = dict(model.named_parameters()), dict(model.named_buffers())
    out = {}
    for g in manifest["globals"]:
        if g["kind"] == "parameter":
            out[g["name"]] = params[g["torch_name"]].detach()
        elif g["kind"] == "buffer":
            out[g["name"]] = buffers[g["torch_name"]].detach()
        elif g["kind"] == "optimizer_state":
            pname, key = g["torch_name"].rsplit(".", 1)
            out[g["name"]] = optimizer.state[params[pname]][key].detach()
    return out


def snapshot(model, optimizer=None):
    """Copies of everything export must leave alone."""
    state = {k: v.detach().clone() for k, v in model.state_dict().items()}
    if optimizer is not None:
        for i, s in enumerate(optimizer.state.values()):
            for k, v in s.items():
                if isinstance(v, torch.Tensor):
                    state[f"opt{i}.{k}"] = v.clone()
    return state, model.training


def assert_unchanged(before, model, optimizer=None):
    after = snapshot(model, optimizer)
    assert after[1] == before[1], "export changed the model's train/eval mode"
    assert after[0].keys() == before[0].keys()
    for k in before[0]:
        assert torch.equal(after[0][k], before[0][k]), f"export changed {k}"


def export(*args, **kwargs):
    ltc_mlir.reset_metrics()
    return ltc_mlir.export(*args, **kwargs)
