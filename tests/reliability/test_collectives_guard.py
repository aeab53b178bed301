"""torch.distributed collectives on lazy tensors raise a clear
NotImplementedError instead of returning the tensor unreduced (before,
dist.all_reduce(t) on a lazy t returned normally with t unchanged: the c10d
ops ran through the eager fallback on CPU copies and their schemas mark
nothing as written). Two gloo ranks over loopback, in subprocesses with a
timeout (a collective could hang)."""
import os
import socket
import subprocess
import sys
import textwrap

import pytest

RANK_SCRIPT = textwrap.dedent("""
    import os, sys
    import torch, torch.distributed as dist
    import torch.distributed._functional_collectives as fc
    import ltc_mlir
    ltc_mlir.init()
    rank = int(sys.argv[1])
    dist.init_process_group("gloo", init_method="tcp://127.0.0.1:" + sys.argv[2],
                            rank=rank, world_size=2)
    cpu = torch.full((3,), float(rank + 1))
    dist.all_reduce(cpu)                       # the CPU path still works
    assert cpu.tolist() == [3.0, 3.0, 3.0], cpu
    calls = {
        "all_reduce": lambda t: dist.all_reduce(t),
        "broadcast": lambda t: dist.broadcast(t, src=0),
        "all_gather_into_tensor": lambda t: dist.all_gather_into_tensor(
            torch.zeros(6, device="lazy"), t),
        "functional_all_reduce": lambda t: fc.all_reduce(t, "sum", dist.group.WORLD),
    }
    for name, call in calls.items():
        t = torch.full((3,), float(rank + 1)).to("lazy")
        try:
            call(t)
        except NotImplementedError as e:
            assert "cannot run on a lazy tensor yet" in str(e) and "t.cpu()" in str(e), e
            print(name, "raised")
            continue
        print(name, "did not raise:", t.cpu().tolist())
    dist.barrier()
    dist.destroy_process_group()
""")


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_collectives_on_lazy_tensors_raise(tmp_path):
    script = tmp_path / "rank.py"
    script.write_text(RANK_SCRIPT)
    port = str(free_port())
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path), OMP_NUM_THREADS="1")
    ranks = [subprocess.Popen([sys.executable, str(script), str(r), port], env=env,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
             for r in range(2)]
    outputs = []
    try:
        for p in ranks:
            out, err = p.communicate(timeout=240)
            outputs.append((p.returncode, out, err))
    finally:
        for p in ranks:
            p.kill()
    for code, out, err in outputs:
        assert code == 0, err[-3000:]
        for name in ("all_reduce", "broadcast", "all_gather_into_tensor",
                     "functional_all_reduce"):
            assert f"{name} raised" in out, out
