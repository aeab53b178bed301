"""Recompile diagnostics (ltc_mlir.set_debug / LTC_MLIR_DEBUG=1): each graph
that compiles says why, against the nearest graph compiled before it, with
the user's source line; metrics count the reasons and the report lists the
most frequent. Every message kind is asserted."""
import inspect
import os

import pytest
import torch

import ltc_mlir

from isolated import run_isolated

HERE = os.path.abspath(__file__)


@pytest.fixture
def debug():
    ltc_mlir.set_debug(True)
    yield
    ltc_mlir.set_debug(False)


def line():
    """The caller's line number."""
    return inspect.currentframe().f_back.f_lineno


def explanations():
    m = ltc_mlir.metrics()
    return m["compile_reasons"], m["compile_explanations"]


def step(fn, *tensors):
    out = fn(*[t.to("lazy") for t in tensors])
    torch._lazy.mark_step()
    return out.cpu()


def test_first_graph_then_a_new_batch_size_names_the_input_and_its_line(debug):
    w = torch.randn(4, 8).to("lazy")
    torch._lazy.mark_step()
    ltc_mlir.reset_metrics()
    for batch in (5, 7):
        x = torch.randn(batch, 8).to("lazy")
        y = (x @ w.t()).relu().sum(); used = line()
        torch._lazy.mark_step()
    reasons, messages = explanations()
    assert reasons == {"first graph": 1, "input shape changed": 1}, messages
    assert "the first graph compiled" in messages[0]
    assert "is Float[7, 8], where graph_" in messages[1] and "had Float[5, 8]" in messages[1], \
        messages[1]
    assert f"(first used at {HERE}:{used} " in messages[1], messages[1]


def test_dtype_change(debug):
    step(lambda x: (x * x).sum(), torch.randn(3, 4))
    step(lambda x: (x * x).sum(), torch.randn(3, 4, dtype=torch.float64))
    reasons, messages = explanations()
    assert reasons == {"first graph": 1, "input dtype changed": 1}, messages
    assert "is Double[3, 4], where graph_" in messages[1] and "had Float[3, 4]" in messages[1]


def test_new_op_with_its_source_line(debug):
    x = torch.randn(3, 4)
    step(lambda x: x.relu().sum(), x)
    out = torch.tanh(x.to("lazy")).sum(); traced = line()
    torch._lazy.mark_step()
    reasons, messages = explanations()
    assert reasons == {"first graph": 1, "new op": 1}, messages
    assert f"a new op aten::tanh at {HERE}:{traced} " in messages[1], messages[1]


def test_other_ops_name_where_the_graphs_part(debug):
    x = torch.randn(3, 4)
    step(lambda x: x.relu().sum(0), x)
    y = x.to("lazy").sum(0).relu(); traced = line()
    torch._lazy.mark_step()
    reasons, messages = explanations()
    assert reasons == {"first graph": 1, "different ops": 1}, messages
    assert "op 0 is aten::sum, where graph_" in messages[1] and "has aten::relu" in messages[1]
    assert f"{HERE}:{traced} " in messages[1], messages[1]


def test_changed_constant(debug):
    x = torch.randn(3, 3)
    step(lambda x: x.sum(0), x)
    y = x.to("lazy").sum(1); traced = line()
    torch._lazy.mark_step()
    reasons, messages = explanations()
    assert reasons == {"first graph": 1, "constant changed": 1}, messages
    assert "aten::sum differs:" in messages[1], messages[1]
    assert f"{HERE}:{traced} " in messages[1], messages[1]


def test_report_lists_reasons_most_frequent_first(debug):
    for batch in (2, 3, 4):
        step(lambda x: x.exp().sum(), torch.randn(batch, 5))
    report = ltc_mlir.metrics_report()
    assert "why graphs compiled      : input shape changed 2; first graph 1;" in report, report


def test_off_by_default_and_off_again():
    step(lambda x: x.exp().sum(), torch.randn(2, 5))
    ltc_mlir.set_debug(True)
    ltc_mlir.set_debug(False)
    step(lambda x: x.exp().sum(), torch.randn(3, 5))
    assert explanations() == ({}, [])


def test_environment_variable_prints_to_stderr():
    r = run_isolated("""
        import os, tempfile
        log = tempfile.TemporaryFile()
        os.dup2(log.fileno(), 2)  # the messages go to stderr
        for batch in (2, 3):
            x = torch.randn(batch, 4).to("lazy")
            y = x.sin().sum()
            torch._lazy.mark_step()
        log.seek(0)
        emit([ltc_mlir.metrics()["compile_reasons"], log.read().decode()])
    """, env={"LTC_MLIR_DEBUG": "1"})
    reasons, stderr = r
    assert reasons == {"first graph": 1, "input shape changed": 1}, r
    lines = [l for l in stderr.splitlines() if l.startswith("ltc_mlir: compiling")]
    assert len(lines) == 2, stderr
    assert "input 0 is Float[3, 4], where graph_" in lines[1], lines
