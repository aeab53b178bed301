#!/usr/bin/env bash
# Benchmarks (not tests): the suite of benchmarks/suite.py, every workload in
# eager PyTorch, torch's TorchScript lazy backend and ltc_mlir, plus kernel
# microbenchmarks. See docs/benchmarks.md.
#   scripts/bench.sh [--no-build] [suite options, e.g. --workloads mlp --rounds 1 --steps 5]
# --no-build skips install_deps.sh and build.sh (use an existing build, e.g.
# LTC_MLIR_BUILD_DIR=/path/to/build scripts/bench.sh --no-build).
set -euo pipefail
source "$(dirname "$0")/env.sh"
if [ "${1:-}" = "--no-build" ]; then
  shift
else
  "$ROOT/scripts/install_deps.sh"
  "$ROOT/scripts/build.sh"
fi
exec "$PY" "$ROOT/benchmarks/suite.py" "$@"
