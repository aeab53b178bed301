"""Exported inference modules compiled by IREE (iree-base-compiler 3.13.0,
llvm-cpu) and run by its runtime, the weights given as parameters, match
eager. The modules are exported portable: IREE cannot link ltc_mlir's runtime
calls (an unscoped external function is rejected by iree-compile)."""
import os
import re
import sys

import numpy as np
import pytest
import torch

from export_testing import export, run
from test_export_inference import CASES

import iree.runtime as iree_runtime  # pinned in requirements.txt: a missing IREE fails
IREE_COMPILE = os.path.join(os.path.dirname(sys.executable), "iree-compile")
IREE_FLAGS = ["--iree-hal-target-device=local", "--iree-hal-local-target-device-backends=llvm-cpu",
              "--iree-llvmcpu-target-cpu=host"]


def run_iree(vmfb, parameters, inputs, function="forward"):
    config = iree_runtime.Config("local-task")
    index = iree_runtime.ParameterIndex()
    index.load(parameters)
    params = iree_runtime.create_io_parameters_module(config.vm_instance,
                                                      index.create_provider(scope="model"))
    main = iree_runtime.VmModule.mmap(config.vm_instance, vmfb)
    context = iree_runtime.SystemContext(vm_modules=[params, main], config=config)
    result = context.modules.module[function](*[x.numpy() for x in inputs])
    return torch.from_numpy(np.asarray(result.to_host()))


def iree_module(text):
    """model.mlir with each global naming its tensor in the parameter scope
    "model" instead of a dense_resource: IREE then reads model.safetensors at
    run time (the command in docs/export.md does the same with sed)."""
    return re.sub(r"dense_resource<(\w+)>", r'#flow.parameter.named<"model"::"\1">', text)


@pytest.mark.parametrize("case", sorted(CASES))
def test_iree_runs_the_exported_module_with_the_safetensors_as_parameters(case, tmp_path):
    make, make_inputs, tol = CASES[case]
    model = make()
    inputs = make_inputs()
    with torch.no_grad():
        expected = model(*inputs)
    reference = expected.logits if case == "gpt2" else expected
    export(model, inputs, tmp_path, name=case, portable=True)
    (tmp_path / f"{case}.iree.mlir").write_text(iree_module((tmp_path / f"{case}.mlir").read_text()))
    vmfb = str(tmp_path / f"{case}.vmfb")
    run([IREE_COMPILE, *IREE_FLAGS, str(tmp_path / f"{case}.iree.mlir"), "-o", vmfb])
    weights = os.path.getsize(tmp_path / f"{case}.safetensors")
    assert os.path.getsize(vmfb) < weights or weights < 100_000, "the weights stay outside"
    got = run_iree(vmfb, str(tmp_path / f"{case}.safetensors"), inputs)
    torch.testing.assert_close(got, reference, atol=tol, rtol=tol)


def test_iree_accepts_the_module_joined_with_its_weights(tmp_path):
    """The unchanged `cat model.mlir model.weights.mlir`, weights compiled in."""
    make, make_inputs, tol = CASES["mlp"]
    model, inputs = make(), make_inputs()
    with torch.no_grad():
        expected = model(*inputs)
    export(model, inputs, tmp_path, name="mlp", portable=True)
    joined = tmp_path / "joined.mlir"
    joined.write_text((tmp_path / "mlp.mlir").read_text() +
                      (tmp_path / "mlp.weights.mlir").read_text())
    vmfb = str(tmp_path / "mlp.vmfb")
    run([IREE_COMPILE, *IREE_FLAGS, str(joined), "-o", vmfb])
    config = iree_runtime.Config("local-task")
    context = iree_runtime.SystemContext(
        vm_modules=[iree_runtime.VmModule.mmap(config.vm_instance, vmfb)], config=config)
    got = torch.from_numpy(np.asarray(context.modules.module.forward(inputs[0].numpy()).to_host()))
    torch.testing.assert_close(got, expected, atol=tol, rtol=tol)
