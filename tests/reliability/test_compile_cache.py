"""The persistent compile cache (LTC_MLIR_CACHE_DIR): a graph compiled by one
process is loaded, not compiled, by the next; damaged entries and unwritable
directories cost a recompile and a warning, never a wrong value or a failed
step. Every case runs in fresh processes (the cache is read at compile time,
and the in-process graph cache would hide it)."""
import os
import subprocess
import sys

import pytest

from isolated import run_isolated
from lockstep_training import lockstep_mlp_training

# A small training loop: 3 steps, the same graphs every step after the first.
TRAIN = '''
import warnings
recorder = warnings.catch_warnings(record=True)
caught = recorder.__enter__()
warnings.simplefilter("always")
''' + lockstep_mlp_training(16, 32, 4, batch=8, steps=3) + '''
recorder.__exit__(None, None, None)
m = ltc_mlir.metrics()
diff = param_diff()
emit({"compile_count": m["compile_count"], "hits": m["disk_cache_hits"],
      "misses": m["disk_cache_misses"], "native": m["native_execute_count"],
      "executions": m["execute_count"], "diff": diff, "stages": m["compile_stage_ms"],
      "warnings": [str(w.message) for w in caught if "ltc_mlir" in str(w.message)]})
'''


def train(cache_dir, extra_env=None):
    env = {"LTC_MLIR_CACHE_DIR": str(cache_dir)}
    env.update(extra_env or {})
    return run_isolated(TRAIN, env=env)


def entries(cache_dir, suffix):
    return sorted(p for p in os.listdir(cache_dir) if p.endswith(suffix))


def test_second_process_compiles_nothing(tmp_path):
    first = train(tmp_path)
    assert first["compile_count"] >= 1 and first["hits"] == 0, first
    assert first["misses"] == first["compile_count"], first
    assert first["diff"] < 1e-5 and first["native"] == first["executions"], first
    assert len(entries(tmp_path, ".manifest")) == first["compile_count"]
    assert len(entries(tmp_path, ".o")) == first["compile_count"]
    assert {"emit", "parse", "torch_to_linalg", "linalg_to_llvm", "llvm_codegen"} <= set(first["stages"])

    second = train(tmp_path)
    assert second["compile_count"] == 0, second
    assert second["hits"] == first["compile_count"] and second["misses"] == 0, second
    assert second["diff"] < 1e-5 and second["native"] == second["executions"], second
    assert "object_load" in second["stages"] and "llvm_codegen" not in second["stages"], second
    assert second["warnings"] == [], second


@pytest.mark.parametrize("damage", ["truncate_object", "flip_object_byte", "garbage_manifest",
                                    "remove_object"])
