"""One compile for every batch size (ltc_backend/batch_families.h,
mlir_lowering/lib/Compiler/GeneralizeShapes.cpp): a graph seen at a second
batch size compiles into code that takes the batch size per call, and later
batch sizes run it without compiling. Values always equal eager's; the
metrics say what compiled, what ran generic code and what was refused."""
import copy

import pytest
import torch
import torch.nn.functional as F

import ltc_mlir

from isolated import run_isolated
from lazy_testing import assert_close


@pytest.fixture(autouse=True)
def fresh_families():
    ltc_mlir._C._reset_batch_families()
    ltc_mlir.set_batch_generic(True)
    yield
    ltc_mlir._C._reset_batch_families()


def make_mlp(inputs, hidden, outputs=5):
    torch.manual_seed(0)
    return torch.nn.Sequential(torch.nn.Linear(inputs, hidden), torch.nn.ReLU(),
                               torch.nn.Linear(hidden, hidden), torch.nn.ReLU(),
                               torch.nn.Linear(hidden, outputs))


def train(batches, inputs, hidden, loss=F.cross_entropy, outputs=5):
    """SGD steps on the lazy device and on eager CPU, one per batch size;
    returns both models. Each test has its own sizes: LTC's graph cache
    outlives a test."""
    eager = make_mlp(inputs, hidden, outputs)
    lazy = copy.deepcopy(eager).to("lazy")
    opts = [torch.optim.SGD(m.parameters(), lr=0.1, momentum=0.9) for m in (eager, lazy)]
    g = torch.Generator().manual_seed(1)
    for b in batches:
        x, y = torch.randn(b, inputs, generator=g), torch.randint(0, outputs, (b,), generator=g)
        for m, opt, dev in ((eager, opts[0], "cpu"), (lazy, opts[1], "lazy")):
            opt.zero_grad()
            loss(m(x.to(dev)), y.to(dev)).backward()
            opt.step()
        torch._lazy.mark_step()
    return eager, lazy


def assert_same_parameters(eager, lazy):
    assert_close([p.detach() for p in eager.parameters()],
                 [p.detach().cpu() for p in lazy.parameters()], rtol=1e-4, atol=1e-5)


def test_training_over_many_batch_sizes_compiles_once_more():
    # Steps 1 and 2 at batch 16 (two graphs: step 1 creates the momentum
    # buffers), then step 2's graph at 11 new sizes: the first compiles the
    # generic step, the other 10 run it. Odd and prime sizes, larger and
    # smaller than the first.
    sizes = [16, 16, 9, 31, 2, 64, 17, 5, 40, 3, 23, 128, 7]
    eager, lazy = train(sizes, inputs=20, hidden=40)
    assert_same_parameters(eager, lazy)
    m = ltc_mlir.metrics()
    assert m["batch_generic_compiles"] == 1 and m["batch_generic_refusals"] == 0, m
    assert m["batch_generic_hits"] == 10, m
    assert m["compile_count"] == 3, m["compiled_graphs"]
    assert m["native_execute_count"] == len(sizes) and m["fallback_execute_count"] == 0, m
    assert "every-batch-size graphs  : 1 compiled, 10 new batch sizes" in ltc_mlir.metrics_report()


def test_mean_squared_error_scales_its_constants_with_the_batch():
    # mse_loss's mean (1/B in the forward and backward) and a one-hot
    # target built on the device.
    def loss(out, y):
        return F.mse_loss(out, F.one_hot(y, 5).float())
    sizes = [8, 8, 12, 6, 33]
    eager, lazy = train(sizes, inputs=7, hidden=24, loss=loss)
    assert_same_parameters(eager, lazy)
    m = ltc_mlir.metrics()
    assert m["batch_generic_compiles"] == 1 and m["batch_generic_hits"] == 2, m


def test_a_batch_size_equal_to_another_size_shares_code():
    # At batch 10 the lowering merges the buffers of the batch x hidden
    # activations and of the in_features (10) x hidden weight gradient, and
    # equal constants: the comparison gives each use its own, so the pair
    # (6, 10) still makes code for every batch size.
    eager, lazy = train([6, 6, 10, 14, 18], inputs=10, hidden=16)
    assert_same_parameters(eager, lazy)
    m = ltc_mlir.metrics()
    assert m["batch_generic_refusals"] == 0, m["batch_generic_refusal_reasons"]
    assert m["batch_generic_compiles"] == 1 and m["batch_generic_hits"] == 2, m
    assert m["compile_count"] == 3, m["compiled_graphs"]  # 6 (two steps), generic


def test_a_refused_pair_does_not_stop_later_sizes():
    # 64 classes: at batch 64 the log-softmax's rows and classes have one
    # size, so its sum over the classes is taken for a batch sum and the
    # pair (32, 64) lowers differently: refused, 64 compiles on its own.
    # 48 then pairs with 32, and 40 runs the generic code.
    eager, lazy = train([32, 32, 64, 48, 40], inputs=12, hidden=20, outputs=64)
    assert_same_parameters(eager, lazy)
    m = ltc_mlir.metrics()
    assert m["batch_generic_refusals"] == 1, m
    assert "the two lowerings" in m["batch_generic_refusal_reasons"][0], m
    assert m["batch_generic_compiles"] == 1 and m["batch_generic_hits"] == 1, m
    assert m["compile_count"] == 4, m["compiled_graphs"]  # 32 (two steps), 64, generic


