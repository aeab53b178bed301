"""Graphs the compiler once failed on (the graph fell back) or miscompiled,
each compared with eager CPU and required to run natively."""
import pytest
import torch

from lazy_testing import assert_all_native, assert_close, run_both


@pytest.mark.parametrize("shape,dims", [((4, 10), None), ((1, 10), None), ((3, 7), None),
                                        ((5, 6, 7), None), ((5, 6, 7), (0, 2)), ((2, 3), (0,))])
def test_sum_of_a_product_with_a_broadcast_operand_compiles(shape, dims):
    # `(logits * weights).sum()`: the broadcast operand met MLIR 22's
    # contraction folding on a unit reduction tile, and the graph failed to
    # compile (tests/lit/Pipelines/unit-reduction-contract.mlir).
    g = torch.Generator().manual_seed(0)
    a, w = torch.randn(shape, generator=g), torch.randn(shape[-1], generator=g)
    fn = (lambda x, y: (x * y).sum()) if dims is None else (lambda x, y: (x * y).sum(dims))
    eager, lazy = run_both(fn, a, w, grad_inputs=(0, 1) if dims is None else ())
    assert_close(eager, lazy, rtol=1e-5, atol=1e-5)
    assert_all_native()
