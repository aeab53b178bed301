#!/usr/bin/env bash
# Installs the Debian 12 packages ltc_mlir needs, skipping those already present.
# Python packages (torch 2.14 among them) come from PyPI into .venv:
# scripts/setup_venv.sh.
set -euo pipefail
PACKAGES=(
  libmlir-22-dev mlir-22-tools llvm-22-dev llvm-22-tools libomp-22-dev
  libgtest-dev cmake ninja-build ccache g++ libdnnl-dev libopenblas0-pthread
)
missing=()
for p in "${PACKAGES[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "[ltc_mlir] all Debian packages present"
  exit 0
fi
echo "[ltc_mlir] installing: ${missing[*]}"
SUDO=""
if [ "$(id -u)" != "0" ]; then SUDO="sudo"; fi
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
