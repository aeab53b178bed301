"""Randomized differential test: random chains of the ops ltc_mlir lowers,
on random shapes, dtypes and layouts, with and without backward, run on the
lazy device and on eager CPU; values (tolerances scaled to dtype and chain
length), shapes and dtypes must match, and a program made only of ops with
a native lowering must run without any fallback.

CI: a fixed set of examples (derandomize=True), about 40 s.
Long local run:  LTC_MLIR_FUZZ_EXAMPLES=2000 .venv/bin/python -m pytest -s tests/fuzz  (random seed;
LTC_MLIR_FUZZ_SEED=<n> repeats one; LTC_MLIR_FUZZ_KNOWN=1 also generates the
constructs of fuzz_known.KNOWN_BUGS; LTC_MLIR_FUZZ_REPRO_DIR=<dir> writes each
minimal failing program there as a standalone script). A long run goes on
after a bug: hypothesis stops generating at its first failure, so the run
is a series of rounds; each round's minimal failure is recorded and, in later
rounds, failures of the same kind whose ops include that minimal program's
ops count as that bug again (they pass), so the next round finds another.

Every failure prints its minimal reproducer: a standalone Python script
(the op chain as code, the harness, check()). The lazy side runs in a
worker process (fuzz_pool.py), so an abort fails one example, not the run.
"""
import hashlib
import os
import re

import pytest
from hypothesis import HealthCheck, event, given, note, seed, settings
from hypothesis.control import current_build_context

from fuzz_builder import Config
from fuzz_chains import allowed_fallbacks, programs, unexpected_fallbacks
from fuzz_harness import reproducer, state_reproducer
from fuzz_known import include_known
from fuzz_pool import Worker, WorkerCrashed, fails_after, minimize_history

CI_EXAMPLES = 80
EXAMPLES = int(os.environ.get("LTC_MLIR_FUZZ_EXAMPLES", "0") or 0)
LONG = EXAMPLES > 0
CONFIG = Config(max_ops=8 if LONG else 6, known=include_known())
REPRO_DIR = os.environ.get("LTC_MLIR_FUZZ_REPRO_DIR")

FOUND = []  # long mode: (kind, ops of the minimal program, reproducer source)
STATE_BUGS = []  # failures that need earlier programs in the same process
STATS = {"examples": 0, "native": 0, "expected_fallback": 0, "backward": 0,
         "fallback_ops": {}, "invalid": 0, "failed": 0, "worker_restarts": 0}

_worker = None


def worker():
    global _worker
    if _worker is None:
        _worker = Worker()
    return _worker


@pytest.fixture(scope="module", autouse=True)
def _close_worker():
    yield
    if _worker is not None:
        STATS["worker_restarts"] = _worker.restarts
        _worker.close()


_FAILURE_TYPES = {}


def fail(kind, message):
    """Raises an AssertionError subclass named after the kind of failure:
    hypothesis treats different exception types as different bugs, so a
    long run reports (and shrinks) each kind separately."""
    key = re.sub(r"[^A-Za-z0-9]+", "_", kind)[:80]
    cls = _FAILURE_TYPES.setdefault(key, type(f"Fuzz_{key}", (AssertionError,), {}))
    raise cls(message)


def _signature(message):
    first = message.splitlines()[0] if message else ""
    first = re.sub(r"0x[0-9a-f]+|\d+(\.\d+)?(e-?\d+)?", "N", first)
    return first[:70]


def _known_already(kind, program):
    mine = set(program.tags) | set(program.features)
    return any(kind == k and set(tags) <= mine for k, tags, _ in FOUND)


def _depends_on_history(kind, message, program):
    """A failure that does not reproduce in a fresh process depends on what
    the worker ran before (a cache, a reused buffer): it is recorded with the
    shortest history that still makes it fail, not raised (hypothesis would
    only call it flaky)."""
    history = worker().last_history

    def is_failure(answer):
        return answer["status"] == "failed" or (
            answer["status"] == "ok" and unexpected_fallbacks(program, answer["metrics"]))
    if not history or fails_after([], program.source, is_failure):
        return False
    if len(STATE_BUGS) >= 3:  # minimizing costs minutes: report the first few
        event("failure depending on earlier programs (not minimized): " + kind)
        return True
    prefix = minimize_history(history, program.source, is_failure)
    script = state_reproducer(prefix if prefix is not None else history, program.source)
    note_ = "" if prefix is not None else " (did not fail again even after the whole history)"
    STATE_BUGS.append((kind, message + note_, script))
    if REPRO_DIR:
        os.makedirs(REPRO_DIR, exist_ok=True)
        name = hashlib.sha1(script.encode()).hexdigest()[:10]
        with open(os.path.join(REPRO_DIR, f"state_repro_{name}.py"), "w") as f:
            f.write(f"# {kind} (needs the earlier programs){note_}\n" + script)
    event("failure depending on earlier programs: " + kind)
    return True


