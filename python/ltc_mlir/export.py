"""ltc_mlir.export: a model (or one training step) as a standalone MLIR program.

    ltc_mlir.export(model, (x,), "out", name="mlp")
    ltc_mlir.export(model, (x,), "out", optimizer=opt, loss_fn=F.mse_loss,
                    example_targets=(y,), name="mlp", aot=True)
    python -m ltc_mlir.export my_models:make_mlp --input 3x4 --out out --name mlp

The call is traced on the lazy device as a training loop would be (the same
capture the JIT compiles), on a lazy twin of the model's state: the model,
its optimizer and their tensors are left as they were. Files written to
`path` (a directory), all or none:

  <name>.mlir          upstream dialects only; state in ml_program globals
                       initialised with dense_resource<global>, no bytes
  <name>.weights.mlir  the blobs as a dialect_resources block
                       (`cat <name>.mlir <name>.weights.mlir | mlir-opt-22 ...`)
  <name>.safetensors   the same blobs under the same keys
  <name>.json          manifest: globals (PyTorch name, dtype, shape, state
                       or not), entry points and their signatures, runtime
                       functions the module calls, runtime-check messages
  <name>.h, <name>_abi.c, <name>_driver.c
                       the C ABI (<name>_init, <name>_forward,
                       <name>_train_step, ...) and an example program
  with aot=True: <name>.so (the ABI over natively compiled code) and
                 <name>_driver
See docs/export.md."""
import argparse
import contextlib
import gc
import importlib
import json
import os
import shutil
import sys
import tempfile
import traceback
import types

import torch
import torch._lazy
from torch.utils import _pytree as pytree

from . import _C
from . import _export_aot
from . import _export_files as files

FORMAT = "ltc_mlir.export/1"
# Portable modules: the number of the first failed runtime check (Export.h).
CHECK_GLOBAL = "ltc_mlir_failed_check"


class ExportError(RuntimeError):
    """The model cannot be exported as asked; the message says why and how to
    fix it. Nothing was written."""


# ---------------------------------------------------------------------------
# State: the tensors that become globals.

class _StateTensor:
    def __init__(self, torch_name, symbol, kind, host, lazy):
        self.torch_name, self.symbol, self.kind = torch_name, symbol, kind
        self.host = host      # the value written to the weight files
        self.lazy = lazy      # its twin the trace reads and updates
        self.data_id = 0


def _lazy_twin(t, requires_grad=False):
    """A lazy tensor with t's value (a copy: see docs/export.md, Measured)."""
    twin = t.detach().to("lazy")
    return twin.requires_grad_(requires_grad) if requires_grad else twin


def _optimizer_twin(optimizer, param_names, lazy_params, state, symbols):
    """The same optimizer class and hyperparameters over the lazy twins, with
    the optimizer's state (moved to lazy) as state tensors."""
    groups = []
    for group in optimizer.param_groups:
        params = []
        for p in group["params"]:
            if id(p) not in param_names:
                raise ExportError("ltc_mlir.export: the optimizer updates a tensor that is not a "
                                  "parameter of the model; build it from model.parameters()")
            params.append(lazy_params[param_names[id(p)]])
        groups.append({**{k: v for k, v in group.items() if k != "params"}, "params": params})
    if not isinstance(optimizer, torch.optim.SGD):
        raise ExportError(
            f"ltc_mlir.export: {type(optimizer).__name__} cannot be exported yet: its step count "
            "lives on the CPU and would be baked into the program as a constant. Use "
            "torch.optim.SGD (momentum, nesterov, weight_decay and dampening=0 are supported)")
    twin = type(optimizer)(groups)
    for group, twin_group in zip(optimizer.param_groups, twin.param_groups):
        for p, lp in zip(group["params"], twin_group["params"]):
            pname = param_names[id(p)]
            values = dict(optimizer.state.get(p, {}))
            if group.get("momentum", 0) and "momentum_buffer" not in values:
                # SGD's first step takes the gradient as the buffer; a zero
                # buffer gives the same step when dampening is 0, and one
                # program then serves every step.
                if group.get("dampening", 0):
                    raise ExportError(
                        "ltc_mlir.export: SGD with dampening != 0 and no momentum buffer yet: its "
                        "first step differs from the others. Take one eager step first, or use "
                        "dampening=0")
                values["momentum_buffer"] = torch.zeros_like(p, device="cpu")
            twin_state = {}
            for key, value in values.items():
                if not isinstance(value, torch.Tensor):
                    twin_state[key] = value
                    continue
                host = value.detach().to("cpu")
                lazy = _lazy_twin(host)
                name = f"{pname}.{key}"
                state.append(_StateTensor(name, files.c_identifier("opt." + name, symbols),
                                          "optimizer_state", host, lazy))
                twin_state[key] = lazy
            twin.state[lp] = twin_state
    return twin


