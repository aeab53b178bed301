"""Regression tests for batch/group/instance norm on the lazy device: the
reproducers met while lowering them (wrong dtypes or shapes from torch's
lazy shape functions, calls that crash eager) and bad inputs, each in its
own process.
"""
from isolated import run_isolated


def test_instance_norm_without_running_stats_runs_natively():
    # F.instance_norm passes an undefined running_mean; torch's shape
    # function then types save_mean/save_invstd UNKNOWN_SCALAR[0] (2.14 too),
    # and the whole graph fell back to TorchScript.
    r = run_isolated("""
        import torch.nn.functional as F
        torch.manual_seed(0)
        x = torch.randn(2, 3, 4, 5)
        outs = []
        for dev in ("cpu", "lazy"):
            xd = x.to(dev).detach().requires_grad_(True)
            y = F.instance_norm(xd)
            (y * y.detach() ** 2).sum().backward()
            if dev == "lazy":
                torch._lazy.mark_step()
            outs.append((y.detach().cpu(), xd.grad.cpu()))
        m = ltc_mlir.metrics()
        emit({"y": (outs[0][0] - outs[1][0]).abs().max().item(),
              "dx": (outs[0][1] - outs[1][1]).abs().max().item(),
              "reasons": m["fallback_reasons"], "native": m["native_execute_count"]})
    """)
    assert r["reasons"] == [] and r["native"] >= 1, r
    assert r["y"] < 1e-5 and r["dx"] < 1e-4, r


def test_float64_batch_norm_gradients_keep_float64_precision():
    # torch's LTC types grad_weight/grad_bias (and save_mean/save_invstd
    # without running stats) with the default dtype: they were rounded to
    # f32 inside an f64 graph (errors ~1e-7 instead of ~1e-15).
    r = run_isolated("""
        import torch.nn.functional as F
        torch.manual_seed(0)
        x = torch.randn(4, 3, 6, dtype=torch.float64) * 2 + 1
        w = torch.randn(3, dtype=torch.float64)
        b = torch.randn(3, dtype=torch.float64)
        gy = torch.randn(4, 3, 6, dtype=torch.float64)
        res = []
        for dev in ("cpu", "lazy"):
            ts = [t.to(dev).detach().requires_grad_(True) for t in (x, w, b)]
            y = F.batch_norm(ts[0], None, None, ts[1], ts[2], training=True)
            (y * gy.to(dev)).sum().backward()
            if dev == "lazy":
                torch._lazy.mark_step()
            res.append([y.detach().cpu()] + [t.grad.cpu() for t in ts])
        emit({"err": [(e - l).abs().max().item() for e, l in zip(*res)],
              "dtypes": [str(t.dtype) for t in res[1]],
              "reasons": ltc_mlir.metrics()["fallback_reasons"]})
    """)
    assert r["reasons"] == [], r
    assert r["dtypes"] == ["torch.float64"] * 4, r
    assert max(r["err"]) < 1e-12, r


def test_eval_batch_norm_without_running_stats_raises():
    # Eager torch 2.14 segfaults on this call; the lazy device raises.
    r = run_isolated("""
        x = torch.randn(4, 3, 5).to("lazy")
        y = torch.native_batch_norm(x, None, None, None, None, False, 0.1, 1e-5)[0]
        try:
            y.cpu()
            emit({"raised": None})
        except RuntimeError as e:
            # The device stays usable.
            z = (torch.ones(3).to("lazy") * 2).cpu()
            emit({"raised": str(e), "after": z.tolist()})
    """)
    assert r["raised"] and "running_mean and running_var must be given" in r["raised"], r
    assert r["after"] == [2.0, 2.0, 2.0]


def test_bad_batch_norm_arguments_raise_like_eager():
    r = run_isolated("""
        import torch.nn.functional as F
        x = torch.randn(4, 3, 5)
        cases = {
            "weight": lambda d: F.batch_norm(x.to(d), None, None, torch.ones(4).to(d), None, training=True),
            "running": lambda d: F.batch_norm(x.to(d), torch.zeros(5).to(d), torch.ones(5).to(d)),
            "groups": lambda d: F.group_norm(x.to(d), 2),
            "one_value": lambda d: F.batch_norm(torch.randn(1, 3).to(d), None, None, training=True),
        }
        out = {}
        for name, fn in cases.items():
            kinds = []
            for dev in ("cpu", "lazy"):
                try:
                    fn(dev).cpu()
                    kinds.append(None)
                except Exception as e:
                    kinds.append(type(e).__name__)
            out[name] = kinds
        emit(out)
    """)
    for name, (eager, lazy) in r.items():
        assert eager is not None and lazy == eager, (name, eager, lazy)
