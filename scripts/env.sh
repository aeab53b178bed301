# Sourced by the other scripts: where the built package lives and which python to use.
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD="${LTC_MLIR_BUILD_DIR:-$ROOT/build}"
# The project's venv (scripts/setup_venv.sh) with the pinned torch 2.14.
PY="${LTC_MLIR_VENV:-$ROOT/.venv}/bin/python"
# The LLVM prefix the build was configured with (CMake's LTC_MLIR_LLVM_ROOT).
llvm_root() { sed -n 's/^LTC_MLIR_LLVM_ROOT:PATH=//p' "$BUILD/CMakeCache.txt"; }
export PYTHONPATH="$BUILD/python_packages${PYTHONPATH:+:$PYTHONPATH}"
