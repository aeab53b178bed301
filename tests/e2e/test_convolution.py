"""Convolutions on the lazy device vs eager CPU, forward and backward.

LTC records F.conv1d/2d/3d, F.conv_transpose1d/2d/3d and the nn modules as
aten.convolution (transposed or not) and their backward as
aten.convolution_backward, whose output_mask says which of grad_input,
grad_weight and grad_bias are wanted (an input that does not require grad,
no bias). padding="same" with an even kernel adds a constant_pad_nd of the
input (and a cropping one in the backward).

Every case asserts the values (f32: rtol 1e-4 / atol 1e-4, the results are
sums of up to a few hundred products computed in another order than
oneDNN's; f64: 1e-10), that the graph ran as native code with no fallback,
and that the ops appear in the compiled torch-dialect module.
"""
import glob
import os

import pytest
import torch
import torch.nn as nn
import torch.nn.functional as F

import ltc_mlir
from lazy_testing import assert_all_native, assert_close, run_both

g = torch.Generator().manual_seed(2024)

TOL = {torch.float32: dict(rtol=1e-4, atol=1e-4),
       torch.float64: dict(rtol=1e-10, atol=1e-10)}


def rnd(*shape, dtype=torch.float32):
    return torch.randn(*shape, generator=g).to(dtype)


@pytest.fixture
def dumps(tmp_path):
    """Text of the torch-dialect modules compiled during the test."""
    ltc_mlir.reset_metrics()
    ltc_mlir.set_dump_dir(str(tmp_path))
    texts = []
    yield texts
    ltc_mlir.set_dump_dir(None)


def compiled_text(tmp_dir):
    return "\n".join(open(f).read() for f in glob.glob(os.path.join(tmp_dir, "*.torch.mlir")))


def check(eager, lazy, dtype, expected_ops, tmp_path):
    assert_close(eager, lazy, **TOL[dtype])
    m = assert_all_native()
    assert m["compile_count"] >= 1, m
    text = compiled_text(str(tmp_path))
    for op in expected_ops:
        assert f'"torch.aten.{op}"' in text, f"{op} not in the compiled module"


CONV = {1: F.conv1d, 2: F.conv2d, 3: F.conv3d}
CONV_T = {1: F.conv_transpose1d, 2: F.conv_transpose2d, 3: F.conv_transpose3d}

# (dims, N, C_in, C_out, spatial size, kernel, stride, padding, dilation,
#  groups, bias, output_padding (transposed only))
REGULAR = [
    (1, 2, 3, 4, 11, 3, 1, 0, 1, 1, True, 0),
    (1, 2, 4, 6, 13, 5, 2, 2, 1, 2, False, 0),
    (1, 1, 3, 5, 10, 3, 3, 1, 2, 1, True, 0),
    (1, 3, 6, 6, 9, 4, 1, 3, 1, 6, True, 0),     # depthwise
    (1, 2, 4, 8, 12, 1, 1, 0, 1, 1, True, 0),    # 1x1
    (2, 2, 3, 4, 8, 3, 1, 1, 1, 1, True, 0),
    (2, 2, 4, 6, 9, 3, 2, 1, 1, 2, True, 0),
    (2, 1, 3, 2, 7, (2, 3), (1, 2), (0, 1), (2, 1), 1, False, 0),
    (2, 2, 4, 8, 7, 3, 1, 1, 1, 4, True, 0),     # depthwise, multiplier 2
    (2, 2, 4, 4, 10, 3, 2, 0, 1, 4, False, 0),   # depthwise, stride 2
    (2, 3, 5, 3, (6, 9), (3, 1), 1, (2, 0), 1, 1, True, 0),
    (2, 2, 2, 3, 5, 5, 1, 0, 1, 1, True, 0),     # kernel = input
    (2, 2, 3, 4, 6, 3, 1, 4, 2, 1, True, 0),     # padding > kernel span
    (3, 2, 2, 4, 5, 3, 1, 1, 1, 1, True, 0),
    (3, 1, 4, 4, (4, 6, 5), (2, 3, 1), (2, 1, 1), (0, 1, 0), (1, 2, 1), 2, False, 0),
    (3, 2, 3, 3, 5, 3, 2, 1, 1, 3, True, 0),     # depthwise
    # More than 9 taps: im2col is one copy of the padded input.
    (2, 2, 6, 6, 9, 7, 2, 3, 1, 6, True, 0),     # 7x7 depthwise, stride 2 (ConvNeXt-like)
    (2, 2, 3, 4, 11, 5, 1, 4, 2, 1, True, 0),    # 5x5, dilation 2
    (1, 2, 3, 2, 16, 11, 3, 5, 1, 1, False, 0),  # kernel 11, stride 3
    (2, 1, 2, 2, 6, 5, 1, 6, 1, 1, True, 0),     # padding > kernel span (grad: per tap)
    (2, 2, 3, 5, 8, (1, 7), 1, (0, 3), 1, 1, True, 0),  # 1x7 (Inception-style)
]

