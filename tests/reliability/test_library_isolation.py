"""One process, two copies of oneDNN: the torch wheel's libtorch_cpu carries
its own oneDNN (and MKL) and exports some of its symbols; our compiled code
calls Debian's libdnnl. When libdnnl resolved names in libtorch_cpu's scope
its GEMM kernels were never set up, every dnnl_sgemm call answered
"unimplemented" and the runtime computed the block with plain loops: right
numbers, 20-65x slower steps. The runtime now opens its oneDNN library with
RTLD_DEEPBIND (runtime/lib/onednn_entry_points.h). These tests fail if any
GEMM block or convolution of a training step is computed by the plain-loop
fallback, in a process that loaded torch as usual and in one that loaded it
with RTLD_GLOBAL (TORCH_USE_RTLD_GLOBAL=1, libtorch_cpu's names visible to
every library loaded later)."""
import pytest

from isolated import run_isolated

_BODY = """
import torch.nn as nn
torch.manual_seed(0)
model = nn.Sequential(
    nn.Conv2d(8, 24, 3, padding=1), nn.ReLU(), nn.Conv2d(24, 24, 3, padding=1),
    nn.ReLU(), nn.Flatten(), nn.Linear(24 * 12 * 12, 256), nn.ReLU(),
    nn.Linear(256, 10))
x = torch.randn(16, 8, 12, 12)
y = torch.randint(0, 10, (16,))
grads = {}
for device in ("cpu", "lazy"):
    m = model.to(device)
    m.zero_grad(set_to_none=True)
    loss = nn.functional.cross_entropy(m(x.to(device)), y.to(device))
    loss.backward()
    if device == "lazy":
        torch._lazy.mark_step()
    grads[device] = [p.grad.detach().cpu().clone() for p in m.parameters()]
    model = m.cpu()
worst = max(((a - b).abs().max() / (b.abs().max() + 1e-6)).item()
            for a, b in zip(grads["lazy"], grads["cpu"]))
m = ltc_mlir.metrics()
emit({"kernel_fallback_calls": m["kernel_fallback_calls"],
      "native": m["native_execute_count"], "fallback_ops": m["fallback_ops"],
      "worst_relative_error": worst})
"""


@pytest.mark.parametrize("torch_global", [False, True], ids=["torch_local", "torch_rtld_global"])
def test_onednn_kernels_run_in_a_torch_process(torch_global):
    env = {"TORCH_USE_RTLD_GLOBAL": "1"} if torch_global else {}
    result = run_isolated(_BODY, env=env)
    assert result["native"] >= 1 and result["fallback_ops"] == {}
    # No GEMM block, no convolution computed by plain loops.
    assert result["kernel_fallback_calls"] == {}
    assert result["worst_relative_error"] < 1e-4
