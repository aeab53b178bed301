"""Never a hang, never a silent divergence: a rank that skips a collective
or dies makes the others raise within the group's timeout, and with
LTC_MLIR_DEBUG=1 ranks whose graphs run different collectives raise,
naming the graph."""
from dist_testing import run_ranks


def test_a_skipped_collective_raises_within_the_timeout(tmp_path):
    r0 = run_ranks("skip_collective", 2, tmp_path, timeout=120)[0]
    assert r0.returncode == 0 and r0.result, repr(r0)
    assert r0.result["raised"] == "RuntimeError", r0.result
    assert "ltc_mlir: graph graph_" in r0.result["message"], r0.result
    assert "all_reduce" in r0.result["message"], r0.result
    assert r0.result["seconds"] < 30, r0.result


def test_a_dead_rank_makes_the_others_raise(tmp_path):
    r0 = run_ranks("killed_rank", 2, tmp_path, timeout=120)[0]
    assert r0.returncode == 0 and r0.result, repr(r0)
    assert r0.result["raised"] == "RuntimeError", r0.result
    assert "all_reduce" in r0.result["message"], r0.result
    assert r0.result["seconds"] < 30, r0.result


def test_debug_mode_names_the_graph_whose_collectives_differ(tmp_path):
    results = run_ranks("mismatch", 2, tmp_path, env={"LTC_MLIR_DEBUG": "1"}, timeout=120)
    for r in results:
        assert r.returncode == 0 and r.result, repr(r)
        assert r.result["raised"] == "RuntimeError", r.result
        message = r.result["message"]
        assert "runs different collectives" in message and "graph_" in message, message
        assert "all_reduce group 0 reduce_op" in message, message


def test_export_refuses_collectives(tmp_path):
    r = run_ranks("export_refused", 1, tmp_path, args=(tmp_path / "export",))[0]
    assert r.returncode == 0 and r.result, repr(r)
    assert r.result["raised"] == "ExportError", r.result
    assert "ltc_mlir::collective" in r.result["message"], r.result
    assert "cannot be exported" in r.result["message"], r.result
    out = tmp_path / "export"
    assert not out.exists() or not list(out.iterdir())
