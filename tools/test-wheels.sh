#!/usr/bin/env bash
# Installs each wheel of dist/ (tools/build-wheels.sh) into a fresh virtual
# environment of its own Python, with no compiler reachable, and checks it as a
# user would: `pprofcore --version` names zstd and the fast inflaters,
# `pprofcore demo` runs, and the test subset below passes from the installed
# wheel (not from the checkout's sources).
#
#   bash tools/test-wheels.sh                 # every wheel in dist/
#   bash tools/test-wheels.sh 3.9 3.13        # the wheels of these Pythons
#
# The subset (docs/development.md, "Every Python"): decode (load, legacy, gzip,
# zstd, repair, OTLP), merge and delta, filters, reports, display, testing and
# fleet, without the go tool pprof oracle comparisons and the slow corpus-wide
# tests, which run once on the main Python (about 470 tests).
set -euo pipefail
cd "$(dirname "$0")/.."
dist=${WHEEL_DIR:-dist}
source tools/pythons.sh
source tools/batches.sh
SUBSET=(
  tests/core/test_load.py tests/core/test_profile.py tests/core/test_legacy.py tests/core/test_zstd.py
  tests/core/test_gzip_fast.py tests/core/test_repair.py tests/core/test_otlp_roundtrip.py
  tests/core/test_timestamps.py tests/core/test_build_info.py
  tests/core/test_merge.py tests/core/test_filters.py
  tests/reports/test_text_goldens.py tests/reports/test_reports_tables.py tests/reports/test_reports_more.py
  tests/views/test_display_golden.py tests/views/test_flamegraph.py tests/views/test_repr.py
  tests/views/test_callgraph.py
  tests/testing/test_testing.py tests/testing/test_compare.py tests/testing/test_pytest_plugin.py
  tests/fleet/test_fleet.py tests/fleet/test_fleet_series_files.py
)
SUBSET_MARKS="not oracle and not slow"
SUBSET_NEEDS=("pytest>=7" "hypothesis>=6" "protobuf>=4.21" "pandas>=1.5" "pyarrow>=14" "duckdb>=1.1" "scipy>=1.9")

versions=("$@")
if [ ${#versions[@]} -eq 0 ]; then
  for wheel in "$dist"/pprofcore-*-cp3*-manylinux*.whl; do
    tag=$(basename "$wheel" | sed -E 's/.*-cp3([0-9]+)-.*/\1/')
    versions+=("3.$tag")
  done
fi
[ ${#versions[@]} -gt 0 ] || { echo "test-wheels: no wheel in $dist (run tools/build-wheels.sh)" >&2; exit 1; }

# A directory whose only commands are the venv's: pip cannot find a compiler.
nocc=$(mktemp -d)
trap 'rm -rf "$nocc"' EXIT

# Checks the wheel of Python $1 in a venv of its own; its output goes to $nocc/$1.log.
check_wheel() {
  local v=$1 tag wheel py venv
  tag="cp${v/./}"
  wheel=$(ls "$dist"/pprofcore-*-"$tag"-"$tag"-manylinux*.whl 2>/dev/null | tail -1 || true)
  [ -n "$wheel" ] || { echo "test-wheels: no $tag wheel in $dist"; return 1; }
  py=$(find_python "$v") || { echo "test-wheels: no python$v here"; return 1; }
  venv="$nocc/venv-$v"
  echo "test-wheels: $(basename "$wheel") in a fresh venv of $("$py" --version)"
  "$py" -m venv "$venv"
  # Binary wheels only, and no compiler on the PATH: nothing is compiled here.
  # The subset's own needs, not the whole test extra (whose newest releases
  # leave some Pythons behind, which sends pip's resolver backtracking).
  "$venv/bin/python" -m pip install -q --disable-pip-version-check -U pip
  PATH="$venv/bin" CC=/bin/false CXX=/bin/false "$venv/bin/python" -m pip install -q \
    --disable-pip-version-check --only-binary=:all: "$wheel" "${SUBSET_NEEDS[@]}"
  (cd "$nocc" && PATH="$venv/bin" "$venv/bin/pprofcore" --version)
  "$venv/bin/python" - <<'EOF_PY'
import pprofcore

info = pprofcore.build_info()
missing = [what for what, ok in (("zstd", info["zstd"]), ("libdeflate", "libdeflate" in info["inflaters"]),
                                 ("isal", "isal" in info["inflaters"])) if not ok]
assert not missing, f"the wheel lacks {missing}: {info}"
assert "site-packages" in info["extension"], info["extension"]
EOF_PY
  (cd "$nocc" && PATH="$venv/bin:/usr/bin:/bin" "$venv/bin/pprofcore" demo >/dev/null)
  # The tests import the installed wheel (python/ is not on sys.path);
  # -p no:cacheprovider leaves the checkout as it was.
  "$venv/bin/python" -m pytest -q -p no:cacheprovider -m "$SUBSET_MARKS" "${SUBSET[@]}" \
    -o addopts="" --no-header -W ignore::DeprecationWarning | tail -3
  rm -rf "$venv"
}

# Two Pythons at a time (TEST_WHEELS_JOBS): one's pip download overlaps the
# other's tests, which run in one process each. Each log is shown whole, in order.
run_in_batches "${TEST_WHEELS_JOBS:-2}" "$nocc" check_wheel "${versions[@]}" ||
  { echo "test-wheels: the wheels of Python ${FAILED[*]} FAILED" >&2; exit 1; }
