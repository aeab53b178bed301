"""Real model families trained 3 steps on the lazy device against eager.

Each model runs in its own process (an abort fails only its case) and is
checked twice from one run:
- values: after 3 optimizer steps every parameter and buffer is as close
  to a float64 eager run as eager float32 is (relative L2 error within 3x
  of eager's, or below 2e-2), whatever ran natively. The floor is that
  wide because a few ReLU/ReLU6 inputs per step round to the other side of
  their boundary in any f32 implementation (eager's too, at other elements:
  measured on MobileNetV2), and 3 SGD steps amplify each such flip into
  ~1% differences in some tensors. Bugs show up far above it (untied
  weights: 179%); per-op accuracy is checked tightly in tests/e2e. Comparing with eager f32
  alone cannot tell a bug from the model's own sensitivity: a small BN
  batch or a zero-gradient bias under Adam make eager f32 itself differ
  from f64 by several percent;
- native: every graph execution ran native code and `fallback_ops` is empty.
The native check is a strict xfail, with its reason, for the models whose ops
the compiler does not lower yet: when one starts passing, the xfail fails
and must be removed.
"""
import functools
import os
import sys

import pytest

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from isolated import run_isolated  # noqa: E402

MODELS_DIR = os.path.dirname(os.path.abspath(__file__))

# name -> (model constructor, batch maker, loss, optimizer) as Python source
# evaluated in the child; batches are seeded.
MODELS = {
    "small_cnn": ("zoo.SmallCNN()",
                  "(torch.randn(4, 3, 16, 16, generator=g), torch.randint(0, 10, (4,), generator=g))",
                  "F.cross_entropy(model(x), y)",
                  "torch.optim.SGD(params, lr=0.05, momentum=0.9)"),
    # 4 x 64 x 64, not smaller: with 2 x 32 x 32 the last stage's batch norms
    # see 2 values per channel and eager f32 itself is 9% off float64.
    "resnet18": ("torchvision.models.resnet18(num_classes=10)",
                 "(torch.randn(4, 3, 64, 64, generator=g), torch.randint(0, 10, (4,), generator=g))",
                 "F.cross_entropy(model(x), y)",
                 "torch.optim.SGD(params, lr=0.01, momentum=0.9, weight_decay=1e-4)"),
    # dropout=0.0: native dropout draws its own random masks (tests/e2e/
    # test_dropout.py), which a comparison of values against eager cannot allow.
    "mobilenet_v2": ("torchvision.models.mobilenet_v2(num_classes=10, dropout=0.0)",
                     "(torch.randn(4, 3, 64, 64, generator=g), torch.randint(0, 10, (4,), generator=g))",
                     "F.cross_entropy(model(x), y)",
                     "torch.optim.SGD(params, lr=1e-3, momentum=0.9)"),
    "nanogpt": ("zoo.NanoGPT()",
                "(torch.randint(0, 64, (2, 16), generator=g), torch.randint(0, 64, (2, 16), generator=g))",
                "F.cross_entropy(model(x).view(-1, 64), y.view(-1))",
                "torch.optim.AdamW(params, lr=1e-3, weight_decay=0.1)"),
    "opt_decoder": ("zoo.OPTDecoder()",
                    "(torch.randint(2, 64, (2, 12), generator=g), "
                    "torch.tensor([[1] * 12, [0] * 3 + [1] * 9]))",
                    "F.cross_entropy(model(x, y)[:, :-1].reshape(-1, 64), x[:, 1:].reshape(-1))",
                    "torch.optim.Adam(params, lr=1e-3)"),
    "lstm_tagger": ("zoo.LSTMTagger()",
                    "(torch.randint(0, 50, (3, 7), generator=g), torch.randint(0, 6, (3, 7), generator=g))",
                    "F.cross_entropy(model(x).reshape(-1, 6), y.reshape(-1))",
                    "torch.optim.SGD(params, lr=0.1)"),
    "conv1d": ("zoo.Conv1dNet()",
               "(torch.randn(4, 4, 20, generator=g), torch.randint(0, 5, (4,), generator=g))",
               "F.cross_entropy(model(x), y)",
               "torch.optim.SGD(params, lr=0.05)"),
    # ConvNeXt blocks (7x7 depthwise, LayerNorm over permuted channels, GELU,
    # layer scale): the 192-channel stage runs at 4x4, where the depthwise
    # input gradient failed to compile before.
    "convnext_small_stages": (
        "torchvision.models.ConvNeXt([torchvision.models.convnext.CNBlockConfig(48, 96, 1), "
        "torchvision.models.convnext.CNBlockConfig(96, 192, 1), "
        "torchvision.models.convnext.CNBlockConfig(192, None, 1)], num_classes=10)",
        "(torch.randn(2, 3, 64, 64, generator=g), torch.randint(0, 10, (2,), generator=g))",
        "F.cross_entropy(model(x), y)",
        "torch.optim.AdamW(params, lr=1e-4)"),
    # Swin: shifted windows (roll), relative position bias tables, masks.
    "swin_small": (
        "torchvision.models.SwinTransformer(patch_size=[4, 4], embed_dim=24, depths=[2, 2], "
        "num_heads=[2, 4], window_size=[4, 4], stochastic_depth_prob=0.0, num_classes=10)",
        "(torch.randn(2, 3, 64, 64, generator=g), torch.randint(0, 10, (2,), generator=g))",
        "F.cross_entropy(model(x), y)",
        "torch.optim.AdamW(params, lr=1e-4)"),
}