TRANSPOSED = [
    (1, 2, 3, 4, 7, 3, 1, 0, 1, 1, True, 0),
    (1, 2, 4, 6, 5, 4, 2, 1, 1, 2, False, 1),
    (1, 1, 3, 2, 6, 3, 3, 2, 2, 1, True, 2),
    (1, 2, 4, 4, 8, 3, 2, 1, 1, 4, True, 0),     # depthwise
    (2, 2, 3, 4, 5, 3, 2, 1, 1, 1, True, 1),
    (2, 2, 4, 6, 4, 4, 2, 1, 1, 2, True, 0),     # the DCGAN upsampling
    (2, 1, 2, 3, (3, 5), (2, 3), (1, 2), (0, 1), (2, 1), 1, False, (0, 1)),
    (2, 2, 4, 2, 6, 3, 1, 3, 1, 2, True, 0),     # padding > kernel span: crop
    (2, 2, 6, 6, 5, 3, 3, 0, 2, 3, True, 2),     # output_padding < dilation
    (3, 2, 2, 3, 3, 3, 2, 1, 1, 1, True, 1),
    (3, 1, 4, 2, (2, 3, 3), (1, 2, 3), (2, 1, 2), (0, 0, 1), 1, 2, False, (1, 0, 1)),
    (2, 2, 3, 2, 5, 5, 1, 1, 1, 1, True, 0),     # 5x5, stride 1: one-copy im2col
]


def _tup(v, dims):
    return tuple(v) if isinstance(v, (tuple, list)) else (v,) * dims


