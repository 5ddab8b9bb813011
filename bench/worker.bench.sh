#!/usr/bin/env bash
# bench/worker.bench.sh BUILD_DIR RESULTS_DIR: tether-worker's figures, each
# as a ratio against a baseline measured in the same run.
#  1. overhead: 200 builds x 10 `true` steps through `tether-worker run`
#     vs a shell loop running the same 2,000 `sh -c true` (target <= 1.3x)
#  2. cancel latency: build deadline -> build finished (processes reaped,
#     tasks joined) for a step that honours SIGTERM (target p99 <= 100 ms)
#  3. log throughput: a step printing 200 MB vs `cat` of the same bytes to
#     /dev/null (target >= 0.5x)
# Writes RESULTS_DIR/worker.md.
set -euo pipefail
build=$(cd "${1:?usage: worker.bench.sh BUILD_DIR RESULTS_DIR}" && pwd)
results=$(mkdir -p "${2:?usage: worker.bench.sh BUILD_DIR RESULTS_DIR}" && cd "$2" && pwd)
worker="$build/worker-reference/tether-worker"
[[ -x $worker ]] || { echo "worker.bench.sh: $worker not built" >&2; exit 2; }
work=$(mktemp -d "${TMPDIR:-/tmp}/tether-worker-bench-XXXXXX")
trap 'rm -rf "$work"' EXIT
now() { python3 -c 'import time; print(time.monotonic())'; }
elapsed() { python3 -c "print(f'{$2 - $1:.3f}')"; }
median() { python3 -c "import statistics,sys; print(f'{statistics.median(float(x) for x in sys.argv[1:]):.3f}')" "$@"; }
runs=3

# 1. overhead ---------------------------------------------------------------
mkdir -p "$work/overhead"
{
  echo 'version: "1"'
  echo 'steps:'
  for s in $(seq 10); do printf '  - name: s%d\n    image: alpine\n    commands: [ "true" ]\n' "$s"; done
} > "$work/overhead/ten-true.yml"
files=()
for b in $(seq 200); do files+=("$work/overhead/ten-true.yml"); done
worker_times=() shell_times=()
for r in $(seq $runs); do
  rm -rf "$work/overhead/results"
  t0=$(now); "$worker" run --quiet --results "$work/overhead/results" "${files[@]}"; t1=$(now)
  worker_times+=("$(elapsed "$t0" "$t1")")
  t0=$(now); for i in $(seq 2000); do sh -c true; done; t1=$(now)
  shell_times+=("$(elapsed "$t0" "$t1")")
done
ok=$(grep -l '"status": "success"' "$work"/overhead/results/*/build.json | wc -l)
[[ $ok -eq 200 ]] || { echo "worker.bench.sh: only $ok of 200 builds succeeded" >&2; exit 1; }
w_med=$(median "${worker_times[@]}"); s_med=$(median "${shell_times[@]}")
overhead=$(python3 -c "print(f'{$w_med / $s_med:.2f}')")

# 2. cancel latency -----------------------------------------------------------
mkdir -p "$work/cancel"
cat > "$work/cancel/sleeps.yml" <<'YML'
version: "1"
steps:
  - name: sleeps
    image: alpine
    commands: [ "sleep 100" ]
YML
files=()
for b in $(seq 100); do files+=("$work/cancel/sleeps.yml"); done
"$worker" run --quiet --build-timeout 300ms --kill-grace 10s --results "$work/cancel/results" "${files[@]}" || true
read -r p50 p99 pmax n <<<"$(python3 - "$work/cancel/results" <<'PY'
import datetime, glob, json, sys
def t(s): return datetime.datetime.strptime(s, "%Y-%m-%dT%H:%M:%S.%fZ")
lat = []
for path in glob.glob(sys.argv[1] + "/*/build.json"):
    b = json.load(open(path))
    # The step was running at the deadline and honoured SIGTERM (no SIGKILL).
    assert b["status"] == "failure" and b["steps"][0]["status"] == "killed", (path, b["steps"])
    assert b["steps"][0]["exit_code"] == 143, path
    lat.append((t(b["finished"]) - t(b["deadline"])).total_seconds() * 1000)
lat.sort()
p = lambda q: lat[min(len(lat) - 1, int(round(q * (len(lat) - 1))))]
print(f"{p(0.5):.1f} {p(0.99):.1f} {lat[-1]:.1f} {len(lat)}")
PY
)"

# 3. log throughput -------------------------------------------------------------
mkdir -p "$work/log"
seq 1 23456789 > "$work/log/200MB.txt"  # 199,999,698 bytes
bytes=$(wc -c < "$work/log/200MB.txt")
printf 'version: "1"\nsteps:\n  - name: prints\n    image: alpine\n    commands: [ "cat %s" ]\n' \
  "$work/log/200MB.txt" > "$work/log/prints.yml"
