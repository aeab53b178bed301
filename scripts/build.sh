#!/usr/bin/env bash
# Configures (once) and builds ltc_mlir with CMake + Ninja (+ ccache when present).
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
BUILD="${LTC_MLIR_BUILD_DIR:-$ROOT/build}"
if [ ! -f "$BUILD/build.ninja" ]; then
  cmake -S "$ROOT" -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release
fi
cmake --build "$BUILD" -j "${LTC_MLIR_JOBS:-$(nproc)}"
