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
  # torch's x86_64 wheel unpacks to ~5.5 GB; say so instead of pip's OSError.
  need_mb=8000
  free_mb=$(df -Pm "$VENV" | awk 'NR==2 {print $4}')
  if [ -n "$free_mb" ] && [ "$free_mb" -lt "$need_mb" ]; then
    echo "[ltc_mlir] error: $free_mb MB free under $VENV; installing requirements.txt needs about $need_mb MB. Free disk space (old clones, /tmp) and run again." >&2
    exit 1
  fi
  echo "[ltc_mlir] installing requirements.txt into $VENV"
  "$VENV/bin/python" -m pip install -q --disable-pip-version-check -r "$ROOT/requirements.txt"
  cp "$ROOT/requirements.txt" "$stamp"
fi
