#!/usr/bin/env bash
# Configures (once) and builds ltc_mlir with CMake + Ninja (+ ccache when present).
#   scripts/build.sh              Release build in build/
#   scripts/build.sh --sanitize   ASan + UBSan build in build-asan/ (see scripts/test_sanitize.sh)
# LTC_MLIR_BUILD_DIR overrides the build directory, LTC_MLIR_JOBS the parallelism.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
SANITIZE=0
for arg in "$@"; do
  case "$arg" in
    --sanitize) SANITIZE=1 ;;
    *) echo "usage: $0 [--sanitize]" >&2; exit 2 ;;
  esac
done
if [ "$SANITIZE" = 1 ]; then
  BUILD="${LTC_MLIR_BUILD_DIR:-$ROOT/build-asan}"
  CONFIG=(-DCMAKE_BUILD_TYPE=RelWithDebInfo -DLTC_MLIR_SANITIZE=ON)
else
  BUILD="${LTC_MLIR_BUILD_DIR:-$ROOT/build}"
  CONFIG=(-DCMAKE_BUILD_TYPE=Release)
fi
PYTHON="${LTC_MLIR_VENV:-$ROOT/.venv}/bin/python"
if [ ! -f "$BUILD/build.ninja" ]; then
  # LTC_MLIR_LLVM_ROOT, when set, overrides CMake's default LLVM prefix.
  cmake -S "$ROOT" -B "$BUILD" -G Ninja "${CONFIG[@]}" -DLTC_MLIR_PYTHON="$PYTHON" \
    ${LTC_MLIR_LLVM_ROOT:+-DLTC_MLIR_LLVM_ROOT="$LTC_MLIR_LLVM_ROOT"}
fi
cmake --build "$BUILD" -j "${LTC_MLIR_JOBS:-$(nproc)}"
