#!/usr/bin/env bash
# Main job: set up, build, then train a small MLP on the lazy device and print
# the loss per step, the metrics report and where the compiled modules were dumped.
set -euo pipefail
source "$(dirname "$0")/env.sh"
"$ROOT/scripts/install_deps.sh"
"$ROOT/scripts/setup_venv.sh"
"$ROOT/scripts/build.sh"
export LTC_MLIR_DUMP_DIR="${LTC_MLIR_DUMP_DIR:-$ROOT/dumps}"
exec "$PY" "$ROOT/examples/train_mlp.py" "$@"
