#!/usr/bin/env bash
# `tether trace --load` (the one-pass analysis) of 10^5- and 10^6-task traces
# written by `trace-probe stress N 16` (16 scopes that each last the whole
# run: the worst case for the one-pass analysis, which keeps a task until its
# scope's end is read). Wall time and peak RSS from /usr/bin/time -v, median
# of RUNS runs. Writes RESULTS_DIR/trace-load.md.
# Usage: bench/trace_load.bench.sh BUILD_DIR RESULTS_DIR   (env: RUNS=3)
set -euo pipefail
build="${1:?usage: trace_load.bench.sh BUILD_DIR RESULTS_DIR}"
results="${2:?usage: trace_load.bench.sh BUILD_DIR RESULTS_DIR}"
runs="${RUNS:-3}"
tether="$build/tool/tether"
probe="$build/test/trace/trace-probe"
for f in "$tether" "$probe" /usr/bin/time; do
  [[ -x "$f" ]] || { echo "trace_load.bench.sh: $f not found" >&2; exit 3; }
done
mkdir -p "$results"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
rows=""
ups=""
for tasks in 100000 1000000; do
  TETHER_TRACE="$work/t$tasks.jsonl" "$probe" stress "$tasks" 16 > /dev/null
  size=$(stat -c %s "$work/t$tasks.jsonl")
  up="$(uptime)"
  for ((i = 0; i < runs; i++)); do
    /usr/bin/time -v "$tether" trace --load "$work/t$tasks.jsonl" > "$work/out" 2> "$work/time.$tasks.$i"
  done
  row=$(python3 - "$work" "$tasks" "$runs" "$size" <<'PY'
import re, statistics, sys
work, tasks, runs, size = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
walls, rss, users = [], [], []
for i in range(runs):
    t = open(f"{work}/time.{tasks}.{i}").read()
    m = re.search(r"Elapsed \(wall clock\) time \(h:mm:ss or m:ss\): (?:(\d+):)?(\d+):([\d.]+)", t)
    walls.append(int(m.group(1) or 0) * 3600 + int(m.group(2)) * 60 + float(m.group(3)))
    rss.append(int(re.search(r"Maximum resident set size \(kbytes\): (\d+)", t).group(1)) / 1024)
    users.append(float(re.search(r"User time \(seconds\): ([\d.]+)", t).group(1)))
print(f"| {int(tasks):,} | {size / 2**20:.0f} MiB | {statistics.median(walls):.2f} s | "
      f"{statistics.median(users):.2f} s | {statistics.median(rss):.1f} MB |")
PY
)
  rows+="$row"$'\n'
  ups+="- \`uptime\` before the $tasks-task runs: \`$up\`"$'\n'
done
cat > "$results/trace-load.md" <<MD
# \`tether trace --load\`: the one-pass analysis at 10^5 and 10^6 tasks

Traces written by \`trace-probe stress N 16\` (16 spawner threads, each a Scope and a
TaskGroup with SetLimit(8), all scopes ending at the end of the run); medians of $runs runs
of \`/usr/bin/time -v $tether trace --load TRACE\`, on $(nproc) CPUs shared with other builds.

| tasks | trace | wall | user CPU | peak RSS |
|---:|---:|---:|---:|---:|
${rows}
${ups}
Targets: 10^6 tasks <= 10 s and <= 128 MB; 10^5 tasks <= 32 MB. Before (LoadTrace + Analyze,
the whole trace in memory): the issue measured 136.6 MB and 1.2-1.9 s for a 100k-task program;
this machine's stress 100000 16 trace took 76 MB (commit 9dabd93), and a 10^6-task trace
(345 MB) was refused by the 256 MiB input cap.

- Script: \`bench/trace_load.bench.sh BUILD_DIR RESULTS_DIR\` (RUNS=$runs)
MD
cat "$results/trace-load.md"
