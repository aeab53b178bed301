#!/usr/bin/env python3
"""Runs PyTorch's OpInfo database (torch.testing._internal's op_db) on the
lazy device and reports, per case (op variant x dtype x forward/backward),
whether it ran fully native, fell back (and through which ops), gave a wrong
value, raised, or crashed the process.

    PYTHONPATH=build/python_packages python3 tools/op_sweep/op_sweep.py \
        --jobs 2 --out /tmp/op_sweep.json [--ops add,mul] [--dtypes float32,int64]

The summary ranks the ops that keep the most cases from being native: the
list to lower next. Each case runs in a long-lived worker process; a crash
is recorded as "crashed" and a new worker takes the next case.
"""
import argparse
import collections
import json
import os
import subprocess
import sys
import threading

HERE = os.path.dirname(os.path.abspath(__file__))
WORKER = os.path.join(HERE, "sweep_worker.py")


def list_cases(dtypes, ops_filter):
    source = (
        "import sys, types, unittest, json\n"
        "m = types.ModuleType('expecttest'); m.TestCase = unittest.TestCase; m.ACCEPT = False\n"
        "sys.modules['expecttest'] = m\n"
        "import torch\n"
        "from torch.testing._internal.common_methods_invocations import op_db\n"
        "out = []\n"
        "for o in op_db:\n"
        "    dts = [str(d).split('.')[-1] for d in o.supported_dtypes('cpu')]\n"
        "    out.append([o.name, o.variant_test_name, dts, bool(o.supports_autograd)])\n"
        "print(json.dumps(out))\n")
    proc = subprocess.run([sys.executable, "-c", source], capture_output=True, text=True,
                          check=True)
    cases = []
    for name, variant, supported, autograd in json.loads(proc.stdout.splitlines()[-1]):
        if ops_filter and name not in ops_filter:
            continue
        for dtype in dtypes:
            if dtype not in supported:
                continue
            cases.append({"op": name, "variant": variant, "dtype": dtype, "mode": "forward"})
            if autograd and dtype in ("float32", "float64"):
                cases.append({"op": name, "variant": variant, "dtype": dtype,
                              "mode": "backward"})
    return cases


class Worker:
    def __init__(self):
        env = dict(os.environ)
        self.proc = subprocess.Popen([sys.executable, WORKER], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                                     text=True, env=env)
        ready = self.proc.stdout.readline()
        if not ready:
            raise RuntimeError("sweep worker did not start")

    def run(self, case, timeout):
        self.proc.stdin.write(json.dumps(case) + "\n")
        self.proc.stdin.flush()
        timer = threading.Timer(timeout, self.proc.kill)
        timer.start()
        line = self.proc.stdout.readline()
        timer.cancel()
        if not line:
            code = self.proc.wait()
            return {"status": "crashed", "message": f"worker exited with {code}"}
        return json.loads(line)

    def close(self):
        try:
            self.proc.stdin.close()
            self.proc.wait(timeout=10)
        except Exception:
            self.proc.kill()


def run_all(cases, jobs, timeout, progress):
    results = [None] * len(cases)
    lock = threading.Lock()
    next_index = [0]

    def loop():
        worker = Worker()
        while True:
            with lock:
                i = next_index[0]
                next_index[0] += 1
            if i >= len(cases):
                break
            answer = worker.run(cases[i], timeout)
            if answer["status"] == "crashed":
                worker = Worker()
            results[i] = dict(cases[i], **answer)
            if progress:
                print(f"[{i + 1}/{len(cases)}] {cases[i]['op']}{'.' + cases[i]['variant'] if cases[i]['variant'] else ''} "
                      f"{cases[i]['dtype']} {cases[i]['mode']}: {answer['status']}", file=sys.stderr)
        worker.close()

    threads = [threading.Thread(target=loop) for _ in range(jobs)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return results


def summarize(results):
    counted = [r for r in results if r["status"] not in ("no_samples", "eager_failed")]
    by_status = collections.Counter(r["status"] for r in counted)
    blockers = collections.Counter()
    for r in counted:
        if r["status"] == "fallback":
            for op in r.get("blockers", []):
                blockers[op] += 1
    compiled = {mode: set() for mode in ("forward", "backward")}
    for r in counted:
        compiled[r["mode"]].update(r.get("native_ops", []))
    lines = [f"cases: {len(counted)} (+{len(results) - len(counted)} without a usable sample)",
             "status: " + ", ".join(f"{k} {v}" for k, v in by_status.most_common()),
             f"fully native: {by_status['native']} / {len(counted)}",
             f"distinct aten ops run as native code: {len(compiled['forward'] | compiled['backward'])}"
             f" ({len(compiled['forward'])} in forward cases, {len(compiled['backward'])} in"
             " backward cases)",
             "ops keeping the most cases from native code:"]
    lines += [f"  {n:4d}  {op}" for op, n in blockers.most_common(60)]
    return "\n".join(lines)


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--dtypes", default="float32")
    parser.add_argument("--ops", default="", help="comma-separated OpInfo names")
    parser.add_argument("--timeout", type=float, default=300)
    parser.add_argument("--out", default="op_sweep.json")
    parser.add_argument("--quiet", action="store_true")
    args = parser.parse_args()
    ops_filter = set(filter(None, args.ops.split(",")))
    cases = list_cases(args.dtypes.split(","), ops_filter)
    results = run_all(cases, args.jobs, args.timeout, not args.quiet)
    with open(args.out, "w") as f:
        json.dump(results, f, indent=1)
    print(summarize(results))


if __name__ == "__main__":
    main()
