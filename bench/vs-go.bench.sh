#!/usr/bin/env bash
# libtether beside Go itself: each shape of bench/context (spawn + end, a
# group's Go + Wait, WithCancel + cancel, cancel propagation, a buffered
# channel) and its Go twin (bench/go/anchors.go), run alternately ROUNDS
# times in one run; medians and the ratio libtether / Go, with `uptime`
# before and after, go to RESULTS_DIR/vs-go.md as a new dated section on top
# (the sections of earlier runs, with what was written of them, are kept).
# Go (Debian's golang-go) is a benchmark dependency only.
# Usage: bench/vs-go.bench.sh BUILD_DIR RESULTS_DIR [ROUNDS]
set -euo pipefail
build="$(cd "${1:?usage: vs-go.bench.sh BUILD_DIR RESULTS_DIR [ROUNDS]}" && pwd)"
results="${2:?usage: vs-go.bench.sh BUILD_DIR RESULTS_DIR [ROUNDS]}"
rounds="${3:-3}"
src="$(cd "$(dirname "$0")/.." && pwd)"
context_bench="$build/bench/context/context_bench"
spawn_bench="$build/bench/context/spawn_bench"
for b in "$context_bench" "$spawn_bench"; do
  [[ -x "$b" ]] || { echo "vs-go.bench.sh: $b not built" >&2; exit 3; }
done
command -v go >/dev/null || { echo "vs-go.bench.sh: go not installed (apt-get install golang-go)" >&2; exit 3; }
mkdir -p "$results" "$build/bench/go"
anchors="$build/bench/go/anchors"
GO111MODULE=off GOCACHE="$build/bench/go/cache" go build -o "$anchors" "$src/bench/go/anchors.go"

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
before="$(uptime)"
for ((r = 1; r <= rounds; r++)); do
  "$context_bench" --benchmark_format=json \
    --benchmark_filter='BM_WithCancelCancel|BM_CancelPropagation|BM_TaskGroupGoWait|BM_ChannelSendRecv|BM_SelectTwoChannels|BM_MutexCvQueue' \
    > "$work/context.$r.json"
  "$spawn_bench" --benchmark_format=json --benchmark_filter='BM_GoTaskEnd|BM_TaskGroupGoWait' \
    > "$work/spawn.$r.json"
  "$anchors" > "$work/go.$r.txt"
done
after="$(uptime)"

commit="$(git -C "$src" rev-parse --short HEAD 2>/dev/null || echo unknown)"
python3 - "$work" "$rounds" "$results/vs-go.md" "$before" "$after" "$commit" <<'PY'
import datetime, json, os, statistics, sys
work, rounds, out, before, after = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4], sys.argv[5]
commit = sys.argv[6]
title = "# libtether beside Go"
scale = {"ns": 1, "us": 1e3, "ms": 1e6, "s": 1e9}
cpp, go = {}, {}
for r in range(1, rounds + 1):
    for kind in ("context", "spawn"):
        for b in json.load(open("%s/%s.%d.json" % (work, kind, r)))["benchmarks"]:
            if b.get("run_type") != "iteration":
                continue
            # "BM_GoTaskEnd/iterations:1/real_time" -> "BM_GoTaskEnd"; an Arg stays.
            name = "/".join(p for p in b["name"].split("/")
                            if p != "real_time" and not p.startswith("iterations:"))
            cpp.setdefault((kind, name), []).append(b["real_time"] * scale[b["time_unit"]])
            if "cpu_us_a_task" in b:  # the process's user + system time a task
                cpp.setdefault((kind, name + ":cpu"), []).append(b["cpu_us_a_task"])
    for line in open("%s/go.%d.txt" % (work, r)):
        name, value, unit = line.split()
        go.setdefault(name, []).append(float(value))
med = lambda xs: statistics.median(xs)
rows = [
    # shape, libtether ns, go value, unit, factor (ns -> unit)
    ("spawn + task end, 100,000 tasks from 8 threads", ("spawn", "BM_GoTaskEnd"), "spawn_go_task_end", "µs a task", 1e-3 / 1e5),
    ("the same, CPU (user + system)", ("spawn", "BM_GoTaskEnd:cpu"), "spawn_go_task_end_cpu", "µs a task", 1),
    ("a group's Go + Wait, a group per 1,000, 8 threads", ("spawn", "BM_TaskGroupGoWait"), "spawn_group_go_wait", "µs a task", 1e-3 / 1e5),
    ("the same, CPU (user + system)", ("spawn", "BM_TaskGroupGoWait:cpu"), "spawn_group_go_wait_cpu", "µs a task", 1),
    ("one group of 1,000 tasks: Go + Wait", ("context", "BM_TaskGroupGoWait"), "group_go_wait_1000", "ms", 1e-6),
    ("WithCancel + cancel", ("context", "BM_WithCancelCancel"), "with_cancel_cancel", "ns", 1),
    ("cancel 1,000 descendants", ("context", "BM_CancelPropagation/1000"), "cancel_propagation_1000", "µs", 1e-3),
    ("cancel 10,000 descendants", ("context", "BM_CancelPropagation/10000"), "cancel_propagation_10000", "µs", 1e-3),
    ("100,000 ints through a 128-slot channel", ("context", "BM_ChannelSendRecv"), "channel_send_recv", "ms", 1e-6),
    ("Select over two 128-slot channels, 50,000 ints each", ("context", "BM_SelectTwoChannels"), "select_two_channels", "ms", 1e-6),
]
lines = ["## %s at %s: bench/vs-go.bench.sh" % (datetime.date.today().isoformat(), commit), "",
         "Made by `bench/vs-go.bench.sh BUILD_DIR RESULTS_DIR %d`: each libtether benchmark of" % rounds,
         "bench/context and its Go twin (bench/go/anchors.go, Go's `testing.Benchmark`; a group is",
         "errgroup's mechanism, a `sync.WaitGroup` and the first error) run alternately, %d rounds;" % rounds,
         "medians of wall time (and of the process's CPU time, user + system, where a row says",
         "CPU). Ratio = libtether / Go (below 1: libtether is faster).", "",
         "- uptime before: `%s`" % before.strip(), "- uptime after: `%s`" % after.strip(), "",
         "| shape | unit | libtether | Go | libtether / Go |", "|---|---|---:|---:|---:|"]
for shape, key, goname, unit, factor in rows:
    if key not in cpp or goname not in go:
        continue
    a, b = med(cpp[key]) * factor, med(go[goname])
    lines.append("| %s | %s | %.3g | %.3g | %.2f |" % (shape, unit, a, b, a / b))
if ("context", "BM_MutexCvQueue") in cpp and ("context", "BM_ChannelSendRecv") in cpp:
    q, c = med(cpp[("context", "BM_MutexCvQueue")]) * 1e-6, med(cpp[("context", "BM_ChannelSendRecv")]) * 1e-6
    lines += ["", "The C++ baseline of the channel, a mutex and two condition variables around a deque:",
              "%.3g ms for the same 100,000 ints (libtether's channel / it: %.2f)." % (q, c / q)]
# The new section goes on top; the earlier ones stay below it.
earlier = open(out).read() if os.path.exists(out) else ""
if earlier.startswith(title):
    earlier = earlier[len(title):].lstrip("\n")
tmp = out + ".tmp"
with open(tmp, "w") as f:
    f.write(title + "\n\n" + "\n".join(lines) + "\n" + ("\n" + earlier if earlier else ""))
os.replace(tmp, out)
print("\n".join(lines))
PY