# Models nobody here wrote: Hugging Face transformers and timm, built from
# their config classes with random weights (nothing is downloaded), dropout
# off (native dropout draws its own masks). Token batches are (ids, labels).
_TOKENS = ("(torch.randint(0, 1000, (2, 16), generator=g), "
           "torch.randint(0, 1000, (2, 16), generator=g))")
_IMAGES = "(torch.randn(2, 3, 64, 64, generator=g), torch.randint(0, 10, (2,), generator=g))"
MODELS.update({
    # 2 layers with opt-125m's widths (vocabulary cut to 1000).
    "hf_opt": ("transformers.OPTForCausalLM(transformers.OPTConfig(hidden_size=768, "
               "num_attention_heads=12, ffn_dim=3072, num_hidden_layers=2, vocab_size=1000, "
               "word_embed_proj_dim=768, max_position_embeddings=64, dropout=0.0, "
               "attention_dropout=0.0, activation_dropout=0.0, layerdrop=0.0))",
               _TOKENS, "model(input_ids=x, labels=y).loss",
               "torch.optim.AdamW(params, lr=1e-4)"),
    "hf_gpt2": ("transformers.GPT2LMHeadModel(transformers.GPT2Config(n_embd=128, n_layer=2, "
                "n_head=4, vocab_size=1000, n_positions=64, resid_pdrop=0.0, embd_pdrop=0.0, "
                "attn_pdrop=0.0))",
                _TOKENS, "model(input_ids=x, labels=y).loss",
                "torch.optim.AdamW(params, lr=1e-3)"),
    "hf_bert": ("transformers.BertForSequenceClassification(transformers.BertConfig("
                "hidden_size=128, num_hidden_layers=2, num_attention_heads=4, "
                "intermediate_size=256, vocab_size=1000, max_position_embeddings=64, "
                "hidden_dropout_prob=0.0, attention_probs_dropout_prob=0.0, num_labels=3))",
                "(torch.randint(0, 1000, (2, 16), generator=g), torch.randint(0, 3, (2,), generator=g))",
                "model(input_ids=x, labels=y).loss",
                "torch.optim.AdamW(params, lr=1e-3)"),
    # RoPE, RMSNorm, SwiGLU, grouped-query attention (4 heads, 2 KV heads).
    "hf_llama": ("transformers.LlamaForCausalLM(transformers.LlamaConfig(hidden_size=128, "
                 "intermediate_size=256, num_hidden_layers=2, num_attention_heads=4, "
                 "num_key_value_heads=2, vocab_size=1000, max_position_embeddings=64))",
                 _TOKENS, "model(input_ids=x, labels=y).loss",
                 "torch.optim.AdamW(params, lr=1e-3)"),
    "timm_resnet18": ("timm.create_model('resnet18', num_classes=10)", _IMAGES,
                      "F.cross_entropy(model(x), y)",
                      "torch.optim.SGD(params, lr=0.01, momentum=0.9)"),
    "timm_vit_tiny": ("timm.create_model('vit_tiny_patch16_224', img_size=64, num_classes=10)",
                      _IMAGES, "F.cross_entropy(model(x), y)",
                      "torch.optim.AdamW(params, lr=1e-4)"),
    "timm_convnext_atto": ("timm.create_model('convnext_atto', num_classes=10)", _IMAGES,
                           "F.cross_entropy(model(x), y)",
                           "torch.optim.AdamW(params, lr=1e-4)"),
    "timm_efficientnet_b0": ("timm.create_model('efficientnet_b0', num_classes=10)", _IMAGES,
                             "F.cross_entropy(model(x), y)",
                             "torch.optim.SGD(params, lr=0.01, momentum=0.9)"),
})

