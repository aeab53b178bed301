"""Large f32 contractions call the runtime GEMM (oneDNN's sgemm, one call per
output block; mlir_lowering/lib/Pipelines/ExternalGemm.cpp), and f32 2-D
convolutions oneDNN's convolution primitives (runtime/convolution.h; more
cases in test_external_convolution.py).

Every case compares with eager CPU (f32: rtol/atol 1e-4, sums of up to ~1000
products in another order), asserts the graph ran natively, and asserts from
the dumped LLVM-dialect module whether the call was used. Bitwise equality
across thread counts and the generated-kernel path
(LTC_MLIR_EXTERNAL_GEMM=0) run in child processes.
"""
import os

import pytest
import torch
import torch.nn.functional as F

import ltc_mlir
from isolated import run_isolated
from lazy_testing import assert_all_native, assert_close

g = torch.Generator().manual_seed(11)
TOL = dict(rtol=1e-4, atol=1e-4)


def rnd(*shape):
    return torch.randn(*shape, generator=g)


def lazy(*tensors):
    return [t.to("lazy") for t in tensors]


CASES = {
    "mm": (lambda a, b: a @ b, lambda: (rnd(96, 200), rnd(200, 160))),
    "mm_a_transposed": (lambda a, b: a.t() @ b, lambda: (rnd(200, 96), rnd(200, 160))),
    "mm_b_transposed": (lambda a, b: a @ b.t(), lambda: (rnd(96, 200), rnd(160, 200))),
    "mm_result_transposed": (lambda a, b: (a @ b).t() * 2, lambda: (rnd(96, 200), rnd(200, 160))),
    "mm_of_slices": (lambda a, b: a[:, 8:200] @ b[::2], lambda: (rnd(96, 208), rnd(384, 130))),
    "bmm": (lambda a, b: torch.bmm(a, b), lambda: (rnd(6, 64, 72), rnd(6, 72, 80))),
    "bmm_transposed": (lambda a, b: a @ b.transpose(1, 2), lambda: (rnd(4, 64, 48), rnd(4, 96, 48))),
    "matmul_broadcast": (lambda a, b: a @ b, lambda: (rnd(3, 40, 128), rnd(128, 96))),
    "addmm": (lambda a, b: torch.addmm(b[0], a, b, beta=0.5, alpha=2.0),
              lambda: (rnd(64, 128), rnd(128, 128))),
    "linear_relu": (lambda a, w: F.linear(a, w, w[:, 0]).relu(), lambda: (rnd(64, 784), rnd(256, 784))),
    "conv2d": (lambda x, w: F.conv2d(x, w, padding=1), lambda: (rnd(4, 32, 16, 16), rnd(48, 32, 3, 3))),
    "conv2d_strided": (lambda x, w: F.conv2d(x, w, stride=2), lambda: (rnd(2, 16, 33, 33), rnd(64, 16, 5, 5))),
}
GEMM_CALL = "llvm.call @ltc_mlir_rt_sgemm"
CONV_CALL = "llvm.call @_mlir_ciface_ltc_mlir_rt_conv2d_forward_f32"


@pytest.mark.parametrize("name", sorted(CASES))
def test_large_f32_products_call_the_runtime_gemm(name, llvm_text):
    fn, make = CASES[name]
    inputs = make()
    expected = fn(*inputs)
    got = fn(*lazy(*inputs))
    torch._lazy.mark_step()
    assert_close(expected, got.cpu(), **TOL)
    assert_all_native()
    assert (CONV_CALL if name.startswith("conv") else GEMM_CALL) in llvm_text()


