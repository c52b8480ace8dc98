#!/usr/bin/env bash
# The whole test suite: installs the package with its test extras, builds and runs
# the C++ unit tests with CTest (default inflate backends, and zlib only), then
# runs the Python tests (which cross-check against go tool pprof when present).
set -euo pipefail
cd "$(dirname "$0")/.."
# PPROFCORE_WHEEL names a wheel built from this checkout (tools/build-wheels.sh,
# as .ci/run does) to test instead of compiling the sources again.
if [ -n "${PPROFCORE_WHEEL:-}" ]; then
  python3 -m pip install -q --force-reinstall --no-deps "$PPROFCORE_WHEEL"
  python3 -m pip install -q "$PPROFCORE_WHEEL[test]"
else
  python3 -m pip install -q ".[test]"
fi
# CMake and Ninja from the test extra (PyPI), whatever the PATH holds.
PATH="$(python3 -c 'import cmake, ninja, os; print(cmake.CMAKE_BIN_DIR + os.pathsep + ninja.BIN_DIR)'):$PATH"
export PATH
# The compiler the extension builds with (CXX, else Python's sysconfig CXX, as
# scikit-build-core picks it), so ccache shares the core's objects with the wheel's.
cxx=${CXX:-$(python3 -c 'import sysconfig; print((sysconfig.get_config_var("CXX") or "c++").split()[0])')}
command -v "$cxx" >/dev/null || cxx=c++
for variant in auto zlib; do
  cmake -S . -B "build/ctest-$variant" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_COMPILER="$cxx" \
    -DPPROFCORE_INFLATE="$variant" -DPPROFCORE_BUILD_TESTS=ON >/dev/null
  cmake --build "build/ctest-$variant"
  ctest --test-dir "build/ctest-$variant" --output-on-failure
done
# One worker process per core (at most 4), a test file's tests in one worker so
# its module fixtures (pprof's outputs, built programs) are made once; "$@" may
# override, e.g. `-n 0` for one process. The 15 slowest tests are listed at the end.
python3 -m pytest tests -n auto --maxprocesses 4 --dist loadfile --durations=15 "$@"
