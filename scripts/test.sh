#!/usr/bin/env bash
# Runs every test: GoogleTest units, lit + FileCheck, pytest end-to-end/models/fallback.
set -euo pipefail
source "$(dirname "$0")/env.sh"
"$ROOT/scripts/install_deps.sh"
"$ROOT/scripts/build.sh"
status=0
echo "== unit tests (GoogleTest) =="
(cd "$BUILD" && ctest --output-on-failure) || status=1
echo "== lit tests =="
/usr/lib/llvm-22/bin/lit -sv "$BUILD/tests/lit" || status=1
echo "== python tests (pytest) =="
"$PY" -m pytest -q "$ROOT/tests" "$@" || status=1
exit $status
