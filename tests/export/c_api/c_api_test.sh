#!/bin/bash
# ctest export_c_api: prepare.py exports (Python), then c_api_test.c runs the
# exported library in a process without Python.
#   c_api_test.sh PYTHON PYTHONPATH WORKDIR
set -euo pipefail
python=$1 pythonpath=$2 work=$3
here=$(cd "$(dirname "$0")" && pwd)
rm -rf "$work" && mkdir -p "$work"
PYTHONPATH=$pythonpath LTC_MLIR_CACHE_DIR= "$python" "$here/prepare.py" "$work"
cc -O2 -std=c11 -o "$work/c_api_test" "$here/c_api_test.c" -I"$work" -L"$work" -l:mlp.so \
  -Wl,-rpath,"$work" -lm
env -u PYTHONPATH "$work/c_api_test" "$work"