def test_batch_size_one_compiles_on_its_own():
    # B = 1 may broadcast where larger batches do not: never generic code.
    eager, lazy = train([6, 6, 10, 1, 14], inputs=5, hidden=11)
    assert_same_parameters(eager, lazy)
    m = ltc_mlir.metrics()
    assert m["batch_generic_compiles"] == 1 and m["batch_generic_hits"] == 1, m
    # step 1 and step 2 at 6, the generic step, and the step at 1
    assert m["compile_count"] == 4, m["compiled_graphs"]


def test_a_size_that_is_not_a_multiple_of_the_batch_is_refused():
    # x[1:] has B - 1 rows: the two shapes cannot share code, and every
    # shape compiles on its own, with the right values.
    results = []
    for n in (8, 12, 20):
        x = torch.randn(n, 6)
        lazy = (x.to("lazy")[1:] * 2).sum(0)
        torch._lazy.mark_step()
        results.append(((x[1:] * 2).sum(0), lazy.cpu()))
    for expected, actual in results:
        assert_close(expected, actual)
    m = ltc_mlir.metrics()
    assert m["batch_generic_compiles"] == 0 and m["batch_generic_hits"] == 0, m
    assert m["compile_count"] == 3, m


def test_inference_reuses_generic_code_and_disabling_it_compiles_per_shape():
    model = make_mlp(12, 30).eval()
    lazy_model = copy.deepcopy(model).to("lazy")
    with torch.no_grad():
        for n in (4, 4, 9, 21, 50):
            x = torch.randn(n, 12)
            out = lazy_model(x.to("lazy"))
            torch._lazy.mark_step()
            assert_close(model(x), out.cpu(), rtol=1e-5, atol=1e-6)
    m = ltc_mlir.metrics()
    assert m["batch_generic_compiles"] == 1 and m["batch_generic_hits"] == 2, m
    ltc_mlir.reset_metrics()
    ltc_mlir.set_batch_generic(False)
    try:
        with torch.no_grad():
            for n in (5, 6):
                x = torch.randn(n, 12)
                out = lazy_model(x.to("lazy"))
                torch._lazy.mark_step()
                assert_close(model(x), out.cpu(), rtol=1e-5, atol=1e-6)
    finally:
        ltc_mlir.set_batch_generic(True)
    m = ltc_mlir.metrics()
    assert m["batch_generic_hits"] == 0 and m["compile_count"] == 2, m


def test_generic_code_is_kept_in_the_disk_cache(tmp_path):
    body = """
        import torch.nn.functional as F
        torch.manual_seed(0)
        model = torch.nn.Sequential(torch.nn.Linear(10, 16), torch.nn.Tanh(),
                                    torch.nn.Linear(16, 3)).to("lazy")
        opt = torch.optim.SGD(model.parameters(), lr=0.1)
        for n in (6, 6, 12, 14):
            opt.zero_grad()
            F.cross_entropy(model(torch.randn(n, 10).to("lazy")),
                            torch.randint(0, 3, (n,)).to("lazy")).backward()
            opt.step()
            torch._lazy.mark_step()
        m = ltc_mlir.metrics()
        emit({k: m[k] for k in ("compile_count", "disk_cache_hits", "batch_generic_compiles",
                                "batch_generic_hits")})
    """
    env = {"LTC_MLIR_CACHE_DIR": str(tmp_path)}
    cold = run_isolated(body, env=env)
    assert cold == {"compile_count": 2, "disk_cache_hits": 0, "batch_generic_compiles": 1,
                    "batch_generic_hits": 1}, cold
    warm = run_isolated(body, env=env)
    assert warm == {"compile_count": 0, "disk_cache_hits": 2, "batch_generic_compiles": 1,
                    "batch_generic_hits": 1}, warm


def test_bad_environment_variable_is_reported_at_init():
    with pytest.raises(AssertionError, match="ValueError: LTC_MLIR_BATCH_GENERIC must be 0 or "
                       "1, got 'yes'"):
        run_isolated("emit(1)", env={"LTC_MLIR_BATCH_GENERIC": "yes"})


def test_segments_of_a_partitioned_graph_compile_per_shape(disabled_ops):
    # A graph with an op that cannot compile runs as native segments around
    # it; their runner passes static shapes, so segments never get code for
    # every batch size (it raised "compiled for [-1, 7]").
    disabled_ops("frac")
    for n in (4, 6, 9):
        x = torch.randn(n, 7)
        lazy = (torch.frac(x.to("lazy") * 3.0) + 1.0).exp().sum(0)
        torch._lazy.mark_step()
        assert_close((torch.frac(x * 3.0) + 1.0).exp().sum(0), lazy.cpu())
    m = ltc_mlir.metrics()
    assert m["batch_generic_compiles"] == 0 and m["batch_generic_hits"] == 0, m
    assert m["fallback_ops"].get("aten::frac", 0) == 3, m["fallback_ops"]
