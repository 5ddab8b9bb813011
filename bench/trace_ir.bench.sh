#!/usr/bin/env bash
# Instructions per trace event, counted by callgrind (the same count whatever
# else the machine runs): the bare ring append of trace_event_bench, the
# tracer's one-slot TaskEnded and its TaskSpawned (interned name and site),
# each the inclusive count of one call, averaged over every call of a short
# run of the benchmark. Prints one line per function.
# Usage: bench/trace_ir.bench.sh BUILD_DIR
set -euo pipefail
build="${1:?usage: trace_ir.bench.sh BUILD_DIR}"
bin="$build/bench/trace/trace_event_bench"
[[ -x "$bin" ]] || { echo "trace_ir.bench.sh: $bin not built" >&2; exit 3; }
command -v valgrind >/dev/null || { echo "trace_ir.bench.sh: valgrind not installed" >&2; exit 3; }
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
TMPDIR="$work" valgrind --tool=callgrind --callgrind-out-file="$work/cg.out" "$bin" \
  --benchmark_filter='BM_BareRingAppend/.*threads:1$|BM_TracerEvent/.*threads:1$|Spawn' \
  --benchmark_min_time=0.05 >/dev/null 2>&1
# Caller lines "N (..) => file:function (Cx)": N instructions in C calls.
callgrind_annotate --inclusive=yes --show-percs=no "$work/cg.out" |
  grep -E '=> .*(BareAppend|RuntimeTracer::TaskEnded|RuntimeTracer::TaskSpawned)\(' |
  sed -E 's/^ *([0-9,]+) .*(BareAppend|TaskEnded|TaskSpawned)\(.*\(([0-9,]+)x\).*/\2 \1 \3/' | tr -d , |
  awk '{printf "%-12s %6.1f instructions per call (%d calls)\n", $1, $2 / $3, $3}'
