#!/usr/bin/env bash
# Builds the extension in place (build-dev/) and links it into python/pprofcore,
# so `PYTHONPATH=python python -m pytest` runs this checkout without pip install.
# Used while developing in several worktrees at once; CI uses `pip install .`.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${BUILD_DIR:-build-dev}
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DPPROFCORE_BUILD_PYTHON=ON \
  -DPPROFCORE_BUILD_TESTS=ON -Dpybind11_DIR="$(python3 -m pybind11 --cmakedir)" >/dev/null
cmake --build "$build"
so=$(ls "$build"/_core*.so)
ln -sf "$(pwd)/$so" python/pprofcore/
echo "built $so -> python/pprofcore/"
