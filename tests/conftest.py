# Shared pytest setup: registers ltc_mlir once and offers helpers that run a
# function on the lazy device and on eager CPU and compare the two.
import os
import sys

import pytest
import torch

sys.path.insert(0, os.path.dirname(__file__))

import ltc_mlir  # noqa: E402

ltc_mlir.init()


@pytest.fixture(autouse=True)
def fresh_metrics():
    """Every test starts from zeroed metrics."""
    ltc_mlir.reset_metrics()
    yield
