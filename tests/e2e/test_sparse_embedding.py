"""nn.Embedding / nn.EmbeddingBag with sparse=True on the lazy device
(ltc_backend/lazy_kernels/sparse_embedding_grad.cpp). Eager's backward
builds a sparse COO gradient; lazy tensors are dense, and torch 2.14 fails
inside backward() ("Could not run 'aten::_sparse_coo_tensor_with_dims_and_
tensors' with arguments from the 'SparseLazy' backend"). The lazy gradient
is dense with the same values: optimizers that accept dense gradients give
eager's weights, the step compiles natively, and a warning says so."""
import os
import sys

import pytest
import torch
import torch._lazy
import torch._lazy.metrics
import torch.nn as nn

import ltc_mlir

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from isolated import run_isolated  # noqa: E402
from lazy_testing import eager_then_lazy  # noqa: E402


def _train(device, optimizer):
    torch.manual_seed(0)
    emb = nn.Embedding(10, 3, sparse=True, padding_idx=0)
    bag = nn.EmbeddingBag(10, 3, mode="mean", sparse=True)
    emb, bag = emb.to(device), bag.to(device)
    params = list(emb.parameters()) + list(bag.parameters())
    opt = optimizer(params)
    grads = []
    for step in range(3):
        ids = torch.tensor([[1, 2, 2], [0, 7, step]])
        loss = emb(ids.to(device)).pow(2).sum() + bag(ids.to(device)).pow(2).sum()
        opt.zero_grad()
        loss.backward()
        grads.append(emb.weight.grad.to_dense().cpu() if emb.weight.grad.is_sparse
                     else emb.weight.grad.cpu())
        opt.step()
        if device == "lazy":
            torch._lazy.mark_step()
    return emb.weight.detach().cpu(), bag.weight.detach().cpu(), grads, emb.weight.grad.layout


OPTIMIZERS = {
    "sgd_momentum": lambda p: torch.optim.SGD(p, lr=0.3, momentum=0.9),
    "adagrad": lambda p: torch.optim.Adagrad(p, lr=0.3),
    "sgd": lambda p: torch.optim.SGD(p, lr=0.3),
}


@pytest.mark.parametrize("name", sorted(OPTIMIZERS))
def test_sparse_embedding_trains_like_eager(name):
    eager, lazy = eager_then_lazy(lambda device: _train(device, OPTIMIZERS[name]))
    for e, l in zip(eager[:2], lazy[:2]):
        torch.testing.assert_close(l, e, rtol=1e-5, atol=1e-6)
    for e, l in zip(eager[2], lazy[2]):
        torch.testing.assert_close(l, e, rtol=1e-5, atol=1e-6)
    assert eager[3] == torch.sparse_coo and lazy[3] == torch.strided
    m = ltc_mlir.metrics()
    assert m["fallback_ops"] == {}, m["fallback_reasons"]
    assert m["native_execute_count"] == m["execute_count"] >= 3, m


@pytest.mark.parametrize("module", ["nn.Embedding(10, 3, sparse=True)",
                                    "nn.EmbeddingBag(10, 3, sparse=True)"])
def test_dense_gradient_is_announced_once(module):
    """A fresh process: the warning is a once-per-process one."""
    r = run_isolated(f"""
        import warnings
        import torch.nn as nn
        m = {module}.to("lazy")
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            for _ in range(2):
                m(torch.tensor([[1, 2]]).to("lazy")).sum().backward()
        emit([str(w.message) for w in caught if "sparse=True" in str(w.message)])
    """)
    assert len(r) == 1 and "computed as a dense tensor" in r[0], r
