#!/usr/bin/env bash
# Runs the sanitizer checks (CI-ready; a few minutes on 2 cores):
#   1. C++ unit tests built with ASan + UBSan (+ LeakSanitizer) via ctest (preset "asan");
#   2. the Python extension built with ASan + UBSan, and a Python test subset run
#      under it (libasan preloaded into the stock interpreter, leaks off: CPython
#      keeps interned objects alive on purpose);
#   3. valgrind --leak-check=full on the C++ tests (a normal build, no sanitizers).
# Exits non-zero on any sanitizer report, leak or test failure.
# Env: SANITIZE_PYTESTS (test files for step 2), SANITIZE_SKIP_VALGRIND=1, JOBS.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
jobs=${JOBS:-2}
pybind11_dir=$(python3 -m pybind11 --cmakedir)

echo "== 1/3 C++ unit tests under ASan + UBSan + LSan"
nice cmake --preset asan -Dpybind11_DIR="$pybind11_dir" >/dev/null
nice cmake --build --preset asan -j "$jobs"
ctest --preset asan

echo "== 2/3 Python tests with the ASan-built extension"
pkg=build-asan/pypkg/pprofcore
rm -rf build-asan/pypkg
mkdir -p "$pkg"
# A private copy of the package whose _core is the sanitized build.
(cd python/pprofcore && find . -name '*.so' -prune -o -name __pycache__ -prune -o -type f -print | while read -r f; do
  mkdir -p "$root/$pkg/$(dirname "$f")"
  ln -s "$root/python/pprofcore/$f" "$root/$pkg/$f"
done)
ln -s "$root/$(ls build-asan/_core*.so)" "$pkg/"
# libstdc++ is preloaded too: python3 does not link it, and ASan's __cxa_throw
# interceptor must find the real one when it initializes, or the first C++
# exception aborts ("CHECK failed: real___cxa_throw").
preload="$(${CXX:-g++} -print-file-name=libasan.so) $(${CXX:-g++} -print-file-name=libstdc++.so)"
# Files or node ids; the corpus-wide round trip runs every corpus file through
# the sanitized decoder and encoder.
tests=${SANITIZE_PYTESTS:-"tests/test_repair.py tests/test_malformed.py tests/test_crashers.py tests/test_concurrency.py tests/test_large_inputs.py tests/test_merge.py tests/test_filters.py tests/test_nothing_lost.py::test_roundtrip_keeps_every_column"}
existing=""
for t in $tests; do [ -f "${t%%::*}" ] && existing="$existing $t"; done
# -s: pytest must not capture stderr, or a sanitizer that halts the interpreter
# (UBSan exits with status 1) leaves no report to read.
status=0
# shellcheck disable=SC2086
LD_PRELOAD="$preload" ASAN_OPTIONS=detect_leaks=0:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
  PPROFCORE_STRESS_SECONDS=${PPROFCORE_STRESS_SECONDS:-3} PYTHONPATH=build-asan/pypkg \
  python3 -m pytest -q -s -p no:cacheprovider $existing || status=$?
[ "$status" = 0 ] || { echo "sanitize: Python tests failed ($status)" >&2; exit "$status"; }

if [ "${SANITIZE_SKIP_VALGRIND:-0}" = 1 ] || ! command -v valgrind >/dev/null; then
  echo "== 3/3 valgrind skipped"
  exit 0
fi
echo "== 3/3 valgrind --leak-check=full on the C++ tests"
nice cmake -S . -B build-valgrind -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DPPROFCORE_BUILD_TESTS=ON \
  -DPPROFCORE_BUILD_PYTHON=OFF >/dev/null
nice cmake --build build-valgrind -j "$jobs"
status=0
for t in build-valgrind/test_*; do
  [ -x "$t" ] || continue
  echo "-- $t"
  # --show-mismatched-frees=no: test_merge replaces the global operator new/delete
  # with malloc/free (to count allocations), which valgrind would report as
  # new/free mismatches.
  valgrind --quiet --leak-check=full --show-mismatched-frees=no --show-leak-kinds=definite,indirect,possible --errors-for-leak-kinds=definite,indirect,possible \
    --error-exitcode=99 "$t" >/dev/null || status=$?
  [ "$status" = 0 ] || { echo "valgrind: $t failed ($status)"; exit "$status"; }
done
echo "sanitize: all clean"
