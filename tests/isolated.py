"""Runs a test body in its own Python process, so that an abort (SIGABRT
from a glog CHECK, a segfault) fails that one test instead of killing the
pytest run.

    result = run_isolated('''
        x = torch.randn(3).to("lazy")
        emit({"sum": x.sum().item()})
    ''')
    assert result["sum"] == ...

The body runs after `import torch, ltc_mlir; ltc_mlir.init()`; `emit(obj)`
sends one JSON-serialisable object back (tensors are sent as nested lists,
see `as_list`; `raised(fn)` is [exception type name, message] or None). A crash or a non-zero exit fails the test with the signal
name and the tail of the child's stderr.
"""
import json
import os
import signal
import subprocess
import sys
import textwrap

_PRELUDE = """
import json, sys
import torch
import ltc_mlir
ltc_mlir.init()
_out = []
def emit(obj):
    _out.append(obj)
def as_list(t):
    return t.detach().cpu().double().tolist()
def raised(fn):
    try:
        fn()
    except Exception as e:  # the type and message are what the test checks
        return [type(e).__name__, str(e)]
    return None
"""

_EPILOGUE = """
sys.stdout.write("\\n@@LTC_MLIR_RESULT@@" + json.dumps(_out[-1] if _out else None) + "\\n")
"""


class ChildCrashed(AssertionError):
    pass


def run_isolated(body, timeout=300, env=None):
    source = _PRELUDE + textwrap.dedent(body) + _EPILOGUE
    child_env = dict(os.environ)
    child_env.update(env or {})
    proc = subprocess.run([sys.executable, "-c", source], capture_output=True, text=True,
                          timeout=timeout, env=child_env)
    if proc.returncode != 0:
        how = (f"killed by {signal.Signals(-proc.returncode).name}" if proc.returncode < 0
               else f"exited with {proc.returncode}")
        tail = "\n".join(proc.stderr.splitlines()[-25:])
        raise ChildCrashed(f"child process {how}\n--- stderr (tail) ---\n{tail}")
    marker = proc.stdout.rfind("@@LTC_MLIR_RESULT@@")
    assert marker >= 0, f"child printed no result\n{proc.stdout[-2000:]}\n{proc.stderr[-2000:]}"
    return json.loads(proc.stdout[marker + len("@@LTC_MLIR_RESULT@@"):].strip())