# Models whose graphs still leave native code, and why (issue "Real models
# compile natively"). Remove an entry when the model runs natively.
NOT_NATIVE_YET = {
}

_BODY = """
import copy, sys
sys.path.insert(0, {models_dir!r})
import torch, torchvision
import torch.nn.functional as F
import zoo
{imports}
torch.manual_seed(0)
eager = {ctor}
lazy = copy.deepcopy(eager).to("lazy")
reference = copy.deepcopy(eager).double()
g = torch.Generator().manual_seed(123)
batches = [{batch} for _ in range(3)]
def to(b, dev, dtype):
    return tuple(t.to(dev, dtype) if t.is_floating_point() else t.to(dev) for t in b)
def train(model, device, dtype=torch.float32):
    params = list(model.parameters())
    opt = {opt}
    model.train()
    for b in batches:
        x, y = to(b, device, dtype)
        opt.zero_grad(set_to_none=True)
        loss = {loss}
        loss.backward()
        opt.step()
        if device == "lazy":
            torch._lazy.mark_step()
ltc_mlir.reset_metrics()
train(lazy, "lazy")
m = ltc_mlir.metrics()
train(eager, "cpu")
train(reference, "cpu", torch.float64)
# Per tensor: error of lazy and of eager f32 against float64 (relative L2);
# the worst lazy/allowed ratio is reported.
worst, worst_name, worst_errors = 0.0, "", None
for (name, p), q, r in zip(lazy.state_dict().items(), eager.state_dict().values(),
                           reference.state_dict().values()):
    p = p.detach().cpu().double(); q = q.detach().double(); r = r.detach().double()
    if p.shape != r.shape:
        worst, worst_name = float("inf"), name + " (shape)"
        break
    if not p.numel():
        continue
    # Relative L2 error: one ReLU input that rounds to the other side of 0
    # (it happens to eager and to us, a few elements per model) changes a
    # few gradient entries by a lot, and a max-norm would report that alone.
    # A batch norm's running mean is near 0 (sums that cancel): its error
    # is measured against the spread of the data, sqrt(running_var).
    if name.endswith("running_mean"):
        scale = reference.state_dict()[name[:-len("mean")] + "var"].double().sqrt().norm().item()
    else:
        scale = r.norm().item() + 1e-12
    lazy_err = (p - r).norm().item() / scale
    eager_err = (q - r).norm().item() / scale
    ratio = lazy_err / max(3 * eager_err, 2e-2)
    if ratio > worst:
        worst, worst_name, worst_errors = ratio, name, (lazy_err, eager_err)
emit({{"worst_ratio": worst, "worst_name": worst_name, "worst_errors": worst_errors,
       "fallback_ops": m["fallback_ops"], "fallback_reasons": m["fallback_reasons"][:5],
       "execute_count": m["execute_count"], "native_execute_count": m["native_execute_count"]}})
"""


@functools.lru_cache(maxsize=None)
def train_model(name):
    ctor, batch, loss, opt = MODELS[name]
    imports = ""
    if name.startswith("hf_"):
        imports = "import os; os.environ['HF_HUB_OFFLINE'] = '1'; import transformers"
    elif name.startswith("timm_"):
        imports = "import timm"
    return run_isolated(_BODY.format(models_dir=MODELS_DIR, ctor=ctor, batch=batch,
                                     loss=loss, opt=opt, imports=imports), timeout=900)


