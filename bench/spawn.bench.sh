#!/usr/bin/env bash
# 100,000 tasks from 8 threads: tether::Go + task end and TaskGroup Go + Wait
# on cached threads vs a std::thread created and joined per task, medians of
# repetitions in one run. Writes RESULTS_DIR/spawn.md.
# Usage: bench/spawn.bench.sh BUILD_DIR RESULTS_DIR [REPETITIONS]
set -euo pipefail
build="${1:?usage: spawn.bench.sh BUILD_DIR RESULTS_DIR [REPETITIONS]}"
results="${2:?usage: spawn.bench.sh BUILD_DIR RESULTS_DIR [REPETITIONS]}"
reps="${3:-3}"
bin="$build/bench/context/spawn_bench"
[[ -x "$bin" ]] || { echo "spawn.bench.sh: $bin not built" >&2; exit 3; }
mkdir -p "$results"
json="$(mktemp)"
trap 'rm -f "$json"' EXIT
cmd=("$bin" "--benchmark_repetitions=$reps" --benchmark_format=json)
before="$(uptime)"
"${cmd[@]}" > "$json"
after="$(uptime)"

python3 - "$json" "$results/spawn.md" "${cmd[*]}" "$before" "$after" <<'PY'
import json, os, statistics, sys
data = json.load(open(sys.argv[1]))
runs = {}
for b in data["benchmarks"]:
    if b.get("run_type") == "iteration":
        runs.setdefault(b["run_name"].split("/")[0], []).append(b)
def us_per_task(name):
    return statistics.median(b["real_time"] * {"ms": 1e3, "us": 1, "ns": 1e-3}[b["time_unit"]] / 1e5
                             for b in runs[name])
go, group, raw = (us_per_task(n) for n in ("BM_GoTaskEnd", "BM_TaskGroupGoWait", "BM_RawThreadsCreateJoin"))
threads = {n: [int(b.get("threads_started", 0)) for b in runs[n]] for n in ("BM_GoTaskEnd", "BM_TaskGroupGoWait")}
reps = len(runs["BM_GoTaskEnd"])
out = f"""# Spawning 100,000 tasks from 8 threads

Each row is wall time per task (first spawn to last task end, divided by 100,000),
median of {reps} repetitions, all in one run of `spawn_bench`. The baseline is a
`std::thread` created and joined per task (what every libtether task cost before
the thread cache: the issue measured `TaskGroup` at 0.96x of it), in batches of 1,000
threads per spawner.

| what | µs a task | vs std::thread create + join | target |
|---|---:|---:|---|
| `tether::Go` + task end (countdown) | {go:.2f} | **{raw/go:.1f}x** faster | <= 5 µs, >= 20x |
| `TaskGroup::Go` + `Wait` (a group per 1,000 tasks) | {group:.2f} | **{raw/group:.1f}x** faster | <= 5 µs, >= 20x |
| `std::thread` create + join (baseline) | {raw:.2f} | 1x | |

Threads the cache started per repetition (idle threads carry over between
repetitions; each exits after 5 s idle): Go {threads['BM_GoTaskEnd']}, TaskGroup {threads['BM_TaskGroupGoWait']}.

- Machine: {os.cpu_count()} CPUs (`nproc`), shared with other builds.
- `uptime` before: `{sys.argv[4].strip()}`
- `uptime` after: `{sys.argv[5].strip()}`
- Command: `{sys.argv[3]}`
- Script: `bench/spawn.bench.sh BUILD_DIR RESULTS_DIR [REPETITIONS]`
"""
open(sys.argv[2], "w").write(out)
print(out)
PY
