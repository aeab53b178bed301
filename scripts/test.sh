#!/usr/bin/env bash
# Runs every test: GoogleTest units, lit + FileCheck, pytest end-to-end/models/fallback.
set -euo pipefail
source "$(dirname "$0")/env.sh"
"$ROOT/scripts/install_deps.sh"
"$ROOT/scripts/setup_venv.sh"
"$ROOT/scripts/build.sh"
status=0
echo "== unit tests (GoogleTest) =="
(cd "$BUILD" && ctest --output-on-failure) || status=1
echo "== lit tests =="
"$(llvm_root)/bin/lit" -sv "$BUILD/tests/lit" || status=1
echo "== python tests (pytest) =="
# Two workers (pytest-xdist), each file's tests in one worker in order;
# LTC_MLIR_TEST_JOBS=1 runs them in this process.
jobs="${LTC_MLIR_TEST_JOBS:-2}"
parallel=()
if [ "$jobs" -gt 1 ]; then parallel=(-n "$jobs" --dist loadfile); fi
"$PY" -m pytest -q "${parallel[@]}" "$ROOT/tests" "$@" || status=1
exit $status
