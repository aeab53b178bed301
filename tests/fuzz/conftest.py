# Prints the fuzz run's statistics (examples, how many ran natively, which
# ops fell back) at the end of the pytest session.


def pytest_terminal_summary(terminalreporter):
    import sys
    mod = sys.modules.get("test_differential")
    if mod is None or not mod.STATS["examples"] + mod.STATS["failed"]:
        return
    s = mod.STATS
    terminalreporter.write_sep("-", "ltc_mlir fuzz statistics")
    terminalreporter.write_line(
        f"examples passed: {s['examples']} (with backward: {s['backward']}), "
        f"fully native: {s['native']}, expected to fall back: {s['expected_fallback']}, "
        f"failed runs (incl. shrinking): {s['failed']}, invalid for eager: {s['invalid']}, "
        f"worker restarts: {s['worker_restarts']}")
    if s["fallback_ops"]:
        ops = ", ".join(f"{k} x{v}" for k, v in sorted(s["fallback_ops"].items()))
        terminalreporter.write_line(f"fallback ops: {ops}")
