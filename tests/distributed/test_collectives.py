"""torch.distributed collectives on lazy tensors are graph nodes: their
results equal the same collectives on CPU tensors, the whole set runs as
one native graph, and unsupported collectives raise. Ranks run in
subprocesses (dist_testing.py)."""
import pytest

from dist_testing import check_all_ok, run_ranks


def expected(world, rank):
    xs = [[float(i + 10 * r) for i in range(6)] for r in range(world)]
    total = [sum(col) for col in zip(*xs)]
    prod = [1.0] * 6
    for x in xs:
        prod = [a * b for a, b in zip(prod, x)]
    rs = [sum(float(i + r) for r in range(world)) for i in range(2 * rank, 2 * rank + 2)]
    return {
        "sum": total, "avg": [v / world for v in total],
        "max": [max(col) for col in zip(*xs)], "product": prod, "broadcast": xs[1],
        "all_gather": sum(xs, []), "all_gather_into_tensor": sum(xs, []),
        "reduce_scatter_tensor": rs,
        "int64_sum": [sum(i + r for r in range(world)) for i in range(4)],
        "view_base": xs[rank][:3] + total[3:], "async": total,
        "funcol": [2 * v for v in total], "funcol_gather": sum(xs, []),
    }


@pytest.mark.parametrize("world", [2, 4])
def test_collectives_match_cpu_in_one_native_graph(tmp_path, world):
    results = check_all_ok(run_ranks("collectives", world, tmp_path))
    for rank, r in enumerate(results):
        want = expected(world, rank)
        assert set(r["lazy"]) == set(want)
        for name, values in want.items():
            assert r["cpu"][name] == pytest.approx(values, rel=1e-6), (rank, name, "cpu")
            assert r["lazy"][name] == pytest.approx(values, rel=1e-6), (rank, name)
        m = r["metrics"]
        assert m["execute_count"] == 1 and m["native_execute_count"] == 1, m
        assert m["fallback_ops"] == {}, m
        assert m["collective_calls"] == {"all_reduce": 8, "broadcast": 1, "all_gather": 3,
                                         "reduce_scatter": 1}, m
        for name, message in r["errors"].items():
            assert "not supported on lazy tensors" in message and "t.cpu()" in message, \
                (name, message)


def test_each_process_group_has_its_own_graph(tmp_path):
    for r in check_all_ok(run_ranks("groups", 2, tmp_path)):
        assert r["values"] == [[3.0] * 3] * 4, r
        assert r["compiles"] == [1, 2, 2, 2], r


def test_a_graph_that_falls_back_still_communicates(tmp_path):
    for r in check_all_ok(run_ranks("fallback_graph", 2, tmp_path)):
        relu_sum = [0.0, 2.0 * 3, 3.0 * 3]
        assert r["value"] == [2 * v for v in relu_sum], r
        assert "aten::relu" in r["fallback_ops"], r


def test_functionalized_cpu_collectives_keep_their_result(tmp_path):
    for r in check_all_ok(run_ranks("functionalized_cpu", 2, tmp_path)):
        assert r["value"] == [3.0, 3.0, 3.0], r
