#!/usr/bin/env bash
# The tracer's flake check (issue 31: "each case 20 runs under timeout with no
# flake"): every lit test of test/trace (the programs a user would have and
# the tool's behaviour on them) run RUNS times, each run of each test under
# `timeout`, and the per-test pass counts written to RESULTS/trace-flakes.md.
# A repeated run, so it belongs to ./run bench, never to ./run test.
#
# usage: bench/trace_flakes.bench.sh BUILD_DIR RESULTS_DIR [RUNS] [TIMEOUT_S] [BUSY]
#
# BUSY (default 0): busy loops run beside the tests, and a loop that starts
# processes when BUSY > 0. CI runs lit with a worker a core beside the
# tests' own processes; a quiet machine hid two timing flakes that a loaded
# one showed (a thread not yet run at its process's exit; a clock
# calibration read cut by the scheduler), so the check is run loaded too.
set -euo pipefail
build="$(cd "${1:?usage: $0 BUILD_DIR RESULTS_DIR [RUNS] [TIMEOUT_S]}" && pwd)"
results="${2:?usage: $0 BUILD_DIR RESULTS_DIR [RUNS] [TIMEOUT_S]}"
mkdir -p "$results"
runs="${3:-20}"
limit="${4:-120}"
busy="${5:-0}"
src="$(cd "$(dirname "$0")/.." && pwd)"
lit="$(llvm-config-16 --prefix)/build/utils/lit/lit.py"
out="$results/trace-flakes.md"
if [[ "${5:-0}" != 0 ]]; then out="$results/trace-flakes-loaded.md"; fi
work="$(mktemp -d)"
hogs=()
stop_hogs() { if ((${#hogs[@]})); then kill "${hogs[@]}" 2>/dev/null || true; fi; }
trap 'stop_hogs; rm -rf "$work"' EXIT
for ((i = 0; i < busy; i++)); do (while :; do :; done) & hogs+=($!); done
if ((busy > 0)); then (while :; do /bin/true; done) & hogs+=($!); fi

tests=()
for t in "$src"/test/trace/*.test; do tests+=("$(basename "$t")"); done
before="$(uptime)"
start=$(date +%s)
for name in "${tests[@]}"; do
  pass=0 fail=0 timed_out=0
  for ((i = 1; i <= runs; i++)); do
    rc=0
    timeout --kill-after=10 "$limit" /usr/bin/python3 "$lit" -v "$build/test/trace/$name" \
      > "$work/last.log" 2>&1 || rc=$?
    if [[ $rc -eq 0 ]]; then
      pass=$((pass + 1))
    elif [[ $rc -eq 124 || $rc -eq 137 ]]; then
      timed_out=$((timed_out + 1))
      cp "$work/last.log" "$work/$name.timeout.$i.log"
    else
      fail=$((fail + 1))
      cp "$work/last.log" "$work/$name.fail.$i.log"
    fi
  done
  echo "$name $pass $fail $timed_out" | tee -a "$work/counts"
done
seconds=$(($(date +%s) - start))
after="$(uptime)"
stop_hogs
hogs=()

{
  echo "# The tracer's flake check: every test/trace case, $runs runs each under timeout"
  echo
  if ((busy > 0)); then
    echo "Loaded: $busy busy loops and a loop that starts processes ran beside the tests."
    echo
  fi
  echo "Made by \`bash bench/trace_flakes.bench.sh $1 $2 $runs $limit $busy\` (each run of each test:"
  echo "\`timeout $limit lit.py -v build/test/trace/NAME\`), at $(git -C "$src" rev-parse --short HEAD)"
  echo "on $(date -u +%Y-%m-%d), in ${seconds} s."
  echo
  echo "- uptime before: \`$before\`"
  echo "- uptime after: \`$after\`"
  echo
  total_bad=$(awk '{ s += $3 + $4 } END { print s + 0 }' "$work/counts")
  echo "**$(wc -l < "$work/counts") cases, $total_bad failed or timed-out runs.**"
  echo
  echo "| case | passed | failed | timed out |"
  echo "|---|---:|---:|---:|"
  while read -r name pass fail timed_out; do
    echo "| $name | $pass | $fail | $timed_out |"
  done < "$work/counts"
  for log in "$work"/*.log; do
    [[ -e "$log" && "$(basename "$log")" != last.log ]] || continue
    echo
    echo "## $(basename "$log" .log)"
    echo
    echo '```'
    grep -E "error|FAIL|expected|Timeout" "$log" | head -20
    echo '```'
  done
} > "$out"
echo "wrote $out"
