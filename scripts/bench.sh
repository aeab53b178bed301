#!/usr/bin/env bash
# Benchmarks (not tests): eager vs TorchScript lazy vs ltc_mlir on the MLP step.
set -euo pipefail
source "$(dirname "$0")/env.sh"
"$ROOT/scripts/install_deps.sh"
"$ROOT/scripts/build.sh"
exec "$PY" "$ROOT/benchmarks/train_step.py" "$@"
