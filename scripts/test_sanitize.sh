#!/usr/bin/env bash
# Builds ltc_mlir with AddressSanitizer + UndefinedBehaviorSanitizer in
# build-asan/ (scripts/build.sh --sanitize) and runs under them:
#   1. the GoogleTest units (ctest), with LeakSanitizer,
#   2. the lit tests (ltc-mlir-opt is instrumented), with LeakSanitizer,
#   3. a pytest subset in .venv/bin/python with the ASan runtime preloaded
#      (python and torch are not instrumented; only our libraries are checked).
# Any finding stops the process that made it, and fails this script.
# Extra arguments replace the pytest subset: scripts/test_sanitize.sh tests/e2e -k mm
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
export LTC_MLIR_BUILD_DIR="${LTC_MLIR_BUILD_DIR:-$ROOT/build-asan}"
source "$ROOT/scripts/env.sh"
"$ROOT/scripts/install_deps.sh"
"$ROOT/scripts/build.sh" --sanitize

SUPP="$ROOT/scripts/sanitizer"
REPORTS="$BUILD/sanitizer-reports"
rm -rf "$REPORTS" && mkdir -p "$REPORTS"
# python is not linked against the ASan runtime: it must come first (LD_PRELOAD),
# and libstdc++ right after it, or ASan cannot find the real __cxa_throw
# ("CHECK failed: real___cxa_throw != 0" at the first C++ exception).
PRELOAD="$(g++ -print-file-name=libasan.so) $(g++ -print-file-name=libstdc++.so.6)"
# halt_on_error: the first report ends the process with a non-zero status.
# Reports go to files (log_path), also from child processes and from under
# pytest's output capture, and are printed at the end.
COMMON_ASAN="halt_on_error=1:strict_string_checks=1:check_initialization_order=1:detect_container_overflow=1:log_path=$REPORTS/asan"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1:suppressions=$SUPP/ubsan.supp:log_path=$REPORTS/ubsan"
# use_tls=0: LeakSanitizer's tracer crashes (SIGSEGV) reading the TLS of the
# libomp threads (libomp is dlopen'ed privately by the runtime).
export LSAN_OPTIONS="suppressions=$SUPP/lsan.supp:print_suppressions=0:use_tls=0"

status=0
echo "== unit tests (GoogleTest) under ASan+UBSan+LSan =="
(cd "$BUILD" && ASAN_OPTIONS="$COMMON_ASAN:detect_leaks=1" ctest --output-on-failure) || status=1

echo "== lit tests under ASan+UBSan+LSan =="
ASAN_OPTIONS="$COMMON_ASAN:detect_leaks=1" "$(llvm_root)/bin/lit" -sv "$BUILD/tests/lit" || status=1

echo "== python tests under ASan+UBSan (runtime preloaded; leaks not checked) =="
# Python and libtorch keep their allocations until exit by design, so
# LeakSanitizer would only report theirs: detect_leaks=0 here.
if [ $# -eq 0 ]; then
  set -- "$ROOT/tests/e2e" "$ROOT/tests/reliability" "$ROOT/tests/models" "$ROOT/tests/fuzz"
fi
LD_PRELOAD="$PRELOAD" ASAN_OPTIONS="$COMMON_ASAN:detect_leaks=0" \
  "$PY" -m pytest -q -p no:cacheprovider "$@" || status=1

if compgen -G "$REPORTS/*" > /dev/null; then
  echo "== sanitizer reports ($REPORTS) =="
  for f in "$REPORTS"/*; do echo "--- $f"; cat "$f"; done
  status=1
fi
exit $status