def test_damaged_entry_is_recompiled_with_a_warning(tmp_path, damage):
    first = train(tmp_path)
    key = entries(tmp_path, ".manifest")[0][:-len(".manifest")]
    obj, manifest = tmp_path / (key + ".o"), tmp_path / (key + ".manifest")
    if damage == "truncate_object":
        obj.write_bytes(obj.read_bytes()[:100])
    elif damage == "flip_object_byte":
        data = bytearray(obj.read_bytes())
        data[len(data) // 2] ^= 0xFF
        obj.write_bytes(bytes(data))
    elif damage == "garbage_manifest":
        manifest.write_text("not a manifest\n")
    else:
        obj.unlink()
    second = train(tmp_path)
    assert second["compile_count"] == 1, second
    assert second["hits"] == first["compile_count"] - 1, second
    assert second["diff"] < 1e-5 and second["native"] == second["executions"], second
    assert any("is damaged" in w and key in w for w in second["warnings"]), second["warnings"]
    # The entry was written again: a third process hits everything.
    third = train(tmp_path)
    assert third["compile_count"] == 0 and third["warnings"] == [], third


def test_unwritable_cache_directory_warns_and_training_goes_on(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("a file where the cache directory should be")
    result = train(blocker / "cache")
    assert result["compile_count"] >= 1 and result["diff"] < 1e-5, result
    assert result["native"] == result["executions"], result
    msgs = [w for w in result["warnings"] if "cannot write to the compile cache" in w]
    assert len(msgs) == 1, result["warnings"]  # said once, not per graph
    assert "LTC_MLIR_CACHE_DIR" in msgs[0]


def test_disabled_cache_writes_nothing(tmp_path):
    result = run_isolated(TRAIN, env={"LTC_MLIR_CACHE_DIR": "", "HOME": str(tmp_path)})
    assert result["hits"] == 0 and result["misses"] == 0, result
    assert not (tmp_path / ".cache").exists()


def test_size_limit_evicts_least_recently_used(tmp_path):
    # Each entry is ~10-20 KB: a 100 KB limit keeps only some of 24 graphs
    # (one per batch size: no code for every batch size here).
    body = '''
ltc_mlir.set_cache_max_bytes(100_000)
for n in range(1, 25):
    x = torch.randn(n, 64).to("lazy")
    (x @ torch.randn(64, 300).to("lazy")).relu().sum(1).cpu()
emit(ltc_mlir.metrics()["disk_cache_misses"])
'''
    assert run_isolated(body, env={"LTC_MLIR_CACHE_DIR": str(tmp_path),
                                   "LTC_MLIR_BATCH_GENERIC": "0"}) == 24
    total = sum(os.path.getsize(tmp_path / p) for p in os.listdir(tmp_path))
    assert 0 < total <= 100_000, total
    assert len(entries(tmp_path, ".manifest")) < 24
    # Every manifest still has its object.
    for m in entries(tmp_path, ".manifest"):
        assert (tmp_path / (m[:-len(".manifest")] + ".o")).exists()


def test_concurrent_processes_share_one_cache(tmp_path):
    script = "import json, sys\n" + TRAIN.replace("emit(", "print('@@' + json.dumps(") + ")\n"
    prelude = "import torch, ltc_mlir\nltc_mlir.init()\n"
    env = dict(os.environ, LTC_MLIR_CACHE_DIR=str(tmp_path))
    procs = [subprocess.Popen([sys.executable, "-c", prelude + script], env=env,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
             for _ in range(3)]
    import json
    for p in procs:
        out, err = p.communicate(timeout=300)
        assert p.returncode == 0, err[-2000:]
        result = json.loads(out[out.rindex("@@") + 2:].strip())
        assert result["diff"] < 1e-5 and result["native"] == result["executions"], result
        assert result["warnings"] == [], result
    assert not [p for p in os.listdir(tmp_path) if ".tmp-" in p]
    third = train(tmp_path)
    assert third["compile_count"] == 0, third


# A compiled SGD step loaded from the cache still updates the parameters in
# place: the manifest keeps which results may overwrite which inputs.
COMPILED_SGD = '''
import copy
torch.manual_seed(0)
model = torch.nn.Linear(32, 16)
ref = copy.deepcopy(model)
opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
ref_opt = torch.optim.SGD(ref.parameters(), lr=0.1, momentum=0.9)
step = torch.compile(opt.step, backend="ltc_mlir")
for i in range(4):
    x = torch.randn(8, 32)
    for m, o, s in ((model, opt, step), (ref, ref_opt, ref_opt.step)):
        o.zero_grad(); m(x).square().mean().backward(); s()
m = ltc_mlir.metrics()
emit({"compile_count": m["compile_count"], "hits": m["disk_cache_hits"],
      "in_place": m["replay_inputs_written_in_place"], "copied": m["replay_inputs_copied_back"],
      "diff": max((a - b).abs().max().item() for a, b in zip(model.parameters(), ref.parameters()))})
'''


def test_cached_graph_keeps_its_in_place_updates(tmp_path):
    first = run_isolated(COMPILED_SGD, env={"LTC_MLIR_CACHE_DIR": str(tmp_path)})
    second = run_isolated(COMPILED_SGD, env={"LTC_MLIR_CACHE_DIR": str(tmp_path)})
    assert first["compile_count"] >= 1 and second["compile_count"] == 0, (first, second)
    assert second["hits"] == first["compile_count"], second
    assert any(" overwrites=" in open(tmp_path / name).read()
               for name in entries(tmp_path, ".manifest"))
    for run in (first, second):
        assert run["diff"] < 1e-5 and run["copied"] == 0, run
        assert run["in_place"] == first["in_place"] > 0, run
