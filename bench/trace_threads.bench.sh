#!/usr/bin/env bash
# Cost of tracing plain threads (libtether_threads.so), as whole-process wall
# time ratios in one run, traced (preloaded, TETHER_THREADS_TRACE set) against
# untraced, alternating runs: `threads-probe churn N` creates and joins N
# std::threads one after another. Two sizes: 1000 threads (create + join cost
# per thread) and 100000 threads (the 100k-thread program). The report step
# (`tether trace --load`) is timed on its own. Writes RESULTS_DIR/trace-threads.md,
# then bench/trace_thread_create.sh appends the in-process create + join ratio.
# Usage: bench/trace_threads.bench.sh BUILD_DIR RESULTS_DIR   (env: RUNS=5)
set -euo pipefail
build="${1:?usage: trace_threads.bench.sh BUILD_DIR RESULTS_DIR}"
results="${2:?usage: trace_threads.bench.sh BUILD_DIR RESULTS_DIR}"
runs="${RUNS:-5}"
probe="$build/test/trace/threads-probe"
shim="$build/tool/libtether_threads.so"
tool="$build/tool/tether"
for f in "$probe" "$shim" "$tool"; do
  [[ -e "$f" ]] || { echo "trace_threads.bench.sh: $f not built" >&2; exit 3; }
done
mkdir -p "$results"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

wall() {  # prints the wall seconds of "$@"
  local t0 t1
  t0=$(date +%s.%N)
  "$@" >/dev/null
  t1=$(date +%s.%N)
  echo "$t1 - $t0" | bc -l
}
median() { sort -g | awk '{a[NR]=$1} END {print (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }

{
  echo "# Tracing plain threads (libtether_threads.so)"
  echo
  echo "Command: \`bench/trace_threads.bench.sh $build $results\` (RUNS=$runs), $(date -u +%F)."
  echo "\`uptime\` before: $(uptime)"
  echo
  echo "| program | untraced (median s) | traced (median s) | ratio |"
  echo "|---|---|---|---|"
} > "$results/trace-threads.md"
for n in 1000 100000; do
  : > "$work/plain"; : > "$work/traced"
  for ((i = 0; i < runs; ++i)); do
    wall "$probe" churn "$n" >> "$work/plain"
    wall env TETHER_THREADS_TRACE="$work/t.jsonl" LD_PRELOAD="$shim" "$probe" churn "$n" >> "$work/traced"
  done
  p=$(median < "$work/plain"); t=$(median < "$work/traced")
  echo "| churn $n (create+join) | $p | $t | $(echo "$t / $p" | bc -l | cut -c1-5) |" >> "$results/trace-threads.md"
done
r=$(wall "$tool" trace --load "$work/t.jsonl")
{
  echo
  echo "Report step for the 100000-thread trace (\`tether trace --load\`, load + analysis +"
  echo "symbolization): ${r}s."
  echo
  echo "\`uptime\` after: $(uptime)"
} >> "$results/trace-threads.md"
cat "$results/trace-threads.md"
"$(dirname "$0")/trace_thread_create.sh" "$build" "$results"
