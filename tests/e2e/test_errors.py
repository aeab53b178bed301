"""Bad input gives a clear Python exception, never an abort or a wrong number."""
import os
import subprocess
import sys
import warnings

import pytest
import torch

import ltc_mlir
from lazy_testing import assert_close, run_both


def test_mm_shape_mismatch_raises_like_eager():
    with pytest.raises(RuntimeError, match="cannot be multiplied") as eager_err:
        torch.mm(torch.randn(2, 3), torch.randn(4, 5))
    with pytest.raises(RuntimeError, match="cannot be multiplied") as lazy_err:
        torch.mm(torch.randn(2, 3).to("lazy"), torch.randn(4, 5).to("lazy"))
        torch._lazy.mark_step()
    assert str(eager_err.value) == str(lazy_err.value)


def test_broadcast_mismatch_raises_like_eager():
    with pytest.raises(RuntimeError, match="must match the size"):
        torch.randn(2, 3).to("lazy") + torch.randn(4, 3).to("lazy")


def test_unsupported_dtype_falls_back_with_its_name():
    z = torch.randn(4, dtype=torch.complex64)
    with warnings.catch_warnings(record=True):
        warnings.simplefilter("always")
        eager, lazy = run_both(lambda t: t * 2 + t, z)
    assert_close(eager, lazy)
    m = ltc_mlir.metrics()
    assert m["fallback_graph_count"] == 1
    assert "ComplexFloat" in " ".join(m["fallback_reasons"]), m["fallback_reasons"]


def test_bad_thread_env_is_a_clear_error():
    code = ("import torch, ltc_mlir; ltc_mlir.init();"
            "x = torch.ones(3).to('lazy') * 2; torch._lazy.mark_step(); print(x.cpu())")
    env = dict(os.environ, LTC_MLIR_NUM_THREADS="zero")
    p = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    assert p.returncode == 1, p.stderr  # a Python exception, not a signal
    assert "LTC_MLIR_NUM_THREADS must be a positive integer" in p.stderr


def test_two_threads_give_the_same_numbers():
    code = ("import torch, ltc_mlir; ltc_mlir.init(); torch.manual_seed(0);"
            "a = torch.randn(256, 300); b = torch.randn(300, 200);"
            "r = (torch.mm(a.to('lazy'), b.to('lazy')).relu() + 1).sum(0);"
            "torch._lazy.mark_step();"
            "e = (torch.mm(a, b).relu() + 1).sum(0);"
            "torch.testing.assert_close(r.cpu(), e, rtol=1e-5, atol=1e-4);"
            "m = ltc_mlir.metrics(); assert m['native_execute_count'] == 1, m; print('ok')")
    env = dict(os.environ, LTC_MLIR_NUM_THREADS="2")
    p = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    assert p.returncode == 0 and "ok" in p.stdout, p.stderr


def test_init_is_idempotent():
    ltc_mlir.init()
    ltc_mlir.init()
    x = torch.ones(2).to("lazy") + 1
    torch._lazy.mark_step()
    assert x.cpu().tolist() == [2.0, 2.0]


def test_init_after_torchscript_backend_init():
    code = ("import torch, torch._lazy.ts_backend; torch._lazy.ts_backend.init();"
            "import ltc_mlir; ltc_mlir.init();"
            "x = torch.ones(3).to('lazy') * 2; torch._lazy.mark_step();"
            "assert x.cpu().tolist() == [2.0, 2.0, 2.0];"
            "assert ltc_mlir.metrics()['execute_count'] == 1; print('ok')")
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert p.returncode == 0 and "ok" in p.stdout, p.stderr
