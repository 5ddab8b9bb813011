#!/usr/bin/env bash
# Pipeline parser benchmark: parse + validate time of the whole Vela corpus
# (LoadPipeline) as a ratio to yaml-cpp's YAML::LoadFile alone on the same
# files, both measured in the same run. Writes RESULTS_DIR/pipeline.md.
# Usage: bench/pipeline.bench.sh BUILD_DIR RESULTS_DIR
set -euo pipefail
build="${1:?usage: pipeline.bench.sh BUILD_DIR RESULTS_DIR}"
results="${2:?usage: pipeline.bench.sh BUILD_DIR RESULTS_DIR}"
bin="$build/bench/pipeline/pipeline_bench"
[[ -x "$bin" ]] || { echo "pipeline.bench.sh: $bin not built" >&2; exit 3; }
mkdir -p "$results"
json="$(mktemp)"
trap 'rm -f "$json"' EXIT
cmd=("$bin" --benchmark_repetitions=7 --benchmark_min_time=0.3
     --benchmark_report_aggregates_only=true --benchmark_format=json)
"${cmd[@]}" > "$json"

python3 - "$json" "$results/pipeline.md" "${cmd[*]}" <<'PY'
import json, os, platform, sys
data = json.load(open(sys.argv[1]))
med = {b["run_name"]: b for b in data["benchmarks"] if b.get("aggregate_name") == "median"}
base, ours, floor = med["BM_YamlCppLoadFile"], med["BM_LoadPipeline"], med["BM_YamlCppEventsOnly"]
def ms(b, key): return b[key] * {"ms": 1, "us": 1e-3, "ns": 1e-6}[b["time_unit"]]
model = next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name")), "?")
files = int(ours.get("files", 0))
cpu_ratio = ms(ours, "cpu_time") / ms(base, "cpu_time")
wall_ratio = ms(ours, "real_time") / ms(base, "real_time")
out = f"""# Pipeline parser benchmark

Parse and validate every file of the Vela corpus (`shared/data/vela-pipelines`)
that yaml-cpp can load ({files} files, {int(ours['bytes'])} bytes) with
`tether::worker::LoadPipeline`, against the limit: yaml-cpp's `YAML::LoadFile`
alone on the same files (read + yaml-cpp node tree, no Vela checks). Medians of 7
repetitions, same process, same run. CPU time is the figure to read: the machine
is shared, so wall time includes waiting for a core.

| benchmark | median wall (ms) | median CPU (ms) | ratio to LoadFile (CPU) | ratio (wall) |
|---|---:|---:|---:|---:|
| `YAML::LoadFile` (baseline) | {ms(base,'real_time'):.2f} | {ms(base,'cpu_time'):.2f} | 1.00 | 1.00 |
| `LoadPipeline` (parse, merges, duplicate keys, schema, validation) | {ms(ours,'real_time'):.2f} | {ms(ours,'cpu_time'):.2f} | **{cpu_ratio:.2f}** | {wall_ratio:.2f} |
| yaml-cpp events only, no tree (the floor under both) | {ms(floor,'real_time'):.2f} | {ms(floor,'cpu_time'):.2f} | {ms(floor,'cpu_time') / ms(base,'cpu_time'):.2f} | {ms(floor,'real_time') / ms(base,'real_time'):.2f} |

How to read it: `LoadPipeline` does not build yaml-cpp's `YAML::Node` tree. It
takes yaml-cpp's parser events (the last row: scanning and parsing with nothing
kept) and builds a lighter tree of its own (an alias is a pointer to the anchored
node, never a copy), then resolves merges and decodes and validates the Vela
schema. The difference between a row and the floor is what that row adds on top
of yaml-cpp's scanner.

- Machine: {os.cpu_count()} CPUs (`nproc`), {model}, {platform.system()} {platform.release()}
- Command: `{sys.argv[3]}`
- Script: `bench/pipeline.bench.sh BUILD_DIR RESULTS_DIR`
"""
open(sys.argv[2], "w").write(out)
print(out)
PY
