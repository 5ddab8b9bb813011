#!/usr/bin/env bash
# Tracer benchmark. Writes RESULTS_DIR/trace.md:
#  1. cost per event (Google Benchmark, trace_event_bench) against a bare
#     per-thread ring append written in the benchmark (the limit);
#  2. whole-process wall time, traced vs untraced, of a spawn-heavy program
#     (trace-probe stress: 20000 tasks from 16 threads, every task a thread)
#     and of the legacy Vela fixture (--fixed, real processes);
#  3. the reference worker running 100 builds traced vs untraced, when built;
#  4. the same stress run under ThreadSanitizer (TSAN_BUILD_DIR, optional);
#  5. trace size per event and peak buffer memory.
# Usage: bench/trace.bench.sh BUILD_DIR RESULTS_DIR
#        (env: TSAN_BUILD_DIR; RUNS=7, WORKER_RUNS=21, TSAN_RUNS=3 runs per side)
set -euo pipefail
build="${1:?usage: trace.bench.sh BUILD_DIR RESULTS_DIR}"
results="${2:?usage: trace.bench.sh BUILD_DIR RESULTS_DIR}"
runs="${RUNS:-7}"
bench="$build/bench/trace/trace_event_bench"
probe="$build/test/trace/trace-probe"
legacy="$build/test/trace/legacy-vela"
worker="$build/worker-reference/tether-worker"
src="$(cd "$(dirname "$0")/.." && pwd)"
for f in "$bench" "$probe" "$legacy"; do
  [[ -x "$f" ]] || { echo "trace.bench.sh: $f not built" >&2; exit 3; }
done
mkdir -p "$results"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

bench_cmd=("$bench" --benchmark_repetitions=5 --benchmark_min_time=0.1
           --benchmark_report_aggregates_only=true --benchmark_format=json)
TMPDIR="$work" "${bench_cmd[@]}" > "$work/bench.json" 2> "$work/bench.err"

# Wall time of untraced and traced runs, alternated so load drifts hit both.
# Usage: pair NAME PROG ARGS...   (appends "NAME untraced|traced SECONDS" lines)
pair() {
  python3 - "$work" "$runs" "$@" >> "$work/walls.txt" <<'PY'
import os, subprocess, sys, time
work, runs, name, argv = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4:]
for _ in range(runs):
    for kind in ("untraced", "traced"):
        env = dict(os.environ)
        env.pop("TETHER_TRACE", None)
        if kind == "traced":
            env["TETHER_TRACE"] = f"{work}/{name}.jsonl"
        t = time.perf_counter()
        subprocess.run(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
        print(name, kind, f"{time.perf_counter() - t:.4f}")
PY
}
pair stress "$probe" stress 20000 16
pair legacy "$legacy" --fixed --builds 6
worker_note="not measured: $worker is not built in $build"
if [[ -x "$worker" ]]; then
  worker_note=""
  pipelines=()
  for ((i = 0; i < 100; i++)); do pipelines+=("$src/worker-reference/examples/hello.yml"); done
  runs="${WORKER_RUNS:-21}" pair worker "$worker" run --quiet --results "$work/results" --build-limit 4 "${pipelines[@]}" || worker_note="failed to run: $worker run --build-limit 4 hello.yml x100"
fi
tsan_note="not measured (set TSAN_BUILD_DIR to a -DTETHER_SANITIZE=thread build)"
if [[ -n "${TSAN_BUILD_DIR:-}" && -x "$TSAN_BUILD_DIR/test/trace/trace-probe" ]]; then
  tsan_note=""
  runs="${TSAN_RUNS:-3}" pair tsan "$TSAN_BUILD_DIR/test/trace/trace-probe" stress 20000 16
fi
# Instructions per event (callgrind: independent of the machine's load).
ir_note="not measured: valgrind is not installed"
if command -v valgrind >/dev/null; then
  "$src/bench/trace_ir.bench.sh" "$build" > "$work/ir.txt" 2>&1 && ir_note="" ||
    ir_note="bench/trace_ir.bench.sh failed: $(tail -1 "$work/ir.txt")"
