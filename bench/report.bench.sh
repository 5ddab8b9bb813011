#!/usr/bin/env bash
# Report generation time of `tether report` for synthetic traces of 1k, 10k
# and 100k tasks (bench/report/gen_trace.py), per format, as whole-process
# timings. Baseline, measured in the same run on the same files: a Python
# pass that only parses every JSON line of the trace (json.loads), i.e. the
# cost of reading the input at all. Writes bench/results/report.md.
# Args: BUILD_DIR RESULTS_DIR
set -euo pipefail
build="$(cd "$1" && pwd)"
results="$2"
src="$(cd "$(dirname "$0")/.." && pwd)"
mkdir -p "$results"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
python3 - "$build/tool/tether" "$src/bench/report/gen_trace.py" "$work" "$results/report.md" <<'PY'
import os, platform, statistics, subprocess, sys, time

tether, gen, work, out_md = sys.argv[1:]
sizes = [1000, 10000, 100000]
formats = ["json", "dot", "svg", "html", "perfetto"]
repeats = {1000: 5, 10000: 3, 100000: 3}

def run(cmd):
    t0 = time.perf_counter()
    p = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    dt = time.perf_counter() - t0
    if p.returncode not in (0, 1):
        sys.exit("failed: %s\n%s" % (" ".join(cmd), p.stderr.decode()))
    return dt

baseline_code = "import json,sys\nfor line in open(sys.argv[1]): json.loads(line)"
rows = []
for n in sizes:
    trace = os.path.join(work, "t%d.jsonl" % n)
    subprocess.run([sys.executable, gen, str(n), trace], check=True)
    size_mb = os.path.getsize(trace) / 1e6
    base = min(run([sys.executable, "-c", baseline_code, trace]) for _ in range(repeats[n]))
    for fmt in formats:
        outp = os.path.join(work, "out.%s" % fmt)
        times = [run([tether, "report", trace, "--format", fmt, "-o", outp]) for _ in range(repeats[n])]
        rows.append((n, size_mb, fmt, min(times), statistics.median(times), base, os.path.getsize(outp) / 1e6))
        print("%7d tasks %-9s min %.3fs median %.3fs (baseline %.3fs)" % (n, fmt, min(times), statistics.median(times), base), flush=True)

per_task_1k = {r[2]: r[3] / r[0] for r in rows if r[0] == 1000}
model = "unknown"
for line in open("/proc/cpuinfo"):
    if line.startswith("model name"):
        model = line.split(":", 1)[1].strip()
        break
with open(out_md, "w") as f:
    f.write("# `tether report`: generation time by trace size\n\n")
    f.write("Machine: %d CPUs (`nproc`), %s, %s. Measured by `bench/report.bench.sh`.\n\n"
            % (os.cpu_count(), model, platform.platform()))
    f.write("Command: `bash bench/report.bench.sh BUILD_DIR bench/results` — for each size it generates a "
            "synthetic trace with `bench/report/gen_trace.py N` (one build scope per 50 tasks, a waited "
            "TaskGroup, 8 spawn sites, every 25th task a detached zombie, every 100th never ends), then times "
            "`tether report TRACE --format F -o OUT` as a whole process (best of %s runs; median also shown). "
            "The machine is shared with other builds, so single figures can be noisy.\n\n"
            % ", ".join("%d at %dk" % (repeats[n], n // 1000) for n in sizes))
    f.write("**Baseline** (same run, same file): a Python pass that only parses every JSON line of the trace "
            "(`json.loads`), i.e. the cost of reading the input at all. `x baseline` = report time / baseline "
            "time. **Growth** = time per task at this size / time per task at 1k tasks for the same format "
            "(1.0 = perfectly linear). Above 500 tasks the DOT/SVG/HTML graph is grouped by kind, spawn site "
            "and status (docs/reports.md), so graphviz lays out a few dozen nodes at every size.\n\n")
    f.write("| tasks | trace MB | format | best s | median s | µs/task | growth vs 1k | baseline s | x baseline | output MB |\n")
    f.write("|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|\n")
    for n, mb, fmt, best, med, base, outmb in rows:
        f.write("| %d | %.1f | %s | %.3f | %.3f | %.1f | %.2f | %.3f | %.2f | %.1f |\n"
                % (n, mb, fmt, best, med, best / n * 1e6, (best / n) / per_task_1k[fmt], base, best / base, outmb))
print("wrote", out_md)
PY