def _failed(kind, message, program):
    """Reports a failure of this example (or, in a long run's later rounds,
    lets a known one pass)."""
    STATS["failed"] += 1
    if LONG and _known_already(kind, program):
        event("known failure: " + kind)
        return
    if _depends_on_history(kind, message, program):
        return
    if current_build_context().is_final:
        FOUND.append((kind, program.tags + program.features, program.source))
        if REPRO_DIR:
            os.makedirs(REPRO_DIR, exist_ok=True)
            name = hashlib.sha1((kind + program.source).encode()).hexdigest()[:10]
            with open(os.path.join(REPRO_DIR, f"repro_{name}.py"), "w") as f:
                f.write(f"# {kind}\n" + reproducer(program.source))
    fail(kind, message)


def check_program(program):
    note("Reproducer (standalone script):\n" + reproducer(program.source))
    try:
        answer = worker().run(program.source)
    except WorkerCrashed as e:
        return _failed("crash " + _signature(str(e)), str(e), program)
    if answer["status"] == "eager_failed":
        # Only reachable when the program's backward is invalid for eager
        # (the builder already ran the forward): not a backend bug.
        STATS["invalid"] += 1
        event("invalid for eager")
        return
    if answer["status"] == "failed":
        message = answer["message"] + "\n--- worker stderr (tail) ---\n" + answer["stderr"]
        kind = answer["kind"]
        if kind == "AssertionError":
            m = re.search(r"(output|grad) .*?: (dtype|shape)?", answer["message"])
            kind = "mismatch " + (m.group(1) + " " + (m.group(2) or "values") if m else "")
        else:
            kind = "error " + _signature(answer["message"])
        return _failed(kind, message, program)
    metrics = answer["metrics"]
    native = metrics["fallback_graph_count"] == 0 and not metrics["fallback_ops"]
    STATS["examples"] += 1
    STATS["native"] += native
    STATS["backward"] += program.backward
    for op, n in metrics["fallback_ops"].items():
        STATS["fallback_ops"][op] = STATS["fallback_ops"].get(op, 0) + n
    event("native" if native else "fallback: " + ", ".join(sorted(metrics["fallback_ops"])))
    if allowed_fallbacks(program):
        STATS["expected_fallback"] += 1
    problem = unexpected_fallbacks(program, metrics)
    if problem:
        return _failed("not native", f"ops {program.tags}: {problem}", program)


def examples_runner(max_examples, round_=0):
    """The hypothesis test: `max_examples` programs, each checked."""
    s = os.environ.get("LTC_MLIR_FUZZ_SEED")

    @settings(max_examples=max_examples, derandomize=not LONG, database=None, deadline=None,
              print_blob=False,
              suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much,
                                     HealthCheck.data_too_large])
    @given(program=programs(CONFIG))
    def run_examples(program):
        check_program(program)
    if s and LONG:
        run_examples = seed(int(s) + round_)(run_examples)
    return run_examples


def test_lazy_matches_eager():
    """CI_EXAMPLES fixed programs; with LTC_MLIR_FUZZ_EXAMPLES set, a long
    randomized run in rounds instead (long_run)."""
    if LONG:
        long_run()
        return
    examples_runner(CI_EXAMPLES)()
    assert_no_state_bugs()


def assert_no_state_bugs():
    assert not STATE_BUGS, "failures that depend on earlier programs in the process:\n\n" + \
        "\n\n".join(f"--- {kind}: {msg}\n{script}" for kind, msg, script in STATE_BUGS)


MAX_ROUNDS = 30


def long_run():
    """Rounds of examples until EXAMPLES have run; every distinct bug found
    is listed at the end (with its reproducer, printed by hypothesis when
    found, and saved in LTC_MLIR_FUZZ_REPRO_DIR)."""
    for round_ in range(MAX_ROUNDS):
        before = len(FOUND)
        remaining = EXAMPLES - STATS["examples"] - STATS["failed"]
        try:
            examples_runner(max(remaining, 1), round_)()
        except Exception as e:  # hypothesis re-raised the minimal failure(s)
            if len(FOUND) == before:
                raise
            print(f"\n=== round found: {e!r:.300}")
        if remaining <= 1 or len(FOUND) == before:
            break
    summary = "\n\n".join(f"--- bug {i + 1}: {kind}; ops {tags}\n{src}"
                          for i, (kind, tags, src) in enumerate(FOUND))
    summary += "\n\n(each program runs with the harness of fuzz_harness.py: see the " \
               "reproducers printed above, or LTC_MLIR_FUZZ_REPRO_DIR)"
    assert not FOUND, f"{len(FOUND)} distinct failures:\n\n{summary}"
    assert_no_state_bugs()