def test_training_step_gradients_through_the_runtime_gemm(llvm_text):
    # Forward and both backward products of a conv + linear model.
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Conv2d(16, 32, 3, padding=1), torch.nn.ReLU(),
                                torch.nn.Flatten(), torch.nn.Linear(32 * 12 * 12, 64))
    x, target = rnd(8, 16, 12, 12), rnd(8, 64)
    eager = [p.detach().clone() for p in model.parameters()]
    F.mse_loss(model(x), target).backward()
    expected = [p.grad.clone() for p in model.parameters()]
    model.zero_grad(set_to_none=True)
    model.to("lazy")
    F.mse_loss(model(x.to("lazy")), target.to("lazy")).backward()
    torch._lazy.mark_step()
    for p, e, before in zip(model.parameters(), expected, eager):
        assert_close(e, p.grad.cpu(), rtol=1e-4, atol=1e-5)
        assert torch.equal(p.detach().cpu(), before)
    assert_all_native()
    # The linear layer's product and both gradients; the convolution and its
    # weight gradient (x needs none).
    text = llvm_text()
    assert text.count(GEMM_CALL) >= 3
    assert CONV_CALL in text
    assert "llvm.call @_mlir_ciface_ltc_mlir_rt_conv2d_backward_weights_f32" in text


def test_small_and_non_f32_products_stay_generated(llvm_text):
    a, b = rnd(16, 16), rnd(16, 16)
    c, d = rnd(128, 128).double(), rnd(128, 128).double()
    got = [a.to("lazy") @ b.to("lazy"), c.to("lazy") @ d.to("lazy")]
    torch._lazy.mark_step()
    assert_close(a @ b, got[0].cpu(), **TOL)
    assert_close(c @ d, got[1].cpu(), rtol=1e-10, atol=1e-10)
    assert_all_native()
    assert "ltc_mlir_rt_sgemm" not in llvm_text()


PRODUCTS = """
    import glob, tempfile
    dump = tempfile.mkdtemp()
    ltc_mlir.set_dump_dir(dump)
    g = torch.Generator().manual_seed(5)
    a, b = torch.randn(300, 384, generator=g), torch.randn(384, 520, generator=g)
    x, w = torch.randn(4, 24, 20, 20, generator=g), torch.randn(40, 24, 3, 3, generator=g)
    mm = (a.to("lazy") @ b.to("lazy")).cpu()
    conv = torch.nn.functional.conv2d(x.to("lazy"), w.to("lazy"), padding=1).cpu()
    m = ltc_mlir.metrics()
    emit({"mm": mm.flatten().view(torch.int32).tolist()[::97],
          "conv": conv.flatten().view(torch.int32).tolist()[::97],
          "mm_err": float((mm - a @ b).abs().max()),
          "conv_err": float((conv - torch.nn.functional.conv2d(x, w, padding=1)).abs().max()),
          "native": m["fallback_graph_count"] == 0 and m["native_execute_count"] >= 2,
          "calls": sum(open(f).read().count("llvm.call @ltc_mlir_rt_sgemm")
                       + open(f).read().count("llvm.call @_mlir_ciface_ltc_mlir_rt_conv2d")
                       for f in glob.glob(dump + "/*.llvm.mlir"))})
"""


def test_results_do_not_depend_on_the_thread_count():
    # The GEMM blocks are fixed at compile time and each runs on one
    # thread; oneDNN's forward convolution splits only its outputs.
    one = run_isolated(PRODUCTS, env={"LTC_MLIR_NUM_THREADS": "1", "LTC_MLIR_CACHE_DIR": ""})
    two = run_isolated(PRODUCTS, env={"LTC_MLIR_NUM_THREADS": "2", "LTC_MLIR_CACHE_DIR": ""})
    assert one["native"] and two["native"]
    assert one["calls"] >= 2 and two["calls"] >= 2
    assert one["mm"] == two["mm"]
    assert one["conv"] == two["conv"]


def test_generated_kernels_when_disabled():
    # LTC_MLIR_EXTERNAL_GEMM=0 keeps the generated matmul and im2col
    # convolution kernels; both paths agree with eager.
    off = run_isolated(PRODUCTS, env={"LTC_MLIR_EXTERNAL_GEMM": "0", "LTC_MLIR_CACHE_DIR": ""})
    on = run_isolated(PRODUCTS, env={"LTC_MLIR_CACHE_DIR": ""})
    assert off["calls"] == 0 and on["calls"] >= 2
    for r in (off, on):
        assert r["native"]
        assert r["mm_err"] < 1e-3 and r["conv_err"] < 1e-3, r
