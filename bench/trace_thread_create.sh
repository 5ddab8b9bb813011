#!/usr/bin/env bash
# Cost of tracing one std::thread create + join, in process (Google Benchmark,
# bench/trace/thread_create_bench.cpp), as a ratio in one run: the same binary
# untraced and with libtether_threads.so preloaded (TETHER_THREADS_TRACE set),
# ROUNDS alternating rounds of each; the median real time per create + join of
# each side, and traced / untraced. Issue 22's target: <= 1.10x.
# Appends a section to RESULTS_DIR/trace-threads.md (and prints it);
# bench/trace_threads.bench.sh, which writes that file, runs it last.
# Usage: bench/trace_thread_create.sh BUILD_DIR RESULTS_DIR   (env: ROUNDS=5)
set -euo pipefail
build="${1:?usage: trace_thread_create.sh BUILD_DIR RESULTS_DIR}"
results="${2:?usage: trace_thread_create.sh BUILD_DIR RESULTS_DIR}"
rounds="${ROUNDS:-5}"
bench="$build/bench/trace/thread_create_bench"
shim="$build/tool/libtether_threads.so"
for f in "$bench" "$shim"; do
  [[ -e "$f" ]] || { echo "trace_thread_create.sh: $f not built" >&2; exit 3; }
done
mkdir -p "$results"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

before="$(uptime)"
for ((i = 0; i < rounds; ++i)); do
  "$bench" --benchmark_min_time=0.3 --benchmark_format=json >"$work/plain.$i.json"
  TETHER_THREADS_TRACE="$work/t.jsonl" LD_PRELOAD="$shim" \
    "$bench" --benchmark_min_time=0.3 --benchmark_format=json >"$work/traced.$i.json"
done
after="$(uptime)"

python3 - "$work" "$rounds" "$build" "$results" "$before" "$after" >"$work/section.md" <<'PY'
import json, statistics, sys, datetime
work, rounds, build, results, before, after = sys.argv[1:]
def times(side):
    out = {}
    for i in range(int(rounds)):
        for b in json.load(open(f"{work}/{side}.{i}.json"))["benchmarks"]:
            out.setdefault(b["name"], []).append(b["real_time"] / 1000.0)  # ns -> us
    return out
plain, traced = times("plain"), times("traced")
print(f"## In-process create + join (Google Benchmark), {datetime.date.today()}")
print()
print(f"`ROUNDS={rounds} bench/trace_thread_create.sh {build} {results}`: "
      f"bench/trace/thread_create_bench untraced and with the shim preloaded, alternating, "
      f"{rounds} rounds each; medians of the per-iteration real time.")
print()
print("| benchmark | untraced (median us) | traced (median us) | ratio | target |")
print("|---|---|---|---|---|")
for name in plain:
    p, t = statistics.median(plain[name]), statistics.median(traced[name])
    print(f"| {name} | {p:.2f} | {t:.2f} | {t / p:.3f}x | <= 1.10x |")
print()
print(f"`uptime` before: {before.strip()}; after: {after.strip()}")
PY
{ echo; cat "$work/section.md"; } >>"$results/trace-threads.md"
cat "$work/section.md"
