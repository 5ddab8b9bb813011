#!/usr/bin/env bash
# The main job of `./run demo`, on the embedded default (no queue server, no
# network): the reference worker runs its example pipelines under the tracer,
# the tracer proves them clean and finds the zombies of the pre-fix Vela flow
# and of a plain std::thread program (no libtether, its threads traced),
# the checker lints the worker and the legacy Vela code, and the reports are
# written. Argument: the build dir. Output: $TETHER_DEMO_OUT (default BUILD/demo).
set -euo pipefail
build="$(cd "$1" && pwd)"
src="$(cd "$(dirname "$0")/.." && pwd)"
out="${TETHER_DEMO_OUT:-$build/demo}"
rm -rf "$out"
mkdir -p "$out"
tether="$build/tool/tether"
worker="$build/worker-reference/tether-worker"
legacy="$build/test/trace/legacy-vela"
examples=(hello stages service secrets continue large-log timeout)
# The secrets example takes its secret from the worker's environment; the
# demo's value must never appear in a log (it is masked as ***).
export DEPLOY_TOKEN=demo-s3cr3t

# expect WANT CMD...: runs CMD, and fails the demo if its exit code is not WANT.
expect() {
  local want="$1"; shift
  local rc=0
  "$@" || rc=$?
  if [[ $rc -ne $want ]]; then
    echo "demo: '$*' exited $rc, expected $want" >&2
    exit 1
  fi
}

step() { printf '\n== %s\n' "$*"; }

step "libtether: a build with a timeout, a task group and a log channel"
expect 0 "$build/lib/context/tether-example"

files=()
for e in "${examples[@]}"; do files+=("$src/worker-reference/examples/$e.yml"); done

step "tether-worker validates the example pipelines"
expect 0 "$worker" validate "${files[@]}"

step "tether-worker runs them under the tracer (two at a time; 'timeout' fails on purpose, 'continue' succeeds past a failing step)"
# tether-worker exits 1 because the timeout example fails by design; the tracer
# then exits 3 ("the program failed, no zombies or leaks"). Any zombie, leak or
# unwaited group would make it exit 1 and fail the demo.
expect 3 "$tether" trace --out "$out/worker.trace" -- \
  "$worker" run --quiet --build-limit 2 --build-timeout 30s --results "$out/results" "${files[@]}"
if grep -rq "demo-s3cr3t" "$out/results"; then echo "demo: a secret leaked into a log" >&2; exit 1; fi
echo "build results:"
for f in "$out"/results/*/build.json; do
  python3 -c 'import json,sys; b=json.load(open(sys.argv[1])); print("  %-28s %s" % (sys.argv[1].split("/")[-2], b["status"]))' "$f"
done

step "tether-worker serve on a spool directory (under the tracer): submit queues builds, serve runs them, status reports"
spool="$out/spool"
mapfile -t jobs < <("$worker" submit --queue "dir:$spool" "$src/worker-reference/examples/hello.yml" \
  "$src/worker-reference/examples/stages.yml" "$src/worker-reference/examples/secrets.yml")
[[ ${#jobs[@]} -eq 3 ]] || { echo "demo: tether-worker submit failed" >&2; exit 1; }
echo "submitted: ${jobs[*]}"
"$tether" trace --out "$out/serve.trace" -- "$worker" serve --queue "dir:$spool" --build-limit 2 --quiet \
  --results "$out/serve-results" > "$out/serve.txt" 2>&1 &
traced=$!
for _ in $(seq 600); do
  left=0
  for j in "${jobs[@]}"; do "$worker" status --queue "dir:$spool" "$j" | grep -q "^state: done" || left=1; done
  [[ $left -eq 0 ]] && break
  sleep 0.1
done
serve_pid=$(cut -d' ' -f1 "/proc/$traced/task/$traced/children")
kill -TERM "$serve_pid"
rc=0; wait "$traced" || rc=$?
if [[ $rc -ne 0 || $left -ne 0 ]]; then
  cat "$out/serve.txt" >&2
  echo "demo: serve under the tracer exited $rc (pending builds: $left)" >&2; exit 1
fi
grep "SUMMARY" "$out/serve.txt" | sed 's/^/  /'
for j in "${jobs[@]}"; do
  "$worker" status --queue "dir:$spool" "$j" | awk -v j="$j" '/^status:/ {printf "  %-28s %s\n", j, $2}'
done
if grep -rq "demo-s3cr3t" "$out/serve-results"; then echo "demo: a secret leaked into a log" >&2; exit 1; fi

step "a plain std::thread program, no libtether, fully static (test/trace/Inputs/wrapped-threads.cpp, linked with Tether::threads_wrap): a leak expected"
echo "-- one thread joined (not reported), one detached and still running at exit: tether trace reports it at its line"
expect 1 "$tether" trace --out "$out/wrapped-threads.trace" -- "$build/test/trace/wrapped-threads" leak

step "the pre-fix Vela worker flow (test/trace/legacy) under the tracer: zombies expected"
expect 1 "$tether" trace --out "$out/legacy.trace" -- "$legacy" --builds 3

step "the same flow with the seed's fix applied: clean"
expect 0 "$tether" trace --out "$out/legacy-fixed.trace" -- "$legacy" --fixed --builds 3

step "a plain std::thread program, not linked with libtether (test/trace/Inputs/threads-probe.cpp), its threads traced through libtether_threads.so"
threads_probe="$build/test/trace/threads-probe"
echo "-- a thread started inside a tether/trace/scope.h scope outlives it, and so does the one it starts: zombies expected"
expect 1 "$tether" trace --out "$out/threads-zombie.trace" -- "$threads_probe" scope-zombie
echo "-- a small pool whose workers are joined: clean"
expect 0 "$tether" trace --out "$out/threads-pool.trace" -- "$threads_probe" pool

step "tether check on the pre-fix Vela code (test/check/vela-legacy): findings expected"
mkdir -p "$out/vela-legacy-db"
python3 "$src/test/check/Inputs/make_compdb.py" "$src/test/check/vela-legacy" "$out/vela-legacy-db" \
  -std=c++20 "-I$src/lib/context/include" "-I$src/test/check/vela-legacy/include"
expect 1 "$tether" check -p "$out/vela-legacy-db" --graph "$out/vela-legacy.graph.json" \
  --format sarif --output "$out/vela-legacy.sarif"
"$tether" check -p "$out/vela-legacy-db" 2>/dev/null | grep -E "warning:" | sed 's|^.*/vela-legacy/|  |' || true

