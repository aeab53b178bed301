#!/usr/bin/env bash
# Creates the project's virtual environment at .venv (once) from the pinned
# requirements.txt, and brings it up to date when requirements.txt changes.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
VENV="${LTC_MLIR_VENV:-$ROOT/.venv}"
BASE_PYTHON="${LTC_MLIR_BASE_PYTHON:-python3}"
if [ ! -x "$VENV/bin/python" ]; then
  echo "[ltc_mlir] creating $VENV with $("$BASE_PYTHON" --version)"
  "$BASE_PYTHON" -m venv "$VENV"
fi
stamp="$VENV/.ltc_mlir_requirements"
if ! cmp -s "$ROOT/requirements.txt" "$stamp"; then
  echo "[ltc_mlir] installing requirements.txt into $VENV"
  "$VENV/bin/python" -m pip install -q --disable-pip-version-check -r "$ROOT/requirements.txt"
  cp "$ROOT/requirements.txt" "$stamp"
fi
