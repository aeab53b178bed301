"""Runs a worker case (workers.py) on N gloo ranks over 127.0.0.1, each in
its own process with a timeout: a collective that went wrong must show as
a failed test, never as a hung one."""
import json
import os
import socket
import subprocess
import sys
import time

WORKER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "workers.py")


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class RankResult:
    def __init__(self, rank, returncode, stdout, stderr, result):
        self.rank, self.returncode, self.stdout, self.stderr = rank, returncode, stdout, stderr
        self.result = result  # what the case returned (JSON), or None

    def __repr__(self):
        return (f"rank {self.rank}: exit {self.returncode}\n--- stdout\n{self.stdout[-3000:]}"
                f"\n--- stderr\n{self.stderr[-6000:]}")


def run_ranks(case, world, tmp_path, *, timeout=300, env=None, args=()):
    """Runs workers.py `case` on `world` ranks; returns one RankResult per
    rank. Raises AssertionError naming the ranks that did not finish within
    `timeout` seconds (they are killed)."""
    port = str(free_port())
    base = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path), MASTER_ADDR="127.0.0.1",
                MASTER_PORT=port, WORLD_SIZE=str(world), OMP_NUM_THREADS="1",
                LTC_MLIR_NUM_THREADS="1")
    base.update(env or {})
    procs = []
    for rank in range(world):
        out = tmp_path / f"rank{rank}.json"
        procs.append(subprocess.Popen(
            [sys.executable, WORKER, case, str(out), *map(str, args)],
            env=dict(base, RANK=str(rank), LOCAL_RANK=str(rank)),
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True))
    deadline = time.monotonic() + timeout
    outputs, hung = [], []
    for rank, p in enumerate(procs):
        try:
            stdout, stderr = p.communicate(timeout=max(1.0, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            p.kill()
            stdout, stderr = p.communicate()
            hung.append(rank)
        outputs.append((p.returncode, stdout, stderr))
    results = []
    for rank, (code, stdout, stderr) in enumerate(outputs):
        path = tmp_path / f"rank{rank}.json"
        result = json.loads(path.read_text()) if path.exists() else None
        results.append(RankResult(rank, code, stdout, stderr, result))
    assert not hung, f"ranks {hung} of {case} did not finish in {timeout} s:\n" + \
        "\n".join(map(repr, results))
    return results


def check_all_ok(results):
    for r in results:
        assert r.returncode == 0 and r.result is not None, repr(r)
    return [r.result for r in results]
