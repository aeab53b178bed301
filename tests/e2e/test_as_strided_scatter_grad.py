"""as_strided_scatter's gradients on the lazy device are the exact ones.

torch's formula for self's gradient (as_strided_scatter_backward) returns
the incoming gradient only at the scattered locations (zeros elsewhere on
torch 2.14), the reverse of the right answer, so eager CPU is not the
reference here. The reference is the same function built from a
flat index_put (whose gradients are right): grad with the scattered
locations zeroed for self, the scattered locations of grad for src.
"""
import pytest
import torch

import ltc_mlir
from lazy_testing import assert_all_native, assert_close

CASES = [  # self shape, size, stride, storage_offset
    ((3, 3), (2, 2), (1, 2), 0),
    ((3, 3), (2, 2), (1, 2), 1),
    ((16,), (2, 2, 2, 2), (1, 1, 1, 1), 0),  # overlapping: duplicates of one location
    ((4, 5), (3, 2), (5, 1), 2),
    ((1,), (1,), (1,), 0),
    ((2, 3, 4), (2, 4), (12, 1), None),
]


def reference(self, src, size, stride, offset):
    """as_strided_scatter as an index_put on the flat self (its gradients
    are right). Overlapping locations keep one write, as eager's loop."""
    flat_index = torch.as_strided(torch.arange(self.numel()), size, stride, offset or 0)
    out = self.reshape(-1).index_put((flat_index.reshape(-1),), src.reshape(-1))
    return out.view(self.shape)


@pytest.mark.parametrize("shape,size,stride,offset", CASES)
def test_gradients_of_self_and_src(shape, size, stride, offset):
    g = torch.Generator().manual_seed(7)
    x = torch.randn(shape, generator=g)
    src = torch.randn(size, generator=g)
    cot = torch.randn(shape, generator=g)
    overlapping = len(set(torch.as_strided(torch.arange(x.numel()), size, stride,
                                           offset or 0).reshape(-1).tolist())) < src.numel()

    xe, se = x.clone().requires_grad_(), src.clone().requires_grad_()
    out_e = reference(xe, se, size, stride, offset)
    out_e.backward(cot)

    ltc_mlir.reset_metrics()
    xl, sl = x.to("lazy").requires_grad_(), src.to("lazy").requires_grad_()
    out_l = torch.as_strided_scatter(xl, sl, size, stride, offset)
    out_l.backward(cot.to("lazy"))
    torch._lazy.mark_step()
    assert_close([xe.grad], [xl.grad.cpu()], rtol=0, atol=0)
    if overlapping:
        # Every copy of a location gets its gradient (autograd of as_strided).
        expected_src = torch.as_strided(cot.reshape(-1), size, stride, offset or 0)
        assert_close([expected_src], [sl.grad.cpu()], rtol=0, atol=0)
    else:
        assert_close([out_e.detach(), se.grad], [out_l.cpu(), sl.grad.cpu()], rtol=0, atol=0)
    assert_all_native()


def test_no_grad_path_unchanged():
    x, src = torch.randn(3, 3), torch.randn(2, 2)
    expected = torch.as_strided_scatter(x, src, (2, 2), (1, 2), 1)
    ltc_mlir.reset_metrics()
    got = torch.as_strided_scatter(x.to("lazy"), src.to("lazy"), (2, 2), (1, 2), 1)
    torch._lazy.mark_step()
    assert_close([expected], [got.cpu()], rtol=0, atol=0)
    assert_all_native()
