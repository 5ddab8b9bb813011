#!/bin/bash
# zombies.sh WORKER OUT: runs Inputs/escaped-exits.yml; while its second step
# runs (after the escaped children of the first have exited), prints how
# many zombie children the worker has ("zombies=N"), then "exit=<status>".
set -u
worker=$1 out=$2
here=$(dirname "$0")
sed "s|@OUT@|$out|g" "$here/escaped-exits.yml" > "$out/escaped-exits.yml"
"$worker" run --quiet --results "$out/results" "$out/escaped-exits.yml" &
pid=$!
for _ in $(seq 600); do [ -f "$out/started" ] && break; sleep 0.05; done
# Each escaped child has exited (it is gone, or a zombie nobody reaped).
for child in $(cat "$out/escaped.pids"); do
  for _ in $(seq 100); do
    state=$(sed 's/.*) //' "/proc/$child/stat" 2>/dev/null | cut -d' ' -f1)
    [ -z "$state" ] || [ "$state" = Z ] && break
    sleep 0.05
  done
done
sleep 0.5
zombies=0
for stat in /proc/[0-9]*/stat; do
  fields=$(sed 's/.*) //' "$stat" 2>/dev/null) || continue
  set -- $fields
  [ "${1:-}" = Z ] && [ "${2:-}" = "$pid" ] && zombies=$((zombies + 1))
done
echo "zombies=$zombies"
touch "$out/go"
wait "$pid"
echo "exit=$?"