@contextlib.contextmanager
def _transformers_tracing():
    """Hugging Face models skip their data-dependent checks (a packed-sequence
    test on position_ids, mask shortcuts) when transformers' is_tracing()
    says a graph is being traced, as under torch.export; so does export here.
    Each module that imported the function gets the replacement for the
    trace."""
    original = getattr(sys.modules.get("transformers.utils.import_utils"), "is_tracing", None)
    if original is None:
        yield
        return
    patched = []
    for module in list(sys.modules.values()):
        if getattr(module, "__name__", "").startswith("transformers") and \
                getattr(module, "is_tracing", None) is original:
            module.is_tracing = lambda tensor=None: True
            patched.append(module)
    try:
        yield
    finally:
        for module in patched:
            module.is_tracing = original


@contextlib.contextmanager
def _modes(module, training):
    """module.train(training) for the trace; the modes restored after."""
    saved = [(m, m.training) for m in module.modules()]
    module.train(training)
    try:
        yield
    finally:
        for m, mode in saved:
            m.training = mode


# ---------------------------------------------------------------------------
# Capture

def _trace_metrics():
    m = _C._metrics()
    return dict(m["fallback_ops"]), m["execute_count"]


def _drop_pending_values(state):
    """The twins' new values were captured, never to run: empty data in
    their place, so that no later mark_step runs the traced step (the
    functionalization layer keeps references the Python side cannot drop)."""
    empty = torch.empty(0).to("lazy")
    with torch.no_grad():
        for s in state:
            s.lazy.data = empty.to(s.lazy.dtype)


def _check_trace(before, what):
    """The trace since `before` (_trace_metrics()) ran nothing: no op outside
    compiled code, no graph (a data-dependent op or a read of a value syncs
    one, and its result would be baked into the program)."""
    fallback, executed = _trace_metrics()
    ran = sorted(op for op, n in fallback.items() if n > before[0].get(op, 0))
    if ran:
        raise ExportError(
            f"ltc_mlir.export: {what} runs ops outside compiled code ({', '.join(ran)}): an "
            "exported program has no PyTorch to run them. Replace them with supported ops "
            "(ltc_mlir.metrics()['fallback_reasons'] says why each fell back), or export the "
            "part of the model before or after them")
    if executed != before[1]:
        raise ExportError(
            f"ltc_mlir.export: {what} needed a tensor's value while tracing (an op whose output "
            "shape depends on the data, such as nonzero, unique, masked_select or boolean "
            "indexing, or .item(), .tolist() or Python control flow on a tensor): the result "
            "would be fixed in the exported program. Make the computation static (torch.where "
            "instead of boolean indexing, shapes from the inputs' sizes)")


def _tensor_leaves(value, what):
    leaves_with_path, _ = pytree.tree_flatten_with_path(value)
    out = []
    for path, leaf in leaves_with_path:
        if isinstance(leaf, torch.Tensor):
            parts = [str(getattr(k, "key", getattr(k, "idx", getattr(k, "name", k))))
                     for k in path]
            out.append(("_".join(parts) or "output", leaf))
    if not out:
        raise ExportError(f"ltc_mlir.export: {what} returned no tensor")
    return out


