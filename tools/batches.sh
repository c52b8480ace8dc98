# Sourced by tools/test-wheels.sh and tools/fuzz-smoke.sh.

# run_in_batches JOBS LOGDIR FUNCTION ITEM...: runs `FUNCTION ITEM` for each
# item (under set -e and pipefail), JOBS at a time, each one's output into
# LOGDIR/ITEM.log, shown whole and in order as its batch ends. Fails when any
# failed; FAILED then names them.
run_in_batches() {
  local jobs=$1 logdir=$2 fn=$3 i k item status
  shift 3
  local items=("$@") batch pids
  FAILED=()
  for ((i = 0; i < ${#items[@]}; i += jobs)); do
    batch=("${items[@]:i:jobs}")
    pids=()
    for item in "${batch[@]}"; do
      (set -eo pipefail; "$fn" "$item") >"$logdir/$item.log" 2>&1 &
      pids+=($!)
    done
    for k in "${!batch[@]}"; do
      status=0
      wait "${pids[$k]}" || status=$?
      cat "$logdir/${batch[$k]}.log"
      [ "$status" = 0 ] || FAILED+=("${batch[$k]}")
    done
  done
  [ ${#FAILED[@]} = 0 ]
}
