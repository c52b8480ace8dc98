#!/usr/bin/env bash
# Long fuzzing campaign (not CI; tools/fuzz-smoke.sh is the bounded CI run): runs
# the libFuzzer targets one after another, one process at a time under nice, each
# for its number of seconds, keeping a corpus per target that grows from run to
# run in build-fuzz/campaign/corpus-<target> (started from fuzz/seeds/), a log per
# run, and reproducers in build-fuzz/campaign/artifacts/. Prints, per run, the
# executions, exec/s, libFuzzer's final cov:/ft: and the corpus size, and appends
# the same to build-fuzz/campaign/runs.tsv. A target that fails is reported and
# the campaign goes on with the next one.
# Needs the fuzzers built (tools/fuzz-smoke.sh does it, or the CMake preset
# `fuzz`) and the seeds (fuzz/make_seeds.sh).
# Usage: tools/fuzz-campaign.sh SECONDS [target ...]   (default: every target)
#        tools/fuzz-campaign.sh target=SECONDS ...
# Env: FUZZ_MAX_LEN (default 4096), FUZZ_NICE (default 10).
set -euo pipefail
cd "$(dirname "$0")/.."
out=build-fuzz/campaign
mkdir -p "$out/artifacts"
[ -f "$out/runs.tsv" ] || printf 'date\ttarget\tseconds\texecutions\texec_per_s\tcov\tft\tcorpus_files\tcorpus_bytes\tresult\n' >"$out/runs.tsv"
plan=()
if [ $# -ge 1 ] && [[ $1 =~ ^[0-9]+$ ]]; then
  secs=$1
  shift
  targets=${*:-$(cd fuzz && ls *_fuzzer.cpp | sed 's/_fuzzer.cpp//')}
  for t in $targets; do plan+=("$t=$secs"); done
else
  plan=("$@")
fi
for item in "${plan[@]}"; do
  t=${item%%=*}
  secs=${item#*=}
  bin=build-fuzz/${t}_fuzzer
  seeds=fuzz/seeds/$t
  [ -d "$seeds" ] || seeds=fuzz/seeds/decode
  corpus=$out/corpus-$t
  log=$out/$t-$(date -u +%H%M%S).log
  mkdir -p "$corpus"
  result=ok
  # The seeds are read each run but only new finds are written (to the corpus).
  nice -n "${FUZZ_NICE:-10}" "$bin" -max_total_time="$secs" -max_len="${FUZZ_MAX_LEN:-4096}" -timeout=10 \
    -rss_limit_mb=2048 -print_final_stats=1 -artifact_prefix="$out/artifacts/$t-" "$corpus" "$seeds" \
    >"$log" 2>&1 || result=FAILED
  stat() { grep -o "stat::$1: *[0-9]*" "$log" | grep -o '[0-9]*$' || echo 0; }
  done_line=$(grep -E '^#[0-9]+.*(DONE|pulse|NEW|REDUCE|INITED)' "$log" | tail -1 || true)
  cov=$(echo "$done_line" | grep -o 'cov: [0-9]*' | grep -o '[0-9]*' || echo 0)
  ft=$(echo "$done_line" | grep -o 'ft: [0-9]*' | grep -o '[0-9]*' || echo 0)
  files=$(find "$corpus" -type f | wc -l)
  bytes=$(du -sb "$corpus" | cut -f1)
  printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$(date -u +%FT%TZ)" "$t" "$secs" "$(stat number_of_executed_units)" \
    "$(stat average_exec_per_sec)" "$cov" "$ft" "$files" "$bytes" "$result" | tee -a "$out/runs.tsv"
  [ "$result" = ok ] || echo "fuzz-campaign: $t FAILED, see $log and $out/artifacts/" >&2
done
