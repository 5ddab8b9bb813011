#!/usr/bin/env bash
# Old against new, alternated in one session: runs two builds of a Google
# Benchmark binary in turn, ROUNDS times each, and prints every benchmark's
# median per round side by side (the machine's load drifts; alternating puts
# both sides under the same drift). uptime is printed before and after.
# Usage: bench/ab_alternate.sh OLD_BIN NEW_BIN ROUNDS [benchmark flags...]
#   e.g. bench/ab_alternate.sh /tmp/old/trace_event_bench build/bench/trace/trace_event_bench 3 \
#          --benchmark_filter='BM_BareRingAppend|BM_TracerEvent' --benchmark_min_time=0.1
set -euo pipefail
old="${1:?usage: ab_alternate.sh OLD_BIN NEW_BIN ROUNDS [flags...]}"
new="${2:?usage: ab_alternate.sh OLD_BIN NEW_BIN ROUNDS [flags...]}"
rounds="${3:?usage: ab_alternate.sh OLD_BIN NEW_BIN ROUNDS [flags...]}"
shift 3
for bin in "$old" "$new"; do [[ -x "$bin" ]] || { echo "ab_alternate.sh: $bin is not executable" >&2; exit 3; }; done
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
echo "uptime before: $(uptime)"
for ((r = 1; r <= rounds; r++)); do
  for side in old new; do
    bin="$old"; [[ $side == new ]] && bin="$new"
    TMPDIR="$work" "$bin" --benchmark_repetitions=3 --benchmark_report_aggregates_only=true \
      --benchmark_format=json "$@" > "$work/$side.$r.json" 2> /dev/null
  done
done
echo "uptime after:  $(uptime)"
python3 - "$work" "$rounds" <<'PY'
import json, sys
work, rounds = sys.argv[1], int(sys.argv[2])
rows = {}
for r in range(1, rounds + 1):
    for side in ("old", "new"):
        for b in json.load(open(f"{work}/{side}.{r}.json"))["benchmarks"]:
            if b.get("aggregate_name") != "median":
                continue
            extra = {k: v for k, v in b.items() if k in ("items_per_second", "flush_cpu_ns_per_event")}
            cell = f'{b["real_time"]:.0f} {b["time_unit"]} real, {b["cpu_time"]:.0f} cpu' + "".join(
                f", {k}={v/1e6:.1f}M" if k == "items_per_second" else f", {k}={v:.0f}" for k, v in extra.items())
            rows.setdefault(b["run_name"], []).append(f"{side}{r}: {cell}")
for name, cells in rows.items():
    print(name)
    for c in cells:
        print("   ", c)
PY