step "tether check on tether-worker and libtether (dogfood): clean"
# worker-reference/ and lib/context/ only: `./run test` checks all of lib/ too.
expect 0 "$src/test/dogfood.sh" "$build" worker-reference lib/context

step "reports (the legacy flow's joined with what the checker says about the traced code)"
# The checker's static graph of the traced legacy program itself, so its
# warnings and the trace's zombies meet at the same source lines.
mkdir -p "$out/legacy-db"
python3 "$src/test/check/Inputs/make_compdb.py" "$src/test/trace/legacy" "$out/legacy-db" \
  -std=c++20 "-I$src/lib/context/include"
expect 1 "$tether" check -p "$out/legacy-db" --graph "$out/legacy.graph.json" --output "$out/legacy.check.txt"
for t in worker legacy; do
  static=(); [[ $t == legacy ]] && static=(--static "$out/legacy.graph.json")
  for fmt in html svg perfetto json timeline-svg; do
    ext=$fmt; [[ $fmt == perfetto ]] && ext=perfetto.json; [[ $fmt == timeline-svg ]] && ext=timeline.svg
    extra=(); [[ $fmt == html || $fmt == json ]] && extra=("${static[@]}")
    rc=0; "$tether" report "$out/$t.trace" --format "$fmt" "${extra[@]}" -o "$out/$t.$ext" || rc=$?
    [[ $rc -le 1 ]] || { echo "demo: tether report $t --format $fmt failed ($rc)" >&2; exit 1; }
  done
done
expect 1 "$tether" report "$out/legacy.trace" --static "$out/legacy.graph.json" --format text -o "$out/legacy.static.txt"
sed -n '1,12p' "$out/legacy.static.txt" | sed "s|$src/||"
rc=0; "$tether" report "$out/vela-legacy.graph.json" --format html -o "$out/vela-legacy.static.html" || rc=$?
[[ $rc -le 1 ]] || { echo "demo: tether report of the static graph failed ($rc)" >&2; exit 1; }

cat <<TXT

Done. Open these:
  $out/worker.html               the worker's scope graph (clean)
  $out/legacy.html               the pre-fix Vela flow: the 3 builds' timelines with their zombie overhangs,
                                 the checker's warnings joined to them, the graph with a cluster per build
  $out/legacy.static.txt         the same join as text (legacy.json has it as its "static" record)
  $out/legacy.timeline.svg       the timeline alone
  $out/legacy.svg                the graph as SVG
  $out/legacy.perfetto.json      load in ui.perfetto.dev: one track per task, ZOMBIE slices
  $out/vela-legacy.static.html   the checker's static context-flow graph of the legacy code
  $out/vela-legacy.sarif         the checker's findings as SARIF 2.1.0
  $out/results/                  build.json and one log per step for each example build
TXT