# Models whose values are further from float64 than eager f32's, and why
# (issue "Never a wrong number"). Not strict: the size of the gap depends on
# the CPU's vector width (tile shapes change the rounding).
VALUES_LESS_ACCURATE = {
    "mobilenet_v2": "chaotic at this size in f32: one element of the last ReLU6 lands on the "
                    "other side of 0 than in float64 (10233 vs 10232 active elements), which "
                    "alone moves features.18.1.bias's gradient by 5.8e-3 (relative L2) and "
                    "the later steps follow; eager's rounding happens to keep that mask. "
                    "Every block's forward and backward alone is as close to float64 as "
                    "eager's (measured block by block), and in float64 "
                    "lazy equals eager to 1e-13",
    "resnet18": "on an Intel Xeon (AVX-512) with oneDNN's kernels, layer1.0.bn2.bias ends 0.116 "
                "from float64 after 3 steps against eager's 4.7e-6 (on AMD EPYC within the "
                "bound; with the generated kernels, LTC_MLIR_EXTERNAL_GEMM=0, within the bound "
                "on this Xeon too). Each of its convolutions, forward and both backwards, is as "
                "close to float64 as eager's alone (2e-7 to 1e-6 relative L2, measured on the "
                "Xeon), so a rounding difference presumably flips a ReLU or max-pool choice, "
                "as for mobilenet_v2; not yet shown",
    "timm_efficientnet_b0": "f32 rounding amplified by 3 SGD momentum steps: with oneDNN's "
                            "GEMMs and convolutions blocks.1.0.se.conv_reduce.bias ends 2.56e-2 "
                            "from float64 against eager's 0.80e-2 (bound 2.4e-2), with the "
                            "generated kernels (LTC_MLIR_EXTERNAL_GEMM=0) within the bound; "
                            "the SE convolution's forward and backward alone are as close to "
                            "float64 as eager's (1.7e-8 vs 2.3e-8), and in float64 lazy "
                            "computes eager's function (test_in_float64_computes_eagers_function)",
}


def _values_case(name):
    if name in VALUES_LESS_ACCURATE:
        return pytest.param(name, marks=pytest.mark.xfail(strict=False,
                                                          reason=VALUES_LESS_ACCURATE[name]))
    return name


@pytest.mark.parametrize("name", [_values_case(n) for n in sorted(MODELS)])
def test_parameters_match_eager(name):
    r = train_model(name)
    # Over parameters and buffers (BN running stats).
    assert r["worst_ratio"] <= 1.0, (
        f"{r['worst_name']}: lazy is {r['worst_errors'][0]:.3g} from float64, eager f32 "
        f"{r['worst_errors'][1]:.3g} (relative L2)")


def _native_case(name):
    if name in NOT_NATIVE_YET:
        return pytest.param(name, marks=pytest.mark.xfail(strict=True, reason=NOT_NATIVE_YET[name]))
    return name


@pytest.mark.parametrize("name", [_native_case(n) for n in sorted(MODELS)])
def test_every_execution_native(name):
    r = train_model(name)
    assert r["fallback_ops"] == {}, (r["fallback_ops"], r["fallback_reasons"])
    assert r["execute_count"] >= 3
    assert r["native_execute_count"] == r["execute_count"], r


@pytest.mark.parametrize("name", sorted(VALUES_LESS_ACCURATE))
def test_in_float64_computes_eagers_function(name):
    # Separates wrong computations from f32 rounding (VALUES_LESS_ACCURATE):
    # in float64 every gradient that is not analytically zero equals eager's.
    ctor, batch, loss, _ = MODELS[name]
    imports = "import timm" if name.startswith("timm_") else ""
    r = run_isolated(f"""
        import copy, sys
        sys.path.insert(0, {MODELS_DIR!r})
        import torchvision, zoo
        import torch.nn.functional as F
        {imports}
        torch.manual_seed(0)
        eager = {ctor}.double()
        lazy = copy.deepcopy(eager).to("lazy")
        g = torch.Generator().manual_seed(123)
        x, y = {batch}
        x = x.double() if x.is_floating_point() else x
        for model, device in ((eager, "cpu"), (lazy, "lazy")):
            x_, y_ = x.to(device), y.to(device)
            model.train()
            (lambda model, x, y: ({loss}).backward())(model, x_, y_)
        torch._lazy.mark_step()
        worst = 0.0
        for pe, pl in zip(eager.parameters(), lazy.parameters()):
            norm = pe.grad.norm().item()
            if norm > 1e-10:   # BN biases before another BN: zero gradient
                worst = max(worst, (pl.grad.cpu() - pe.grad).norm().item() / norm)
        m = ltc_mlir.metrics()
        emit({{"worst": worst, "native": m["native_execute_count"], "fallback_ops": m["fallback_ops"]}})
    """, timeout=900)
    assert r["worst"] <= 1e-10, r
    assert r["fallback_ops"] == {} and r["native"] >= 1, r
