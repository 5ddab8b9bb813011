#!/usr/bin/env bash
# Tracer event throughput at 1, 2 and 8 threads against the bare per-thread
# ring append (trace_event_bench: BM_TracerEvent vs BM_BareRingAppend), as
# ratios of medians in one run, with the CPU time per 512-event batch of each
# side (a shared cache line written on the event path shows there first: the
# tracer's CPU per batch grows with the threads while the bare side's stays).
# Writes RESULTS_DIR/trace-events.md.
# Usage: bench/trace_events.bench.sh BUILD_DIR RESULTS_DIR [REPETITIONS]
set -euo pipefail
build="${1:?usage: trace_events.bench.sh BUILD_DIR RESULTS_DIR [REPETITIONS]}"
results="${2:?usage: trace_events.bench.sh BUILD_DIR RESULTS_DIR [REPETITIONS]}"
reps="${3:-3}"
bin="$build/bench/trace/trace_event_bench"
[[ -x "$bin" ]] || { echo "trace_events.bench.sh: $bin not built" >&2; exit 3; }
mkdir -p "$results"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
cmd=("$bin" "--benchmark_filter=BM_BareRingAppend|BM_TracerEvent" "--benchmark_repetitions=$reps"
     --benchmark_min_time=0.1 --benchmark_report_aggregates_only=true --benchmark_format=json)
before="$(uptime)"
TMPDIR="$work" "${cmd[@]}" > "$work/bench.json" 2> "$work/bench.err"
after="$(uptime)"

python3 - "$work/bench.json" "$results/trace-events.md" "TMPDIR=\$(mktemp -d) ${cmd[*]}" "$before" "$after" <<'PY'
import json, os, sys
data = json.load(open(sys.argv[1]))
med = {}
for b in data["benchmarks"]:
    if b.get("aggregate_name") == "median":
        name, threads = b["run_name"].split("/")[0], int(b["threads"])
        scale = {"ns": 1, "us": 1e3, "ms": 1e6}[b["time_unit"]]
        med[(name, threads)] = (b["items_per_second"] / 1e6, b["cpu_time"] * scale / 1e3,
                                b.get("flush_cpu_ns_per_event", 0.0))
rows = []
for n in (1, 2, 8):
    (bare, bare_cpu, _), (tracer, tracer_cpu, flush) = med[("BM_BareRingAppend", n)], med[("BM_TracerEvent", n)]
    ratio = tracer / bare
    rows.append(f"| {n} | {bare:.1f} M/s | {tracer:.1f} M/s | **{ratio:.2f}x** | "
                f"{bare_cpu:.2f} µs | {tracer_cpu:.2f} µs | {tracer_cpu / bare_cpu:.2f}x | {flush:.0f} ns | "
                f"{'met' if ratio >= 0.9 else 'missed'} |")
out = f"""# Tracer event throughput at 1, 2 and 8 threads

`trace_event_bench`: BM_TracerEvent (the TaskEnded hook, what libtether calls at every
task end) against BM_BareRingAppend (a bare thread-local ring of 64-byte records with a
TSC timestamp), medians of {data["benchmarks"][0].get("repetitions", "?")} repetitions in one run. Both sides empty
only their own ring between 512-event batches, outside the timed region. Throughput is
events over the threads' timed wall time; CPU is the thread CPU time per batch (with
more threads than CPUs the wall figures include time a batch spent preempted).
"flush / event" is the thread CPU time of the tracer side's untimed flush (formatting
its batch as JSON lines and writing them) per event: what the flusher spends.

| threads | bare append | tracer event | tracer / bare | bare CPU / batch | tracer CPU / batch | tracer / bare (CPU) | flush / event | >= 0.9x |
|---:|---:|---:|---:|---:|---:|---:|---:|---|
""" + "\n".join(rows) + f"""

- Machine: {os.cpu_count()} CPUs (`nproc`).
- `uptime` before: `{sys.argv[4].strip()}`
- `uptime` after: `{sys.argv[5].strip()}`
- Command: `{sys.argv[3]}`
- Script: `bench/trace_events.bench.sh BUILD_DIR RESULTS_DIR [REPETITIONS]`
"""
open(sys.argv[2], "w").write(out)
print(out)
PY