fi
# Size and memory from one traced stress run (the probe prints its stats).
TETHER_TRACE="$work/size.jsonl" "$probe" stress 100000 16 > "$work/stats.txt"

python3 - "$work" "$results/trace.md" "${bench_cmd[*]}" "$runs" "$worker_note" "$tsan_note" "$ir_note" <<'PY'
import json, os, platform, statistics, sys
work, out_path, bench_cmd, runs, worker_note, tsan_note, ir_note = sys.argv[1:8]
data = json.load(open(f"{work}/bench.json"))
med = {b["run_name"]: b for b in data["benchmarks"] if b.get("aggregate_name") == "median"}
BATCH = 512  # events per iteration of the batched benchmarks
def per_event(name, key):
    b = med[name]
    unit = {"ns": 1, "us": 1e3, "ms": 1e6}[b["time_unit"]]
    per_iter = b[key] * unit
    return per_iter if "Sustained" in name else per_iter / BATCH
def row(name, label, base=None):
    cpu, wall = per_event(name, "cpu_time"), per_event(name, "real_time")
    ratio = f"**{cpu / per_event(base, 'cpu_time'):.2f}**" if base else "1.00"
    return f"| {label} | {cpu:.1f} | {ratio} | {wall:.1f} |"
walls = {}
for line in open(f"{work}/walls.txt"):
    name, kind, sec = line.split()
    walls.setdefault(name, {}).setdefault(kind, []).append(float(sec))
def wall_row(name, label):
    if name not in walls: return None
    u, t = statistics.median(walls[name]["untraced"]), statistics.median(walls[name]["traced"])
    return f"| {label} | {u:.3f} | {t:.3f} | **{t / u:.3f}** |"
stats = dict(kv.split("=") for kv in open(f"{work}/stats.txt").read().split())
records, nbytes = int(stats["records"]), int(stats["bytes"])
peak = int(stats["peak_rings"]) * int(stats["ring_bytes"])
model = next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name")), "?")
bench_err = open(f"{work}/bench.err").read().strip()
lines = [
"# Tracer benchmark",
"",
"## Cost per event",
"",
"The hook libtether calls at a task end (`hooks::Active()->TaskEnded`, a virtual call into the",
"tracer, which appends a 64-byte record to the calling thread's ring) against the limit: a bare",
"thread-local ring append of a 64-byte record with a TSC timestamp, written in the benchmark",
"with nothing else. Both record batches of 512 events; the drain runs outside the timed region,",
"so the figure is the cost on the recording thread while the background flusher keeps up. The",
"sustained row does not pause: it also pays for formatting each JSON line and `write(2)`.",
"Medians of 5 repetitions, same process, same run. CPU time is the figure to read: the machine",
"is shared with other builds, so wall time includes waiting for a core.",
"",
"| benchmark | CPU ns per event | ratio to the bare append (CPU) | wall ns per event |",
"|---|---:|---:|---:|",
row("BM_BareRingAppend/real_time/threads:1", "bare ring append, 1 thread (baseline)"),
row("BM_TracerEvent/real_time/threads:1", "tracer `TaskEnded`, 1 thread", "BM_BareRingAppend/real_time/threads:1"),
row("BM_BareRingAppend/real_time/threads:2", "bare ring append, 2 threads (baseline)"),
row("BM_TracerEvent/real_time/threads:2", "tracer `TaskEnded`, 2 threads", "BM_BareRingAppend/real_time/threads:2"),
row("BM_TracerSpawnEvent/real_time/threads:1", "tracer `TaskSpawned` (interned name and site: 1 slot), 1 thread", "BM_BareRingAppend/real_time/threads:1"),
row("BM_TracerSustained/real_time/threads:1", "tracer `TaskEnded` incl. JSON formatting and write(2)", "BM_BareRingAppend/real_time/threads:1"),
"",
"Targets: <= 2x the bare append and <= 30 ns per event on this machine class. Most events",
"(start, end, context created/done, group, wait, scope end) are one-slot records like `TaskEnded`.",
"A spawn's (name, site) pair is interned once per thread and site (lib/trace_writer/include/tether/trace_writer/spawn_sites.hpp:",
"the thread's cache is keyed on the site's `std::source_location`), so a spawn is one slot",
"carrying the pair's id, written out as the same `spawn` line. The 2-thread wall column is dominated by",
"waiting for one of the 2 shared cores; CPU time per event is what each thread pays. JSON",
"formatting and `write(2)` happen on the background flusher (or on a thread whose 1024-slot",
"ring is full), not on the recording path: the sustained row is the throughput limit.",
"",
"Instructions per call (callgrind, `bench/trace_ir.bench.sh BUILD_DIR`; the same count whatever",
"the load; the bare append has no virtual call, so the spawn's instruction target is 2x the",
"tracer's own one-slot event):",
"",
]
if ir_note:
    lines += [f"- {ir_note}."]
