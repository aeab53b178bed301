# Shared pytest setup: registers ltc_mlir once and offers helpers that run a
# function on the lazy device and on eager CPU and compare the two.
import glob
import os
import sys

import pytest
import torch

sys.path.insert(0, os.path.dirname(__file__))
# Tests count real compiles: no persistent cache unless a test sets one
# (subprocesses inherit this too).
os.environ.setdefault("LTC_MLIR_CACHE_DIR", "")
# ... and compile every shape at once, so that a test's graphs do not depend
# on which shapes earlier tests compiled (tests/reliability/test_shape_variants.py
# turns the deferral of new shapes on).
os.environ.setdefault("LTC_MLIR_SHAPE_VARIANTS", "0")

import ltc_mlir  # noqa: E402

ltc_mlir.init()


@pytest.fixture(autouse=True)
def fresh_metrics():
    """Every test starts from zeroed metrics."""
    ltc_mlir.reset_metrics()
    yield


@pytest.fixture
def llvm_text(tmp_path):
    """llvm_text() reads the LLVM-dialect modules compiled during the test."""
    ltc_mlir.reset_metrics()
    ltc_mlir.set_dump_dir(str(tmp_path))

    def read():
        return "\n".join(open(f).read() for f in glob.glob(str(tmp_path / "*.llvm.mlir")))
    yield read
    ltc_mlir.set_dump_dir(None)


@pytest.fixture
def disabled_ops():
    """disabled_ops("aten::frac", ...) makes graphs compiled afterwards treat
    those ops as unsupported (ltc_mlir.set_disabled_ops), so that a test of
    the fallback paths does not depend on which ops happen to lack a lowering.
    Restored after the test."""
    def disable(*ops):
        ltc_mlir.set_disabled_ops(list(ops))
    yield disable
    ltc_mlir.set_disabled_ops([])


# Tests known to fail, each with its reason (tests/expected_failures.py,
# keyed "<path under tests>::<test>"). Strict: a listed test that passes
# fails the run, so that the list cannot go stale.
from expected_failures import EXPECTED_FAILURES  # noqa: E402


def pytest_collection_modifyitems(config, items):
    tests_dir = os.path.dirname(os.path.abspath(__file__))
    for item in items:
        key = os.path.relpath(str(item.fspath), tests_dir) + "::" + item.name
        reason = EXPECTED_FAILURES.get(key)
        if reason:
            item.add_marker(pytest.mark.xfail(strict=True, reason=reason))
