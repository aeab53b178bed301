"""Parent side of the fuzz worker (fuzz_worker.py): sends a program, waits for
the answer with a timeout, and turns a dead or hung worker into a
WorkerCrashed result for that example. After any failure the worker is
replaced, so that no state (a parked LTC error, a half-built cache entry)
leaks into the next example and every failure reproduces on its own.
"""
import json
import os
import select
import signal
import subprocess
import sys
import tempfile

_WORKER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fuzz_worker.py")


class WorkerCrashed(Exception):
    pass


class Worker:
    def __init__(self, timeout=120.0, env=None, restart_on_failure=True):
        self.timeout = timeout
        self.env = env
        self.restart_on_failure = restart_on_failure
        self.proc = None
        self.log = None
        self.restarts = 0
        self.history = []       # programs run by the current process, in order
        self.last_history = []  # ... by the process that ran the last failing one

    def _start(self):
        self.log = tempfile.TemporaryFile(mode="w+")
        self.history = []
        env = dict(os.environ)
        env.update(self.env or {})
        self.proc = subprocess.Popen([sys.executable, _WORKER], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=self.log, text=True,
                                     env=env)
        ready = self._answer(self.log.tell(), startup=True)
        assert ready.get("status") == "ready", ready

    def _stderr_since(self, offset, lines=30):
        self.log.flush()
        self.log.seek(offset)
        text = self.log.read()
        self.log.seek(0, os.SEEK_END)
        return "\n".join(text.splitlines()[-lines:])

    def _answer(self, offset, startup=False):
        ready, _, _ = select.select([self.proc.stdout], [], [], self.timeout)
        line = self.proc.stdout.readline() if ready else ""
        if line:
            return json.loads(line)
        if not ready:
            self.proc.kill()
            how = f"hung for more than {self.timeout:.0f} s"
        else:
            code = self.proc.wait()
            how = (f"killed by {signal.Signals(-code).name}" if code < 0
                   else f"exited with {code}")
        tail = self._stderr_since(offset)
        self.close()
        raise WorkerCrashed(f"{'worker start' if startup else 'lazy run'}: {how}\n"
                            f"--- worker stderr (tail) ---\n{tail}")

    def run(self, source):
        """The worker's answer (a dict, see fuzz_worker.py); raises
        WorkerCrashed if the process died or hung on this program."""
        if self.proc is None:
            self._start()
        offset = self.log.seek(0, os.SEEK_END)
        self.last_history = self.history[:]
        self.history.append(source)
        self.proc.stdin.write(json.dumps({"source": source}) + "\n")
        self.proc.stdin.flush()
        answer = self._answer(offset)
        if answer["status"] == "failed":
            answer["stderr"] = self._stderr_since(offset)
            if self.restart_on_failure:
                self.restart()
        return answer

    def restart(self):
        self.close()
        self.restarts += 1

    def close(self):
        if self.proc is not None:
            if self.proc.poll() is None:
                self.proc.stdin.close()
                try:
                    self.proc.wait(timeout=10)
                except subprocess.TimeoutExpired:
                    self.proc.kill()
                    self.proc.wait()
            self.proc = None
        if self.log is not None:
            self.log.close()
            self.log = None


def _failed_answer(answer):
    return answer["status"] == "failed"


def fails_after(history, source, is_failure=_failed_answer, timeout=120.0):
    """Whether `source` fails (is_failure(answer), or a crash) in a fresh
    worker that first ran `history`."""
    w = Worker(timeout=timeout, restart_on_failure=False)
    try:
        for h in history:
            w.run(h)
        return bool(is_failure(w.run(source)))
    except WorkerCrashed:
        return True
    finally:
        w.close()


def minimize_history(history, source, is_failure=_failed_answer, budget=60):
    """A short subsequence of `history` after which `source` still fails in
    a fresh worker (delta debugging, at most `budget` worker runs), or None
    when even the whole history does not make it fail again."""
    if not fails_after(history, source, is_failure):
        return None
    seq, n, runs = list(history), 2, 1
    while seq and runs < budget:
        chunk = -(-len(seq) // n)
        for i in range(0, len(seq), chunk):
            candidate = seq[:i] + seq[i + chunk:]
            runs += 1
            if fails_after(candidate, source, is_failure):
                seq, n = candidate, max(n - 1, 2)
                break
            if runs >= budget:
                break
        else:
            if n >= len(seq):
                break
            n = min(len(seq), 2 * n)
    return seq
