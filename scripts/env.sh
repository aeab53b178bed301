# Sourced by the other scripts: where the built package lives and which python to use.
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD="${LTC_MLIR_BUILD_DIR:-$ROOT/build}"
# Debian's torch is installed for /usr/bin/python3; another python3 on PATH may not see it.
PY=/usr/bin/python3
export PYTHONPATH="$BUILD/python_packages${PYTHONPATH:+:$PYTHONPATH}"
