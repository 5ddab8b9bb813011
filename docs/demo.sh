#!/usr/bin/env bash
# The main job of `./run demo`, on the embedded default. Argument: the build dir.
set -euo pipefail
build="$1"
src="$(cd "$(dirname "$0")/.." && pwd)"
out="${TETHER_DEMO_OUT:-$build/demo}"
mkdir -p "$out"
echo "== libtether example: a build with a timeout, a group and a channel"
"$build/lib/context/tether-example"