else:
    ir = {l.split()[0]: float(l.split()[1]) for l in open(f"{work}/ir.txt") if l.strip()}
    lines += [f"- `{k}`: {v:.1f}" for k, v in ir.items()]
    if "TaskSpawned" in ir and "TaskEnded" in ir and "BareAppend" in ir:
        lines += [f"- spawn / one-slot tracer event: **{ir['TaskSpawned'] / ir['TaskEnded']:.2f}x**; "
                  f"spawn / bare append: {ir['TaskSpawned'] / ir['BareAppend']:.2f}x"]
lines += [
"",
"## Whole programs, traced vs untraced",
"",
f"Wall time, median of {runs} runs each ({os.environ.get('WORKER_RUNS', '21')} for the worker, "
f"{os.environ.get('TSAN_RUNS', '3')} under TSan), traced and untraced runs alternated.",
"",
"| program | untraced (s) | traced (s) | ratio |",
"|---|---:|---:|---:|",
]
for name, label in [("stress", "`trace-probe stress 20000 16` (20 000 tasks, each a thread, 16 spawners)"),
                    ("legacy", "`legacy-vela --fixed --builds 6` (real processes)"),
                    ("worker", "`tether-worker run --build-limit 4` with 100 builds of `examples/hello.yml`"),
                    ("tsan", "the stress run built with ThreadSanitizer")]:
    r = wall_row(name, label)
    if r: lines.append(r)
if worker_note:
    lines += ["", f"Reference worker, 100 builds: {worker_note}."]
if tsan_note:
    lines += ["", f"ThreadSanitizer: {tsan_note}."]
if "tsan" in walls and "stress" in walls:
    plain = statistics.median(walls["stress"]["untraced"])
    tsan = statistics.median(walls["tsan"]["untraced"])
    lines += ["", f"The same stress run under ThreadSanitizer instead of the tracer: {tsan:.3f} s, "
              f"**{tsan / plain:.1f}x** the plain untraced run (what users would otherwise reach for)."]
lines += [
"",
"Whole-program rows are wall times of short runs on a loaded machine: read the ratio with the",
"spread in mind (the worker's 100 hello builds take one to two seconds here; its traced runs record",
f"{sum(1 for _ in open(work + '/worker.jsonl')) if os.path.exists(work + '/worker.jsonl') else '?'} events).",
"",
"## Trace size and buffer memory",
"",
f"- `trace-probe stress 100000 16`, traced: {records} records, {nbytes} bytes: "
f"**{nbytes / records:.0f} bytes per event** on disk (JSON lines with file, line and function names).",
f"- Peak buffer memory: {stats['peak_rings']} thread buffers of {int(stats['ring_bytes']) // 1024} KiB in use at once "
f"= **{peak / 1024 / 1024:.1f} MiB** (buffers are reused across threads; one per live thread).",
f"- Lost events: {stats['lost']}.",
f"- Microbenchmark trace file: {bench_err.splitlines()[-1] if bench_err else '?'}",
"",
"## Machine and command",
"",
f"- Machine: {os.cpu_count()} CPUs (`nproc`), {model}, {platform.system()} {platform.release()}; shared with other builds while measured.",
f"- Command: `bench/trace.bench.sh BUILD_DIR RESULTS_DIR` (microbenchmark: `{bench_cmd}`).",
]
open(out_path, "w").write("\n".join(lines) + "\n")
print(open(out_path).read())
PY