def _conv_case(cfg, transposed, dtype=torch.float32):
    dims, n, cin, cout, size, k, s, p, d, groups, bias, op = cfg
    size, k = _tup(size, dims), _tup(k, dims)
    x = rnd(n, cin, *size, dtype=dtype)
    if transposed:
        w = rnd(cin, cout // groups, *k, dtype=dtype) * 0.5
        fn = lambda x, w, *b: CONV_T[dims](x, w, b[0] if b else None, stride=s, padding=p,
                                           output_padding=op, groups=groups, dilation=d)
    else:
        w = rnd(cout, cin // groups, *k, dtype=dtype) * 0.5
        fn = lambda x, w, *b: CONV[dims](x, w, b[0] if b else None, stride=s, padding=p,
                                         dilation=d, groups=groups)
    inputs = [x, w] + ([rnd(cout, dtype=dtype)] if bias else [])
    return fn, inputs


def _id(cfg):
    return "-".join(str(v).replace(" ", "") for v in cfg)


@pytest.mark.parametrize("cfg", REGULAR, ids=_id)
def test_convolution(cfg, dumps, tmp_path):
    fn, inputs = _conv_case(cfg, transposed=False)
    eager, lazy = run_both(fn, *inputs, grad_inputs=tuple(range(len(inputs))))
    check(eager, lazy, torch.float32, ["convolution", "convolution_backward"], tmp_path)


@pytest.mark.parametrize("cfg", TRANSPOSED, ids=_id)
def test_conv_transpose(cfg, dumps, tmp_path):
    fn, inputs = _conv_case(cfg, transposed=True)
    eager, lazy = run_both(fn, *inputs, grad_inputs=tuple(range(len(inputs))))
    check(eager, lazy, torch.float32, ["convolution", "convolution_backward"], tmp_path)


# output_mask subsets: the gradients of the inputs that require grad only.
@pytest.mark.parametrize("transposed", [False, True])
@pytest.mark.parametrize("grads", [(0,), (1,), (2,), (0, 1), (1, 2), (0, 2)])
def test_output_mask(grads, transposed, dumps, tmp_path):
    cfg = (2, 2, 4, 6, 7, 3, 2, 1, 1, 2, True, 1 if transposed else 0)
    fn, inputs = _conv_case(cfg, transposed)
    eager, lazy = run_both(fn, *inputs, grad_inputs=grads)
    check(eager, lazy, torch.float32, ["convolution", "convolution_backward"], tmp_path)


@pytest.mark.parametrize("transposed", [False, True])
@pytest.mark.parametrize("dims", [1, 2, 3])
def test_float64(dims, transposed, dumps, tmp_path):
    cfg = (dims, 2, 4, 4, 5, 3, 2, 1, 1, 2, True, 1 if transposed else 0)
    fn, inputs = _conv_case(cfg, transposed, dtype=torch.float64)
    eager, lazy = run_both(fn, *inputs, grad_inputs=(0, 1, 2))
    check(eager, lazy, torch.float64, ["convolution", "convolution_backward"], tmp_path)


def test_forward_only(dumps, tmp_path):
    fn, inputs = _conv_case((2, 2, 3, 5, 9, 3, 2, 1, 1, 1, True, 0), transposed=False)
    eager, lazy = run_both(fn, *inputs)
    check(eager, lazy, torch.float32, ["convolution"], tmp_path)
    assert '"torch.aten.convolution_backward"' not in compiled_text(str(tmp_path))


# padding="same": odd kernels pad symmetrically in the convolution itself;
# even kernels (or even dilated spans) add a constant_pad_nd of the input.
@pytest.mark.parametrize("dims,k,d", [(1, 4, 1), (1, 3, 2), (2, (2, 3), 1), (2, 4, (1, 2)), (3, 2, 1)])
def test_padding_same(dims, k, d, dumps, tmp_path):
    x = rnd(2, 3, *((7,) * dims))
    w = rnd(4, 3, *_tup(k, dims))
    b = rnd(4)
    fn = lambda x, w, b: CONV[dims](x, w, b, padding="same", dilation=d)
    eager, lazy = run_both(fn, x, w, b, grad_inputs=(0, 1, 2))
    check(eager, lazy, torch.float32, ["convolution", "convolution_backward"], tmp_path)


def test_odd_sizes_and_strides_larger_than_kernel(dumps, tmp_path):
    # Stride 4 > kernel 2 skips input positions (their gradient is 0), and
    # the last rows/cols of a 13x11 input are not read at all.
    x, w, b = rnd(3, 5, 13, 11), rnd(7, 5, 2, 3), rnd(7)
    fn = lambda x, w, b: F.conv2d(x, w, b, stride=(4, 3))
    eager, lazy = run_both(fn, x, w, b, grad_inputs=(0, 1, 2))
    check(eager, lazy, torch.float32, ["convolution", "convolution_backward"], tmp_path)


@pytest.mark.parametrize("channels,size", [(192, 4), (96, 8)])
def test_wide_depthwise_kernel_larger_than_input(channels, size, dumps, tmp_path):
    # ConvNeXt's 7x7 depthwise convolution on a 4x4 map: the input gradient
    # reads the flipped kernel (index oh - kh + 6), which tiling over many
    # channels sliced too small: the graph failed to compile and fell back.
    x, w, b = rnd(2, channels, size, size), rnd(channels, 1, 7, 7), rnd(channels)
    fn = lambda x, w, b: F.conv2d(x, w, b, padding=3, groups=channels)
    eager, lazy = run_both(fn, x, w, b, grad_inputs=(0, 1, 2))
    check(eager, lazy, torch.float32, ["convolution", "convolution_backward"], tmp_path)


def test_non_contiguous_input(dumps, tmp_path):
    x = rnd(2, 8, 6, 3).permute(0, 3, 2, 1)   # [2, 3, 6, 8], channels last-ish
    w = rnd(4, 3, 3, 3)
    fn = lambda x, w: F.conv2d(x, w, padding=1)
    eager, lazy = run_both(fn, x, w, grad_inputs=(0, 1))
    check(eager, lazy, torch.float32, ["convolution", "convolution_backward"], tmp_path)


def test_empty_batch(dumps, tmp_path):
    x, w, b = rnd(0, 3, 6, 6), rnd(4, 3, 3, 3), rnd(4)
    fn = lambda x, w, b: F.conv2d(x, w, b, padding=1) * 1.0
    eager, lazy = run_both(fn, x, w, b)
    check(eager, lazy, torch.float32, ["convolution"], tmp_path)


# The nn modules, trained for one step with SGD in one graph: forward,
# backward and the update.
MODULES = [
    lambda: nn.Conv1d(4, 6, 5, padding=2),
    lambda: nn.Conv1d(4, 8, 3, stride=2, dilation=2, padding=2, groups=2),
    lambda: nn.Conv2d(3, 8, 3, stride=2, padding=1, bias=False),
    lambda: nn.Conv2d(6, 6, 3, padding=1, groups=6),
    lambda: nn.Conv2d(4, 6, 4, padding="same", padding_mode="zeros"),
    lambda: nn.Conv3d(2, 4, 3, padding=(1, 0, 1)),
    lambda: nn.ConvTranspose1d(4, 3, 4, stride=2, padding=1),
    lambda: nn.ConvTranspose2d(6, 4, 3, stride=2, padding=1, output_padding=1, groups=2),
    lambda: nn.ConvTranspose3d(2, 2, 2, stride=2, bias=False),
]


@pytest.mark.parametrize("index", range(len(MODULES)))
def test_module_training_step(index, dumps, tmp_path):
    torch.manual_seed(index)
    eager = MODULES[index]()
    dims = {nn.Conv1d: 1, nn.Conv2d: 2, nn.Conv3d: 3, nn.ConvTranspose1d: 1,
            nn.ConvTranspose2d: 2, nn.ConvTranspose3d: 3}[type(eager)]
    lazy = type(eager)(eager.in_channels, eager.out_channels, eager.kernel_size,
                       stride=eager.stride, padding=eager.padding, dilation=eager.dilation,
                       groups=eager.groups, bias=eager.bias is not None,
                       **({"output_padding": eager.output_padding}
                          if eager.transposed else {}))
    lazy.load_state_dict(eager.state_dict())
    lazy = lazy.to("lazy")
    x = rnd(2, eager.in_channels, *((6,) * dims))
    for model, device in ((eager, "cpu"), (lazy, "lazy")):
        opt = torch.optim.SGD(model.parameters(), lr=0.1)
        y = model(x.to(device))
        (y * y).mean().backward()
        opt.step()
        if device == "lazy":
            torch._lazy.mark_step()
    for (name, p), q in zip(lazy.named_parameters(), eager.parameters()):
        torch.testing.assert_close(p.detach().cpu(), q.detach(), rtol=1e-4, atol=1e-5,
                                   msg=lambda m: f"{name}: {m}")
    m = assert_all_native()
    text = compiled_text(str(tmp_path))
    assert '"torch.aten.convolution"' in text and '"torch.aten.convolution_backward"' in text


# constant_pad_nd (F.pad mode="constant"), also with negative pads (crops).
@pytest.mark.parametrize("shape,pad,value", [
    ((2, 3, 5), (1, 2), 0.0),
    ((2, 3, 5), (2, 0, 1, 1), -1.5),
    ((3, 4, 5), (-1, 2, 0, -2), 0.25),
    ((2, 2, 3, 4), (1, 1, 1, 1, 1, 1), 2.0),
    ((4, 6), (-2, -3), 0.0),
    ((5,), (3, -5), 1.0),        # everything cropped: the value only
])
def test_constant_pad_nd(shape, pad, value, dumps, tmp_path):
    x = rnd(*shape)
    eager, lazy = run_both(lambda x: F.pad(x, pad, value=value), x, grad_inputs=(0,))
    assert_close(eager, lazy, rtol=0, atol=0)
    assert_all_native()
    assert '"torch.aten.constant_pad_nd"' in compiled_text(str(tmp_path))


@pytest.mark.parametrize("dtype,value", [(torch.int64, 7), (torch.int32, -2), (torch.bool, 1),
                                         (torch.float64, 0.5)])
def test_constant_pad_nd_dtypes(dtype, value, dumps, tmp_path):
    x = torch.randint(-5, 5, (3, 4), generator=g).to(dtype)
    eager, lazy = run_both(lambda x: F.pad(x, (1, 2, 2, 0), value=value), x)
    assert_close(eager, lazy, rtol=0, atol=0)
    assert_all_native()
    assert '"torch.aten.constant_pad_nd"' in compiled_text(str(tmp_path))


INT_CASES = [  # (dims, transposed, kwargs)
    (2, False, dict(stride=2, padding=1)),
    (1, False, dict(dilation=2)),
    (3, False, dict(padding=1)),
    (2, False, dict(groups=2)),
    (2, True, dict(stride=2, output_padding=1)),
]


@pytest.mark.parametrize("dtype", [torch.int64, torch.int32, torch.int16, torch.int8, torch.uint8])
@pytest.mark.parametrize("case", range(len(INT_CASES)), ids=lambda i: str(INT_CASES[i]))
def test_integer_convolution(dtype, case, dumps, tmp_path):
    """ATen's CPU kernels convolve integers (transposed or dilated: int64
    only, other integers raise, on the lazy device too), accumulating in the element type; the lowering does the same, so the
    results are equal, wrap-around included (uint8/int8 overflow here)."""
    dims, transposed, kw = INT_CASES[case]
    x = torch.randint(0, 6, (2, 4) + (5,) * dims, generator=g).to(dtype)
    w = torch.randint(0, 6, ((4, 3) if transposed else (6, 2 if kw.get("groups") else 4)) + (3,) * dims,
                      generator=g).to(dtype)
    b = torch.randint(0, 6, (6 if not transposed else 3,), generator=g).to(dtype)
    fn = CONV_T[dims] if transposed else CONV[dims]
    if (transposed or kw.get("dilation", 1) != 1) and dtype != torch.int64:
        with pytest.raises(RuntimeError, match="not implemented for") as eager_error:
            fn(x, w, b, **kw)
        with pytest.raises(RuntimeError, match="not implemented for") as lazy_error:
            fn(x.to("lazy"), w.to("lazy"), b.to("lazy"), **kw).cpu()
        assert str(lazy_error.value).splitlines()[0] == str(eager_error.value).splitlines()[0]
        return
    eager, lazy = run_both(lambda a, c, d: fn(a, c, d, **kw), x, w, b)
    assert torch.equal(eager[0], lazy[0]), (eager[0] - lazy[0]).abs().max()
    m = assert_all_native()
    assert m["native_ops"].get("aten::convolution", 0) >= 1, m["native_ops"]
    assert '"torch.aten.convolution"' in compiled_text(str(tmp_path))


@pytest.mark.parametrize("dtypes", [(torch.bool, torch.bool), (torch.uint8, torch.int8)])
def test_bool_and_mixed_integer_convolution_raise_eagers_error(dtypes):
    # bool is stored as i8 in the lowering, uint8 and int8 as one i8: the
    # torch dtypes decide, so these keep eager's kernel and its error.
    x = torch.ones(1, 2, 5, 5, dtype=dtypes[0])
    w = torch.ones(2, 2, 3, 3, dtype=dtypes[1])
    with pytest.raises(RuntimeError) as eager:
        F.conv2d(x, w)
    with pytest.raises(RuntimeError) as lazy:
        F.conv2d(x.to("lazy"), w.to("lazy")).cpu()
    assert str(lazy.value).splitlines()[0] == str(eager.value).splitlines()[0]
