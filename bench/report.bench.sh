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
import os, platform, resource, statistics, subprocess, sys, time

tether, gen, work, out_md = sys.argv[1:]
sizes = [1000, 10000, 100000]
formats = ["json", "dot", "svg", "html", "perfetto"]
repeats = {1000: 5, 10000: 3, 100000: 3}

def cpu_of_children():
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime

# (wall seconds, CPU seconds) of one whole-process run. CPU time (user+sys of
# the child, including the `dot` it runs) is what the table compares: the
# machine is shared, so wall time also measures the neighbours.
def run(cmd):
    c0, t0 = cpu_of_children(), time.perf_counter()
    p = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    dt, dc = time.perf_counter() - t0, cpu_of_children() - c0
    if p.returncode not in (0, 1):
        sys.exit("failed: %s\n%s" % (" ".join(cmd), p.stderr.decode()))
    return dt, dc

baseline_code = "import json,sys\nfor line in open(sys.argv[1]): json.loads(line)"
rows = []
for n in sizes:
    trace = os.path.join(work, "t%d.jsonl" % n)
    subprocess.run([sys.executable, gen, str(n), trace], check=True)
    size_mb = os.path.getsize(trace) / 1e6
    base = min(run([sys.executable, "-c", baseline_code, trace])[1] for _ in range(repeats[n]))
    for fmt in formats:
        outp = os.path.join(work, "out.%s" % fmt)
        runs = [run([tether, "report", trace, "--format", fmt, "-o", outp]) for _ in range(repeats[n])]
        cpu = min(c for _, c in runs)
        wall = statistics.median(w for w, _ in runs)
        rows.append((n, size_mb, fmt, cpu, wall, base, os.path.getsize(outp) / 1e6))
        print("%7d tasks %-9s cpu %.3fs wall(median) %.3fs (baseline cpu %.3fs)" % (n, fmt, cpu, wall, base), flush=True)

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
            "`tether report TRACE --format F -o OUT` as a whole process: CPU time (user+sys of the process and "
            "the `dot` it runs; best of %s runs) and the median wall time. The machine is shared with other "
            "engineers' builds (load average during the run: %s), so wall time includes waiting for a CPU; "
            "the comparisons use CPU time.\n\n"
            % (", ".join("%d at %dk" % (repeats[n], n // 1000) for n in sizes),
               " / ".join("%.1f" % x for x in os.getloadavg())))
    f.write("**Baseline** (same run, same file): a Python pass that only parses every JSON line of the trace "
            "(`json.loads`), i.e. the cost of reading the input at all. `x baseline` = report CPU time / baseline "
            "CPU time. **Growth** = CPU time per task at this size / CPU time per task at 1k tasks for the same format "
            "(1.0 = perfectly linear). Above 500 tasks the DOT/SVG/HTML graph is grouped by kind, spawn site "
            "and status (docs/reports.md), so graphviz lays out a few dozen nodes at every size.\n\n")
    f.write("| tasks | trace MB | format | CPU s | wall s (median) | CPU µs/task | growth vs 1k | baseline CPU s | x baseline | output MB |\n")
    f.write("|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|\n")
    for n, mb, fmt, best, med, base, outmb in rows:
        f.write("| %d | %.1f | %s | %.3f | %.3f | %.1f | %.2f | %.3f | %.2f | %.1f |\n"
                % (n, mb, fmt, best, med, best / n * 1e6, (best / n) / per_task_1k[fmt], base, best / base, outmb))
print("wrote", out_md)
PY