def _capture_entry(name, tensors, output_names, state, inputs, symbols, constants, before):
    """One entry point: the graph of `tensors` (the returned values, then the
    state tensors' new values) as an ExportEntry spec."""
    _check_trace(before, f"entry '{name}'")
    known = {s.data_id: s for s in state}
    input_ids = {t_id: i for i, (_, t_id) in enumerate(inputs)}
    # State the call wrote: tensors that hold a pending value instead of
    # their device data. (Passing the others would make them all arguments.)
    changed = [s for s in state if _C._data_id(s.lazy) != s.data_id]
    captured = _C._export_capture([t for t in tensors] + [s.lazy for s in changed],
                                  list(known) + list(input_ids))
    if captured["unsupported_ops"]:
        raise ExportError(
            f"ltc_mlir.export: entry '{name}' uses ops ltc_mlir cannot compile: "
            f"{', '.join(sorted(set(captured['unsupported_ops'])))} "
            f"({'; '.join(captured['reasons'])}). Replace them with supported ops")
    arguments, used_inputs = [], []
    for a in captured["arguments"]:
        if a["rng_seed"]:
            arguments.append({"kind": "input", "name": "rng_seed", "constant": ""})
            used_inputs.append(("rng_seed", None))
        elif a["data_id"] in known:
            arguments.append({"kind": "global", "name": known[a["data_id"]].symbol,
                              "constant": ""})
        elif a["data_id"] in input_ids:
            index = input_ids[a["data_id"]]
            arguments.append({"kind": "input", "name": inputs[index][0], "constant": ""})
            used_inputs.append((inputs[index][0], index))
        else:
            value = a["value"]
            if value.numel() > 64:
                symbol = files.c_identifier(f"const_{len(constants)}", symbols)
                constants.append((symbol, value))
                arguments.append({"kind": "global", "name": symbol, "constant": ""})
            else:
                arguments.append({"kind": "constant", "name": "",
                                  "constant": files.constant_attribute(value)})
    results = [{"returned": False, "store_to": ""} for _ in range(_num_results(captured))]
    outputs = captured["outputs"]
    returned_names = []
    for i, (is_result, index, data_id) in enumerate(outputs[:len(tensors)]):
        if not is_result:
            raise ExportError(f"ltc_mlir.export: entry '{name}' returns {output_names[i]} "
                              "unchanged from an input or a parameter; return computed values")
        results[index]["returned"] = True
        returned_names.append(output_names[i])
    stored = []
    for s, (is_result, index, data_id) in zip(changed, outputs[len(tensors):]):
        if is_result:
            if results[index]["store_to"]:
                # Two state tensors got the same new value: store a second copy.
                raise ExportError(f"ltc_mlir.export: {s.torch_name} and another state tensor "
                                  "hold the same value after the step; export cannot tell them "
                                  "apart")
            results[index]["store_to"] = s.symbol
            stored.append(s.symbol)
        elif data_id != s.data_id:
            raise ExportError(f"ltc_mlir.export: entry '{name}' replaces {s.torch_name} by "
                              "another tensor; update it in place")
    # Results that are returned more than once (or stored and returned) are
    # fine: the exporter copies what it stores.
    return ({"name": name, "text": captured["text"], "arguments": arguments, "results": results},
            used_inputs, returned_names, stored)


def _num_results(captured):
    count = 0
    for is_result, index, _ in captured["outputs"]:
        if is_result:
            count = max(count, index + 1)
    # Results no requested tensor maps to cannot exist: every root is requested.
    return count


# ---------------------------------------------------------------------------
# The API

def export(module_or_fn, example_inputs, path, *, optimizer=None, loss_fn=None,
           example_targets=(), name="model", portable=False, aot=False):
    """Exports one call of `module_or_fn` on `example_inputs` (entry point
    `forward`), or with `optimizer` one training step (entry `train_step`:
    forward, `loss_fn(output, *example_targets)` or the model's own scalar
    output, backward, `optimizer.step()`) plus `forward` in eval mode. See the
    module docstring for the files; returns the manifest (a dict).

    portable: generated kernels only, no call into ltc_mlir's runtime
    library (what IREE and plain mlir-opt pipelines need).
    aot: also compile <name>.so with a C ABI, its header and an example driver."""
    from . import init
    init()
    if not isinstance(example_inputs, (tuple, list)):
        example_inputs = (example_inputs,)
    if not isinstance(example_targets, (tuple, list)):
        example_targets = (example_targets,)
    for i, x in enumerate(list(example_inputs) + list(example_targets)):
        if not isinstance(x, torch.Tensor):
            raise ExportError(f"ltc_mlir.export: example input #{i} is a {type(x).__name__}; "
                              "only tensors can be inputs of the exported program")
    if optimizer is not None and not isinstance(module_or_fn, torch.nn.Module):
        raise ExportError("ltc_mlir.export: a training step needs an nn.Module (its parameters "
                          "are what the optimizer updates)")
    if not name.isidentifier():
        raise ExportError(f"ltc_mlir.export: name {name!r} is not a C identifier; it prefixes "
                          "the files and the C functions")
    out_dir = os.path.abspath(os.fspath(path))
    staging = _staging_dir(out_dir, name)
    error = None
    try:
        manifest = _export_into(staging, module_or_fn, example_inputs, example_targets,
                                optimizer, loss_fn, name, portable, aot)
        for entry in sorted(os.listdir(staging)):
            os.replace(os.path.join(staging, entry), os.path.join(out_dir, entry))
    except Exception as e:  # noqa: BLE001  (re-raised below)
        error = e
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    if error is None:
        _settle()
        return manifest
    # Raised from here with no frame of the trace in its traceback: those
    # frames hold lazy tensors whose pending graphs the caller's next
    # mark_step would otherwise run. An unexpected error keeps its traceback
    # as text.
    if not isinstance(error, ExportError):
        error.add_note("".join(traceback.format_exception(error)))
    error.__context__ = None
    error = error.with_traceback(None)
    _settle()
    raise error


