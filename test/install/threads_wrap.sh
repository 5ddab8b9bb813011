#!/usr/bin/env bash
# Installs the build BUILD_DIR into a temporary prefix, builds a static
# std::thread program against its Tether::threads_wrap with find_package and
# runs it under the installed `tether trace`. Prints one "wrap:" line a step.
# Usage: threads_wrap.sh BUILD_DIR WORK_DIR
set -euo pipefail
build="$(cd "${1:?usage: threads_wrap.sh BUILD_DIR WORK_DIR}" && pwd)"
work="${2:?usage: threads_wrap.sh BUILD_DIR WORK_DIR}"
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
rm -rf "$work"
mkdir -p "$work"
prefix="$work/prefix"
log="$work/log"
fail() { echo "wrap: FAILED: $*"; tail -n 40 "$log"; exit 1; }

timeout 300 cmake --install "$build" --prefix "$prefix" >"$log" 2>&1 || fail "cmake --install"
[[ -e "$prefix/lib/libtether_threads_wrap.a" ]] || fail "not installed: lib/libtether_threads_wrap.a"
timeout 300 cmake -S "$here/Inputs/wrap-consumer" -B "$work/build" -G Ninja -DCMAKE_BUILD_TYPE=Debug \
  -DCMAKE_PREFIX_PATH="$prefix" -DWRAPPED_SOURCE="$here/../trace/Inputs/wrapped-threads.cpp" \
  >"$log" 2>&1 || fail "configure"
timeout 600 cmake --build "$work/build" >"$log" 2>&1 || fail "build"
if grep -qi warning "$log"; then fail "the build warned"; fi
file "$work/build/wrapped" | grep -o "statically linked" | sed 's/^/wrap: /'
rc=0
timeout 120 "$prefix/bin/tether" trace -- "$work/build/wrapped" leak >"$work/leak.txt" 2>&1 || rc=$?
grep -E "^LEAK|spawned at|SUMMARY" "$work/leak.txt" || true
echo "wrap: leak exit $rc"
