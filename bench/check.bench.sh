#!/usr/bin/env bash
# Benchmark of `tether check` over all of Tether's own translation units,
# as ratios against baselines measured in the same run:
#   - clang++-16 -fsyntax-only on the same TUs with the same flags (target <= 1.25x)
#   - clang-tidy-16 --checks=-*,bugprone-use-after-move (a CFG check; target <= 1.0x)
#   - tether check -j2 vs -j1 (speed-up)
#   - tether check --cache-dir: a second run with a warm cache vs the first (target <= 0.1x)
# Each row notes the 1-minute load average when it ended (other builds share the machine).
# usage: bench/check.bench.sh BUILD_DIR RESULTS_DIR
# TETHER_BENCH_SAMPLE=N measures N of the TUs (spread evenly) instead of all.
# TETHER_BENCH_SKIP_TIDY=1 leaves out the clang-tidy row (saves its run).
# TETHER_BENCH_DB=FILE and TETHER_BENCH_SRC=DIR measure another project: its
# compile_commands.json and its source root (the TUs under it), e.g. one that
# bench/realcode.sh fetched and configured.
# BUILD_DIR: configured with -DTETHER_BUILD_CHECKER=ON, tool/tether built.
set -euo pipefail
build="$(cd "${1:?usage: check.bench.sh BUILD_DIR RESULTS_DIR}" && pwd)"
results="${2:?usage: check.bench.sh BUILD_DIR RESULTS_DIR}"
mkdir -p "$results"
results="$(cd "$results" && pwd)"
src="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
tether="$build/tool/tether"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

# The TUs: every existing C++ file of the project in the database. All three
# tools read the same rewritten database, where a g++ precompiled header
# (`-include .../cmake_pch.hxx`, unreadable by Clang) becomes a plain include,
# as tether check does by itself.
mkdir -p "$work/db"
db="${TETHER_BENCH_DB:-$build/compile_commands.json}"
project="$(cd "${TETHER_BENCH_SRC:-$src}" && pwd)"
python3 - "$db" "$project" "$work" <<'PY'
import json, os, shlex, sys
db, src, work = sys.argv[1:4]
files, cmds, entries = [], [], []
for e in json.load(open(db)):
    path = os.path.normpath(os.path.join(e["directory"], e["file"]))
    if not path.startswith(src + "/") or not os.path.exists(path) or path in files:
        continue
    args = e.get("arguments") or shlex.split(e["command"])
    fixed = []
    i = 0
    while i < len(args):
        if args[i] == "-include" and i + 1 < len(args) and args[i + 1].endswith("cmake_pch.hxx"):
            fixed += ["-Xclang", "-include", "-Xclang", args[i + 1]]
            i += 2
            continue
        fixed.append(args[i])
        i += 1
    entries.append({"directory": e["directory"], "file": path, "arguments": fixed})
    out, skip = [], False
    for a in fixed[1:]:
        if skip: skip = False; continue
        if a in ("-o", "-MF", "-MT", "-MQ"): skip = True; continue
        if a in ("-c", "-MD", "-MMD") or a == e["file"] or a == path: continue
        out.append(a)
    files.append(path)
    cmds.append("(cd %s && clang++-16 -fsyntax-only -w -Wno-unknown-warning-option %s %s) || echo syntax-only-failed: %s >&2" % (
        shlex.quote(e["directory"]), " ".join(shlex.quote(a) for a in out), shlex.quote(path), shlex.quote(path)))
sample = int(os.environ.get("TETHER_BENCH_SAMPLE", "0"))
if sample and sample < len(files):  # every k-th TU, spread over the tree
    step = len(files) / sample
    keep = sorted({int(i * step) for i in range(sample)})
    files = [files[i] for i in keep]
    cmds = [cmds[i] for i in keep]
