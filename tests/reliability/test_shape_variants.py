"""Cheap new shapes (ltc_backend/shape_variants.h): once a large graph has
compiled in `limit` shapes, a new shape runs through the fallback the first
time and compiles when it recurs. Values always equal eager's; the metrics
say what compiled, what waited and what ran natively. Code for every batch
size (test_batch_generic.py) is off here: it would serve these shapes
first."""
import copy

import pytest
import torch
import torch.nn.functional as F

import ltc_mlir

from isolated import run_isolated
from lazy_testing import assert_close


@pytest.fixture(autouse=True)
def no_batch_generic():
    ltc_mlir.set_batch_generic(False)
    yield
    ltc_mlir.set_batch_generic(True)


@pytest.fixture
def limit_two():
    ltc_mlir._C._reset_shape_variants()
    ltc_mlir.set_shape_variant_limit(2)
    yield
    ltc_mlir.set_shape_variant_limit(0)
    ltc_mlir._C._reset_shape_variants()


def make_mlp(hidden):
    torch.manual_seed(0)
    return torch.nn.Sequential(torch.nn.Linear(20, hidden), torch.nn.ReLU(),
                               torch.nn.Linear(hidden, hidden), torch.nn.ReLU(),
                               torch.nn.Linear(hidden, 5))


def train(batches, hidden):
    """SGD steps on the lazy device and on eager CPU; the two models. Each
    test has its own `hidden`: LTC's graph cache outlives a test."""
    eager = make_mlp(hidden)
    lazy = copy.deepcopy(eager).to("lazy")
    opts = [torch.optim.SGD(m.parameters(), lr=0.1) for m in (eager, lazy)]
    g = torch.Generator().manual_seed(1)
    for b in batches:
        x, y = torch.randn(b, 20, generator=g), torch.randint(0, 5, (b,), generator=g)
        for m, opt, dev in ((eager, opts[0], "cpu"), (lazy, opts[1], "lazy")):
            opt.zero_grad()
            F.cross_entropy(m(x.to(dev)), y.to(dev)).backward()
            opt.step()
        torch._lazy.mark_step()
    return eager, lazy


def assert_same_parameters(eager, lazy):
    assert_close([p.detach() for p in eager.parameters()],
                 [p.detach().cpu() for p in lazy.parameters()], rtol=1e-5, atol=1e-6)


def test_many_batch_sizes_compile_two_shapes(limit_two):
    # Steps 1 and 2 trace different graphs (step 1 reads the tensors moved
    # to the device), both at batch 16, that emit one module: one compile,
    # one code reuse. Then 12 new sizes of step 2's graph: one compiles
    # (the second shape), eleven run through the fallback.
    eager, lazy = train([16, 16] + list(range(3, 15)), hidden=32)
    assert_same_parameters(eager, lazy)
    m = ltc_mlir.metrics()
    assert m["compile_count"] == 2 and m["code_reuse_hits"] == 1, m["compiled_graphs"]
    assert m["deferred_graphs"] == 11 and m["deferred_execute_count"] == 11, m
    assert m["native_execute_count"] == 3 and m["execute_count"] == 14, m
    assert m["fallback_execute_count"] == 0 and m["fallback_ops"] == {}, m
    assert "new shapes not compiled  : 11 graphs" in ltc_mlir.metrics_report()


def test_a_shape_that_recurs_compiles_on_its_second_run(limit_two):
    eager, lazy = train([16, 16, 8, 5, 5, 5, 8, 5], hidden=33)
    assert_same_parameters(eager, lazy)
    m = ltc_mlir.metrics()
    # 16 (two graphs, one code), 8, then 5 waits once and compiles on its
    # second run.
    assert m["compile_count"] == 3 and m["code_reuse_hits"] == 1, m["compiled_graphs"]
    assert m["deferred_graphs"] == 1 and m["deferred_execute_count"] == 1, m
    assert m["native_execute_count"] == 7 and m["execute_count"] == 8, m


def test_small_graphs_always_compile(limit_two):
    for n in range(2, 8):
        x = torch.randn(n, 3)
        out = (x.to("lazy").sin() * 2 + 1).sum(0)
        torch._lazy.mark_step()
        assert_close(x.sin().mul(2).add(1).sum(0), out.cpu())
    m = ltc_mlir.metrics()
    assert m["compile_count"] == 6 and m["deferred_graphs"] == 0, m
    assert m["native_execute_count"] == 6, m


def test_limit_zero_compiles_every_shape():
    ltc_mlir._C._reset_shape_variants()
    assert ltc_mlir.get_shape_variant_limit() == 0  # the suite's setting (conftest)
    eager, lazy = train([16, 16, 7, 9, 11], hidden=34)
    assert_same_parameters(eager, lazy)
    m = ltc_mlir.metrics()
    # 16 (two graphs, one code), 7, 9, 11.
    assert m["compile_count"] == 4 and m["code_reuse_hits"] == 1, m
    assert m["deferred_graphs"] == 0, m


def test_bad_limits_are_rejected():
    with pytest.raises(ValueError, match="must be >= 0"):
        ltc_mlir.set_shape_variant_limit(-1)


def test_bad_environment_variable_is_reported_at_init():
    with pytest.raises(AssertionError, match="ValueError: LTC_MLIR_SHAPE_VARIANTS must be a "
                       "non-negative integer, got 'many'"):
        run_isolated("emit(1)", env={"LTC_MLIR_SHAPE_VARIANTS": "many"})


def test_debug_mode_says_a_new_shape_waits(limit_two):
    ltc_mlir.set_debug(True)
    try:
        train([16, 16, 8, 6], hidden=35)
    finally:
        ltc_mlir.set_debug(False)
    m = ltc_mlir.metrics()
    assert m["deferred_graphs"] == 1, m
    (last,) = [e for e in m["compile_explanations"] if "not compiled yet" in e]
    assert "is Float[6, 20], where graph_" in last and "had Float[8, 20]" in last, last
