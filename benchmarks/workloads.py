"""The workloads of the benchmark suite (benchmarks/suite.py).

Each workload builds its model, inputs and optimizer on a device with fixed
seeds and returns a `step()` that runs one training step (forward, loss,
backward, optimizer step) or one inference forward, and returns the tensors
the step produces. The runner (benchmarks/runner.py) adds the mark_step and
the wait on the lazy device, and times each step.

With backend="inductor" or "ltc_mlir" (the suite's "inductor" and
"compiled" modes, device "cpu") the step is compiled as a torch 2.x user
compiles it: `torch.compile(model, backend=...)` (AOTAutograd compiles its
backward too) and a `torch.compile`d function calling `opt.step()` (the
PyTorch tutorial "Compiling the optimizer"); zero_grad and backward() stay
Python calls.
"""
import os
import sys

import torch
import torch.nn.functional as F

_REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(_REPO, "tests", "models"))
import zoo  # noqa: E402


def _generator():
    return torch.Generator().manual_seed(1)


def _train_step(model, opt, loss_fn, inputs, backend=None):
    """A training step: zero_grad(set_to_none=True) (torch 2.14's default),
    forward, loss, backward, optimizer step. backend: the model and the
    optimizer step compiled with torch.compile(backend=backend)."""
    model.train()
    forward, opt_step = model, opt.step
    if backend:
        forward = torch.compile(model, backend=backend)

        @torch.compile(backend=backend)
        def opt_step():
            opt.step()

    def step():
        opt.zero_grad(set_to_none=True)
        loss = loss_fn(forward, *inputs)
        loss.backward()
        opt_step()
        return loss
    return step


def _classifier_loss(model, x, y):
    return F.cross_entropy(model(x), y)


def _images(batch, size, classes, device):
    g = _generator()
    x = torch.randn(batch, 3, size, size, generator=g)
    y = torch.randint(0, classes, (batch,), generator=g)
    return x.to(device), y.to(device)


def mlp_train(device, backend=None):
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(784, 512), torch.nn.ReLU(),
                                torch.nn.Linear(512, 512), torch.nn.ReLU(),
                                torch.nn.Linear(512, 10)).to(device)
    g = _generator()
    x = torch.randn(64, 784, generator=g).to(device)
    y = torch.randint(0, 10, (64,), generator=g).to(device)
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    return _train_step(model, opt, _classifier_loss, (x, y), backend)


def small_cnn_train(device, backend=None):
    torch.manual_seed(0)
    model = zoo.SmallCNN()
    # zoo.SmallCNN's head expects 16x16 images; at 32x32 the features are 8x8.
    model.head = torch.nn.Linear(16 * 8 * 8, 10)
    model = model.to(device)
    opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    return _train_step(model, opt, _classifier_loss, _images(16, 32, 10, device), backend)


def _torchvision_train(ctor, device, backend):
    torch.manual_seed(0)
    model = ctor(num_classes=10).to(device)
    opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9, weight_decay=1e-4)
    return _train_step(model, opt, _classifier_loss, _images(8, 64, 10, device), backend)


def resnet18_train(device, backend=None):
    import torchvision
    return _torchvision_train(torchvision.models.resnet18, device, backend)


def mobilenet_v2_train(device, backend=None):
    import torchvision
    return _torchvision_train(torchvision.models.mobilenet_v2, device, backend)


NANOGPT = dict(vocab=256, dim=128, heads=4, block=64, layers=2)
NANOGPT_BATCH = 8


def nanogpt_train(device, backend=None):
    torch.manual_seed(0)
    cfg = NANOGPT
    model = zoo.NanoGPT(**cfg).to(device)
    g = _generator()
    idx = torch.randint(0, cfg["vocab"], (NANOGPT_BATCH, cfg["block"]), generator=g)
    tgt = torch.randint(0, cfg["vocab"], (NANOGPT_BATCH, cfg["block"]), generator=g)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3, weight_decay=0.1)

    def loss_fn(m, x, y):
        return F.cross_entropy(m(x).view(-1, cfg["vocab"]), y.view(-1))
    return _train_step(model, opt, loss_fn, (idx.to(device), tgt.to(device)), backend)


# GPT-2 small's shape (transformers' GPT2Config defaults: vocab 50257, 1024
# positions, dropout 0.1, the default attention implementation, sdpa) with
# 2 of its 12 layers.
GPT2 = dict(n_embd=768, n_head=12, n_layer=2)
GPT2_BATCH, GPT2_SEQ = 2, 128


def gpt2_train(device, backend=None):
    # Built from its config with random weights: nothing is downloaded.
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    from transformers import GPT2Config, GPT2LMHeadModel
    from transformers.utils import logging as hf_logging
    hf_logging.set_verbosity_error()
    torch.manual_seed(0)
    config = GPT2Config(**GPT2)
    model = GPT2LMHeadModel(config).to(device)
    ids = torch.randint(0, config.vocab_size, (GPT2_BATCH, GPT2_SEQ), generator=_generator())
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4, weight_decay=0.1)

    def loss_fn(m, input_ids):
        # Language modelling: the model shifts the labels (next token).
        return m(input_ids=input_ids, labels=input_ids).loss
    return _train_step(model, opt, loss_fn, (ids.to(device),), backend)


def resnet18_infer(device, backend=None):
    import torchvision
    torch.manual_seed(0)
    model = torchvision.models.resnet18().eval().to(device)
    x = torch.randn(1, 3, 224, 224, generator=_generator()).to(device)
    forward = torch.compile(model, backend=backend) if backend else model

    def step():
        with torch.no_grad():
            return forward(x)
    return step


# name -> (builder, description)
WORKLOADS = {
    "mlp": (mlp_train, "MLP 784-512-512-10 train, batch 64, SGD"),
    "small_cnn": (small_cnn_train,
                  "zoo.SmallCNN (2x conv+BN+ReLU+maxpool) train, batch 16, 32x32, SGD momentum"),
    "resnet18": (resnet18_train, "torchvision ResNet-18 train, batch 8, 64x64, SGD momentum"),
    "mobilenet_v2": (mobilenet_v2_train,
                     "torchvision MobileNetV2 train, batch 8, 64x64, SGD momentum"),
    "nanogpt": (nanogpt_train,
                f"zoo.NanoGPT {NANOGPT} train, batch {NANOGPT_BATCH}, AdamW"),
    "gpt2": (gpt2_train,
             f"transformers GPT2LMHeadModel, GPT-2 small's shape (768 dim, 12 heads, vocab "
             f"50257) with {GPT2['n_layer']} layers, random weights, train, batch {GPT2_BATCH} "
             f"x {GPT2_SEQ} tokens, LM loss, AdamW"),
    "resnet18_infer": (resnet18_infer,
                       "torchvision ResNet-18 inference, batch 1, 224x224, eval + no_grad"),
}
