#!/usr/bin/env bash
# Runs every benchmark of Tether and writes the figures to bench/results/.
# Argument: the build dir. Each benchmark records its command beside its figures.
set -euo pipefail
build="$1"
src="$(cd "$(dirname "$0")/.." && pwd)"
results="$src/bench/results"
mkdir -p "$results"
for script in "$src"/bench/*.bench.sh; do
  [[ -e "$script" ]] || continue
  echo "== $(basename "$script")"
  bash "$script" "$build" "$results"
done
