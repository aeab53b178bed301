"""The OpenMP runtime our compiled code uses (libomp, loaded privately) is
tuned through its environment when it loads (KMP_BLOCKTIME, see
runtime/lib/openmp.cpp). That setting must not leak into the processes a
user starts, and a user's own KMP_BLOCKTIME must be left as it is."""
import os

from isolated import run_isolated

_BODY = """
import os, subprocess
torch.set_num_threads(2)
x = torch.randn(256, 256).to("lazy")
y = (x @ x).relu().sum()
torch._lazy.mark_step()
value = y.item()
child_env = subprocess.run(["env"], capture_output=True, text=True).stdout.splitlines()
emit({"blocktime": [l for l in child_env if l.startswith("KMP_BLOCKTIME=")],
      "native": ltc_mlir.metrics()["native_execute_count"],
      "finite": value == value})
"""


def test_blocktime_setting_does_not_leak_into_child_processes(monkeypatch):
    monkeypatch.delenv("KMP_BLOCKTIME", raising=False)
    result = run_isolated(_BODY)
    assert result["native"] >= 1 and result["finite"]
    assert result["blocktime"] == []


def test_users_blocktime_is_kept():
    result = run_isolated(_BODY, env={"KMP_BLOCKTIME": "7"})
    assert result["native"] >= 1
    assert result["blocktime"] == ["KMP_BLOCKTIME=7"]