cat_times=() log_times=() pipe_times=()
for r in $(seq $runs); do
  t0=$(now); cat "$work/log/200MB.txt" > /dev/null; t1=$(now)
  cat_times+=("$(elapsed "$t0" "$t1")")
  # A second, like-for-like reference: the same bytes through a pipe into a file.
  t0=$(now); cat "$work/log/200MB.txt" | cat > "$work/log/copy.txt"; t1=$(now)
  pipe_times+=("$(elapsed "$t0" "$t1")")
  rm -f "$work/log/copy.txt"
  rm -rf "$work/log/results"
  t0=$(now); "$worker" run --quiet --max-log-size 0 --results "$work/log/results" "$work/log/prints.yml"; t1=$(now)
  log_times+=("$(elapsed "$t0" "$t1")")
  # Every byte reached the log (plus the echoed command line).
  [[ $(grep -v '^\$ ' "$work/log/results/prints-1/prints.log" | wc -c) -eq $bytes ]] ||
    { echo "worker.bench.sh: the log lost bytes" >&2; exit 1; }
done
c_med=$(median "${cat_times[@]}"); l_med=$(median "${log_times[@]}")
throughput=$(python3 -c "print(f'{$c_med / $l_med:.2f}')")
p_med=$(median "${pipe_times[@]}")
pipe_ratio=$(python3 -c "print(f'{$p_med / $l_med:.2f}')")
mbps=$(python3 -c "print(f'{200 / $l_med:.0f}')")

verdict() { python3 -c "print('met' if $1 else 'NOT met')"; }
# The sections other scripts own (bench/queue.bench.py, worker_soak.bench.sh:
# each between its own <!-- ... --> markers) are kept as they are.
queue_section=$(python3 - "$results/worker.md" <<'PY' 2>/dev/null || true
import re, sys
text = open(sys.argv[1]).read()
blocks = re.findall(r"<!-- queue-bench -->.*?<!-- /queue-bench -->|"
                    r"<!-- worker_soak.bench.sh: begin -->.*?<!-- worker_soak.bench.sh: end -->", text, re.S)
print("\n\n".join(blocks))
PY
)
cat > "$results/worker.md" <<MD
# tether-worker benchmark

Measured by \`bench/worker.bench.sh $1 $2\` on $(date -u +%Y-%m-%d), $(nproc) CPUs
($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')), kernel $(uname -r).
Median of $runs runs where timed; every ratio's baseline was measured in the same run.

| figure | tether-worker | baseline | ratio | target |
|---|---|---|---|---|
| 200 builds x 10 \`true\` steps (\`run --quiet\`, build limit 1) | ${w_med} s | ${s_med} s (shell loop of 2,000 \`sh -c true\`) | **${overhead}x** time | <= 1.3x: $(verdict "$overhead <= 1.3") |
| cancel latency, deadline -> build finished (reaped, joined), n=${n} | p50 ${p50} ms, p99 **${p99} ms**, max ${pmax} ms | - | - | p99 <= 100 ms: $(verdict "$p99 <= 100") |
| log throughput, a step printing 200 MB into its log file (\`--max-log-size 0\`) | ${l_med} s (${mbps} MB/s) | ${c_med} s (\`cat\` of the same file to /dev/null) | **${throughput}x** throughput | >= 0.5x: $(verdict "$throughput >= 0.5") |
| the same, against a like-for-like reference | ${l_med} s | ${p_med} s (\`cat FILE \| cat > FILE2\`: one pipe, one file write) | ${pipe_ratio}x throughput | (context) |

Raw times (s): worker ${worker_times[*]}; shell loop ${shell_times[*]}; log step ${log_times[*]}; cat ${cat_times[*]}; cat | cat > file ${pipe_times[*]}.
Load average when the run ended: $(cut -d' ' -f1-3 /proc/loadavg) (the machine is shared).

What is measured:
- Overhead: the whole \`tether-worker run\` process (validation, 200 result directories,
  build.json and 2,000 log files, a workspace per build, every step a process group
  spawned with posix_spawn and reaped through a pidfd) against the bare shell loop.
- Cancel latency: from the deadline recorded in build.json to the build's \`finished\`
  time, which is set after the killed step was reaped, its log stream task joined and
  DestroyBuild removed the workspace. The step is \`sleep 100\` under \`sh -e -c\`
  (it honours SIGTERM: exit 143 is asserted).
- Log throughput: the step \`cat\`s a 200 MB file of numbered lines; the worker reads
  the pipe, splits lines, checks the size limit and writes the log file (its size is
  checked: no byte lost). The baseline \`cat FILE > /dev/null\` writes nothing.
MD
if [[ -n $queue_section ]]; then printf '\n%s\n' "$queue_section" >> "$results/worker.md"; fi
cat "$results/worker.md"