json.dump(entries, open(os.path.join(work, "db", "compile_commands.json"), "w"))
open(os.path.join(work, "files.txt"), "w").write("\n".join(files) + "\n")
open(os.path.join(work, "syntax.sh"), "w").write("\n".join(cmds) + "\n")
PY
mapfile -t files < "$work/files.txt"
n=${#files[@]}

# Runs a command under /usr/bin/time -v; prints "wall_seconds max_rss_kb load cpu_seconds"
# (cpu = user + system: less sensitive than wall to other work on the machine).
measure() {
  /usr/bin/time -v -o "$work/time.txt" "$@" > /dev/null 2>> "$work/log.txt" || true
  python3 - "$work/time.txt" <<'PY'
import re, sys
t = open(sys.argv[1]).read()
m = re.search(r"Elapsed \(wall clock\) time \(h:mm:ss or m:ss\): (?:(\d+):)?(\d+):([\d.]+)", t)
wall = int(m.group(1) or 0) * 3600 + int(m.group(2)) * 60 + float(m.group(3))
rss = int(re.search(r"Maximum resident set size \(kbytes\): (\d+)", t).group(1))
load = open("/proc/loadavg").read().split()[0]
cpu = sum(float(re.search(rf"{k} time \(seconds\): ([\d.]+)", t).group(1)) for k in ("User", "System"))
print(f"{wall:.2f} {rss} {load} {cpu:.2f}")
PY
}

read -r t1 m1 l1 c1 < <(measure "$tether" check -p "$work/db" -j 1 --quiet "${files[@]}")
read -r ts ms ls cs < <(measure bash "$work/syntax.sh")
if [[ "${TETHER_BENCH_SKIP_TIDY:-0}" == 1 ]]; then
  tt=0 mt=0 lt=skipped ct=0
else
  read -r tt mt lt ct < <(measure clang-tidy-16 -p "$work/db" --quiet --checks='-*,bugprone-use-after-move' "${files[@]}")
fi
read -r t2 m2 l2 c2 < <(measure "$tether" check -p "$work/db" -j 2 --quiet "${files[@]}")
read -r tc mc lc cc < <(measure "$tether" check -p "$work/db" -j 1 --quiet --cache-dir "$work/cache" "${files[@]}")
read -r tw mw lw cw < <(measure "$tether" check -p "$work/db" -j 1 --quiet --cache-dir "$work/cache" "${files[@]}")

tether_summary="$(grep -m1 '^tether check: [0-9]' "$work/log.txt" || true)"
cache_lines="$(grep '^tether check: cache: ' "$work/log.txt" | tr '\n' ';' || true)"
syntax_failures="$(grep -c '^syntax-only-failed' "$work/log.txt" || true)"
ratio() { python3 -c "print(f'{$1 / $2:.2f}' if $2 else 'not measured')"; }
cat > "$results/check.md" <<MD
# tether check benchmark

Machine: $(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'),
$(date -u +%Y-%m-%dT%H:%MZ). Load was shared with other builds (load average at the end:
$(cut -d' ' -f1-3 /proc/loadavg)), so the ratios (measured back to back) matter more than the seconds.

Input: $n translation units of \`$project\` from \`$db\`
(${TETHER_BENCH_SAMPLE:+a sample spread evenly over the tree (TETHER_BENCH_SAMPLE=$TETHER_BENCH_SAMPLE) of }every existing
project file in the database).

| run | wall (s) | CPU (s) | peak RSS (MB) | load at end | ratio (wall; CPU) |
|---|---|---|---|---|---|
| \`tether check -j 1\` (all checks) | $t1 | $c1 | $((m1 / 1024)) | $l1 | 1.00 |
| \`clang++-16 -fsyntax-only\`, same flags, one process per TU | $ts | $cs | $((ms / 1024)) | $ls | tether / syntax-only = **$(ratio "$t1" "$ts")x**; CPU $(ratio "$c1" "$cs")x (target <= 1.0x) |
| \`clang-tidy-16 --checks=-*,bugprone-use-after-move\` | $tt | $ct | $((mt / 1024)) | $lt | tether / clang-tidy = **$(ratio "$t1" "$tt")x**; CPU $(ratio "$c1" "$ct")x (target <= 1.0x) |
| \`tether check -j 2\` | $t2 | $c2 | $((m2 / 1024)) | $l2 | speed-up -j2 over -j1 = **$(ratio "$t1" "$t2")x** (target >= 1.6x) |
| \`tether check -j 1 --cache-dir\`, empty cache (fills it) | $tc | $cc | $((mc / 1024)) | $lc | over no cache = $(ratio "$tc" "$t1")x |
| \`tether check -j 1 --cache-dir\`, warm cache (nothing changed) | $tw | $cw | $((mw / 1024)) | $lw | warm / first = **$(ratio "$tw" "$tc")x**; CPU $(ratio "$cw" "$cc")x (target <= 0.05x) |

Cache runs said: $cache_lines

Sanity: tether check -j 1 said "$tether_summary"; clang++ -fsyntax-only failed on
$syntax_failures TU(s) (a failed TU is cheaper for every tool, so this must be 0 for a fair ratio).

Peak RSS is the largest single process (\`/usr/bin/time -v\`); tether check keeps one AST per
worker thread at a time.

Command: \`${TETHER_BENCH_DB:+TETHER_BENCH_DB=$TETHER_BENCH_DB }${TETHER_BENCH_SRC:+TETHER_BENCH_SRC=$TETHER_BENCH_SRC }${TETHER_BENCH_SAMPLE:+TETHER_BENCH_SAMPLE=$TETHER_BENCH_SAMPLE }${TETHER_BENCH_SKIP_TIDY:+TETHER_BENCH_SKIP_TIDY=$TETHER_BENCH_SKIP_TIDY }bench/check.bench.sh $build $results\`
MD
cat "$results/check.md"
