"""pixel_shuffle / pixel_unshuffle on the lazy device (decomposed_kernels.cpp):
torch LTC's own kernel recorded an as_strided_copy of a permuted value and
returned wrong elements (values like 1e23). Ours records view_copy,
permute_copy, view_copy: native, exact, and eager's errors."""
import pytest
import torch
import torch.nn.functional as F

import ltc_mlir
from lazy_testing import assert_all_native, run_both


@pytest.mark.parametrize("shape,r", [((1, 8, 3, 3), 2), ((2, 3, 18, 2, 2), 3), ((4, 3, 3), 1)],
                         ids=["4d", "5d_batch", "factor_1"])
def test_shuffle_and_unshuffle_match_eager(shape, r):
    x = torch.randn(*shape, generator=torch.Generator().manual_seed(0))
    ltc_mlir.reset_metrics()
    eager, lazy = run_both(lambda t: (F.pixel_shuffle(t, r), F.pixel_unshuffle(F.pixel_shuffle(t, r) * 2, r)),
                           x, grad_inputs=(0,))
    for e, l in zip(eager, lazy):
        assert torch.equal(e, l)
    assert_all_native()


@pytest.mark.parametrize("fn", [lambda t: F.pixel_shuffle(t, 3), lambda t: F.pixel_unshuffle(t, 2),
                                lambda t: F.pixel_shuffle(t[0, 0], 2)],
                         ids=["channels", "height", "rank"])
def test_bad_arguments_raise_like_eager(fn):
    x = torch.randn(1, 8, 3, 3)
    with pytest.raises(RuntimeError) as eager:
        fn(x)
    with pytest.raises(RuntimeError) as lazy:
        fn(x.to("lazy"))
    assert str(lazy.value) == str(eager.value)
