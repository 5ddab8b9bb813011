#!/bin/bash
# follow.sh WORKER OUT: runs Inputs/follow.yml and, while its step still runs,
# waits (up to 20 s) for the step's first line to appear in its log file.
# Prints "followed" or "not in the log while running", then "exit=<status>".
set -u
worker=$1 out=$2
here=$(dirname "$0")
sed "s|@OUT@|$out|g" "$here/follow.yml" > "$out/follow.yml"
"$worker" run --quiet --results "$out/results" "$out/follow.yml" &
pid=$!
seen=no
for _ in $(seq 400); do
  if grep -q "^first line while running" "$out/results/follow-1/slow.log" 2>/dev/null; then
    seen=yes
    break
  fi
  sleep 0.05
done
# The step must still be running: it ends only once go exists.
if [ $seen = yes ] && [ ! -f "$out/results/follow-1/build.json" ]; then
  echo followed
else
  echo "not in the log while running"
fi
touch "$out/go"
wait "$pid"
echo "exit=$?"
