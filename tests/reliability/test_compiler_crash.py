"""A crash inside the compiler (an MLIR or LLVM bug: a segfault, an LLVM
fatal error that would exit or abort) must not kill the user's process: the
graph runs through the fallback, the reason names the crash and points to a
reproducer. The crash is injected with LTC_MLIR_TEST_CRASH_IN_COMPILER;
each case runs in its own process."""
import os
import sys

import pytest

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from isolated import run_isolated  # noqa: E402

_BODY = """
import os
ltc_mlir.set_reproducer_dir({repro!r})
x = torch.randn(5, 7)
w = torch.randn(7, 3)
lazy = torch.relu(x.to("lazy") @ w.to("lazy")) + 1.0
torch._lazy.mark_step()
eager = torch.relu(x @ w) + 1.0
m = ltc_mlir.metrics()
# The process survived; the next graphs still compile once crashes stop.
os.environ.pop("LTC_MLIR_TEST_CRASH_IN_COMPILER")
again = (x.to("lazy") * 2.0).cpu()
m2 = ltc_mlir.metrics()
emit({{"max_diff": (lazy.cpu() - eager).abs().max().item(),
       "again_diff": (again - x * 2.0).abs().max().item(),
       "reasons": m["fallback_reasons"],
       "native_before": m["native_execute_count"],
       "native_after": m2["native_execute_count"],
       "reproducers": sorted(os.listdir({repro!r}))}})
"""


@pytest.mark.parametrize("mode,what", [("segv", "signal 11 (Segmentation fault)"),
                                       ("fatal", "signal 6 (Aborted: an LLVM fatal error")])
def test_compiler_crash_falls_back_with_a_reproducer(tmp_path, mode, what):
    r = run_isolated(_BODY.format(repro=str(tmp_path)),
                     env={"LTC_MLIR_TEST_CRASH_IN_COMPILER": mode})
    assert r["max_diff"] <= 1e-5, r               # right values through the fallback
    assert r["native_before"] == 0, r
    (reason,) = r["reasons"]
    assert "the compiler crashed" in reason and what in reason, reason
    assert "[reproducer: " in reason, reason
    assert len(r["reproducers"]) == 1 and r["reproducers"][0].endswith(".torch.mlir"), r
    text = (tmp_path / r["reproducers"][0]).read_text()
    assert text.startswith("// the compiler crashed"), text[:200]
    # The canonical (generic-form) module the compiler was given.
    assert '"func.func"()' in text and 'sym_name = "forward"' in text, text[:400]
    # After the crash the compiler still works.
    assert r["again_diff"] == 0.0 and r["native_after"] == 1, r