def _settle():
    """After the trace: its lazy tensors die, and a mark_step turns what the
    model's code cached on the lazy device while tracing (transformers keeps
    scalar tensors) into data, as the mark_step of a training loop would;
    left pending, the caller's next step would compile it into its graph."""
    gc.collect()
    torch._lazy.mark_step()


def _staging_dir(out_dir, name):
    try:
        os.makedirs(out_dir, exist_ok=True)
        return tempfile.mkdtemp(prefix=f".{name}.export-", dir=out_dir)
    except OSError as e:
        raise ExportError(f"ltc_mlir.export: cannot write to {out_dir}: "
                          f"{e.strerror or e}. Pass a writable directory as `path`") from None


def _export_into(staging, fn, example_inputs, example_targets, optimizer, loss_fn, name,
                 portable, aot):
    symbols = set()
    state = []
    module = fn if isinstance(fn, torch.nn.Module) else None
    lazy_params, lazy_buffers, param_names = {}, {}, {}
    if module is not None:
        for pname, p in module.named_parameters():
            host = p.detach().to("cpu")
            lazy = _lazy_twin(host, requires_grad=p.requires_grad and optimizer is not None)
            lazy_params[pname] = lazy
            param_names[id(p)] = pname
            state.append(_StateTensor(pname, files.c_identifier(pname, symbols), "parameter",
                                      host, lazy))
        for bname, b in module.named_buffers():
            host = b.detach().to("cpu")
            lazy = _lazy_twin(host)
            lazy_buffers[bname] = lazy
            state.append(_StateTensor(bname, files.c_identifier(bname, symbols), "buffer",
                                      host, lazy))
    twin_optimizer = None
    if optimizer is not None:
        twin_optimizer = _optimizer_twin(optimizer, param_names, lazy_params, state, symbols)
    input_names = [f"input_{i}" for i in range(len(example_inputs))] + \
                  [f"target_{i}" for i in range(len(example_targets))]
    lazy_inputs = [x.detach().to("lazy") for x in list(example_inputs) + list(example_targets)]
    torch._lazy.mark_step()  # every state tensor and input is device data now
    for s in state:
        s.data_id = _C._data_id(s.lazy)
    inputs = [(input_names[i], _C._data_id(x)) for i, x in enumerate(lazy_inputs)]
    if len({s.data_id for s in state} | {i for _, i in inputs}) != len(state) + len(inputs):
        raise ExportError("ltc_mlir.export: two parameters, buffers or inputs share storage; "
                          "export needs each as its own tensor (clone the tied ones)")

    def call(*args):
        if module is None:
            return fn(*args)
        return torch.func.functional_call(module, {**lazy_params, **lazy_buffers}, args)

    entries, signatures, constants = [], {}, []
    model_inputs = lazy_inputs[:len(example_inputs)]
    forward_training = module.training if module is not None else False
    with contextlib.ExitStack() as stack:
        stack.enter_context(_transformers_tracing())
        if module is not None and optimizer is not None:
            stack.enter_context(_modes(module, False))
        before = _trace_metrics()
        with torch.no_grad():
            out = call(*model_inputs)
        leaves = _tensor_leaves(out, "the model")
        entry, used, returned, stored = _capture_entry(
            "forward", [t for _, t in leaves], [n for n, _ in leaves], state,
            inputs[:len(example_inputs)], symbols, constants, before)
        entries.append(entry)
        signatures["forward"] = (used, returned, stored)
        del out, leaves
    if optimizer is not None:
        with _transformers_tracing(), _modes(module, True):
            twin_optimizer.zero_grad(set_to_none=True)
            before = _trace_metrics()
            out = call(*model_inputs)
            targets = lazy_inputs[len(example_inputs):]
            loss = loss_fn(out, *targets) if loss_fn is not None else out
            if not isinstance(loss, torch.Tensor) or loss.numel() != 1:
                raise ExportError("ltc_mlir.export: the training step needs a scalar loss: pass "
                                  "loss_fn(output, *example_targets), or a model returning one")
            loss.backward()
            twin_optimizer.step()
            entry, used, returned, stored = _capture_entry(
                "train_step", [loss.detach()], ["loss"], state, inputs, symbols, constants,
                before)
            entries.append(entry)
            signatures["train_step"] = (used, returned, stored)
            twin_optimizer.zero_grad(set_to_none=True)
            del out, loss
    _drop_pending_values(state)
    mutable = {sym for _, _, stored in signatures.values() for sym in stored}
    read = {a["name"] for e in entries for a in e["arguments"] if a["kind"] == "global"}
    exported_state = [s for s in state if s.symbol in read or s.symbol in mutable]
    globals_spec = [(s.symbol, s.symbol in mutable) for s in exported_state] + \
                   [(sym, False) for sym, _ in constants]
    result = _C._export_module(entries, globals_spec, portable)
    if result["error"]:
        raise ExportError(_explain_export_error(result["error"]))

    paths = {k: os.path.join(staging, f"{name}{suffix}") for k, suffix in
             [("module", ".mlir"), ("weights_mlir", ".weights.mlir"),
              ("safetensors", ".safetensors"), ("manifest", ".json")]}
    with open(paths["module"], "w") as f:
        f.write(result["text"])
    if CHECK_GLOBAL in dict(result["global_types"]):
        # Portable modules report a failed runtime check here (-1: none).
        constants.append((CHECK_GLOBAL, torch.tensor(-1, dtype=torch.int64)))
    blobs = [(s.symbol, s.host) for s in exported_state] + constants
    for symbol, value in blobs:
        if value.dtype not in files.DTYPES:
            raise ExportError(f"ltc_mlir.export: state tensor {symbol} has dtype {value.dtype}, "
                              "which cannot be a global yet")
    files.write_safetensors(paths["safetensors"], blobs, {"format": FORMAT})
    files.write_weights_mlir(paths["weights_mlir"], blobs)
    manifest = _manifest(name, result, exported_state, constants, mutable, signatures,
                         example_inputs, example_targets, portable, forward_training)
    manifest["files"]["c_sources"] = [os.path.basename(p) for p in
                                      _export_aot.write_sources(staging, name, manifest)]
    if aot:
        manifest["aot"] = _export_aot.build(staging, name, result["text"], manifest)
    with open(paths["manifest"], "w") as f:
        json.dump(manifest, f, indent=1)
    return manifest


