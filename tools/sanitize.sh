#!/usr/bin/env bash
# Runs the sanitizer checks (CI-ready; a few minutes on 2 cores):
#   1. C++ unit tests built with ASan + UBSan (+ LeakSanitizer) via ctest (preset "asan");
#   2. the Python extension built with ASan + UBSan, and a Python test subset run
#      under it (libasan preloaded into the stock interpreter, leaks off: CPython
#      keeps interned objects alive on purpose);
#   3. ThreadSanitizer (preset "tsan"): the C++ unit tests (test_io cancels
#      load_many/merge_files from callbacks and polls), then the Python
#      concurrency tests with the TSan-built extension (libtsan preloaded);
#   4. valgrind --leak-check=full on the C++ tests (a normal build, no sanitizers).
# Exits non-zero on any sanitizer report, leak or test failure.
# Env: SANITIZE_PYTESTS (test files for step 2), SANITIZE_TSAN_PYTESTS (step 3),
#      SANITIZE_SKIP_TSAN=1, SANITIZE_SKIP_VALGRIND=1, VALGRIND_BUILD (step 4), JOBS.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
jobs=${JOBS:-2}
pybind11_dir=$(python3 -m pybind11 --cmakedir)

echo "== 1/4 C++ unit tests under ASan + UBSan + LSan"
nice cmake --preset asan -Dpybind11_DIR="$pybind11_dir" >/dev/null
nice cmake --build --preset asan -j "$jobs"
ctest --preset asan -j "$jobs"

echo "== 2/4 Python tests with the ASan-built extension"
# A private copy of the package (in $1/pypkg) whose _core is the one built in $1.
sanitized_package() {
  local build=$1 pkg=$1/pypkg/pprofcore
  rm -rf "$build/pypkg"
  mkdir -p "$pkg"
  (cd python/pprofcore && find . -name '*.so' -prune -o -name __pycache__ -prune -o -type f -print | while read -r f; do
    mkdir -p "$root/$pkg/$(dirname "$f")"
    ln -s "$root/python/pprofcore/$f" "$root/$pkg/$f"
  done)
  ln -s "$root/$(ls "$build"/_core*.so)" "$pkg/"
}
sanitized_package build-asan
# libstdc++ is preloaded too: python3 does not link it, and ASan's __cxa_throw
# interceptor must find the real one when it initializes, or the first C++
# exception aborts ("CHECK failed: real___cxa_throw").
preload="$(${CXX:-g++} -print-file-name=libasan.so) $(${CXX:-g++} -print-file-name=libstdc++.so)"
# Files or node ids; the corpus-wide round trip runs every corpus file through
# the sanitized decoder and encoder.
tests=${SANITIZE_PYTESTS:-"tests/core/test_repair.py tests/robustness/test_malformed.py tests/robustness/test_robustness_io.py tests/robustness/test_crashers.py tests/robustness/test_concurrency.py tests/robustness/test_large_inputs.py tests/core/test_merge.py tests/core/test_filters.py tests/fleet/test_fleet_series_files.py tests/oracles/test_nothing_lost.py::test_roundtrip_keeps_every_column tests/robustness/test_overlapped_decode.py tests/robustness/test_robustness_inputs.py tests/robustness/test_sum_overflow.py tests/robustness/test_text_export_names.py tests/core/test_zstd.py tests/core/test_goroutine_dump.py tests/core/test_go_repairs.py tests/reports/test_filter_deferred.py tests/views/test_graph_deferred.py tests/views/test_graph_hidden_paths.py tests/views/test_flamegraph_kept_tree.py"}
existing=""
for t in $tests; do [ -f "${t%%::*}" ] && existing="$existing $t"; done
# -s: pytest must not capture stderr, or a sanitizer that halts the interpreter
# (UBSan exits with status 1) leaves no report to read. -n: one worker process
# per job (pytest-xdist); a worker inherits the terminal's stderr, so a report
# is printed as it happens, and a halted worker fails its test.
status=0
# shellcheck disable=SC2086
LD_PRELOAD="$preload" ASAN_OPTIONS=detect_leaks=0:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
  PPROFCORE_STRESS_SECONDS=${PPROFCORE_STRESS_SECONDS:-3} PYTHONPATH=build-asan/pypkg \
  python3 -m pytest -q -s -p no:cacheprovider -n "$jobs" --dist loadfile $existing || status=$?
