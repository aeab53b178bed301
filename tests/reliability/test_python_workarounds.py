"""The Python workarounds of python/ltc_mlir/ on torch 2.14
(docs/torch_workarounds.md lists each with its guarding test): every case
here fails with its workaround disabled, except the legacy constructors',
which checks that Tensor.new / new_tensor need none. Each case runs in its own
process (a pipeline thread outlives a failed test)."""
import textwrap

import pytest

from isolated import run_isolated

HELPERS = """
import torch.nn as nn
import torch.nn.functional as F

def close(eager, lazy, rtol, atol, what="value"):
    torch.testing.assert_close(lazy.detach().cpu(), eager.detach().cpu(), rtol=rtol, atol=atol,
                               msg=lambda m: f"{what}: {m}")

def native_only():
    m = ltc_mlir.metrics()
    return m["fallback_ops"] == {} and m["fallback_graph_count"] == 0 \\
        and m["native_execute_count"] >= 1
"""


def run(body, **kw):
    return run_isolated(HELPERS + textwrap.dedent(body), **kw)


# --- Tensor._reduce_ex_internal (_tensor_fixes.py) ---------------------------

PICKLED = {  # built on `dev`
    "float32": "torch.randn(3, 4, generator=g).to(dev)",
    "bfloat16": "torch.randn(3, 4, generator=g).bfloat16().to(dev)",
    "complex64": "torch.randn(5, dtype=torch.complex64, generator=g).to(dev)",
    "bool": "torch.tensor([[True, False], [False, True]]).to(dev)",
    "int64_zero_dim": "torch.tensor(-7).to(dev)",
    "empty": "torch.randn(0, 3).to(dev)",
    "lazy_transposed_view": "torch.arange(12.).view(3, 4).to(dev).t()",
    "pending_requires_grad": "(torch.randn(2, 3, generator=g).to(dev) * 3).requires_grad_()",
}


@pytest.mark.parametrize("name", sorted(PICKLED))
def test_pickle_and_torch_save_keep_values_dtype_and_device(name):
    # torch 2.14 alone: "Attempted to access the data pointer on an invalid
    # python storage" (a lazy tensor has no storage).
    r = run(f"""
        import io, pickle
        made = []
        for dev in ("cpu", "lazy"):
            g = torch.Generator().manual_seed(0)
            made.append({PICKLED[name]})
        eager, x = made
        out = {{}}
        for fmt in ("pickle", "zip_weights_only", "zip", "legacy"):
            if fmt == "pickle":
                loaded = pickle.loads(pickle.dumps(x))
            else:
                buf = io.BytesIO()
                torch.save(x, buf, _use_new_zipfile_serialization=(fmt != "legacy"))
                buf.seek(0)
                loaded = torch.load(buf, weights_only=(fmt != "zip"))
            close(eager, loaded, rtol=0, atol=0, what=fmt)
            out[fmt] = [str(loaded.device), loaded.dtype == eager.dtype,
                        loaded.shape == eager.shape,
                        loaded.requires_grad == eager.requires_grad, loaded.is_leaf]
        emit(out)
    """)
    assert r == {fmt: ["lazy:0", True, True, True, True]
                 for fmt in ("pickle", "zip_weights_only", "zip", "legacy")}, r


# --- storage(), is_shared(), share_memory_() (_tensor_fixes.py) --------------

@pytest.mark.parametrize("method", ["storage", "is_shared", "share_memory_"])
def test_storage_methods_raise_a_clear_error(method):
    # torch 2.14 alone: storage() returns a TypedStorage over an invalid
    # storage, is_shared() answers True, share_memory_() does nothing.
    r = run(f"""
        import warnings
        warnings.simplefilter("ignore")  # TypedStorage is deprecated
        cpu = torch.randn(3)
        x = cpu.to("lazy")
        emit([raised(lambda: x.{method}()), raised(lambda: cpu.{method}())])
    """)
    assert r[0] == ["RuntimeError", "Lazy tensors have no storage: their values live in the "
                    "lazy graph and the backend's buffers. Copy to the host with .cpu() "
                    "first."], r
    assert r[1] is None, r  # CPU tensors keep torch's behaviour


# --- Tensor.new / new_tensor: no workaround needed ---------------------------

def test_legacy_constructors_follow_torchs_rules_on_lazy():
    # torch 2.14's legacy constructors work on lazy tensors, new() and
    # x.new(lazy tensor) included, as on the CPU.
    r = run("""
        out = {}
        for device in ("cpu", "lazy"):
            x = torch.randn(3, dtype=torch.float64).to(device)
            a = x.new_tensor([1, 2], requires_grad=True)
            (a * 3).sum().backward()
            b = x.new(torch.tensor([1.5, 2.5], dtype=torch.float64).to(device))
            c = x.new(2, 3)
            d = x.new_tensor([1, 2], dtype=torch.long)
            out[device] = [[t.device.type == device, str(t.dtype), list(t.shape)]
                           for t in (a, b, c, d)] + \\
                [a.is_leaf, a.grad.cpu().tolist(), b.cpu().tolist(), d.cpu().tolist()]
        emit(out)
    """)
    assert r["lazy"] == r["cpu"], r
    assert r["cpu"][0] == [True, "torch.float64", [2]], r


# --- nn.Module._apply (_module_fixes.py) --------------------------------------