def _explain_export_error(error):
    import re
    ops = sorted(set(re.findall(r"unsupported op '([^']+)'", error)))
    if ops:
        return (f"ltc_mlir.export: ops ltc_mlir cannot compile: {', '.join(ops)}. Replace them "
                f"with supported ops. Details: {error[:2000]}")
    return f"ltc_mlir.export: {error[:4000]}"


def _manifest(name, result, exported_state, constants, mutable, signatures, example_inputs,
              example_targets, portable, forward_training):
    types_by_global = dict(result["global_types"])
    globals_out = []
    for s in exported_state:
        globals_out.append({"name": s.symbol, "torch_name": s.torch_name, "kind": s.kind,
                            "dtype": str(s.host.dtype).replace("torch.", ""),
                            "shape": list(s.host.shape), "mlir_type": types_by_global[s.symbol],
                            "mutable": s.symbol in mutable, "state": True,
                            "nbytes": s.host.numel() * s.host.element_size()})
    for symbol, value in constants:
        check = symbol == CHECK_GLOBAL
        globals_out.append({"name": symbol, "torch_name": None,
                            "kind": "runtime_check" if check else "constant",
                            "dtype": str(value.dtype).replace("torch.", ""),
                            "shape": list(value.shape), "mlir_type": types_by_global[symbol],
                            "mutable": check, "state": False,
                            "nbytes": value.numel() * value.element_size()})
    all_inputs = list(example_inputs) + list(example_targets)
    entries = []
    for entry_name, input_types, result_types in result["entries"]:
        used, returned, stored = signatures[entry_name]
        ins = []
        for (input_name, index), mlir_type in zip(used, input_types):
            shape, element = files.parse_mlir_type(mlir_type)
            ins.append({"name": input_name, "mlir_type": mlir_type, "shape": shape,
                        "element_type": element,
                        "dtype": (str(all_inputs[index].dtype).replace("torch.", "")
                                  if index is not None else "int64")})
        outs = []
        for out_name, mlir_type in zip(returned, result_types):
            shape, element = files.parse_mlir_type(mlir_type)
            outs.append({"name": out_name, "mlir_type": mlir_type, "shape": shape,
                         "element_type": element})
        entries.append({"name": entry_name, "inputs": ins, "outputs": outs, "stores": stored})
    return {"format": FORMAT, "name": name, "torch_version": torch.__version__,
            "files": {"module": f"{name}.mlir", "weights_mlir": f"{name}.weights.mlir",
                      "safetensors": f"{name}.safetensors"},
            "portable": portable, "forward_mode": "train" if forward_training else "eval",
            "globals": globals_out, "entries": entries,
            "runtime_functions": result["runtime_functions"],
            "check_messages": result["check_messages"]}


