#!/bin/bash
# worker_build_ids.bench.sh WORKER N: seconds from starting `WORKER run` with
# N copies of one pipeline (a single `true` step) until the first build's
# build.json exists; then SIGTERM (the rest are recorded as canceled).
# Compare two workers (before/after) in the same invocation of the machine.
set -u
worker=$1 n=$2
dir=$(mktemp -d)
cd "$dir"
printf 'version: "1"\nsteps:\n  - name: t\n    image: alpine:latest\n    commands:\n      - "true"\n' > one.yml
out=$dir/results
args=(); for i in $(seq "$n"); do args+=(one.yml); done
start=$(date +%s.%N)
"$worker" run --quiet --results "$out" "${args[@]}" > /dev/null 2>&1 &
pid=$!
while [ ! -f "$out/one-1/build.json" ]; do sleep 0.01; done
end=$(date +%s.%N)
kill -TERM $pid; wait $pid
echo "$n builds: first build.json after $(echo "$end - $start" | bc) s"
rm -rf "$dir"
