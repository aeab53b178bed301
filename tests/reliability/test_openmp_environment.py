"""The OpenMP runtime that runs compiled loops (runtime/lib/openmp.cpp).

By default the loops run on torch's own libgomp workers through the
__kmpc_* bridge (runtime/lib/gomp_teams.cpp): one set of workers, so
compiled graphs and torch's eager ops do not spin against each other.
LTC_MLIR_OPENMP=libomp loads LLVM's libomp privately instead, tuned through
its environment (KMP_BLOCKTIME) when it loads; that setting must not leak
into the processes a user starts, and a user's own KMP_BLOCKTIME is kept."""
import os
import subprocess
import sys

from isolated import run_isolated

_TRAIN_STEPS = """
torch.manual_seed(0)
torch.set_num_threads(2)
def steps(device):
    torch.manual_seed(1)
    model = torch.nn.Sequential(torch.nn.Linear(300, 256), torch.nn.ReLU(),
                                torch.nn.Linear(256, 10)).to(device)
    opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    x = torch.randn(96, 300, generator=torch.Generator().manual_seed(2)).to(device)
    y = torch.arange(96).remainder(10).to(device)
    for _ in range(3):
        opt.zero_grad()
        torch.nn.functional.cross_entropy(model(x), y).backward()
        opt.step()
        if device == "lazy":
            torch._lazy.mark_step()
    return [p.detach().cpu() for p in model.parameters()]
eager, lazy = steps("cpu"), steps("lazy")
maps = open("/proc/self/maps").read()
emit({"runtime": ltc_mlir._C._openmp_runtime(),
      "libomp_loaded": "libomp.so" in maps,
      "max_error": max((a - b).abs().max().item() for a, b in zip(eager, lazy)),
      "native": ltc_mlir.metrics()["native_execute_count"],
      "fallback_graphs": ltc_mlir.metrics()["fallback_graph_count"]})
"""


def test_compiled_loops_run_on_torchs_libgomp_workers(monkeypatch):
    monkeypatch.delenv("LTC_MLIR_OPENMP", raising=False)
    result = run_isolated(_TRAIN_STEPS)
    assert result["runtime"] == "libgomp (shared with torch)"
    assert not result["libomp_loaded"], "a second OpenMP runtime was loaded"
    assert result["native"] >= 3 and result["fallback_graphs"] == 0
    assert result["max_error"] < 1e-5


def test_libomp_can_be_chosen_and_computes_the_same():
    result = run_isolated(_TRAIN_STEPS, env={"LTC_MLIR_OPENMP": "libomp"})
    assert result["runtime"] == "libomp"
    assert result["libomp_loaded"]
    assert result["native"] >= 3 and result["fallback_graphs"] == 0
    assert result["max_error"] < 1e-5


def test_bad_openmp_choice_is_reported_by_init():
    p = subprocess.run([sys.executable, "-c",
                        "import ltc_mlir\n"
                        "try:\n"
                        "    ltc_mlir.init()\n"
                        "except ValueError as e:\n"
                        "    print('ValueError:', e)\n"],
                       capture_output=True, text=True, timeout=120,
                       env=dict(os.environ, LTC_MLIR_OPENMP="iomp"))
    assert p.returncode == 0, p.stderr
    assert "LTC_MLIR_OPENMP must be 'torch' or 'libomp', got 'iomp'" in p.stdout, \
        p.stdout + p.stderr


_BLOCKTIME_BODY = """
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
    result = run_isolated(_BLOCKTIME_BODY, env={"LTC_MLIR_OPENMP": "libomp"})
    assert result["native"] >= 1 and result["finite"]
    assert result["blocktime"] == []


def test_users_blocktime_is_kept():
    result = run_isolated(_BLOCKTIME_BODY, env={"KMP_BLOCKTIME": "7", "LTC_MLIR_OPENMP": "libomp"})
    assert result["native"] >= 1
    assert result["blocktime"] == ["KMP_BLOCKTIME=7"]


_FORK_BODY = """
import os
torch.set_num_threads(2)
x = torch.randn(512, 512)
def graph():
    y = (x.to("lazy") @ x.to("lazy")).relu().sum()
    torch._lazy.mark_step()
    return y.item()
expected = (x @ x).relu().sum().item()
first = graph()  # the 2-thread team exists now
read, write = os.pipe()
pid = os.fork()
if pid == 0:
    torch.set_num_threads(1)  # as DataLoader workers do: torch's own ops
    os.write(write, repr(graph()).encode())  # LTC_MLIR_NUM_THREADS asks for 2
    os._exit(0)
os.close(write)
child = float(os.read(read, 100).decode())
os.waitpid(pid, 0)
emit({"first": first, "child": child, "expected": expected})
"""


def test_forked_child_runs_graphs_without_hanging():
    # libgomp's workers do not survive fork(); a 2-thread region in the
    # child waited for them forever (gomp_teams.cpp runs it inline).
    result = run_isolated(_FORK_BODY, timeout=120, env={"LTC_MLIR_NUM_THREADS": "2"})
    tol = 1e-4 * abs(result["expected"])
    assert abs(result["first"] - result["expected"]) < tol
    assert abs(result["child"] - result["expected"]) < tol
