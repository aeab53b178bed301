"""LLVM code generation in parallel parts (lib/Compiler/ParallelCodegen.cpp):
a large graph is cut into LTC_MLIR_COMPILE_THREADS objects compiled on as
many threads, a small one stays whole. The cached artifact is the object
bundle, whose header gives the number of parts; results match eager with
any number of parts, and the next process links the same bundle."""
import os

import pytest

from isolated import run_isolated
from lockstep_training import lockstep_training

# A training step whose graph is well above the split threshold (a
# LayerNorm/GELU MLP with backward and Adam: many kernels after fusion) and a
# one-op graph far below it.
PROGRAM = lockstep_training(
    "torch.nn.Sequential("
    "torch.nn.Linear(64, 128), torch.nn.LayerNorm(128), torch.nn.GELU(),"
    "torch.nn.Linear(128, 128), torch.nn.LayerNorm(128), torch.nn.GELU(),"
    "torch.nn.Linear(128, 10))",
    "Adam(params, lr=1e-3)", 64, 10, batch=32, steps=2) + '''
diff = param_diff()
small = torch.arange(5.0)
tiny = (small.to("lazy") + 1).cpu()
m = ltc_mlir.metrics()
emit({"diff": diff, "tiny_ok": bool(torch.equal(tiny, small + 1)),
      "native": m["native_execute_count"], "executions": m["execute_count"],
      "compiles": m["compile_count"], "hits": m["disk_cache_hits"]})
'''


def bundle_parts(cache_dir):
    """Number of objects in each cached bundle ("ltc_mlir-objects-v1\\n<n>\\n...")."""
    parts = []
    for name in sorted(os.listdir(cache_dir)):
        if name.endswith(".o"):
            with open(os.path.join(cache_dir, name), "rb") as f:
                magic, count = f.read(64).split(b"\n")[:2]
            assert magic == b"ltc_mlir-objects-v1", magic
            parts.append(int(count))
    return sorted(parts)


@pytest.mark.parametrize("threads", [1, 3])
def test_parts_follow_compile_threads_and_match_eager(tmp_path, threads):
    env = {"LTC_MLIR_CACHE_DIR": str(tmp_path), "LTC_MLIR_COMPILE_THREADS": str(threads)}
    first = run_isolated(PROGRAM, env=env)
    assert first["diff"] < 1e-5 and first["tiny_ok"], first
    assert first["native"] == first["executions"] and first["compiles"] >= 2, first
    parts = bundle_parts(tmp_path)
    # The one-op graph is below the split threshold: one object.
    assert parts[0] == 1, parts
    # The training step is cut into one part per thread.
    assert parts[-1] == threads, parts
    # A second process links the bundles: nothing compiles, same values.
    second = run_isolated(PROGRAM, env=env)
    assert second["compiles"] == 0 and second["hits"] == first["compiles"], second
    assert second["diff"] < 1e-5 and second["tiny_ok"], second
