"""f32 1-D and 2-D convolutions and both their gradients call oneDNN's
convolution primitives through the runtime (runtime/convolution.h,
mlir_lowering/lib/Conversion/TorchToLinalg/ExternalConvolution.cpp).

Each case compares the output and the input, weight and bias gradients with
eager CPU (rtol/atol 1e-4: oneDNN on both sides, but sliced differently on
2 threads), asserts the graph ran natively and, from the dumped LLVM-dialect
module, that the runtime was called. The thread counts and the im2col path
(LTC_MLIR_EXTERNAL_GEMM=0) run in child processes.
"""
import copy

import pytest
import torch
import torch.nn.functional as F

import ltc_mlir
from isolated import run_isolated
from lazy_testing import assert_all_native, assert_close

TOL = dict(rtol=1e-4, atol=1e-4)
FORWARD = "llvm.call @_mlir_ciface_ltc_mlir_rt_conv2d_forward_f32"
BACKWARD_DATA = "llvm.call @_mlir_ciface_ltc_mlir_rt_conv2d_backward_data_f32"
BACKWARD_WEIGHTS = "llvm.call @_mlir_ciface_ltc_mlir_rt_conv2d_backward_weights_f32"


# (input shape, out channels, kernel, stride, padding, dilation, groups, bias)
CASES = {
    "resnet_stem": ((2, 3, 32, 32), 16, 7, 2, 3, 1, 1, True),
    "3x3": ((4, 16, 12, 12), 32, 3, 1, 1, 1, 1, False),
    "3x3_stride2": ((2, 32, 9, 9), 48, 3, 2, 1, 1, 1, False),
    "1x1_stride2": ((2, 32, 8, 8), 64, 1, 2, 0, 1, 1, False),
    "one_image": ((1, 48, 16, 16), 64, 3, 1, 1, 1, 1, True),
    "depthwise": ((2, 32, 10, 10), 32, 3, 1, 1, 1, 32, True),
    "groups_dilation": ((2, 16, 11, 9), 24, (2, 3), (1, 2), (0, 1), (2, 1), 4, False),
    "conv1d": ((3, 8, 30), 12, 5, 2, 2, 3, 2, True),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_convolution_and_gradients_match_eager(name, llvm_text):
    shape, out, k, s, p, d, g, has_bias = CASES[name]
    conv = F.conv1d if len(shape) == 3 else F.conv2d
    ks = (k,) * (len(shape) - 2) if isinstance(k, int) else k
    gen = torch.Generator().manual_seed(3)
    x = torch.randn(*shape, generator=gen)
    w = torch.randn(out, shape[1] // g, *ks, generator=gen) * 0.2
    b = torch.randn(out, generator=gen) if has_bias else None

    def run(device):
        leaves = [t.to(device).requires_grad_() for t in (x, w) + ((b,) if has_bias else ())]
        y = conv(leaves[0], leaves[1], leaves[2] if has_bias else None, s, p, d, g)
        grads = torch.autograd.grad((y * y).sum(), leaves)
        return [y] + list(grads)

    expected = run("cpu")
    got = run("lazy")
    torch._lazy.mark_step()
    for e, a in zip(expected, got):
        # Gradients sum up to a few thousand products: the error scales
        # with the largest of them.
        assert_close(e, a.cpu(), rtol=1e-4, atol=1e-5 * max(1.0, float(e.abs().max())))
    assert_all_native()
    text = llvm_text()
    for call in (FORWARD, BACKWARD_DATA, BACKWARD_WEIGHTS):
        assert call in text, call


def test_non_contiguous_input(llvm_text):
    # A channels-last tensor seen as NCHW: the runtime reads any strides.
    gen = torch.Generator().manual_seed(4)
    x = torch.randn(2, 10, 10, 16, generator=gen)
    w = torch.randn(24, 16, 3, 3, generator=gen)
    expected = F.conv2d(x.permute(0, 3, 1, 2), w, padding=1)
    got = F.conv2d(x.to("lazy").permute(0, 3, 1, 2), w.to("lazy"), padding=1)
    torch._lazy.mark_step()
    assert_close(expected, got.cpu(), **TOL)
    assert_all_native()
    assert FORWARD in llvm_text()


def test_input_shared_with_a_residual_keeps_its_values():
    # The max-pool output feeds the first convolution of a residual block
    # and the block's sum: its forward and weight-gradient convolutions both
    # read it. Merging their reads let the in-place residual sum overwrite
    # it first (the weight gradient of layer1.0.conv1 was wrong in ResNet).
    from torchvision.models.resnet import BasicBlock
    torch.manual_seed(0)
    model = torch.nn.Sequential(
        torch.nn.Conv2d(3, 16, 7, 2, 3, bias=False), torch.nn.BatchNorm2d(16),
        torch.nn.ReLU(), torch.nn.MaxPool2d(3, 2, 1), BasicBlock(16, 16)).eval()
    x = torch.randn(2, 3, 32, 32)
    lazy_model = copy.deepcopy(model).to("lazy")
    ltc_mlir.reset_metrics()
    model(x).sum().backward()
    lazy_model(x.to("lazy")).sum().backward()
    torch._lazy.mark_step()
    for (name, p), q in zip(model.named_parameters(), lazy_model.parameters()):
        torch.testing.assert_close(q.grad.cpu(), p.grad, rtol=1e-4, atol=1e-4,
                                   msg=lambda m, name=name: f"{name}: {m}")
    assert_all_native()


CHILD = """
    import glob, tempfile
    import torch.nn.functional as F
    dump = tempfile.mkdtemp()
    ltc_mlir.set_dump_dir(dump)
    g = torch.Generator().manual_seed(5)
    out = {}
    for name, (shape, groups) in {"batch": ((4, 32, 14, 14), 1), "one_image": ((1, 64, 14, 14), 1),
                                  "depthwise": ((1, 64, 30, 30), 64)}.items():
        x = torch.randn(*shape, generator=g)
        w = torch.randn(64, shape[1] // groups, 3, 3, generator=g) * 0.1
        gy = torch.randn(shape[0], 64, shape[2], shape[3], generator=g)
        xe, we = x.clone().requires_grad_(), w.clone().requires_grad_()
        ye = F.conv2d(xe, we, padding=1, groups=groups)
        ye.backward(gy)
        xl, wl = x.to("lazy").requires_grad_(), w.to("lazy").requires_grad_()
        yl = F.conv2d(xl, wl, padding=1, groups=groups)
        yl.backward(gy.to("lazy"))
        torch._lazy.mark_step()
        out[name] = max(float(((a.cpu() - e).abs().max() / e.abs().max()))
                        for a, e in ((yl, ye), (xl.grad, xe.grad), (wl.grad, we.grad)))
    m = ltc_mlir.metrics()
    out["native"] = m["fallback_graph_count"] == 0 and m["native_execute_count"] >= 3
    out["calls"] = sum(open(f).read().count("llvm.call @_mlir_ciface_ltc_mlir_rt_conv2d")
                       for f in glob.glob(dump + "/*.llvm.mlir"))
    emit(out)
"""


@pytest.mark.parametrize("env", [{"LTC_MLIR_NUM_THREADS": "1"}, {"LTC_MLIR_NUM_THREADS": "2"},
                                 {"LTC_MLIR_EXTERNAL_GEMM": "0"}],
                         ids=["1_thread", "2_threads", "im2col"])
def test_thread_counts_and_the_im2col_path(env):
    # 2 threads cut each call into batch, channel or group slices.
    r = run_isolated(CHILD, env=dict(env, LTC_MLIR_CACHE_DIR=""))
    assert r["native"], r
    if env.get("LTC_MLIR_EXTERNAL_GEMM") == "0":
        assert r["calls"] == 0, r
    else:
        assert r["calls"] >= 9, r
    for name in ("batch", "one_image", "depthwise"):
        assert r[name] < 1e-5, (name, r)
