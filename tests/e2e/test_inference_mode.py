"""torch.inference_mode() on the lazy device
(ltc_backend/lazy_kernels/inference_mode_views.cpp): views of normal lazy
tensors are normal tensors, as in eager, so models run in inference mode
(torch 2.14's TorchScript backend raises "Cannot set version_counter for
inference tensor" at the first view of a weight); results match eager CPU
and compile natively, and training goes on afterwards."""
import copy

import pytest
import torch
import torch._lazy.metrics
import torchvision

import ltc_mlir
from lazy_testing import assert_all_native, eager_fallback_ops


def models():
    torch.manual_seed(0)
    return {
        "mlp": (torch.nn.Sequential(torch.nn.Linear(6, 16), torch.nn.GELU(),
                                    torch.nn.Linear(16, 3)), (5, 6)),
        "cnn": (torch.nn.Sequential(torch.nn.Conv2d(3, 8, 3, padding=1), torch.nn.BatchNorm2d(8),
                                    torch.nn.ReLU(), torch.nn.MaxPool2d(2), torch.nn.Flatten(),
                                    torch.nn.Linear(8 * 4 * 4, 4)), (2, 3, 8, 8)),
        "encoder": (torch.nn.TransformerEncoderLayer(16, 4, 32, dropout=0.0, batch_first=True),
                    (2, 5, 16)),
        "lstm": (torch.nn.LSTM(6, 8, batch_first=True), (3, 4, 6)),
        "resnet18": (torchvision.models.resnet18(num_classes=5), (1, 3, 32, 32)),
    }


@pytest.mark.parametrize("name", ["mlp", "cnn", "encoder", "lstm", "resnet18"])
def test_model_in_inference_mode_matches_eager(name):
    model, shape = models()[name]
    model.eval()
    x = torch.randn(*shape, generator=torch.Generator().manual_seed(1))
    with torch.inference_mode():
        eager = model(x)
    eager = eager[0] if isinstance(eager, tuple) else eager
    lazy_model = copy.deepcopy(model).to("lazy")
    ltc_mlir.reset_metrics()
    torch._lazy.metrics.reset()
    with torch.inference_mode():
        lazy = lazy_model(x.to("lazy"))
        lazy = lazy[0] if isinstance(lazy, tuple) else lazy
        assert lazy.is_inference()
        torch._lazy.mark_step()
        lazy = lazy.cpu()
    torch.testing.assert_close(lazy, eager, rtol=1e-4, atol=1e-5)
    assert eager_fallback_ops() == []
    assert_all_native()


VIEWS = {
    "t": lambda w: w.t(),
    "view": lambda w: w.view(-1),
    "index": lambda w: w[1],
    "slice": lambda w: w[:, 1:],
    "split": lambda w: w.split(2, 1)[1],
    "unbind": lambda w: w.unbind(0)[0],
    "chunk": lambda w: w.chunk(2, 0)[1],
    "expand": lambda w: w[None].expand(2, 3, 4),
    "permute": lambda w: w.permute(1, 0),
    "detach": lambda w: w.detach(),
    "diagonal": lambda w: w.diagonal(),
}


@pytest.mark.parametrize("name", sorted(VIEWS))
@pytest.mark.parametrize("base_is_inference", [False, True])
def test_views_are_inference_tensors_exactly_when_eager_says(name, base_is_inference):
    w = torch.randn(3, 4, generator=torch.Generator().manual_seed(2))
    results = {}
    for device in ("cpu", "lazy"):
        base = w.to(device)
        with torch.inference_mode():
            if base_is_inference:
                base = base * 1
            view = VIEWS[name](base)
            results[device] = (view.is_inference(), view.cpu())
    assert results["lazy"][0] == results["cpu"][0]
    torch.testing.assert_close(results["lazy"][1], results["cpu"][1], rtol=0, atol=0)


def test_in_place_on_a_normal_tensor_then_training_goes_on():
    def run(device):
        torch.manual_seed(0)
        model = torch.nn.Linear(4, 2).to(device)
        x = torch.randn(3, 4, generator=torch.Generator().manual_seed(3)).to(device)
        before = model.weight._version
        with torch.inference_mode():
            model.weight.mul_(0.5)  # a normal tensor: allowed, version bumped
            evaluated = model(x)
        version = model.weight._version - before
        opt = torch.optim.SGD(model.parameters(), lr=0.1)
        for _ in range(2):
            opt.zero_grad()
            model(x).pow(2).sum().backward()
            opt.step()
            if device == "lazy":
                torch._lazy.mark_step()
        return version, [evaluated.cpu()] + [p.detach().cpu() for p in model.parameters()]

    eager_version, eager = run("cpu")
    ltc_mlir.reset_metrics()
    torch._lazy.metrics.reset()
    lazy_version, lazy = run("lazy")
    assert lazy_version == eager_version
    for e, l in zip(eager, lazy):
        torch.testing.assert_close(l, e, rtol=1e-5, atol=1e-6)
    assert_all_native()


def test_inference_tensor_in_autograd_is_eagers_error():
    for device in ("cpu", "lazy"):
        with torch.inference_mode():
            made = torch.ones(2, 3).to(device) * 2
        weight = torch.ones(3, device=device, requires_grad=True)
        with pytest.raises(RuntimeError, match="Inference tensors cannot be saved for backward"):
            (made * weight).sum().backward()
