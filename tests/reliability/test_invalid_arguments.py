"""Arguments eager rejects that torch's lazy shape functions do not survive
(a convolution with stride 0: SIGFPE; repeat with fewer repeats than dims:
a "Check failed" error, not eager's) or do not check (a kernel larger than
the padded input gives an empty result; clone ignores a channels-last
format of the wrong rank). tril of a vector is covered too (torch 2.14
already raises eager's error at the call). The device guard's argument
checks (ltc_backend/lazy_kernels/argument_checks.cpp) raise eager's own
error; valid arguments still compile natively. Each case runs in its own process."""
import os
import sys

import pytest

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from isolated import run_isolated  # noqa: E402

INVALID = {
    "repeat_fewer_dims": "x.repeat(2)",
    "conv1d_stride_0": "F.conv1d(x[None], torch.randn(2, 3, 5).to(d), stride=0)",
    "conv2d_dilation_0": "F.conv2d(x[None, None], torch.randn(1, 1, 2, 2).to(d), dilation=0)",
    "conv2d_negative_padding": "F.conv2d(x[None, None], torch.randn(1, 1, 2, 2).to(d), padding=-1)",
    "conv2d_kernel_too_big": "F.conv2d(torch.randn(1, 3, 2, 2).to(d), torch.randn(4, 3, 3, 3).to(d))",
    "convolution_weight_rank": "torch.convolution(x[None], torch.randn(1, 3, 2, 2).to(d), None, [1], [0], [1], False, [0], 1)",
    "conv_transpose_output_padding": "F.conv_transpose1d(x[None], torch.randn(3, 2, 2).to(d), output_padding=3)",
    "conv2d_groups_0": "torch.convolution(x[None, None], torch.randn(1, 1, 2, 2).to(d), None, [1], [0], [1], False, [0], 0)",
    "tril_of_a_vector": "x[0].tril()",
    "triu_of_a_vector": "x[0].triu(1)",
    "clone_channels_last_rank_2": "x.clone(memory_format=torch.channels_last)",
    "clone_channels_last_3d_rank_4": "x[None, None].clone(memory_format=torch.channels_last_3d)",
}


@pytest.mark.parametrize("name", sorted(INVALID))
def test_invalid_arguments_raise_eagers_error(name):
    r = run_isolated(f"""
        import torch.nn.functional as F
        def call(d):
            x = torch.randn(3, 4).to(d)
            try:
                {INVALID[name]}.cpu()
            except (RuntimeError, IndexError) as e:
                return type(e).__name__ + ": " + str(e).splitlines()[0]
            return None
        emit({{"eager": call("cpu"), "lazy": call("lazy")}})
    """)
    assert r["eager"] is not None, r
    assert r["lazy"] == r["eager"], r


def test_valid_neighbours_still_run_natively():
    r = run_isolated("""
        import torch.nn.functional as F
        g = torch.Generator().manual_seed(0)
        x = torch.randn(2, 3, 6, 6, generator=g)
        w = torch.randn(4, 3, 3, 3, generator=g)
        wt = torch.randn(3, 2, 2, 2, generator=g)
        cases = [
            lambda d: F.conv2d(x.to(d), w.to(d), padding=1, stride=2),
            lambda d: F.conv2d(x[:, :, :2, :2].to(d), w.to(d), padding=1),  # kernel fits once padded
            lambda d: F.conv_transpose2d(x.to(d), wt.to(d), stride=2, output_padding=1),
            lambda d: x.to(d).repeat(2, 1, 1, 1, 2),
            lambda d: x.to(d).tril(-1) + x.to(d).triu(1),
            lambda d: x.to(d).clone(memory_format=torch.channels_last) * 2,
        ]
        ltc_mlir.reset_metrics()
        diffs = [(c("lazy").cpu() - c("cpu")).abs().max().item() for c in cases]
        m = ltc_mlir.metrics()
        emit({"diffs": diffs, "fallback": m["fallback_ops"], "native": m["native_execute_count"],
              "executions": m["execute_count"]})
    """)
    assert max(r["diffs"]) < 1e-4, r
    assert r["fallback"] == {} and r["native"] == r["executions"] >= 4, r
