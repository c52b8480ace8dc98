#!/usr/bin/env bash
# Bounded fuzz smoke test (CI-ready): builds the libFuzzer targets in fuzz/ with
# clang (-fsanitize=fuzzer,address,undefined), builds the seed corpora
# (fuzz/make_seeds.sh: one per target that has its own, such as legacy,
# goroutine_dump, zstd, sniff and jfr; the others use the decode seeds), replays the
# committed crashers through every target, then fuzzes each target for an equal
# share of FUZZ_SECONDS (default 60 s of wall clock in total, however many targets
# there are; FUZZ_JOBS of them at once, default 2).
# Exits non-zero on any crash, sanitizer report, leak, timeout or out-of-memory;
# the reproducer is left in build-fuzz/artifacts/ (minimize it with
# -minimize_crash=1 and commit it to tests/data/crashers/).
# Then the Python importers (every format load reads by content) get
# tests/robustness/test_importer_fuzz.py (byte damage) and
# tests/robustness/test_json_importer_fuzz.py (JSON formats, damage that keeps
# the JSON valid) with fresh random damage, FUZZ_PY_EXAMPLES per format (default 1000), when
# pprofcore imports (installed, or PYTHONPATH=python after tools/dev-build.sh).
# Env: FUZZ_SECONDS (total budget), FUZZ_JOBS, FUZZ_TARGETS (default: all fuzz/*_fuzzer.cpp),
#      FUZZ_MAX_LEN (default 4096), CXX (default clang++), PPROFCORE_CORPUS,
#      FUZZ_PY_EXAMPLES (0 skips the Python importers).
set -euo pipefail
cd "$(dirname "$0")/.."
source tools/batches.sh
budget=${FUZZ_SECONDS:-60}
cxx=${CXX:-clang++}
if ! command -v "$cxx" >/dev/null || ! "$cxx" --version | grep -q clang; then
  echo "fuzz-smoke: needs clang (apt-get install clang libclang-rt-dev; or set CXX)" >&2
  exit 2
fi
CXX=$cxx nice cmake -S . -B build-fuzz -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DPPROFCORE_FUZZ=ON \
  -DPPROFCORE_BUILD_TESTS=OFF -DPPROFCORE_BUILD_PYTHON=OFF >/dev/null
nice cmake --build build-fuzz
fuzz/make_seeds.sh >/dev/null
targets=${FUZZ_TARGETS:-$(cd fuzz && ls *_fuzzer.cpp | sed 's/_fuzzer.cpp//')}
read -r -a targets <<<"$(echo $targets)"
n=${#targets[@]}
# FUZZ_JOBS targets fuzz at once (one core each), so each gets jobs/n of the wall-clock budget.
jobs=${FUZZ_JOBS:-2}
each=$(( budget * jobs / n ))
[ "$each" -ge 1 ] || each=1
mkdir -p build-fuzz/artifacts

# Replays the committed crashers through target $1 (each must now run clean),
# then fuzzes it for $each seconds, printing a summary line (or why it failed).
fuzz_one() {
  local t=$1 bin=build-fuzz/${1}_fuzzer seeds=fuzz/seeds/$1 work=build-fuzz/corpus-$1
  [ -d "$seeds" ] || seeds=fuzz/seeds/decode
  mkdir -p "$work"
  if ls tests/data/crashers/* >/dev/null 2>&1; then
    "$bin" -runs=0 tests/data/crashers/* >/dev/null 2>build-fuzz/$t-crashers.log || {
      cat build-fuzz/$t-crashers.log
      echo "fuzz-smoke: $t crashes on a committed crasher"
      return 1
    }
  fi
  if ! nice "$bin" -max_total_time="$each" -max_len="${FUZZ_MAX_LEN:-4096}" -timeout=10 -rss_limit_mb=2048 \
      -print_final_stats=1 -artifact_prefix=build-fuzz/artifacts/ "$work" "$seeds" >build-fuzz/$t.log 2>&1; then
    tail -60 build-fuzz/$t.log
    echo "fuzz-smoke: $t FAILED; reproducer in build-fuzz/artifacts/"
    return 1
  fi
  echo "== $t: ${each}s $(grep -E "stat::number_of_executed_units|Done" build-fuzz/$t.log | tr '\n' ' ')"
}

mkdir -p build-fuzz/summaries
run_in_batches "$jobs" build-fuzz/summaries fuzz_one "${targets[@]}" || { echo "fuzz-smoke: ${FAILED[*]} FAILED" >&2; exit 1; }
py_examples=${FUZZ_PY_EXAMPLES:-1000}
if [ "$py_examples" -gt 0 ] && python3 -c "import pprofcore" 2>/dev/null; then
  echo "== python importers: $py_examples damaged inputs per format"
  # On every core when pytest-xdist is there (a format's examples in one worker).
  xdist=""
  python3 -c "import xdist" 2>/dev/null && xdist="-n $jobs"
  # shellcheck disable=SC2086
  PPROFCORE_FUZZ_EXAMPLES=$py_examples nice python3 -m pytest -q -p no:cacheprovider $xdist \
    tests/robustness/test_importer_fuzz.py tests/robustness/test_json_importer_fuzz.py || { echo "fuzz-smoke: a Python importer FAILED" >&2; exit 1; }
elif [ "$py_examples" -gt 0 ]; then
  echo "fuzz-smoke: pprofcore does not import; the Python importers were not fuzzed" >&2
fi
echo "fuzz-smoke: no crashes"