def test_tied_parameters_and_buffers_stay_tied_and_train_like_eager():
    # torch 2.14 alone: model.to("lazy") gives each module its own copy of a
    # tied weight (a CPU and a lazy tensor cannot swap .data), and each copy
    # learns from half the gradient.
    r = run("""
        class TiedLM(nn.Module):
            def __init__(self):
                super().__init__()
                self.wte = nn.Embedding(11, 8)
                self.lm_head = nn.Linear(8, 11, bias=False)
                self.wte.weight = self.lm_head.weight
                self.register_buffer("scale", torch.full((8,), 0.5))
                self.inner = nn.Module()
                self.inner.register_buffer("scale", self.scale)
            def forward(self, idx):
                return self.lm_head(torch.tanh(self.wte(idx) * self.inner.scale))
        torch.manual_seed(0)
        eager = TiedLM()
        lazy = TiedLM()
        lazy.load_state_dict(eager.state_dict())
        lazy = lazy.to("lazy")
        tied = [lazy.wte.weight is lazy.lm_head.weight, lazy.scale is lazy.inner.scale,
                len(list(lazy.parameters()))]
        idx = torch.randint(0, 11, (4, 5), generator=torch.Generator().manual_seed(1))
        for model, device in ((eager, "cpu"), (lazy, "lazy")):
            opt = torch.optim.SGD(model.parameters(), lr=0.5)
            for _ in range(3):
                opt.zero_grad()
                F.cross_entropy(model(idx.to(device)).flatten(0, 1), idx.flatten().to(device)).backward()
                opt.step()
                if device == "lazy":
                    torch._lazy.mark_step()
        close(eager.lm_head.weight, lazy.lm_head.weight, rtol=1e-5, atol=1e-6, what="lm_head")
        close(eager.wte.weight, lazy.wte.weight, rtol=1e-5, atol=1e-6, what="wte")
        emit({"tied": tied, "native": native_only()})
    """)
    assert r == {"tied": [True, True, 1], "native": True}, r


# --- Tensor.contiguous (__init__.py) ------------------------------------------

def test_contiguous_of_a_transpose_is_a_copy_like_eager():
    # torch 2.14 alone: lazy tensors answer is_contiguous() True for x.t(),
    # so x.t().contiguous() returned the view and writing into it changed x.
    r = run("""
        out = []
        for device in ("cpu", "lazy"):
            x = torch.arange(12.).view(3, 4).to(device)
            y = x.t().contiguous()
            y.add_(100)
            out.append([x.cpu(), y.cpu()])
        close(out[0][0], out[1][0], rtol=0, atol=0, what="base")
        close(out[0][1], out[1][1], rtol=0, atol=0, what="result")
        emit(native_only())
    """)
    assert r is True


# --- torch._lazy.mark_step (__init__.py) ---------------------------------------

def test_mark_step_raises_the_error_of_its_graph():
    # torch 2.14 alone: the failed graph's error stays pending (a glog
    # warning "an earlier graph failed and its error was not raised").
    r = run("""
        loss = F.cross_entropy(torch.randn(4, 5).to("lazy"), torch.tensor([0, 9, 1, 2]).to("lazy"))
        emit([raised(torch._lazy.mark_step), raised(torch._lazy.mark_step)])
    """)
    assert r[0][0] == "IndexError" and "out of bounds" in r[0][1], r
    assert r[1] is None, r  # raised once


def test_mark_step_turns_backend_warnings_into_python_warnings():
    # torch 2.14 alone: _mark_step installs no warning handler, so the
    # backend's TORCH_WARN while compiling went to stderr only.
    r = run("""
        import warnings
        ltc_mlir.set_disabled_ops(["aten::frac"])
        x = torch.randn(5)
        y = torch.frac(x.to("lazy") * 3) + 1
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            torch._lazy.mark_step()
        close(torch.frac(x * 3) + 1, y, rtol=1e-6, atol=1e-6)
        emit([str(w.message) for w in caught])
    """)
    assert any("graph runs partly natively" in m and "aten::frac" in m for m in r), r


# A pipelined graph that runs for a while (~24 matmuls of 384x384) before
# its target check fails: the target depends on the matmuls, so the check
# cannot run first, and the mark_step that queues it returns before it fails.
SLOW_FAILING_STEP = """
ltc_mlir.set_pipelined(True)
a = torch.randn(384, 384, generator=torch.Generator().manual_seed(0)).div(20).to("lazy")
def slow_failing_loss():
    h = a
    for _ in range(24):
        h = torch.tanh(h @ a)
    return F.cross_entropy(h[:6, :10], h[:6].argmax(1) % 4 + 10)  # targets 10..13 of 10
"""


def test_mark_step_wait_true_waits_for_the_pipelined_graph():
    # torch 2.14 alone: mark_step(wait=True) does not wait for the graph on
    # the pipeline thread, so its error is not raised by it.
    r = run(SLOW_FAILING_STEP + textwrap.dedent("""
        loss = slow_failing_loss()
        emit([raised(lambda: torch._lazy.mark_step(wait=True)),
              raised(torch._lazy.wait_device_ops)])
    """))
    assert r[0] and r[0][0] == "IndexError" and "out of bounds" in r[0][1], r
    assert r[1] is None, r


# --- torch._lazy.wait_device_ops (__init__.py) ---------------------------------

def test_wait_device_ops_raises_the_error_of_a_pipelined_graph():
    # torch 2.14 alone: wait_device_ops neither waits for the pipeline
    # thread nor raises the error of a graph that failed there.
    r = run(SLOW_FAILING_STEP + textwrap.dedent("""
        loss = slow_failing_loss()
        syncs = [raised(torch._lazy.mark_step), raised(torch._lazy.wait_device_ops),
                 raised(torch._lazy.wait_device_ops)]
        emit(syncs)
    """))
    errors = [e for e in r[:2] if e]
    assert len(errors) == 1 and errors[0][0] == "IndexError", r  # by the time it returns
    assert r[2] is None, r  # once