[ "$status" = 0 ] || { echo "sanitize: Python tests failed ($status)" >&2; exit "$status"; }

if [ "${SANITIZE_SKIP_TSAN:-0}" = 1 ]; then
  echo "== 3/4 ThreadSanitizer skipped"
else
  echo "== 3/4 C++ unit tests and Python concurrency tests under ThreadSanitizer"
  nice cmake --preset tsan -Dpybind11_DIR="$pybind11_dir" >/dev/null
  nice cmake --build --preset tsan -j "$jobs"
  # setarch -R: TSan's fixed shadow layout clashes with high mmap randomisation
  # on recent kernels ("unexpected memory mapping").
  norand="setarch $(uname -m) -R"
  $norand ctest --preset tsan -j "$jobs"
  sanitized_package build-tsan
  tsan_tests=${SANITIZE_TSAN_PYTESTS:-"tests/robustness/test_concurrency.py tests/robustness/test_robustness_io.py tests/fleet/test_fleet_series_files.py tests/robustness/test_overlapped_decode.py"}
  tpreload="$(${CXX:-g++} -print-file-name=libtsan.so) $(${CXX:-g++} -print-file-name=libstdc++.so)"
  status=0
  # shellcheck disable=SC2086
  LD_PRELOAD="$tpreload" TSAN_OPTIONS="halt_on_error=1:second_deadlock_stack=1:suppressions=$root/tools/tsan.supp" \
    PPROFCORE_STRESS_SECONDS=${PPROFCORE_STRESS_SECONDS:-3} PYTHONPATH=build-tsan/pypkg \
    $norand python3 -m pytest -q -s -p no:cacheprovider -n "$jobs" --dist loadfile $tsan_tests || status=$?
  [ "$status" = 0 ] || { echo "sanitize: Python tests under TSan failed ($status)" >&2; exit "$status"; }
fi

if [ "${SANITIZE_SKIP_VALGRIND:-0}" = 1 ] || ! command -v valgrind >/dev/null; then
  echo "== 4/4 valgrind skipped"
  exit 0
fi
echo "== 4/4 valgrind --leak-check=full on the C++ tests"
# VALGRIND_BUILD: a build tree with the C++ tests already built without
# sanitizers (.ci/run passes tools/test-all.sh's, saving a build); by default
# build-valgrind, built here with debug info so reports name lines.
vbuild=${VALGRIND_BUILD:-build-valgrind}
if [ -z "${VALGRIND_BUILD:-}" ]; then
  nice cmake -S . -B build-valgrind -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DPPROFCORE_BUILD_TESTS=ON \
    -DPPROFCORE_BUILD_PYTHON=OFF >/dev/null
  nice cmake --build build-valgrind -j "$jobs"
fi
# One test binary per job at a time; each prints its name and fails the step on
# any error or leak. --show-mismatched-frees=no: test_merge replaces the global
# operator new/delete with malloc/free (to count allocations), which valgrind
# would report as new/free mismatches.
valgrind_one() {
  echo "-- $1"
  valgrind --quiet --leak-check=full --show-mismatched-frees=no --show-leak-kinds=definite,indirect,possible --errors-for-leak-kinds=definite,indirect,possible \
    --error-exitcode=99 "$1" >/dev/null || { echo "valgrind: $1 failed ($?)"; return 1; }
}
export -f valgrind_one
find "$vbuild" -maxdepth 1 -name 'test_*' -type f -perm -u+x -print0 | sort -z |
  xargs -0 -P "$jobs" -I{} bash -c 'valgrind_one "$1"' _ {} || { echo "sanitize: valgrind failed" >&2; exit 1; }
echo "sanitize: all clean"