# ---------------------------------------------------------------------------
# Command line

def _parse_shape(text):
    dtype = torch.float32
    if ":" in text:
        text, dt = text.split(":", 1)
        dtype = getattr(torch, dt)
    shape = [int(d) for d in text.split("x") if d]
    if dtype.is_floating_point:
        return torch.randn(shape, dtype=dtype)
    return torch.zeros(shape, dtype=dtype)


def main(argv=None):
    parser = argparse.ArgumentParser(
        prog="python -m ltc_mlir.export",
        description="Export a PyTorch model as a standalone MLIR program (see docs/export.md).")
    parser.add_argument("factory", help="module:function returning the model (an nn.Module), "
                        "or (model, optimizer, loss_fn) for a training step")
    parser.add_argument("--input", action="append", default=[], metavar="SHAPE[:DTYPE]",
                        help="an example input, e.g. 3x4 or 2x16:int64 (repeatable)")
    parser.add_argument("--target", action="append", default=[], metavar="SHAPE[:DTYPE]",
                        help="an example target for the loss function (repeatable)")
    parser.add_argument("--out", required=True, help="output directory")
    parser.add_argument("--name", default="model")
    parser.add_argument("--portable", action="store_true",
                        help="generated kernels only: no ltc_mlir runtime calls")
    parser.add_argument("--aot", action="store_true", help="also build <name>.so with a C ABI")
    parser.add_argument("--eval", action="store_true", help="call model.eval() first")
    args = parser.parse_args(argv)
    module_name, _, attr = args.factory.partition(":")
    if not attr:
        parser.error("factory must be module:function")
    sys.path.insert(0, os.getcwd())
    made = getattr(importlib.import_module(module_name), attr)()
    model, optimizer, loss_fn = (made if isinstance(made, tuple) else (made, None, None))
    if args.eval:
        model.eval()
    torch.manual_seed(0)
    inputs = tuple(_parse_shape(s) for s in args.input)
    targets = tuple(_parse_shape(s) for s in args.target)
    try:
        manifest = export(model, inputs, args.out, optimizer=optimizer, loss_fn=loss_fn,
                          example_targets=targets, name=args.name, portable=args.portable,
                          aot=args.aot)
    except ExportError as e:
        print(e, file=sys.stderr)
        return 1
    written = [f"{args.name}{s}" for s in (".mlir", ".weights.mlir", ".safetensors", ".json")]
    if args.aot:
        written += manifest["files"]["c_sources"] + manifest["aot"]["files"]
    print("wrote " + ", ".join(os.path.join(args.out, w) for w in written))
    return 0


class _CallableModule(types.ModuleType):
    """`ltc_mlir.export(...)` calls export(); `python -m ltc_mlir.export` runs main()."""

    def __call__(self, *args, **kwargs):
        return export(*args, **kwargs)


sys.modules[__name__].__class__ = _CallableModule

if __name__ == "__main__":
    sys.exit(main())
