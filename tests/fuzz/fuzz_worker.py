"""Fuzz worker: a long-lived process that runs generated programs on the lazy
device, one request per line on stdin, one JSON answer per line on the
original stdout (fd 1 is pointed at stderr so that prints from C++ or torch
cannot corrupt the answers). An abort kills only this process; the parent
(fuzz_pool.py) reports it as a failure of that example and starts a new one.

Answer: {"status": "ok" | "eager_failed" | "failed", "message": str,
         "metrics": {...} (ok only)}
"""
import json
import os
import sys
import traceback

answers = os.fdopen(os.dup(1), "w")
os.dup2(2, 1)
sys.stdout = sys.stderr

import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402
import ltc_mlir  # noqa: E402

ltc_mlir.init()

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from fuzz_harness import HARNESS  # noqa: E402

_METRIC_KEYS = ("fallback_ops", "fallback_graph_count", "native_execute_count",
                "compile_count", "fallback_reasons")


def run(source):
    ns = {"torch": torch, "F": F, "ltc_mlir": ltc_mlir}
    exec(compile(source + HARNESS, "<fuzz program>", "exec"), ns)
    try:
        metrics = ns["check"]()
    except ns["EagerFailed"] as e:
        return {"status": "eager_failed", "message": str(e)}
    except Exception as e:  # the backend's bug, reported to the parent
        tb = traceback.extract_tb(e.__traceback__)
        where = f" (at {tb[-1].name}: {tb[-1].line})" if tb else ""
        return {"status": "failed", "kind": type(e).__name__,
                "message": f"{type(e).__name__}: {e}{where}"}
    return {"status": "ok", "metrics": {k: metrics[k] for k in _METRIC_KEYS}}


def main():
    answers.write(json.dumps({"status": "ready"}) + "\n")
    answers.flush()
    for line in sys.stdin:
        request = json.loads(line)
        answers.write(json.dumps(run(request["source"])) + "\n")
        answers.flush()


if __name__ == "__main__":
    main()
